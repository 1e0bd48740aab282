package importers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
)

// A record whose field has the wrong type was reported with the decoder's
// Go names ("invalid JSON: json: cannot unmarshal number into Go struct
// field hookPayload.ToolName of type string"; "message.content: json:
// cannot unmarshal … ccBlock.Name …"): valid JSON called invalid, and a
// field a user cannot find in their log. Found on real hook logs and
// transcripts edited by hand. Now: file:line, the field's path as the log
// spells it (with array indices) and the types.
func TestImportTypeErrorsNameTheField(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		format, name, body, want string
	}{
		{"claude-code-hooks", "hooks.jsonl",
			`{"hook_event_name":"PreToolUse","session_id":"s1","tool_name":"Bash","tool_input":{"command":"ls"}}` + "\n" +
				`{"hook_event_name":"PreToolUse","session_id":"s1","tool_name":5,"tool_input":{"command":"ls"}}` + "\n" +
				`{"hook_event_name":"PreToolUse","session_id":["s1"],"tool_name":"Bash","tool_input":{"command":"ls"}}` + "\n",
			"hooks.jsonl:2: tool_name: want a string, got number\nhooks.jsonl:3: session_id: want a string, got array"},
		{"claude-code-transcript", "transcript.jsonl",
			`{"type":"assistant","sessionId":"s","uuid":"u1","message":{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"text","text":"x"},{"type":"tool_use","id":"t1","name":["Bash"],"input":{}}]}}` + "\n",
			"transcript.jsonl:1: message.content[2].name: want a string, got array"},
		{"codex-rollout", "rollout.jsonl",
			`{"timestamp":"2026-08-03T10:48:56.000Z","type":"session_meta","payload":{"id":"s1","cwd":"/r","cli_version":"0.146.0"}}` + "\n" +
				`{"timestamp":"2026-08-03T10:48:57.000Z","type":"response_item","payload":{"type":"function_call","name":7,"arguments":"{}","call_id":"c1"}}` + "\n",
			"rollout.jsonl:2: payload: name: want a string, got number"},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		sum, err := Import(c.format, []string{path}, Options{}, func(*datasets.Case) error { return nil }, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.format, err)
		}
		got := strings.ReplaceAll(strings.Join(sum.Sources[0].Errors, "\n"), dir+string(filepath.Separator), "")
		if got != c.want {
			t.Errorf("%s: errors\n%s\nwant\n%s", c.format, got, c.want)
		}
		if strings.Contains(got, "Go struct") || strings.Contains(got, "invalid JSON") {
			t.Errorf("%s: %q names the decoder's Go types or calls valid JSON invalid", c.format, got)
		}
	}
}

func TestPathAt(t *testing.T) {
	doc := []byte(`{"a": {"b": [1, {"c": "x", "d": [true, false]}], "e": null}, "f": "g"}`)
	for _, c := range []struct {
		at   string // the offset is where this text starts (or, with a leading '>', ends)
		want string
	}{
		{`"x"`, "a.b[1].c"},
		{`>"x"`, "a.b[1].c"},
		{`false`, "a.b[1].d[1]"},
		{`[true`, "a.b[1].d"},
		{`null`, "a.e"},
		{`"g"`, "f"},
		{`1,`, "a.b[0]"},
	} {
		s, end := c.at, false
		if strings.HasPrefix(s, ">") {
			s, end = s[1:], true
		}
		i := strings.Index(string(doc), s)
		if end {
			i += len(s)
		}
		if got := pathAt(doc, int64(i)); got != c.want {
			t.Errorf("at %q: %q, want %q", c.at, got, c.want)
		}
	}
	if got := pathAt([]byte(`{"a": `), 4); got != "" {
		t.Errorf("cut-off JSON: %q", got)
	}
}
