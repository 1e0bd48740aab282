package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPolicyImportCodex: policy import --from codex-auto-review on a team's
// real execpolicy rules and config (yusuke124358/keiba) with a user config
// and managed requirements (counts by hand in replay/automode's tests),
// then policy coverage on the Codex auto-review rollout with a team rules
// file written here: ls is allowed (never reviewed), npm publish forbidden
// (rejected without review, though the recording shows the reviewer
// denied it: the case the coverage calls "classifier on not reached").
func TestPolicyImportCodex(t *testing.T) {
	t.Parallel()
	fx := filepath.Join("..", "..", "replay", "automode", "testdata", "codex")
	dir := t.TempDir()
	pol := filepath.Join(dir, "codex.toml")
	code, _, stderr := apeval(t, "", "policy", "import", "--from", "codex-auto-review",
		filepath.Join(fx, "keiba", ".codex", "rules", "keiba.rules"), "project:"+filepath.Join(fx, "keiba", ".codex", "config.toml"),
		"user:"+filepath.Join(fx, "home", ".codex", "config.toml"), filepath.Join(fx, "managed", "requirements.toml"), "--out", pol)
	if code != 0 || !strings.Contains(stderr, "policy import: prefix rules allow 5, prompt 10, forbidden 8; 9 rules, 13 call shapes that never reach the reviewer") ||
		!strings.Contains(stderr, "auto_review.deny_limit: unknown key") {
		t.Fatalf("import: exit %d\n%s", code, stderr)
	}

	team := filepath.Join(dir, "team.rules")
	if err := os.WriteFile(team, []byte("prefix_rule([\"ls\"], \"allow\")\nprefix_rule(pattern = [\"npm\", \"publish\"], decision = \"forbidden\", justification = \"publish from CI only\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := filepath.Join(dir, "cases.jsonl")
	if code, _, stderr := apeval(t, "", "datasets", "import", "--from", "codex-rollout",
		filepath.Join("..", "..", "datasets", "importers", "testdata", "codex-auto-review"), "--out", cases); code != 0 {
		t.Fatalf("datasets import: exit %d\n%s", code, stderr)
	}
	pol2 := filepath.Join(dir, "team.toml")
	if code, _, stderr := apeval(t, "", "policy", "import", "--from", "codex-auto-review", team, "user:"+filepath.Join(fx, "home", ".codex", "config.toml"), "--out", pol2); code != 0 {
		t.Fatalf("import team rules: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr := apeval(t, "", "policy", "coverage", "--policy", pol2, "--dataset", cases, "--json")
	if code != 0 {
		t.Fatalf("coverage: exit %d\n%s", code, stderr)
	}
	var cv struct {
		Judge string `json:"judge"`
		Total struct {
			Calls, Reached int
			NotReached     int `json:"not_reached"`
			Blocked        int `json:"vendor_blocked"`
			Ran            int `json:"vendor_ran"`
			Failed         int `json:"vendor_failed"`
			NoRecording    int `json:"reached_without_recording"`
			Unseen         int `json:"classifier_on_not_reached"`
		} `json:"total"`
		Reasons map[string]int `json:"not_reached_by_reason"`
	}
	if err := json.Unmarshal([]byte(stdout), &cv); err != nil {
		t.Fatal(err)
	}
	tot := cv.Total
	// npm install (ran), curl (timed out) and git push (aborted review, no
	// recording) reach the reviewer; ls and npm publish do not.
	if cv.Judge != "codex-auto-review" || tot.Calls != 5 || tot.Reached != 3 || tot.NotReached != 2 || tot.Blocked != 1 || tot.Ran != 1 ||
		tot.Failed != 1 || tot.NoRecording != 1 || tot.Unseen != 1 ||
		cv.Reasons["execpolicy allow (runs without review)"] != 1 || cv.Reasons["execpolicy forbidden (rejected without review)"] != 1 {
		t.Errorf("coverage %+v\n%s", cv, stdout)
	}
	if code, _, stderr := apeval(t, "", "policy", "import", "--from", "codex-auto-review", "--defaults", "x.json", team); code != exitUsage || !strings.Contains(stderr, "--defaults") {
		t.Errorf("--defaults with codex: exit %d\n%s", code, stderr)
	}
}
