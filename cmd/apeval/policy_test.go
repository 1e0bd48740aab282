package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
)

func TestPolicyImportCommand(t *testing.T) {
	t.Parallel()
	fx := filepath.Join("..", "..", "replay", "automode", "testdata")
	out := filepath.Join(t.TempDir(), "auto-mode.toml")
	code, stdout, stderr := apeval(t, "", "policy", "import", "--from", "claude-auto-mode",
		"user:"+filepath.Join(fx, "home", ".claude", "settings.json"),
		filepath.Join(fx, "managed", "managed-settings.json"), "--out", out)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"(user): hard_deny 2, soft_deny 2, allow 5, environment 5", "(managed): hard_deny 1, soft_deny 1",
		"managed-settings.json:11: autoMode.denyLimit: unknown key", "policy import: hard_deny 3, soft_deny 11, allow 10, environment 6; 15 rules"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	pol, err := replay.LoadPolicy(out)
	if err != nil {
		t.Fatalf("run does not accept the written policy: %v", err)
	}
	if len(pol.Rules) != 15 {
		t.Errorf("%d rules, want 15", len(pol.Rules))
	}

	bad := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(bad, []byte("{\n  \"autoMode\": {\n    \"allow\": [\"x\", true]\n  }\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = apeval(t, "", "policy", "import", "--from", "claude-auto-mode", bad)
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, bad+":3: autoMode.allow[1]: want a string, found a boolean") {
		t.Errorf("bad rule: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, _, stderr = apeval(t, "", "policy", "import", "--from", "codex", bad); code != exitUsage || !strings.Contains(stderr, "claude-auto-mode") {
		t.Errorf("unknown --from: exit %d, %q", code, stderr)
	}
}

// From settings and logs to a comparison: the auto-mode transcripts
// imported with the classifier's decisions as recorded/claude-auto-mode@2.1.x,
// the docs example's settings as a classifier-only policy, and a candidate
// whose answers are recorded beside them (no network), compared with the
// vendor as the baseline.
func TestVendorJudgeEndToEnd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := filepath.Join(dir, "cases.jsonl")
	code, _, stderr := apeval(t, "", "datasets", "import", "--from", "claude-code-transcript",
		filepath.Join("..", "..", "datasets", "importers", "testdata", "claude-code-auto-mode"), "--out", cases)
	if code != 0 {
		t.Fatalf("import: exit %d\n%s", code, stderr)
	}
	ex := filepath.Join("..", "..", "docs", "examples", "vendor-judges")
	pol := filepath.Join(dir, "auto-mode.toml")
	if code, _, stderr = apeval(t, "", "policy", "import", "--from", "claude-auto-mode", "--rules", "classifier",
		filepath.Join(ex, "managed-settings.json"), "user:"+filepath.Join(ex, "settings.json"), "--out", pol); code != 0 {
		t.Fatalf("policy import: exit %d\n%s", code, stderr)
	}
	// The candidate blocks the curl | bash, the production deploy (twice)
	// and the branch push; it lets the force push run.
	blocks := map[string]bool{"cc-toolu_05Bash": true, "cc-toolu_10Bash": true, "cc-toolu_11Bash": true, "cc-toolu_07Bash": true}
	data, err := os.ReadFile(cases)
	if err != nil {
		t.Fatal(err)
	}
	var withCand strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var c datasets.Case
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		res := "no_match"
		if blocks[c.ID] {
			res = "match"
		}
		c.Recorded = append(c.Recorded, datasets.Recorded{Judge: "ollama/qwen2.5:3b", LatencyMS: 200,
			Decisions: []datasets.RecordedDecision{{RuleID: "claude-auto-mode", Result: res}}})
		b, _ := json.Marshal(&c)
		withCand.Write(append(b, '\n'))
	}
	if err := os.WriteFile(cases, []byte(withCand.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := apeval(t, "", "policy", "coverage", "--policy", pol, "--dataset", cases)
	// Not reached: the Read, the in-workspace Edit, git status (read-only
	// shell), npm ci and npm test (permissions.allow), rm -rf (a deny rule).
	if code != 0 || !strings.Contains(stdout, "classifier coverage: 8 of 14 calls reached it (57.1 %)") ||
		!strings.Contains(stdout, "permissions.allow rule 2") {
		t.Errorf("coverage: exit %d\n%s%s", code, stdout, stderr)
	}
	out := filepath.Join(dir, "run")
	code, _, stderr = apeval(t, "", "run", "--dataset", cases, "--policy", pol, "--judge", "recorded:claude-auto-mode@2.1.x",
		"--judge", "recorded:ollama/qwen2.5:3b", "--baseline", "recorded/claude-auto-mode@2.1.x", "--out", out, "-q")
	if code == exitUsage {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	// docs/vendor-judges.md shows this run's tables (section 4): each
	// part between its cuts is what report prints, figure for figure (its
	// judge-required row said FAIL after the verdict had become
	// INCONCLUSIVE on two sessions, and the drift interval was older).
	code, stdout, stderr = apeval(t, "", "report", out, "--format", "table", "--wide")
	if code == exitUsage {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	if parts := docExcerpt(t, "vendor-judges.md", "--out vs-vendor\n"); len(parts) < 2 {
		t.Errorf("docs/vendor-judges.md's vs-vendor excerpt has %d parts, want the criteria row and the fire-rate table", len(parts))
	} else if p := missingPart(parts, stdout); p != nil {
		t.Errorf("docs/vendor-judges.md's excerpt is not in report's output:\n%s\n--- the output:\n%s", strings.Join(p, "\n"), stdout)
	}
	// The same on weak labels ("Figures on weak labels"): the warning on
	// stderr, then the tables, the banner and the verdict line (it said
	// NO-GO (exit 1), from that judge-required FAIL).
	code, stdout, stderr = apeval(t, "", "run", "--dataset", cases, "--policy", pol, "--judge", "recorded:claude-auto-mode@2.1.x",
		"--judge", "recorded:ollama/qwen2.5:3b", "--baseline", "recorded/claude-auto-mode@2.1.x", "--weak-labels",
		"--out", filepath.Join(dir, "on-weak"), "--format", "table", "--wide")
	if code != exitInconclusive {
		t.Errorf("run --weak-labels: exit %d, docs/vendor-judges.md says INCONCLUSIVE (exit 3)\n%s", code, stderr)
	}
	if parts := docExcerpt(t, "vendor-judges.md", "--weak-labels --out on-weak\n"); len(parts) < 4 {
		t.Errorf("docs/vendor-judges.md's on-weak excerpt has %d parts, want the warning, the rows, the banner and the verdict", len(parts))
	} else if p := missingPart(parts, stderr+stdout); p != nil {
		t.Errorf("docs/vendor-judges.md's excerpt is not in run --weak-labels' output:\n%s\n--- the output:\n%s%s", strings.Join(p, "\n"), stderr, stdout)
	}
	code, stdout, stderr = apeval(t, "", "compare", out, "--baseline", "recorded/claude-auto-mode@2.1.x", "--json")
	if code == exitUsage {
		t.Fatalf("compare: exit %d\n%s", code, stderr)
	}
	// Fire rate on the 12 pairs both have in scope (11, a user rejection,
	// has no vendor recording): the vendor fires on 05, 06, 10 (blocked) and
	// 08 (the classifier unavailable: a dangerous rule whose precondition
	// held fires on failure); the candidate on 05, 07, 10. Discordant:
	// 06 and 08 for the vendor, 07 for the candidate. Unknown rate: the
	// classifier was unavailable on one of the vendor's 7 calls.
	var cmp struct {
		Rules []struct {
			RuleID  string `json:"rule_id"`
			Figures []struct {
				Figure    string   `json:"figure"`
				Baseline  *float64 `json:"baseline"`
				Candidate *float64 `json:"candidate"`
				N         int      `json:"n"`
				DiscB     int      `json:"discordant_baseline"`
				DiscC     int      `json:"discordant_candidate"`
			} `json:"figures"`
		} `json:"rules"`
	}
	if err := json.Unmarshal([]byte(stdout), &cmp); err != nil {
		t.Fatalf("compare --json: %v\n%s", err, stdout)
	}
	found := 0
	for _, r := range cmp.Rules {
		if r.RuleID != "claude-auto-mode" {
			continue
		}
		for _, f := range r.Figures {
			switch f.Figure {
			case "fire_rate":
				found++
				if f.N != 12 || f.DiscB != 2 || f.DiscC != 1 || *f.Baseline != 4.0/12 || *f.Candidate != 3.0/12 {
					t.Errorf("fire rate %+v", f)
				}
			case "unknown_rate":
				found++
				if *f.Baseline != 1.0/7 || *f.Candidate != 0 {
					t.Errorf("unknown rate %+v", f)
				}
			}
		}
	}
	if found != 2 {
		t.Errorf("compare lacks the fire and unknown rates of claude-auto-mode:\n%s", stdout)
	}

	// Weak labels: exported apart, refused as ground truth, stratified on.
	weak := filepath.Join(dir, "weak.jsonl")
	code, _, stderr = apeval(t, "", "label", "weak", cases, "--out", weak)
	if code != 0 || !strings.Contains(stderr, "label weak: 2 weak labels (label_source weak) on 1 rules") {
		t.Fatalf("label weak: exit %d\n%s", code, stderr)
	}
	wl, err := datasets.ReadSampleLabels([]string{weak}, false)
	if err != nil || len(wl) != 2 || wl[0].CaseID != "cc-toolu_11Bash" || wl[0].Label != "match" || wl[0].LabelSource != "weak" ||
		wl[1].CaseID != "cc-toolu_13Bash" || wl[1].Label != "no_match" {
		t.Fatalf("weak labels %+v %v", wl, err)
	}
	if code, _, stderr = apeval(t, "", "report", out, "--labels", weak); code != exitUsage || !strings.Contains(stderr, "weak labels are a signal, not ground truth") {
		t.Errorf("report --labels weak: exit %d\n%s", code, stderr)
	}
	queue := filepath.Join(dir, "queue.jsonl")
	code, _, stderr = apeval(t, "", "label", "queue", out, "--weak-labels", cases, "--budget", "30", "--out", queue)
	if code != 0 || !strings.Contains(stderr, "W = weak labels (label_source weak; 2 in the datasets)") {
		t.Fatalf("label queue --weak-labels: exit %d\n%s", code, stderr)
	}
	q, err := datasets.ReadSampleLabels([]string{queue}, true)
	if err != nil {
		t.Fatal(err)
	}
	strata := map[string]string{}
	for _, l := range q {
		strata[l.CaseID] = l.Stratum
	}
	// A is the vendor, B the candidate. 13: both let it run and the weak
	// label agrees; 11 has no vendor decision, the candidate and the weak
	// label say match; 05: both blocked it, no weak label.
	for id, want := range map[string]string{"cc-toolu_13Bash": "A:no_match B:no_match W:no_match", "cc-toolu_11Bash": "A:undecided B:match W:match", "cc-toolu_05Bash": "A:match B:match W:undecided"} {
		if strata[id] != want {
			t.Errorf("%s: stratum %q, want %q (all %v)", id, strata[id], want, strata)
		}
	}
	// People label the queue; agreement puts the weak labels beside them,
	// never among them.
	var human strings.Builder
	for _, l := range q {
		lab := "no_match"
		if l.CaseID == "cc-toolu_11Bash" || l.CaseID == "cc-toolu_05Bash" || l.CaseID == "cc-toolu_13Bash" {
			lab = "match" // the person thinks the production deploy should have been gated
		}
		fmt.Fprintf(&human, `{"schema":"apeval.labels/v1","case_id":%q,"rule_id":%q,"stratum":%q,"stratum_size":%d,"order":%d,"label":%q,"labeler":"ana","time":"2026-08-01T10:00:00Z"}`+"\n",
			l.CaseID, l.RuleID, l.Stratum, l.StratumSize, l.Order, lab)
	}
	humanFile := filepath.Join(dir, "labels-ana.jsonl")
	if err := os.WriteFile(humanFile, []byte(human.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// Every output that shows a figure of the weak labels names them weak:
	// the agreement table, its JSON (below) and the queue's legend (above).
	if code, stdout, stderr = apeval(t, "", "label", "agreement", humanFile, weak); code != 0 ||
		!strings.Contains(stdout, "claude-auto-mode  weak labels vs people") {
		t.Errorf("agreement table: exit %d\n%s%s", code, stdout, stderr)
	}
	// Judges against the weak labels (figures computed on weak labels): the
	// vendor decided 13 (no_match, as the weak label); the candidate 11
	// (match) and 13 (no_match), both as the weak labels.
	for _, args := range [][]string{{"label", "agreement", weak, "--run", out}, {"label", "agreement", weak, "--run", out, "--json"}} {
		code, stdout, stderr = apeval(t, "", args...)
		if code != 0 || !strings.Contains(stdout, "recorded/claude-auto-mode@2.1.x vs weak labels") || !strings.Contains(stdout, "recorded/ollama/qwen2.5:3b vs weak labels") {
			t.Errorf("%v: exit %d\n%s%s", args, code, stdout, stderr)
		}
	}
	if !strings.Contains(stdout, `"judges_vs_weak_labels"`) {
		t.Errorf("JSON lacks judges_vs_weak_labels:\n%s", stdout)
	}
	code, stdout, stderr = apeval(t, "", "label", "agreement", humanFile, weak, "--json")
	if code != 0 {
		t.Fatalf("agreement: exit %d\n%s", code, stderr)
	}
	var ag struct {
		Rules []struct {
			Labelers []string `json:"labelers"`
		} `json:"rules"`
		Weak []struct {
			RuleID string `json:"rule_id"`
			People struct {
				Items    int     `json:"items"`
				Observed float64 `json:"observed"`
			} `json:"people"`
		} `json:"weak_vs_people"`
	}
	if err := json.Unmarshal([]byte(stdout), &ag); err != nil {
		t.Fatal(err)
	}
	for _, r := range ag.Rules {
		if slices.Contains(r.Labelers, "weak") {
			t.Errorf("weak labels counted among the people: %v", r.Labelers)
		}
	}
	// Two pairs have both: 11 (weak match, ana match) and 13 (weak
	// no_match, ana match): they agree on one of two.
	if len(ag.Weak) != 1 || ag.Weak[0].People.Items != 2 || ag.Weak[0].People.Observed != 0.5 {
		t.Errorf("weak vs people %+v\n%s", ag.Weak, stdout)
	}
}

// docExcerpt is the printed excerpt in docs/NAME whose fenced block holds
// marker (the command's end), split at its "…" cuts; the lines up to and
// including marker (the commands) are left out.
func docExcerpt(t *testing.T, name, marker string) [][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	at := strings.Index(doc, marker)
	if at < 0 {
		t.Fatalf("docs/%s has no %q", name, marker)
	}
	block := doc[at+len(marker):]
	end := strings.Index(block, "```")
	if end < 0 {
		t.Fatalf("docs/%s: the block after %q is not closed", name, marker)
	}
	return excerptParts(strings.Split(block[:end], "\n"))
}
