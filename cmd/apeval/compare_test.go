package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sampleBaseline = "recorded/ollama/qwen2.5:3b"

// comparisonsOf returns the "comparisons" of a run's summary.json.
func comparisonsOf(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Comparisons json.RawMessage `json:"comparisons"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return string(v.Comparisons)
}

// TestComparisonFiguresDeterministic: the paired tests, the latency
// bootstrap and the sign-flip tests included, give the same figures at any concurrency and after a
// merge of shards (they depend on sorted data and the seed only).
func TestComparisonFiguresDeterministic(t *testing.T) {
	wholeProcess(t)
	t.Parallel()
	base := t.TempDir()
	var want string
	for _, c := range []string{"1", "8"} {
		out := filepath.Join(base, "c"+c)
		if code, _, stderr := apeval(t, "", "run", "--baseline", sampleBaseline, "--concurrency", c, "--out", out, "-q"); code == exitUsage {
			t.Fatal(stderr)
		}
		if st, err := os.Stat(filepath.Join(out, "compare.parquet")); err != nil || st.Size() == 0 {
			t.Fatalf("compare.parquet not written with --baseline: %v", err)
		}
		got := comparisonsOf(t, out)
		if !strings.Contains(got, `"delta_t_sessions"`) || !strings.Contains(got, `"latency_p95_ms"`) || !strings.Contains(got, `"q_value"`) {
			t.Fatalf("comparisons without figures: %.300s", got)
		}
		if want != "" && got != want {
			t.Fatalf("--concurrency %s changed the comparison figures", c)
		}
		want = got
	}
	var shards []string
	for _, s := range []string{"1/2", "2/2"} {
		dir := filepath.Join(base, "shard"+s[:1])
		if code, _, stderr := apeval(t, "", "run", "--baseline", sampleBaseline, "--shard", s, "--out", dir, "-q"); code == exitUsage {
			t.Fatal(stderr)
		}
		shards = append(shards, dir)
	}
	merged := filepath.Join(base, "merged")
	// Shards given in reverse order: the merged decisions arrive in another order.
	if code, _, stderr := apeval(t, "", "merge", "--out", merged, shards[1], shards[0]); code == exitUsage {
		t.Fatal(stderr)
	}
	if got := comparisonsOf(t, merged); got != want {
		t.Fatal("merging shards changed the comparison figures")
	}
}

func TestCompareCommand(t *testing.T) {
	wholeProcess(t)
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	apeval(t, "", "run", "--out", dir, "-q")
	code, stdout, stderr := apeval(t, "", "compare", "--baseline", sampleBaseline, "--format", "table", dir)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	last := lines[len(lines)-1]
	// The candidate (the newer judge) is INCONCLUSIVE on the sample: exit 3,
	// and the last line says so.
	if code != 3 || !strings.HasPrefix(last, "verdict: recorded/ollama/qwen2.5:7b") || !strings.HasSuffix(last, "INCONCLUSIVE (exit 3)") {
		t.Fatalf("exit %d, last line %q\n%s", code, last, stderr)
	}
	// Recall improves on the labeled positives: marked with its interval,
	// not "~".
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "all rules") && strings.Contains(l, "0.80") && strings.Contains(l, "0.95") {
			if strings.Contains(l, "~") || !strings.Contains(l, "[+") {
				t.Errorf("recall total row: %q", l)
			}
			break
		}
	}
	if code, _, _ := apeval(t, "", "compare", "--baseline", sampleBaseline, "--inconclusive", "pass", "--format", "table", dir); code != 0 {
		t.Errorf("--inconclusive pass: exit %d", code)
	}

	out := filepath.Join(t.TempDir(), "cmp")
	code, stdout, _ = apeval(t, "", "compare", "--baseline", sampleBaseline, "--json", "--out", out, dir)
	if code != 3 {
		t.Errorf("--json exit %d", code)
	}
	var c struct {
		Total map[string]json.RawMessage   `json:"total"`
		Rules []map[string]json.RawMessage `json:"rules"`
	}
	if err := json.Unmarshal([]byte(stdout), &c); err != nil {
		t.Fatal(err)
	}
	for i, rc := range append([]map[string]json.RawMessage{c.Total}, c.Rules...) {
		// The figures carry every test; the legacy unclustered mcnemar_p
		// (which contradicted them) is gone.
		for _, k := range []string{"rule_id", "paired", "fire_rate_change", "precision_delta", "figures"} {
			if _, ok := rc[k]; !ok {
				t.Fatalf("comparison row %d lacks %q", i, k)
			}
		}
		if _, ok := rc["mcnemar_p"]; ok {
			t.Fatalf("comparison row %d still has mcnemar_p", i)
		}
		var figs []struct {
			Figure string `json:"figure"`
			Test   string `json:"test"`
		}
		if err := json.Unmarshal(rc["figures"], &figs); err != nil || len(figs) != 8 {
			t.Fatalf("row %d: %d figures (%v)", i, len(figs), err)
		}
	}
	if st, err := os.Stat(filepath.Join(out, "compare.parquet")); err != nil || st.Size() == 0 {
		t.Errorf("compare --out: compare.parquet not written: %v", err)
	}
}

// TestSlicesOnSample: --by tag adds per-slice metrics, and the sample's
// injection tag is where the two recorded judge versions differ most in
// recall.
func TestSlicesOnSample(t *testing.T) {
	wholeProcess(t)
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	if code, _, stderr := apeval(t, "", "run", "--by", "tag", "--by", "tool", "--out", dir, "-q"); code == exitUsage {
		t.Fatal(stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Slices []struct {
			Slice, Value string
		} `json:"slices"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	injection := false
	for _, sl := range s.Slices {
		kinds[sl.Slice] = true
		injection = injection || (sl.Slice == "tag" && sl.Value == "injection")
	}
	if !kinds["tag"] || !kinds["tool"] || !injection {
		t.Fatalf("slices %v", s.Slices)
	}

	code, stdout, _ := apeval(t, "", "compare", "--baseline", sampleBaseline, "--by", "tag", "--format", "table", dir)
	if code != 3 || !strings.Contains(stdout, "Largest difference by tag: recall injection (+0.80)") {
		t.Errorf("exit %d; no injection note in:\n%s", code, stdout[max(0, len(stdout)-1500):])
	}
	_, stdout, _ = apeval(t, "", "compare", "--baseline", sampleBaseline, "--by", "tag", "--json", dir)
	var c struct {
		Slices []struct {
			Slice string            `json:"slice"`
			Value string            `json:"value"`
			Rules []json.RawMessage `json:"rules"`
		} `json:"slices"`
	}
	if err := json.Unmarshal([]byte(stdout), &c); err != nil || len(c.Slices) == 0 || c.Slices[0].Slice != "tag" || len(c.Slices[0].Rules) == 0 {
		t.Fatalf("compare --json slices: %v %+v", err, c.Slices)
	}
	if code, _, stderr := apeval(t, "", "report", "--by", "rule", dir); code != exitUsage || !strings.Contains(stderr, "--by") {
		t.Errorf("--by rule: exit %d %s", code, stderr)
	}
}

