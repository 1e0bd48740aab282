package labelpage

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/rundir"
)

func TestPartKeepsOrderModuloNAndOverlap(t *testing.T) {
	var q []datasets.SampleLabel
	for i := 1; i <= 7; i++ {
		q = append(q, datasets.SampleLabel{CaseID: string(rune('a' + i - 1)), Order: i, Overlap: i == 2})
	}
	ids := func(ls []datasets.SampleLabel) string {
		var s []string
		for _, l := range ls {
			s = append(s, l.CaseID)
		}
		return strings.Join(s, "")
	}
	if got := ids(Part(q, 1, 3)); got != "abdg" { // orders 1, 4, 7 and the overlap 2
		t.Errorf("part 1/3 = %s, want abdg", got)
	}
	if got := ids(Part(q, 3, 3)); got != "bcf" {
		t.Errorf("part 3/3 = %s, want bcf", got)
	}
	for _, bad := range []string{"0/2", "3/2", "x", "1/0"} {
		if _, _, err := ParsePart(bad); err == nil {
			t.Errorf("ParsePart(%q) accepted", bad)
		}
	}
	if k, n, err := ParsePart("2/5"); err != nil || k != 2 || n != 5 {
		t.Errorf("ParsePart(2/5) = %d, %d, %v", k, n, err)
	}
}

func TestItemsFromTheSample(t *testing.T) {
	pol, err := replay.ParsePolicy(datasets.SamplePolicy(), "policy.toml")
	if err != nil {
		t.Fatal(err)
	}
	rule := pol.Rules[0]
	lines := []datasets.SampleLabel{{CaseID: "c0001", RuleID: rule.ID}, {CaseID: "c9999", RuleID: rule.ID}, {CaseID: "c0002", RuleID: "no-such-rule"}}
	r := datasets.Open([]string{"-"}, datasets.SampleCases())
	defer r.Close()
	items, missing, err := Items(lines, r, pol)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].Line.CaseID != "c0001" || items[0].RuleName != rule.Name ||
		len(items[0].Input.Rules) != 1 || items[0].Input.Rules[0].ID != rule.ID {
		t.Fatalf("items = %+v", items)
	}
	if !slices.Equal(missing, []string{"c9999/" + rule.ID, "c0002/no-such-rule"}) {
		t.Errorf("missing = %v", missing)
	}
}

func TestRunSourcesAndLabelsFile(t *testing.T) {
	sample := rundir.RunInfo{Datasets: []rundir.FileRef{{Name: "sample", SHA256: datasets.SampleSHA256()}}, Policy: &rundir.FileRef{Name: "sample:policy.toml"}}
	if p, pol := RunSources(sample, nil, ""); p != nil || pol != "" {
		t.Errorf("sample: %v %q", p, pol)
	}
	own := rundir.RunInfo{Datasets: []rundir.FileRef{{Name: "a.jsonl", SHA256: "x"}, {Name: "b.jsonl", SHA256: "y"}}, Policy: &rundir.FileRef{Name: "p.toml"}}
	if p, pol := RunSources(own, nil, ""); !slices.Equal(p, []string{"a.jsonl", "b.jsonl"}) || pol != "p.toml" {
		t.Errorf("own: %v %q", p, pol)
	}
	if p, pol := RunSources(own, []string{"c.jsonl"}, "q.toml"); !slices.Equal(p, []string{"c.jsonl"}) || pol != "q.toml" {
		t.Errorf("--dataset and --policy: %v %q", p, pol)
	}
	if p, pol := RunSources(sample, nil, "q.toml"); p != nil || pol != "q.toml" {
		t.Errorf("sample with --policy: %v %q", p, pol)
	}
	if got := LabelsFile("", " ana "); got != "labels-ana.jsonl" {
		t.Errorf("LabelsFile = %q", got)
	}
	path := filepath.Join(t.TempDir(), "l.jsonl")
	app, existing, err := OpenLabels(path)
	if err != nil || len(existing) != 0 {
		t.Fatal(existing, err)
	}
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	l := datasets.SampleLabel{Schema: datasets.SampleLabelsSchema, CaseID: "c", RuleID: "r", Stratum: "A:match", StratumSize: 1, Order: 1, Label: datasets.LabelMatch, Labeler: "ana", Time: &at}
	if err := app.Append(l); err != nil {
		t.Fatal(err)
	}
	app.Close()
	app, existing, err = OpenLabels(path)
	if err != nil || len(existing) != 1 || existing[0].CaseID != "c" {
		t.Fatalf("reopened: %+v %v", existing, err)
	}
	app.Close()
}

func TestPartTwoLabelers(t *testing.T) {
	t.Parallel()
	var q []datasets.SampleLabel
	for i := 1; i <= 10; i++ {
		q = append(q, datasets.SampleLabel{Order: i, Overlap: i == 4 || i == 9})
	}
	orders := func(ls []datasets.SampleLabel) []int {
		var o []int
		for _, l := range ls {
			o = append(o, l.Order)
		}
		return o
	}
	a, b := orders(Part(q, 1, 2)), orders(Part(q, 2, 2))
	if !slices.Equal(a, []int{1, 3, 4, 5, 7, 9}) || !slices.Equal(b, []int{2, 4, 6, 8, 9, 10}) {
		t.Errorf("part 1/2 %v, part 2/2 %v", a, b)
	}
	if _, _, err := ParsePart("3/2"); err == nil {
		t.Error("--part 3/2 accepted")
	}
}
