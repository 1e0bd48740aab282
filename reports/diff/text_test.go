package diff

import (
	"strings"
	"testing"
)

// TestWriteTextTables: each table is aligned on its own (columns two
// spaces apart, widths in runes so "→" counts one, the last column
// unpadded), a blank line before each, and weak labels rename fixed and
// broken in the rules' header.
func TestWriteTextTables(t *testing.T) {
	s := &Summary{
		Base:   RunRef{Dir: "a", Judge: "j1"},
		Head:   RunRef{Dir: "b", Judge: "j2"},
		Counts: Counts{Cases: 10, Loosened: 1, Tightened: 2, Unchanged: 7},
		Transitions: []Transition{
			{From: "deny_current_tool", To: "allow", Cases: 1, Class: "loosened"},
			{From: "allow", To: "stop_task", Cases: 12, Class: "tightened"},
		},
		TopLoosened: []*Case{{CaseID: "c1", SessionID: "s1", Seq: 3, Tool: "Bash",
			Base: Side{Gate: "deny_current_tool", Fired: []string{"r1", "r2"}}, Head: Side{Gate: "allow"}}},
		Rules:       []RuleCounts{{Rule: "r1", On: 0, Off: 1, Fixed: 1}, {Rule: "rule-long", On: 12}},
		LabelSource: "weak",
	}
	var b strings.Builder
	if err := s.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `diff: base a (j1) → head b (j2)
10 cases in common: 1 loosened, 2 tightened, 0 changed, 7 unchanged
weak labels (run --weak-labels: users' overrides, not reviews): 0 cases fixed, 0 broken, 0 mixed (0 rule results fixed, 0 broken)
0 sessions diverge; 0 cases differ in a rule's answer

gate                       cases  class
deny_current_tool → allow  1      loosened
allow → stop_task          12     tightened

top loosened  session#seq  tool  gate                       fired (base → head)
c1            s1#3         Bash  deny_current_tool → allow  r1,r2 → -

rule       fires only head  fires only base  fixed (weak)  broken (weak)
r1         0                1                1             0
rule-long  12               0                0             0
`
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
