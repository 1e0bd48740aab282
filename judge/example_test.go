package judge_test

import (
	"fmt"

	"github.com/apeval/apeval/judge"
)

func ExampleParseOutput() {
	answer := "```json\n" + `{"version":1,"decisions":[{"rule_id":"rule-12","result":"match","confidence":0.91}]}` + "\n```"
	decisions, status, err := judge.ParseOutput([]byte(answer), []string{"rule-12"})
	fmt.Println(status, err, decisions[0].RuleID, decisions[0].Result, *decisions[0].Confidence)

	_, status, err = judge.ParseOutput([]byte(`{"version":1,"decisions":[{"rule_id":"rule-99","result":"match"}]}`), []string{"rule-12"})
	fmt.Println(status, err)
	// Output:
	// ok <nil> rule-12 match 0.91
	// invalid decision for rule "rule-99" that was not asked
}

func ExampleIdentity_String() {
	id := judge.Identity{Backend: "ollama", Model: "qwen2.5:3b", Digest: "a6990ed6be41", PromptVersion: "p1"}
	fmt.Println(id)
	// Output: ollama/qwen2.5:3b@a6990ed6be41+p1
}
