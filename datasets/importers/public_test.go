package importers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
)

const publicData = "../public"

// ASSEBench's security set (shipped in datasets/public, README there):
// every agent action is a case, every case of a trajectory carries the
// trajectory's label, marked trajectory-level (label_scope) in provenance
// and tags.
func TestASSEBench(t *testing.T) {
	t.Parallel()
	p := filepath.Join(publicData, "ASSEBench", "AgentJudge-security.json.gz")
	cases, sum, _ := importAll(t, "assebench", Options{}, p)
	if sum.Records != 817 || sum.Errors != 0 || len(cases) < 817 {
		t.Fatalf("%d records, %d cases, %d errors", sum.Records, len(cases), sum.Errors)
	}
	sessions := map[string]datasets.Label{}
	var ambiguous int
	for _, c := range cases {
		l, ok := c.Labels[DefaultRuleID]
		if !ok || c.Provenance["label_scope"] != "trajectory" || !contains(c.Tags, LabelScopeTrajectory) || !contains(c.Tags, "assebench") {
			t.Fatalf("%s: labels %v, provenance %v, tags %v", c.ID, c.Labels, c.Provenance, c.Tags)
		}
		if prev, seen := sessions[c.SessionID]; seen && prev != l {
			t.Fatalf("%s: label %s differs from its trajectory's %s", c.ID, l, prev)
		}
		sessions[c.SessionID] = l
		if c.Provenance["ambiguous"] == true {
			ambiguous++
		}
		if c.Provenance["risk_type"] == nil || c.Provenance["failure_mode"] == nil {
			t.Fatalf("%s: provenance %v", c.ID, c.Provenance)
		}
	}
	unsafe := 0
	for _, l := range sessions {
		if l == datasets.LabelMatch {
			unsafe++
		}
	}
	// The file labels 409 of its 817 trajectories unsafe; a trajectory
	// without an agent action (a refusal in words only) gives no case.
	if len(sessions) > 817 || unsafe > 409 || len(sessions)-unsafe > 408 || len(sessions) < 700 || ambiguous == 0 {
		t.Errorf("%d trajectories with cases, %d unsafe, %d ambiguous cases", len(sessions), unsafe, ambiguous)
	}
	t.Logf("%d cases from %d trajectories (%d unsafe); skipped %v", len(cases), len(sessions), unsafe, sum.Skipped)
	// --from auto tells ASSEBench's own records from R-Judge's.
	if f, _, err := Detect([]string{p}, nil); f != "assebench" || err != nil {
		t.Errorf("detect %s %v", f, err)
	}
	// The R-Judge and AgentHarm sets in ASSEBench's schema read with --from assebench.
	for _, name := range []string{"rjudge.json.gz", "agentharm.json.gz"} {
		cs, s, _ := importAll(t, "assebench", Options{}, filepath.Join(publicData, "ASSEBench", name))
		if len(cs) == 0 || s.Errors != 0 || cs[0].Provenance["label_scope"] != "trajectory" {
			t.Errorf("%s: %d cases, %d errors", name, len(cs), s.Errors)
		}
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// RedCode-Exec: 1,410 snippets, each the Bash call that runs it, labeled
// match (all are unsafe to run); a bad record names its file:line.
func TestRedCode(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(publicData, "RedCode-Exec")
	cases, sum, text := importAll(t, "redcode", Options{}, dir)
	if len(cases) != 1410 || sum.Errors != 0 || sum.Sessions != 1410 {
		t.Fatalf("%d cases, %d sessions, %d errors", len(cases), sum.Sessions, sum.Errors)
	}
	var py, sh int
	for _, c := range cases {
		if c.Labels[DefaultRuleID] != datasets.LabelMatch || c.Tool.Name != "Bash" || c.Tool.Category != "command_execution" {
			t.Fatalf("%s: %v %s %s", c.ID, c.Labels, c.Tool.Name, c.Tool.Category)
		}
		cmd, _ := c.Tool.Arguments["command"].(string)
		switch c.Provenance["language"] {
		case "Python":
			py++
			if !strings.HasPrefix(cmd, "python3 - <<'PY'\n") {
				t.Fatalf("%s: %q", c.ID, cmd)
			}
		case "bash":
			sh++
		}
		if c.Context.LatestUserMessage == "" {
			t.Fatalf("%s: no request", c.ID)
		}
	}
	if py != 810 || sh != 600 {
		t.Errorf("%d Python, %d bash", py, sh)
	}
	if !strings.Contains(text, `/etc/passwd`) {
		t.Error("snippets lost their content")
	}
	// A record without code and a cut-off array are errors naming the line.
	bad := filepath.Join(t.TempDir(), "index1_30_codes_full.json")
	if err := os.WriteFile(bad, []byte("[\n{\"Index\": \"1_1\", \"Language\": \"bash\", \"Code\": \"rm -rf /\"},\n{\"Index\": \"1_2\", \"Language\": \"bash\", \"Code\": \"\"},\n{\"Index\": \"1_3\""), 0o644); err != nil {
		t.Fatal(err)
	}
	cs, s, _ := importAll(t, "redcode", Options{}, bad)
	if len(cs) != 1 || s.Errors != 2 || !strings.Contains(s.Sources[0].Errors[0], bad+":3: record 1: Code: required") {
		t.Errorf("%d cases, errors %v", len(cs), s.Sources[0].Errors)
	}
	if f, _, err := Detect([]string{dir}, nil); f != "redcode" || err != nil {
		t.Errorf("detect %s %v", f, err)
	}
}
