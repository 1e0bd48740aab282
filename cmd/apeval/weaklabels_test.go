package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/parquet-go/parquet-go"
)

// weakRunFixture is the vendor walk-through's session set with a
// candidate recorded beside the vendor, more weak labels and one person's
// label: the candidate blocks 05, 07, 10 and 11; weak labels say 06 and
// 11 should be stopped (match), 07 and 13 not (no_match); a person
// labeled 05 no_match.
func weakRunFixture(t *testing.T) (dir, cases, pol string) {
	t.Helper()
	dir = t.TempDir()
	cases = filepath.Join(dir, "cases.jsonl")
	if code, _, stderr := apeval(t, "", "datasets", "import", "--from", "claude-code-transcript",
		filepath.Join("..", "..", "datasets", "importers", "testdata", "claude-code-auto-mode"), "--out", cases); code != 0 {
		t.Fatalf("import: exit %d\n%s", code, stderr)
	}
	ex := filepath.Join("..", "..", "docs", "examples", "vendor-judges")
	pol = filepath.Join(dir, "classifier.toml")
	if code, _, stderr := apeval(t, "", "policy", "import", "--from", "claude-auto-mode", "--rules", "classifier",
		filepath.Join(ex, "managed-settings.json"), "user:"+filepath.Join(ex, "settings.json"), "--out", pol); code != 0 {
		t.Fatalf("policy import: exit %d\n%s", code, stderr)
	}
	blocks := map[string]bool{"cc-toolu_05Bash": true, "cc-toolu_07Bash": true, "cc-toolu_10Bash": true, "cc-toolu_11Bash": true}
	weak := map[string]datasets.Label{"cc-toolu_06Bash": datasets.LabelMatch, "cc-toolu_07Bash": datasets.LabelNoMatch}
	data, err := os.ReadFile(cases)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	nWeak := 0
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
		if l, ok := weak[c.ID]; ok {
			c.WeakLabels = map[string]datasets.Label{"claude-auto-mode": l}
		}
		if c.ID == "cc-toolu_05Bash" {
			c.Labels = map[string]datasets.Label{"claude-auto-mode": datasets.LabelNoMatch}
		}
		nWeak += len(c.WeakLabels)
		out, _ := json.Marshal(&c)
		b.Write(append(out, '\n'))
	}
	if nWeak != 4 {
		t.Fatalf("fixture: %d weak labels, want the import's 2 (11 match, 13 no_match) and the 2 added", nWeak)
	}
	if err := os.WriteFile(cases, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, cases, pol
}

// labelFigure finds a figure that rests on labels.
var labelFigure = regexp.MustCompile(`(?i)precision|recall|false.positive|false.negative|TP/FP`)

// checkWeakLines: every line naming a figure on labels says weak, and
// there is at least one.
func checkWeakLines(t *testing.T, what, text string) {
	t.Helper()
	n := 0
	for i, l := range strings.Split(text, "\n") {
		if !labelFigure.MatchString(l) {
			continue
		}
		n++
		if !strings.Contains(strings.ToLower(l), "weak") {
			t.Errorf("%s line %d names a figure on labels without the word weak:\n%s", what, i+1, l)
		}
	}
	if n == 0 {
		t.Errorf("%s shows no figure on labels:\n%s", what, text)
	}
}

// checkWeakTSV: the per-rule TSV has label_source weak on every row.
func checkWeakTSV(t *testing.T, what, text, first string) map[string][]string {
	t.Helper()
	rows := map[string][]string{}
	var head []string
	for _, l := range strings.Split(text, "\n") {
		f := strings.Split(l, "\t")
		if f[0] == first {
			head = f
			continue
		}
		if head == nil || l == "" {
			continue
		}
		if len(f) != len(head) || head[len(head)-1] != "label_source" || f[len(f)-1] != "weak" {
			t.Errorf("%s: row without label_source weak (header %q):\n%s", what, head, l)
			continue
		}
		m := map[string]string{}
		for i, h := range head {
			m[h] = f[i]
		}
		if m["rule_id"] == "*" {
			rows[m["judge"]] = []string{m["labeled"], m["tp"], m["fp"], m["fn"], m["tn"]}
		}
	}
	if head == nil {
		t.Errorf("%s: no table headed %q:\n%s", what, first, text)
	}
	return rows
}

