package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/metrics"
	"github.com/parquet-go/parquet-go"
)

// oracleLabels labels the queue from the embedded sample's own labels (a
// person who agrees with the dataset), skipping pairs the sample leaves
// unlabeled.
func oracleLabels(t *testing.T, queue, out string) int {
	t.Helper()
	truth := map[[2]string]datasets.Label{}
	sc := bufio.NewScanner(datasets.SampleCases())
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var c struct {
			ID     string                    `json:"id"`
			Labels map[string]datasets.Label `json:"labels"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		for r, v := range c.Labels {
			truth[[2]string{c.ID, r}] = v
		}
	}
	q, err := datasets.ReadSampleLabels([]string{queue}, true)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	labeled := 0
	for i := range q {
		v, ok := truth[q[i].Key()]
		if !ok {
			v = datasets.SampleSkip
		} else {
			labeled++
		}
		q[i].Label, q[i].Labeler, q[i].Time = v, "oracle", &now
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := datasets.WriteSampleLabels(f, q); err != nil {
		t.Fatal(err)
	}
	return labeled
}

// TestLabelsWeightFigures: the unlabeled sample, a queue, the sample's own
// labels on the queue as a person's, and report/gate/compare --labels give
// weighted figures whose intervals hold the fully labeled sample's figures;
// without --labels, report rewrites the run's files byte for byte.
func TestLabelsWeightFigures(t *testing.T) {
	wholeProcess(t)
	t.Parallel()
	dir, u, run, queue := sampleQueue(t, "400", "5")
	labels := filepath.Join(dir, "labels.jsonl")
	n := oracleLabels(t, queue, labels)

	// Without --labels: the run's own report files, byte for byte.
	before := map[string][]byte{}
	for _, f := range []string{"summary.json", "summary.md", "metrics.parquet", "junit.xml", "report.html"} {
		before[f], _ = os.ReadFile(filepath.Join(run, f))
	}
	if c, _, e := apeval(t, "", "report", run, "--format", "tsv"); c != 1 && c != 3 {
		t.Fatalf("report: %d %s", c, e)
	}
	for f, b := range before {
		if a, _ := os.ReadFile(filepath.Join(run, f)); !bytes.Equal(a, b) {
			t.Errorf("report without --labels changed %s", f)
		}
	}

	// The fully labeled sample is the truth the weighted figures estimate.
	full := filepath.Join(dir, "full")
	if c, _, e := apeval(t, "", "run", "--out", full, "--quiet", "--format", "tsv"); c > 3 {
		t.Fatal(e)
	}
	var truth, got metrics.Summary
	readJSON(t, filepath.Join(full, "summary.json"), &truth)

	out := filepath.Join(dir, "weighted")
	c, stdout, e := apeval(t, "", "report", run, "--labels", labels, "--out", out, "--format", "table")
	if c != 1 && c != 3 {
		t.Fatalf("report --labels: %d %s", c, e)
	}
	if !strings.Contains(stdout, "Labeled sample") {
		t.Errorf("tables lack the labeled-sample table:\n%s", stdout)
	}
	readJSON(t, filepath.Join(out, "summary.json"), &got)
	if got.Sample == nil || got.Sample.Labels != n {
		t.Fatalf("summary.sample %+v, want %d labels", got.Sample, n)
	}
	covered, total, whole := 0, 0, 0
	for ji, js := range got.Judges {
		for _, r := range js.Rules {
			if r.Sample == nil || r.Sample.Sampled == 0 || r.Sample.Census != 0 {
				t.Errorf("%s %s: sample %+v", js.Judge, r.RuleID, r.Sample)
				continue
			}
			tr := truth.Judges[ji].Rule(r.RuleID)
			for _, fig := range [][4]*float64{{r.Precision, r.PrecisionLo, r.PrecisionHi, tr.Precision}, {r.Recall, r.RecallLo, r.RecallHi, tr.Recall}} {
				if fig[0] == nil || fig[3] == nil {
					continue
				}
				total++
				if *fig[1] <= *fig[3] && *fig[3] <= *fig[2] {
					covered++
				}
			}
			pm := r.Criterion(metrics.CriterionPrecisionMin)
			if strings.HasSuffix(pm.Reason, "every label of the rule weighs 1: decided as without --labels") {
				// A small rule the queue labels whole (every weight 1):
				// the fully labeled run's own interval and verdict; its
				// "+N", sized as without --labels, counts the labels of
				// the new run's match predictions and names the queue
				// that draws them (the labels came from a queue).
				tc := tr.Criterion(metrics.CriterionPrecisionMin)
				if pm.MoreSamples != nil && (pm.MoreUnit != "labels" || !strings.Contains(pm.MoreLabelsQueue, " --matches ")) {
					t.Errorf("%s %s labeled whole: +%d %q, queue %q: %s", js.Judge, r.RuleID, *pm.MoreSamples, pm.MoreUnit, pm.MoreLabelsQueue, pm.Reason)
				}
				if pm.Status != tc.Status || !sameBound(r.PrecisionLo, tr.PrecisionLo) || !sameBound(r.PrecisionHi, tr.PrecisionHi) {
					t.Errorf("%s %s labeled whole: %s [%v, %v], fully labeled run %s [%v, %v]", js.Judge, r.RuleID, pm.Status, *r.PrecisionLo, *r.PrecisionHi, tc.Status, *tr.PrecisionLo, *tr.PrecisionHi)
				}
				whole++
			} else if pm.Status == metrics.StatusInconclusive && pm.MoreSamples != nil && pm.MoreUnit != "labels" {
				t.Errorf("%s: more %d %q", r.RuleID, *pm.MoreSamples, pm.MoreUnit)
			}
		}
	}
	t.Logf("weighted intervals hold the fully labeled figure %d of %d times (%d labels); %d rule rows labeled whole", covered, total, n, whole)
	if whole == 0 {
		t.Error("no rule labeled whole: the census case is not exercised")
	}
	if total < 20 || float64(covered) < 0.9*float64(total) {
		t.Errorf("weighted intervals hold the fully labeled figure %d of %d times", covered, total)
	}
	md, _ := os.ReadFile(filepath.Join(out, "summary.md"))
	if !bytes.Contains(md, []byte("### Labeled sample")) {
		t.Error("summary.md lacks the labeled-sample table")
	}

	// run --labels gives the same figures, and decisions.parquet carries
	// each label's weight.
	run2 := filepath.Join(dir, "run2")
	if c, _, e := apeval(t, "", "run", "--dataset", filepath.Join(u, "cases.jsonl"), "--policy", filepath.Join(u, "policy.toml"),
		"--labels", labels, "--out", run2, "--quiet", "--format", "tsv"); c != 1 && c != 3 {
		t.Fatalf("run --labels: exit %d\n%s", c, e)
	}
	var viaRun metrics.Summary
	readJSON(t, filepath.Join(run2, "summary.json"), &viaRun)
	if viaRun.Verdict != got.Verdict || *viaRun.Judges[0].Rules[0].Precision != *got.Judges[0].Rules[0].Precision {
		t.Errorf("run --labels: %s %v, report --labels: %s %v", viaRun.Verdict, *viaRun.Judges[0].Rules[0].Precision, got.Verdict, *got.Judges[0].Rules[0].Precision)
	}
	weights := decisionWeights(t, filepath.Join(run2, "decisions.parquet"))
	if weights.rows == 0 || weights.weighted != 2*n || weights.sum < float64(2*n) {
		t.Errorf("decisions.parquet label_weight: %+v for %d labels × 2 judges", weights, n)
	}
	if plain := decisionWeights(t, filepath.Join(run, "decisions.parquet")); plain.hasColumn {
		t.Error("decisions.parquet without --labels has a label_weight column")
	}

	// gate and compare take --labels too.
	if c, stdout, e := apeval(t, "", "gate", run, "--labels", labels); c != 1 && c != 3 {
		t.Fatalf("gate --labels: %d %s %s", c, stdout, e)
	}
	c, stdout, e = apeval(t, "", "compare", "--baseline", "recorded/ollama/qwen2.5:3b", "--labels", labels, "--json", run)
	if c > 3 {
		t.Fatalf("compare --labels: %d %s", c, e)
	}
	if !strings.Contains(stdout, `"weighted_paired"`) {
		t.Errorf("compare --labels: no weighted paired figure in %s", stdout[:min(len(stdout), 2000)])
	}
	if c, _, e := apeval(t, "", "report", run, "--labels", labels, "--by", "tag"); c != 2 || !strings.Contains(e, "--labels and --by") {
		t.Errorf("--labels --by: %d %s", c, e)
	}
}

// sameBound is whether two optional bounds are both absent or equal.
func sameBound(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return math.Abs(*a-*b) < 1e-12
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

type weightStats struct {
	hasColumn bool
	rows      int
	weighted  int
	sum       float64
}

// decisionWeights sums decisions.parquet's label_weight column.
func decisionWeights(t *testing.T, path string) weightStats {
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
	var ws weightStats
	col, ok := pf.Schema().Lookup("label_weight")
	ws.hasColumn = ok
	if !ok {
		return ws
	}
	for _, rg := range pf.RowGroups() {
		ws.rows += int(rg.NumRows())
		pages := rg.ColumnChunks()[col.ColumnIndex].Pages()
		for {
			p, err := pages.ReadPage()
			if err != nil {
				break
			}
			vals := make([]parquet.Value, p.NumValues())
			n, _ := p.Values().ReadValues(vals)
			for _, v := range vals[:n] {
				if !v.IsNull() {
					ws.weighted++
					ws.sum += v.Double()
				}
			}
		}
		pages.Close()
	}
	return ws
}
