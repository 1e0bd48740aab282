package reports

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/metrics"
)

func TestWriteAgreementRowsPerRule(t *testing.T) {
	k := func(v float64, items int) metrics.Kappa {
		lo, hi := v-0.1, v+0.1
		return metrics.Kappa{Method: "cohen", Items: items, Observed: 0.9, Kappa: &v, Lo: &lo, Hi: &hi}
	}
	a := &metrics.LabelsAgreement{
		AgreementReport: &metrics.AgreementReport{Confidence: 0.9, Rules: []metrics.RuleAgreement{{RuleID: "R", People: k(0.5, 30),
			Judges: []metrics.NamedKappa{{Between: "J vs people", Kappa: k(0.7, 30)}}}}},
		Weak: []metrics.RuleAgreement{{RuleID: "R", People: metrics.Kappa{Method: "cohen", Items: 3, IntervalNA: "few"}}},
	}
	var b strings.Builder
	if err := WriteAgreement(&b, a); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	for i, want := range []string{"R  people", "R  J vs people", "R  weak labels vs people"} {
		if f := strings.Join(strings.Fields(lines[i+1]), " "); !strings.HasPrefix(f, strings.Join(strings.Fields(want), " ")) {
			t.Errorf("line %d = %q, want it to start %q", i+2, lines[i+1], want)
		}
	}
	if !strings.Contains(lines[1], "0.500  [0.400, 0.600]") || !strings.Contains(lines[3], "—      N/A (n=3 < 10)") {
		t.Errorf("figures:\n%s", b.String())
	}
	// The header names the level the intervals were computed at (it said
	// "95% CI" whatever the level).
	if !strings.HasSuffix(strings.TrimSpace(lines[0]), "90% CI") {
		t.Errorf("header %q, want the intervals' level 90%%", lines[0])
	}
}

func TestWriteQueueSummary(t *testing.T) {
	q := &metrics.Queue{Items: make([]metrics.QueueItem, 7), MinTotal: 10, Budget: 4,
		Strata: []metrics.QueueStratum{{RuleID: "R", Name: "A:match", Size: 12, Allocated: 5, Prior: 0.8}, {RuleID: "R", Name: "A:no_match", Size: 2, Allocated: 2, Prior: 0.2}}}
	var b strings.Builder
	if err := WriteQueueSummary(&b, q, []string{"A", "W"}, []string{"ollama/x", "weak labels"}, map[string]int{"S": 3, "R": 1}, 14, "q.jsonl"); err != nil {
		t.Fatal(err)
	}
	want := "A = ollama/x\nW = weak labels\n" +
		"rule  stratum     pairs  queued  prior p\nR     A:match     12     5       0.80\nR     A:no_match  2      2       0.20\n" +
		"R: 1 pair labeled in the dataset (census, not queued)\nS: 3 pairs labeled in the dataset (census, not queued)\n" +
		"--budget 4 is below the minimum of 5 per stratum: queued the minimum, 10 pairs\n" +
		"7 pairs queued from 14 unlabeled pairs in 2 strata; written to q.jsonl\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	// One of each: the nouns agree in number ("1 pairs … 1 strata" before).
	q = &metrics.Queue{Items: make([]metrics.QueueItem, 1), MinTotal: 1, Budget: 5,
		Strata: []metrics.QueueStratum{{RuleID: "R", Name: "A:match", Size: 1, Allocated: 1, Prior: 1}}}
	b.Reset()
	if err := WriteQueueSummary(&b, q, []string{"A"}, []string{"ollama/x"}, nil, 1, "q.jsonl"); err != nil {
		t.Fatal(err)
	}
	if want := "\n1 pair queued from 1 unlabeled pair in 1 stratum; written to q.jsonl\n"; !strings.HasSuffix(b.String(), want) {
		t.Errorf("got\n%s\nwant it to end %q", b.String(), want)
	}
}

func TestWriteLabelMerge(t *testing.T) {
	p := filepath.Join(t.TempDir(), "l.jsonl")
	if err := os.WriteFile(p, []byte(`{"id":"c1","labels":{"r1":"match","r2":"no_match"}}`+"\n"+`{"id":"c2","labels":{"r1":null}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := datasets.ReadLabels([]string{p}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var unknown []string
	for i := range 22 {
		unknown = append(unknown, fmt.Sprintf("u%02d", i))
	}
	var b strings.Builder
	WriteLabelMerge(&b, l, datasets.MergeStats{Lines: 9, Updated: 1, Added: 1, Changed: 1, Unknown: unknown}, "stdout")
	want := "2 labels for 1 cases: 1 added, 1 changed, 0 already there; 1 cases updated, 9 lines written to stdout\n" +
		"1 labels-file line(s) carried no label and were skipped\n" +
		"skipped labels for 22 id(s) not in the dataset: " + strings.Join(unknown[:20], ", ") + " and 2 more\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// Agreement equal to chance's (kappa computed as a rounding error below
// 0) prints 0.000: the agreement table printed "-0.000" for two labelers
// who agreed on 2 of 3 pairs of one rule.
func TestKappaTextNoNegativeZero(t *testing.T) {
	t.Parallel()
	for v, want := range map[float64]string{-1e-17: "0.000", -0.0004: "0.000", -0.0006: "-0.001", 0.4: "0.400"} {
		if got := kappaText(&v); got != want {
			t.Errorf("kappaText(%g) = %q, want %q", v, got, want)
		}
	}
}
