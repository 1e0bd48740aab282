package datasets_test

import (
	"fmt"
	"strings"

	"github.com/apeval/apeval/datasets"
)

// Read a dataset from stdin ("-"): each record is a case or a line error,
// and reading goes on past bad lines.
func ExampleOpen() {
	in := `{"id":"c1","session_id":"s1","tool":{"name":"Bash","arguments":{"command":"rm -rf build"}}}
{"id":"c2","tool":{"name":"Write","arguments_valid":"yes"}}

{"id":"c1","tool":{"name":"WebFetch"}}
`
	r := datasets.Open([]string{"-"}, strings.NewReader(in))
	defer r.Close()
	for r.Scan() {
		rec := r.Record()
		if rec.Err != nil {
			fmt.Println("error:", rec.Err)
			continue
		}
		c := rec.Case
		fmt.Println(c.ID, c.SessionID, c.Seq, c.HookPoint, c.Tool.Category)
	}
	if err := r.Err(); err != nil {
		fmt.Println("fatal:", err)
	}
	// Output:
	// c1 s1 1 tool.before command_execution
	// error: stdin:2: tool.arguments_valid: expected boolean, got string
	// error: stdin:4: id: duplicate id "c1" (first at stdin:1)
}

func ExampleCategoryOf() {
	for _, tool := range []string{"Bash", "apply_patch", "webfetch", "mcp__playwright__browser_click", "mcp__github__create_pull_request", "mcp__db__drop_table", "calculator"} {
		fmt.Println(tool, datasets.CategoryOf(tool))
	}
	// Output:
	// Bash command_execution
	// apply_patch file_change
	// webfetch web_search
	// mcp__playwright__browser_click browser
	// mcp__github__create_pull_request git
	// mcp__db__drop_table data_deletion
	// calculator other
}

// Count what a dataset holds, e.g. to find its recorded judges.
func ExampleStats() {
	st := datasets.NewStats()
	r := datasets.Open([]string{"-"}, datasets.SampleCases())
	defer r.Close()
	for r.Scan() {
		st.AddRecord(r.Record())
	}
	fmt.Println(st.Invalid, st.RecordedJudgeNames())
	// Output:
	// 0 [ollama/qwen2.5:3b ollama/qwen2.5:7b-instruct-q4_K_M]
}
