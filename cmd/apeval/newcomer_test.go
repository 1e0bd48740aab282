package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/creack/pty"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/reports/rundir"
)

// TestInitThenRunWithNoFlags is the newcomer's path: apeval init in an
// empty directory, then apeval run with no flags reads apeval.toml, writes
// a run directory under its out pattern and exits with a verdict code.
func TestInitThenRunWithNoFlags(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	code, stdout, stderr := apeval(t, "", "init")
	if code != 0 {
		t.Fatalf("init: exit %d: %s", code, stderr)
	}
	for _, f := range []string{"apeval.toml", "cases.jsonl", "policy.toml"} {
		if !strings.Contains(stdout, f) {
			t.Errorf("init did not list %s: %q", f, stdout)
		}
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	// A second init does not overwrite.
	if code, _, stderr := apeval(t, "", "init"); code != exitUsage || !strings.Contains(stderr, "--force") {
		t.Fatalf("second init: exit %d, %s", code, stderr)
	}

	code, _, stderr = apeval(t, "", "run", "-q")
	if code != exitGo && code != exitNoGo && code != exitInconclusive {
		t.Fatalf("run: exit %d, want a verdict code: %s", code, stderr)
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "apeval-out", "*", "run.json"))
	if len(runs) != 1 {
		t.Fatalf("run directories %v, want one under apeval-out/", runs)
	}
	info, err := rundir.ReadRunInfo(filepath.Dir(runs[0]))
	if err != nil {
		t.Fatal(err)
	}
	s := info.Settings
	if s == nil || s.Config != "apeval.toml" || s.Policy != "policy.toml" || len(s.Datasets) != 1 || s.Datasets[0] != "cases.jsonl" {
		t.Fatalf("run.json settings %+v", s)
	}
	// The file's baseline and two recorded judges were used.
	if info.Baseline != "recorded/ollama/qwen2.5:3b" || len(info.Judges) != 2 {
		t.Fatalf("baseline %q, judges %+v", info.Baseline, info.Judges)
	}
	// The gate reads the same file: same baseline, same verdict code.
	if gc, _, gerr := apeval(t, "", "gate", filepath.Dir(runs[0])); gc != code {
		t.Fatalf("gate: exit %d, run %d: %s", gc, code, gerr)
	}

	// A flag overrides the file. One judge without the file's baseline:
	// an error that says where the baseline came from.
	code, _, stderr = apeval(t, "", "run", "-q", "--judge", "recorded:ollama/qwen2.5:7b-instruct-q4_K_M", "--out", "one")
	if code != exitUsage || !strings.Contains(stderr, "the baseline comes from apeval.toml; pass --baseline") {
		t.Fatalf("file baseline missing from the flag's judges: exit %d: %s", code, stderr)
	}
	code, _, stderr = apeval(t, "", "run", "-q", "--judge", "recorded:ollama/qwen2.5:7b-instruct-q4_K_M", "--baseline", "recorded/ollama/qwen2.5:7b-instruct-q4_K_M", "--out", "one")
	if code == exitUsage {
		t.Fatalf("run with flags over the file: %s", stderr)
	}
	info, err = rundir.ReadRunInfo(filepath.Join(dir, "one"))
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Judges) != 1 {
		t.Fatalf("--judge did not override the file's judges: %+v", info.Judges)
	}
}

// TestConfigUnknownKeyNamesTheLine: unknown keys are errors with the file
// and line, like policies.
func TestConfigUnknownKeyNamesTheLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "apeval.toml")
	os.WriteFile(cfg, []byte("schema = \"apeval.config/v1\"\nconcurrency = 2\n\n[[judge]]\nspec = \"none\"\nprice_inn = 3\n\n[filter]\nlimt = 4\n"), 0o644)
	code, _, stderr := apeval(t, "", "run", "--config", cfg, "-q")
	if code != exitUsage {
		t.Fatalf("exit %d, want 2", code)
	}
	for _, want := range []string{cfg + ":6: judge[0].price_inn: unknown key", cfg + ":9: filter.limt: unknown key"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	// A bad value names its line too.
	os.WriteFile(cfg, []byte("timeout = \"soon\"\n"), 0o644)
	if code, _, stderr := apeval(t, "", "run", "--config", cfg, "-q"); code != exitUsage || !strings.Contains(stderr, ":1: timeout:") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// --config naming a missing file is an error, not a silent default.
	if code, _, _ := apeval(t, "", "run", "--config", filepath.Join(dir, "nope.toml"), "-q"); code != exitUsage {
		t.Fatalf("missing --config: exit %d", code)
	}
}

