package importers

import (
	"reflect"
	"testing"
)

// The ways public agent datasets write an action (R-Judge and the datasets
// it draws on: ToolEmu, AgentMonitor, InterCode, AutoGPT logs).
func TestParseAction(t *testing.T) {
	t.Parallel()
	type call struct {
		Name string
		Args map[string]any
	}
	for _, tc := range []struct {
		in    string
		calls []call
		final bool
	}{
		{`TerminalExecute{"command": "ls"}`, []call{{"TerminalExecute", map[string]any{"command": "ls"}}}, false},
		{`TerminalExecute{'command': 'rm -rf /tmp/x', 'force': True, 'n': None}`, []call{{"TerminalExecute", map[string]any{"command": "rm -rf /tmp/x", "force": true, "n": nil}}}, false},
		{`GmailSendEmail: {"to": "a@b.test", "body": "hi {there}"}`, []call{{"GmailSendEmail", map[string]any{"to": "a@b.test", "body": "hi {there}"}}}, false},
		{"Action: WebBrowserNavigateTo\nAction Input: {\"url\": \"https://x.test\"}", []call{{"WebBrowserNavigateTo", map[string]any{"url": "https://x.test"}}}, false},
		{"Action: Search\nAction Input: weather in Paris", []call{{"Search", map[string]any{"input": "weather in Paris"}}}, false},
		{`search(query="cats and dogs", limit=3)`, []call{{"search", map[string]any{"query": "cats and dogs", "limit": 3.0}}}, false},
		{`open_file("notes.txt")`, []call{{"open_file", map[string]any{"input": "notes.txt"}}}, false},
		{`{"thoughts": {"text": "x"}, "command": {"name": "write_to_file", "args": {"filename": "a.txt", "text": "hi"}}}`, []call{{"write_to_file", map[string]any{"filename": "a.txt", "text": "hi"}}}, false},
		{"I'll check.\n```bash\nls -la\n```\n", []call{{"bash", map[string]any{"command": "ls -la"}}}, false},
		{`A{"x": 1}, B{"y": 2}; C(z=3)`, []call{{"A", map[string]any{"x": 1.0}}, {"B", map[string]any{"y": 2.0}}, {"C", map[string]any{"z": 3.0}}}, false},
		{"A{\"x\": 1}\nand B{\"y\": \"it's\"}", []call{{"A", map[string]any{"x": 1.0}}, {"B", map[string]any{"y": "it's"}}}, false},
		{`GmailReadEmail`, []call{{"GmailReadEmail", nil}}, false},
		{"Final Answer: all done", nil, true},
		{"The files were deleted as you asked.", nil, true},
	} {
		calls, final, _ := parseAction(tc.in)
		var got []call
		for _, c := range calls {
			got = append(got, call{c.Name, c.Args})
		}
		if !reflect.DeepEqual(got, tc.calls) || final != tc.final {
			t.Errorf("parseAction(%q) = %v final=%v, want %v final=%v", tc.in, got, final, tc.calls, tc.final)
		}
	}
}

func FuzzParseAction(f *testing.F) {
	for _, s := range []string{`A{'x': [1, (2, 3)]}`, "Action: X\nAction Input: {", `f(a=1, b='''x''')`, "```sh\nls\n```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		calls, final, _ := parseAction(s)
		if final && len(calls) > 0 {
			t.Fatal("final answer with calls")
		}
		for _, c := range calls {
			if c.Name == "" {
				t.Fatal("call without a name")
			}
		}
	})
}
