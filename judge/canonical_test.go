package judge

import (
	"encoding/json"
	"testing"

	"github.com/gowebpki/jcs"
)

// reference is the slow, obviously-right path: encoding/json, then the JCS
// library's transform.
func reference(t *testing.T, in Input) string {
	t.Helper()
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	canon, err := jcs.Transform(raw)
	if err != nil {
		t.Fatal(err)
	}
	return string(canon)
}

func canonicalInputs() []Input {
	full := Input{Version: 1,
		Rules: []Rule{{ID: "rule-12", Condition: "元に戻すことが難しい削除を行おうとしている"}, {ID: "b\"q", Condition: "line\nbreak\t<tag> & \u2028"}},
		Current: Current{Piece: "coding", Movement: "implement", HookPoint: "tool.before",
			Tool: Tool{Name: "Bash", Category: "command_execution", ArgumentsSummary: "rm -rf build",
				Arguments: map[string]any{"command": "rm -rf build", "n": 1e21, "f": 0.1, "neg": -3.0, "big": 9007199254740993.0,
					"nested": map[string]any{"é": true, "a": nil, "€": []any{1.5, "x", map[string]any{}}, "😀": "astral", "\ue000": "bmp-private"},
					"list":   []any{}, "ctrl": "\x01\x1f", "bad": "\xff"}}},
		Context: InContext{LatestUserMessage: "clean the build", ApprovalState: "none",
			RecentMessages:    []Message{{Role: "assistant", Content: "ok"}},
			PreviousRuleFires: []RuleFires{{RuleID: "rule-12", Count: 2}}},
	}
	empty := Input{}
	noArgs := full
	noArgs.Current.Tool.Arguments = nil
	noArgs.Context.RecentMessages = []Message{}
	noArgs.Rules = []Rule{}
	return []Input{full, empty, noArgs, CheckInput()}
}

func TestAppendInputMatchesJCS(t *testing.T) {
	t.Parallel()
	var c Canonical
	for i, in := range canonicalInputs() {
		if got, want := string(c.AppendInput(nil, in)), reference(t, in); got != want {
			t.Errorf("input %d:\n got  %s\n want %s", i, got, want)
		}
	}
}

func FuzzAppendInput(f *testing.F) {
	f.Add("rm -rf x", "k", "v", 1.5, "c")
	f.Add("\xff\x00", "😀", "\ue000", 1e300, "\u2028")
	f.Fuzz(func(t *testing.T, cmd, key, val string, num float64, cond string) {
		in := Input{Version: 1, Rules: []Rule{{ID: key, Condition: cond}},
			Current: Current{Tool: Tool{Name: cmd, Arguments: map[string]any{key: val, "n": num, cmd: []any{val, num}}}},
			Context: InContext{RecentMessages: []Message{{Role: val, Content: cmd}}}}
		raw, err := json.Marshal(in)
		if err != nil {
			return // NaN or ±Inf: not JSON
		}
		want, err := jcs.Transform(raw)
		if err != nil {
			return
		}
		var c Canonical
		if got := c.AppendInput(nil, in); string(got) != string(want) {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	})
}