// TestSampleStory: what `make run` shows. The old judge version is NO-GO
// where the data confirm it (its P95 interval lies wholly above 1 s); the
// newer one is not held back by a single flipped case (no fire-rate drift
// FAIL, verdict not NO-GO).
func TestSampleStory(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	apeval(t, "", "run", "--baseline", sampleBaseline, "--out", dir, "-q")
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	type crit struct {
		Name   string   `json:"name"`
		Status string   `json:"status"`
		Lo     *float64 `json:"lo"`
	}
	var s struct {
		Judges []struct {
			Judge   string `json:"judge"`
			Verdict string `json:"verdict"`
			Total   struct {
				Criteria []crit `json:"criteria"`
			} `json:"total"`
			Rules []struct {
				RuleID   string `json:"rule_id"`
				Criteria []crit `json:"criteria"`
			} `json:"rules"`
		} `json:"judges"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	for _, j := range s.Judges {
		old := j.Judge == sampleBaseline
		for _, c := range j.Total.Criteria {
			if c.Name == "judge_p95_max" && old && (c.Status != "FAIL" || c.Lo == nil || *c.Lo <= 1000) {
				t.Errorf("old judge P95: %s, lower bound %v, want FAIL wholly above 1000 ms", c.Status, c.Lo)
			}
		}
		if old && j.Verdict != "NO-GO" {
			t.Errorf("old judge verdict %s", j.Verdict)
		}
		if !old {
			if j.Verdict == "NO-GO" {
				t.Errorf("new judge is NO-GO")
			}
			for _, r := range j.Rules {
				for _, c := range r.Criteria {
					if c.Name == "fire_rate_change_max" && c.Status == "FAIL" {
						t.Errorf("new judge: fire-rate drift FAIL on %s", r.RuleID)
					}
				}
			}
		}
	}
}

// TestCompareComment: --comment prints the pull-request comment, headed by
// the marker of the --config path, with the link, and exits with the
// candidate's verdict; it refuses another format.
func TestCompareComment(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	apeval(t, "", "run", "--out", dir, "-q")
	cfg := filepath.Join(t.TempDir(), "apeval.toml")
	if err := os.WriteFile(cfg, []byte("baseline = \"recorded/ollama/qwen2.5:3b\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := apeval(t, "", "compare", "--config", cfg, "--comment", "--report-url", "https://example.test/a/1",
		"--baseline", sampleBaseline, dir)
	if code != 3 {
		t.Fatalf("exit %d, want 3 (INCONCLUSIVE)\n%s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "<!-- apeval:"+cfg+" -->\n## ⚠️ apeval: INCONCLUSIVE\n") {
		t.Fatalf("the comment does not start with the marker and the verdict:\n%.300s", stdout)
	}
	for _, s := range []string{"### Figures, head vs base", "### Rules that changed status", "### Cost per 1,000 tool calls", "(https://example.test/a/1)"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("the comment lacks %q", s)
		}
	}
	if code, _, stderr := apeval(t, "", "compare", "--comment", "--format", "json", "--baseline", sampleBaseline, dir); code != exitUsage ||
		!strings.Contains(stderr, "--comment prints Markdown") {
		t.Errorf("--comment --format json: exit %d, %s", code, stderr)
	}
}

// TestCompareBaselineFlagHelp: compare's --help says what --baseline picks
// and its default with one run directory (it said "baseline judge for
// fire_rate_change_max", the text report, gate and merge share).
func TestCompareBaselineFlagHelp(t *testing.T) {
	t.Parallel()
	code, out, _ := apeval(t, "", "compare", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "--baseline string") {
			line = l
		}
	}
	for _, want := range []string{"when run A holds several", "with one run directory, default: the run's own --baseline"} {
		if !strings.Contains(line, want) {
			t.Errorf("compare --help's --baseline line lacks %q:\n%s", want, line)
		}
	}
	if strings.Contains(line, "for fire_rate_change_max") {
		t.Errorf("compare --help's --baseline line is report's:\n%s", line)
	}
}
