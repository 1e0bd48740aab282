package replay

import (
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
)

// A judged pair is marked EvidenceAltered when the judge input changed an
// argument the rule refers to: named by its condition or its `when` glob,
// or any argument when it names none. Deterministic pairs never are.
func TestEvidenceAltered(t *testing.T) {
	t.Parallel()
	p := mustPolicy(t, `
[[rule]]
id = "cmd"
condition = "The command deletes data."
class = "audit"
action = "audit_only"
[[rule]]
id = "path"
condition = "The file path is outside the project."
class = "audit"
action = "audit_only"
[[rule]]
id = "glob"
condition = "Something bad."
class = "audit"
action = "audit_only"
[rule.when]
arg_glob = { url = "*" }
[[rule]]
id = "whole"
condition = "The call is unsafe."
class = "audit"
action = "audit_only"
[[rule]]
id = "det"
class = "audit"
action = "audit_only"
[rule.when]
command_prefix = ["rm"]
`)
	long := strings.Repeat("x", maxValueRunes+1)
	cases := []*datasets.Case{
		// Nothing masked or cut: no pair is marked.
		{ID: "plain", Tool: datasets.Tool{Name: "Bash", Arguments: map[string]any{"command": "rm -rf build", "url": "https://example.com"}}},
		// The command carries a key: the rules about the command or the
		// whole call are marked; the rule about the file path is not.
		{ID: "key", Tool: datasets.Tool{Name: "Bash", Arguments: map[string]any{"command": "rm x " + fakeKey, "file_path": "/tmp/a", "url": "u"}}},
		// The file path is cut at the input's bound: "file path" in the
		// condition names file_path.
		{ID: "cut", Tool: datasets.Tool{Name: "Write", Arguments: map[string]any{"file_path": long, "command": "ls", "url": "u"}}},
		// A secret-named key's whole value (a number) is replaced; the url
		// the glob rule is about is masked.
		{ID: "glob", Tool: datasets.Tool{Name: "Fetch", Arguments: map[string]any{"url": "https://u:hunter2pass@example.com/", "token": 12345.0}}},
		// Masked by the importer that wrote the case: the token is in the
		// dataset already, and the judge never saw the key either.
		{ID: "imported", Tool: datasets.Tool{Name: "Bash", Arguments: map[string]any{"command": "curl -H 'Authorization: Bearer [MASKED]' x", "file_path": "/tmp/a"}}},
	}
	want := map[string]map[string]bool{
		"imported": {"cmd": true, "whole": true},
		"plain":    {},
		"key":      {"cmd": true, "whole": true},
		"cut":      {"path": true, "whole": true},
		"glob":     {"glob": true, "whole": true, "cmd": true, "path": true},
	}
	for _, r := range replayAll(t, p, answer(judge.NoMatch), Options{}, cases...) {
		for _, rr := range r.Rules {
			if got := rr.EvidenceAltered; got != want[r.CaseID][rr.RuleID] {
				t.Errorf("case %s rule %s (source %s): evidence altered %v, want %v", r.CaseID, rr.RuleID, rr.Source, got, !got)
			}
		}
	}
}