// checkWeakJSON: the JSON says label_source weak at its top.
func checkWeakJSON(t *testing.T, what string, data []byte) {
	t.Helper()
	var top struct {
		LabelSource string `json:"label_source"`
	}
	if err := json.Unmarshal(data, &top); err != nil || top.LabelSource != "weak" {
		t.Errorf("%s: label_source %q (%v), want weak", what, top.LabelSource, err)
	}
}

// htmlText is every text of report.html a reader sees, element by element
// (the charts' SVG text too).
var htmlText = regexp.MustCompile(`(?s)<(td|th|li|p|summary|caption|figcaption|h[1-6]|b|strong|div|text|title)\b[^>]*>([^<]*)`)

// TestWeakLabelFiguresSayWeak: run --weak-labels takes the weak labels as
// ground truth (figures hand-counted), sets the person's label aside, and
// every output — terminal table, TSV, JSON, Markdown, HTML, JUnit, the PR
// comment, summary.json, report, gate and compare — names each figure on
// them weak. Weak and people's labels never mix.
func TestWeakLabelFiguresSayWeak(t *testing.T) {
	t.Parallel()
	dir, cases, pol := weakRunFixture(t)
	vendor, cand := "recorded/claude-auto-mode@2.1.x", "recorded/ollama/qwen2.5:3b"
	runArgs := func(out string, extra ...string) []string {
		return append([]string{"run", "--dataset", cases, "--policy", pol, "--judge", "recorded:claude-auto-mode@2.1.x",
			"--judge", "recorded:ollama/qwen2.5:3b", "--baseline", vendor, "--out", out, "-q"}, extra...)
	}
	run := filepath.Join(dir, "weak")
	code, stdout, stderr := apeval(t, "", runArgs(run, "--weak-labels", "--format", "tsv")...)
	if code == exitUsage {
		t.Fatalf("run --weak-labels: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "computed on weak labels (4 of 14 cases carry one)") ||
		!strings.Contains(stderr, "the dataset's own labels of 1 cases are set aside") {
		t.Errorf("stderr does not say what the figures rest on:\n%s", stderr)
	}
	// By hand, on the weak labels: the candidate misses 06 (FN), blocks 07
	// (FP), blocks 11 (TP), lets 13 run (TN); the vendor blocked 06 (TP),
	// let 07 and 13 run (TN) and has no recording for 11. The person's
	// no_match on 05 (both blocked it: an FP) is not counted.
	got := checkWeakTSV(t, "run --format tsv", stdout, "rule_id")
	want := map[string][]string{cand: {"4", "1", "1", "1", "1"}, vendor: {"3", "1", "0", "0", "2"}}
	for j, w := range want {
		if strings.Join(got[j], "/") != strings.Join(w, "/") {
			t.Errorf("%s labeled/tp/fp/fn/tn = %v, want %v (hand count on the weak labels)", j, got[j], w)
		}
	}
	// The same run on the datasets' labels counts the person's label only.
	plain := filepath.Join(dir, "plain")
	code, stdout, stderr = apeval(t, "", runArgs(plain, "--format", "tsv")...)
	if code == exitUsage || strings.Contains(stdout, "label_source") || strings.Contains(strings.ToLower(stdout), "weak") {
		t.Fatalf("run without --weak-labels: exit %d, mentions weak:\n%s%s", code, stdout, stderr)
	}
	for _, l := range strings.Split(stdout, "\n") {
		if f := strings.Split(l, "\t"); len(f) > 12 && f[0] == "*" && f[1] == cand && strings.Join(f[7:12], "/") != "1/0/1/0/0" {
			t.Errorf("plain run: candidate labeled/tp/fp/fn/tn = %v, want the person's one FP", f[7:12])
		}
	}

	// Every format of every command that shows the figures.
	for _, f := range []string{"table", "markdown"} {
		_, stdout, _ = apeval(t, "", runArgs(filepath.Join(dir, "weak-"+f), "--weak-labels", "--format", f)...)
		checkWeakLines(t, "run --format "+f, stdout)
		_, stdout, _ = apeval(t, "", "report", run, "--format", f)
		checkWeakLines(t, "report --format "+f, stdout)
		_, stdout, _ = apeval(t, "", "compare", run, "--baseline", vendor, "--format", f)
		checkWeakLines(t, "compare --format "+f, stdout)
	}
	_, stdout, _ = apeval(t, "", runArgs(filepath.Join(dir, "weak-json"), "--weak-labels", "--json")...)
	checkWeakJSON(t, "run --json", []byte(stdout))
	_, stdout, _ = apeval(t, "", "report", run, "--format", "tsv")
	checkWeakTSV(t, "report --format tsv", stdout, "rule_id")
	_, stdout, _ = apeval(t, "", "report", run, "--format", "json")
	checkWeakJSON(t, "report --format json", []byte(stdout))
	_, stdout, _ = apeval(t, "", "compare", run, "--baseline", vendor, "--format", "tsv")
	checkWeakTSV(t, "compare --format tsv", stdout, "slice")
	_, stdout, _ = apeval(t, "", "compare", run, "--baseline", vendor, "--json")
	checkWeakJSON(t, "compare --json", []byte(stdout))
	_, stdout, _ = apeval(t, "", "compare", run, "--baseline", vendor, "--comment")
	checkWeakLines(t, "compare --comment", stdout)
	_, stdout, _ = apeval(t, "", "gate", run)
	if !strings.Contains(stdout, "label_source\tweak\t") {
		t.Errorf("gate does not say the figures are weak:\n%s", stdout)
	}
	checkWeakLines(t, "gate", stdout)
	// apeval plan from the weak run plans precision (and drift) on the
	// weak labels: those rows and the notes say so.
	if code, stdout, stderr = apeval(t, "", "plan", run, "--reps", "20"); code != 0 {
		t.Fatalf("plan: exit %d\n%s", code, stderr)
	}
	checkWeakLines(t, "plan", stdout)
	if !strings.Contains(stdout, "precision_min (weak labels)") {
		t.Errorf("plan: the precision row does not say weak:\n%s", stdout)
	}
	_, stdout, _ = apeval(t, "", "plan", run, "--reps", "20", "--json")
	checkWeakJSON(t, "plan --json", []byte(stdout))

	// The run directory's files.
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(run, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	checkWeakLines(t, "summary.md", string(read("summary.md")))
	checkWeakJSON(t, "summary.json", read("summary.json"))
	var info struct {
		LabelSource string `json:"label_source"`
	}
	if err := json.Unmarshal(read("run.json"), &info); err != nil || info.LabelSource != "weak" {
		t.Errorf("run.json label_source %q (%v), want weak", info.LabelSource, err)
	}
	page := string(read("report.html"))
	page = regexp.MustCompile(`(?s)<style.*?</style>`).ReplaceAllString(page, "")
	var texts []string
	for _, m := range htmlText.FindAllStringSubmatch(page, -1) {
		texts = append(texts, strings.Join(strings.Fields(m[2]), " "))
	}
	checkWeakLines(t, "report.html", strings.Join(texts, "\n"))
	if !strings.Contains(page, "Figures on weak labels") {
		t.Errorf("report.html has no weak-label banner")
	}
	var junit struct {
		Suites []struct {
			Properties []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
				Skipped *struct {
					Message string `xml:"message,attr"`
				} `xml:"skipped"`
				Out string `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(read("junit.xml"), &junit); err != nil {
		t.Fatal(err)
	}
	var jl []string
	for _, s := range junit.Suites {
		weak := false
		for _, p := range s.Properties {
			weak = weak || p.Name == "label_source" && p.Value == "weak"
		}
		if !weak {
			t.Errorf("junit.xml: a suite without the property label_source=weak")
		}
		for _, c := range s.Cases {
			jl = append(jl, c.Name)
			if c.Failure != nil {
				jl = append(jl, c.Failure.Message)
			}
			if c.Skipped != nil {
				jl = append(jl, c.Skipped.Message)
			}
			jl = append(jl, strings.ReplaceAll(c.Out, "\n", " "))
		}
	}
	checkWeakLines(t, "junit.xml", strings.Join(jl, "\n"))

	// The machine files: label_source weak on every row of metrics.parquet
	// and compare.parquet, in the run directory and from compare --out.
	cmpOut := filepath.Join(dir, "cmp-out")
	// Any verdict will do (GO, NO-GO or INCONCLUSIVE: the fixture is one
	// imported transcript, whose few sessions decide little); what is
	// checked is the files' label_source.
	if code, _, stderr := apeval(t, "", "compare", run, "--baseline", vendor, "--out", cmpOut); code != exitGo && code != exitNoGo && code != exitInconclusive {
		t.Fatalf("compare --out: exit %d\n%s", code, stderr)
	}
	for _, p := range []string{filepath.Join(run, "metrics.parquet"), filepath.Join(run, "compare.parquet"), filepath.Join(cmpOut, "compare.parquet")} {
		if rows, weak := labelSourceWeak(t, p); rows == 0 || weak != rows {
			t.Errorf("%s: label_source weak on %d of %d rows, want every row", p, weak, rows)
		}
	}

	// Never mixed: people's labels on a weak run, weak and plain runs read
	// together, --labels with --weak-labels.
	labels := filepath.Join(dir, "labels.jsonl")
	if err := os.WriteFile(labels, []byte(`{"schema":"apeval.labels/v1","case_id":"cc-toolu_05Bash","rule_id":"claude-auto-mode","label":"no_match","labeler":"ana"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"report", run, "--labels", labels},
		{"compare", run, "--baseline", vendor, "--labels", labels},
		{"report", run, plain, "--out", filepath.Join(dir, "both")},
		{"compare", run, plain, "--baseline", vendor},
		runArgs(filepath.Join(dir, "mixed"), "--weak-labels", "--labels", labels),
	} {
		code, _, stderr := apeval(t, "", args...)
		if code != exitUsage || !strings.Contains(stderr, "never mixed") {
			t.Errorf("%v: exit %d, want %d naming the mix:\n%s", args, code, exitUsage, stderr)
		}
	}
}

// labelSourceWeak counts a Parquet file's rows and those whose
// label_source is "weak".
func labelSourceWeak(t *testing.T, path string) (rows, weak int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	col, ok := pf.Schema().Lookup("label_source")
	if !ok {
		t.Fatalf("%s has no label_source column", path)
	}
	for _, rg := range pf.RowGroups() {
		rows += int(rg.NumRows())
		pages := rg.ColumnChunks()[col.ColumnIndex].Pages()
		for {
			p, err := pages.ReadPage()
			if err != nil {
				break
			}
			vals := make([]parquet.Value, p.NumValues())
			n, _ := p.Values().ReadValues(vals)
			for _, v := range vals[:n] {
				if !v.IsNull() && v.String() == "weak" {
					weak++
				}
			}
		}
		pages.Close()
	}
	return rows, weak
}

// TestWeakLabelSimulateSaysWeak: apeval simulate on a run on weak labels
// says so in every output: the table (each figure on labels marked, the
// banner), TSV (label_source weak on every row), JSON (top-level
// label_source), simulate.json and simulate.parquet (label_source weak on
// every row); on a run on the datasets' labels none of them does.
func TestWeakLabelSimulateSaysWeak(t *testing.T) {
	t.Parallel()
	dir, cases, pol := weakRunFixture(t)
	runArgs := func(out string, extra ...string) []string {
		return append([]string{"run", "--dataset", cases, "--policy", pol, "--judge", "recorded:claude-auto-mode@2.1.x",
			"--judge", "recorded:ollama/qwen2.5:3b", "--out", out, "-q"}, extra...)
	}
	weak, plain := filepath.Join(dir, "weak"), filepath.Join(dir, "plain")
	for run, extra := range map[string][]string{weak: {"--weak-labels"}, plain: nil} {
		if code, _, stderr := apeval(t, "", runArgs(run, extra...)...); code == exitUsage {
			t.Fatalf("run: exit %d\n%s", code, stderr)
		}
	}
	code, stdout, stderr := apeval(t, "", "simulate", weak, "--deployed", "recorded/ollama/qwen2.5:3b", "--format", "table")
	if code == exitUsage {
		t.Fatalf("simulate: exit %d\n%s", code, stderr)
	}
	checkWeakLines(t, "simulate", stdout)
	if !strings.Contains(stdout, "Figures on weak labels") {
		t.Errorf("simulate: no banner\n%s", stdout)
	}
	_, stdout, _ = apeval(t, "", "simulate", weak, "--deployed", "recorded/ollama/qwen2.5:3b", "--format", "tsv")
	checkWeakTSV(t, "simulate --format tsv", stdout, "configuration")
	_, stdout, _ = apeval(t, "", "simulate", weak, "--deployed", "recorded/ollama/qwen2.5:3b", "--format", "json")
	checkWeakJSON(t, "simulate --format json", []byte(stdout))
	data, err := os.ReadFile(filepath.Join(weak, "simulate.json"))
	if err != nil {
		t.Fatal(err)
	}
	checkWeakJSON(t, "simulate.json", data)
	if rows, n := labelSourceWeak(t, filepath.Join(weak, "simulate.parquet")); rows == 0 || n != rows {
		t.Errorf("simulate.parquet: label_source weak on %d of %d rows", n, rows)
	}
	_, stdout, _ = apeval(t, "", "simulate", plain, "--deployed", "recorded/ollama/qwen2.5:3b", "--format", "table")
	if strings.Contains(strings.ToLower(stdout), "weak") {
		t.Errorf("simulate of a run on the datasets' labels mentions weak:\n%s", stdout)
	}
	if rows, n := labelSourceWeak(t, filepath.Join(plain, "simulate.parquet")); rows == 0 || n != 0 {
		t.Errorf("plain simulate.parquet: label_source weak on %d of %d rows", n, rows)
	}
}

// TestWeakLabelDiffSaysWeak: apeval diff within a run on weak labels says
// that fixed and broken rest on them: the text, the JSON, diff.parquet
// (label_source weak on every row) and diff.html's data; a run on the
// datasets' labels says none of it.
func TestWeakLabelDiffSaysWeak(t *testing.T) {
	t.Parallel()
	dir, cases, pol := weakRunFixture(t)
	vendor, cand := "recorded/claude-auto-mode@2.1.x", "recorded/ollama/qwen2.5:3b"
	runArgs := func(out string, extra ...string) []string {
		return append([]string{"run", "--dataset", cases, "--policy", pol, "--judge", "recorded:claude-auto-mode@2.1.x",
			"--judge", "recorded:ollama/qwen2.5:3b", "--out", out, "-q"}, extra...)
	}
	weak, plain := filepath.Join(dir, "weak"), filepath.Join(dir, "plain")
	for run, extra := range map[string][]string{weak: {"--weak-labels"}, plain: nil} {
		if code, _, stderr := apeval(t, "", runArgs(run, extra...)...); code == exitUsage {
			t.Fatalf("run: exit %d\n%s", code, stderr)
		}
	}
	diffArgs := func(run string, extra ...string) []string {
		return append([]string{"diff", run, "--baseline", vendor, "--candidate", cand}, extra...)
	}
	code, stdout, stderr := apeval(t, "", diffArgs(weak)...)
	if code != 0 {
		t.Fatalf("diff: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "weak labels (run --weak-labels: users' overrides, not reviews): ") || !strings.Contains(stdout, "fixed (weak)") {
		t.Errorf("diff text does not say weak:\n%s", stdout)
	}
	_, stdout, _ = apeval(t, "", diffArgs(weak, "--json")...)
	checkWeakJSON(t, "diff --json", []byte(stdout))
	out := filepath.Join(dir, "diff-out")
	if code, _, stderr := apeval(t, "", diffArgs(weak, "--out", out)...); code != 0 {
		t.Fatalf("diff --out: exit %d\n%s", code, stderr)
	}
	if rows, n := labelSourceWeak(t, filepath.Join(out, "diff.parquet")); rows == 0 || n != rows {
		t.Errorf("diff.parquet: label_source weak on %d of %d rows", n, rows)
	}
	page, err := os.ReadFile(filepath.Join(out, "diff.html"))
	if err != nil || !strings.Contains(string(page), `"label_source":"weak"`) {
		t.Errorf("diff.html carries no label_source weak (%v)", err)
	}
	_, stdout, _ = apeval(t, "", diffArgs(plain)...)
	if strings.Contains(stdout, "weak") {
		t.Errorf("diff of a run on the datasets' labels says weak:\n%s", stdout)
	}
}