// TestFilters: --limit and --sample pick whole sessions, --tag reports
// only tagged cases, --rule only that rule; run.json and every report
// header say the run is filtered.
func TestFilters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sessions := func(out string) map[string]int {
		m := map[string]int{}
		for _, r := range readResults(t, out) {
			m[r.SessionID]++
		}
		return m
	}
	// Every session of the sample, with its case count (one judge: none).
	full := filepath.Join(dir, "full")
	apeval(t, "", "replay", "-q", "--judge", "none", "--out", full)
	all := sessions(full)

	lim := filepath.Join(dir, "limit")
	code, stdout, stderr := apeval(t, "", "run", "-q", "--judge", "none", "--limit", "5", "--out", lim, "--format", "table")
	if code == exitUsage {
		t.Fatal(stderr)
	}
	got := sessions(lim)
	if len(got) != 5 {
		t.Fatalf("--limit 5 replayed %d sessions", len(got))
	}
	for id, n := range got {
		if all[id] != n {
			t.Errorf("session %s: %d cases, the full run has %d: not whole", id, n, all[id])
		}
	}
	if !strings.HasPrefix(stdout, "filtered run (first 5 sessions)") {
		t.Errorf("table output does not start with the filter: %q", stdout[:min(len(stdout), 200)])
	}
	md, _ := os.ReadFile(filepath.Join(lim, "summary.md"))
	if !strings.Contains(string(md), "filtered run (first 5 sessions): not the full dataset") {
		t.Errorf("summary.md lacks the filter line")
	}
	html, _ := os.ReadFile(filepath.Join(lim, "report.html"))
	if !strings.Contains(string(html), "filtered run (first 5 sessions)") {
		t.Errorf("report.html lacks the filter line")
	}
	var sj struct {
		Filtered bool `json:"filtered"`
		Run      struct {
			Filter *rundir.Filter `json:"filter"`
		} `json:"run"`
	}
	data, _ := os.ReadFile(filepath.Join(lim, "summary.json"))
	if err := json.Unmarshal(data, &sj); err != nil || !sj.Filtered || sj.Run.Filter == nil || sj.Run.Filter.Limit != 5 {
		t.Errorf("summary.json filter: %v %+v", err, sj)
	}

	// --sample: whole sessions, the same ones for the same seed, others
	// for another seed.
	pick := func(seed string) map[string]int {
		out := filepath.Join(dir, "sample"+seed)
		if code, _, stderr := apeval(t, "", "replay", "-q", "--judge", "none", "--sample", "7", "--seed", seed, "--out", out); code != 0 {
			t.Fatal(stderr)
		}
		return sessions(out)
	}
	a, b, c := pick("3"), pick("3"), pick("4")
	if len(a) != 7 || !sameKeys(a, b) || sameKeys(a, c) {
		t.Fatalf("--sample 7: seed 3 %v, again %v, seed 4 %v", a, b, c)
	}
	for id, n := range a {
		if all[id] != n {
			t.Errorf("sampled session %s not whole", id)
		}
	}

	// --tag ja: only cases tagged ja are reported.
	tag := filepath.Join(dir, "tag")
	apeval(t, "", "replay", "-q", "--judge", "none", "--tag", "ja", "--out", tag)
	rs := readResults(t, tag)
	if len(rs) == 0 {
		t.Fatal("--tag ja reported nothing")
	}
	for _, r := range rs {
		if !datasets.HasAnyTag(r.Tags, []string{"ja"}) {
			t.Fatalf("case %s has tags %v", r.CaseID, r.Tags)
		}
	}

	// --rule: only that rule's decisions; an unknown rule names the rules.
	rule := filepath.Join(dir, "rule")
	apeval(t, "", "replay", "-q", "--judge", "none", "--rule", "irreversible-delete", "--out", rule)
	for _, r := range readResults(t, rule) {
		for _, rr := range r.Rules {
			if rr.RuleID != "irreversible-delete" {
				t.Fatalf("--rule irreversible-delete: row of %s", rr.RuleID)
			}
		}
	}
	if code, _, stderr := apeval(t, "", "replay", "-q", "--rule", "nope", "--out", filepath.Join(dir, "x")); code != exitUsage || !strings.Contains(stderr, "secret-exfiltration") {
		t.Fatalf("--rule nope: exit %d: %s", code, stderr)
	}
}

func sameKeys(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

// ptyRun runs apeval with its stdout on a pseudo-terminal of the given
// width and returns what the terminal received.
func ptyRun(t *testing.T, cols uint16, env map[string]string, args ...string) (int, string) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("pty: %v", err)
	}
	defer ptmx.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Cols: cols, Rows: 50}); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(&got, ptmx)
		close(done)
	}()
	var errb bytes.Buffer
	getenv := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
	code := run(context.Background(), args, IO{In: strings.NewReader(""), Out: tty, Err: &errb, Getenv: getenv})
	tty.Close()
	<-done
	return code, strings.ReplaceAll(got.String(), "\r", "")
}

var colourEscape = regexp.MustCompile("\x1b\\[[0-9;]*m")

// TestTablesFitA100ColumnTerminal: under a 100-column pseudo-terminal no
// line of apeval run's output is wider than 100 (the wide tables are 276);
// colour is on there, and NO_COLOR or --no-color turn it off.
func TestTablesFitA100ColumnTerminal(t *testing.T) {
	wholeProcess(t)
	t.Parallel()
	dir := t.TempDir()
	code, out := ptyRun(t, 100, nil, "run", "-q", "--out", filepath.Join(dir, "a"))
	if code == exitUsage {
		t.Fatalf("exit %d: %s", code, out)
	}
	if !colourEscape.MatchString(out) {
		t.Fatalf("no colour on a terminal: the test would prove nothing\n%s", out)
	}
	widest := 0
	for _, line := range strings.Split(colourEscape.ReplaceAllString(out, ""), "\n") {
		if n := utf8.RuneCountInString(line); n > widest {
			widest = n
		}
		if utf8.RuneCountInString(line) > 100 {
			t.Errorf("line of %d columns: %q", utf8.RuneCountInString(line), line)
		}
	}
	for _, want := range []string{"A = recorded/ollama/qwen2.5:3b", "verdict:", "--wide shows every column"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	// compare fits too, and only judge names become keys.
	_, cmp := ptyRun(t, 100, map[string]string{"NO_COLOR": "1"}, "compare", "--baseline", "recorded/ollama/qwen2.5:3b", filepath.Join(dir, "a"))
	if w := maxWidth(cmp); w > 100 || !strings.Contains(cmp, "vs base") || !strings.Contains(cmp, "B = recorded/ollama/qwen2.5:7b") {
		t.Errorf("compare under 100 columns (widest %d):\n%s", w, cmp)
	}
	// --wide prints everything: wider than 100.
	_, wide := ptyRun(t, 100, nil, "run", "-q", "--wide", "--no-color", "--out", filepath.Join(dir, "b"))
	if maxWidth(wide) <= 100 {
		t.Errorf("--wide output is only %d wide", maxWidth(wide))
	}
	for name, args := range map[string][]string{
		"NO_COLOR":   {"run", "-q", "--out", filepath.Join(dir, "c")},
		"--no-color": {"run", "-q", "--no-color", "--out", filepath.Join(dir, "d")},
	} {
		env := map[string]string{}
		if name == "NO_COLOR" {
			env["NO_COLOR"] = "1"
		}
		_, out := ptyRun(t, 100, env, args...)
		if strings.Contains(out, "\x1b") {
			t.Errorf("%s: escape sequence in the output: %q", name, out[strings.Index(out, "\x1b"):][:20])
		}
		if !strings.Contains(out, "verdict: ") {
			t.Errorf("%s: no tables: %q", name, out)
		}
	}
}

func maxWidth(s string) int {
	m := 0
	for _, line := range strings.Split(s, "\n") {
		m = max(m, utf8.RuneCountInString(line))
	}
	return m
}

// TestCompareHeaderSaysFiltered: compare of a filtered run says so first.
func TestCompareHeaderSaysFiltered(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	if code, _, stderr := apeval(t, "", "run", "-q", "--tag", "ja", "--out", out); code == exitUsage {
		t.Fatal(stderr)
	}
	code, stdout, stderr := apeval(t, "", "compare", "--baseline", "recorded/ollama/qwen2.5:3b", "--format", "table", out)
	if code == exitUsage {
		t.Fatal(stderr)
	}
	if !strings.HasPrefix(stdout, out+": filtered run (tags ja): not the full dataset") {
		t.Fatalf("compare header: %q", stdout[:min(len(stdout), 200)])
	}
}

// TestMergeKeepsCaseColumns: the tool and time columns survive apeval
// merge (they are read back from the shards, not from the dataset).
func TestMergeKeepsCaseColumns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, s := range []string{"1", "2"} {
		if code, _, stderr := apeval(t, "", "replay", "-q", "--shard", s+"/2", "--out", filepath.Join(dir, "shard-"+s)); code != 0 {
			t.Fatal(stderr)
		}
	}
	out := filepath.Join(dir, "all")
	if code, _, stderr := apeval(t, "", "merge", "--out", out, filepath.Join(dir, "shard-1"), filepath.Join(dir, "shard-2")); code == exitUsage {
		t.Fatal(stderr)
	}
	rs := readResults(t, out)
	timed := 0
	for _, r := range rs {
		if r.ToolName == "" || r.Category == "" || r.HookPoint == "" {
			t.Fatalf("merged case %s lost its tool columns: %+v", r.CaseID, r)
		}
		if r.Time != nil {
			timed++
		}
	}
	// Every sample case has a time.
	if len(rs) == 0 || timed != len(rs) {
		t.Fatalf("%d of %d merged results kept their time", timed, len(rs))
	}
}
