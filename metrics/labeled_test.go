package metrics

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
)

// labeledRun is four unlabeled cases of one rule, the judge matching the
// first two.
func labeledRun() []*replay.Result {
	var rs []*replay.Result
	for i := range 4 {
		res := "no_match"
		if i < 2 {
			res = "match"
		}
		rs = append(rs, &replay.Result{CaseID: fmt.Sprintf("c%d", i), SessionID: fmt.Sprintf("s%d", i), Judge: "J",
			Rules: []replay.RuleResult{rr("R1", "dangerous", "judge", res, "", "ok", res == "match", -1)}})
	}
	return rs
}

func sampleLine(caseID, label string, order int) datasets.SampleLabel {
	at := time.Date(2026, 12, 1, 10, 0, order, 0, time.UTC)
	return datasets.SampleLabel{Schema: datasets.SampleLabelsSchema, CaseID: caseID, RuleID: "R1", Stratum: "A:match", StratumSize: 2,
		Order: order, Label: datasets.Label(label), Labeler: "ann", Time: &at, Source: fmt.Sprintf("labels.jsonl:%d", order)}
}

func applyLabels(t *testing.T, lines []datasets.SampleLabel) (*Summary, error) {
	t.Helper()
	l, err := NewLabeledSample(lines)
	if err != nil {
		t.Fatal(err)
	}
	a := New(Config{Criteria: replay.DefaultKillCriteria(), SpillBudget: -1})
	for _, r := range labeledRun() {
		a.Add(r)
		l.Add(r)
	}
	s := a.Close()
	t.Cleanup(func() { _ = s.Release() })
	return s, l.Apply(s)
}

func TestLabeledSampleCountsOnlyLabelsOfTheseResults(t *testing.T) {
	s, err := applyLabels(t, []datasets.SampleLabel{sampleLine("c0", "match", 1), sampleLine("other-run", "match", 2)})
	if err != nil {
		t.Fatal(err)
	}
	want := "--labels: 1 of 2 labels match a (case, rule) pair of these results; the other 1 name pairs"
	if len(s.Warnings) == 0 || !strings.HasPrefix(s.Warnings[len(s.Warnings)-1], want) {
		t.Errorf("warnings %q, want the last to start %q", s.Warnings, want)
	}
	if s.Sample == nil || s.Sample.Labels != 2 {
		t.Fatalf("Sample = %+v, want the 2 resolved labels applied", s.Sample)
	}
	var row *RowSample
	for _, j := range s.Judges {
		for _, r := range j.Rules {
			if r.RuleID == "R1" && r.Sample != nil {
				row = r.Sample
			}
		}
	}
	if row == nil || row.Sampled != 1 || row.Dropped != 1 {
		t.Fatalf("R1's sample account %+v, want 1 sampled and 1 dropped", row)
	}
}

func TestLabeledSampleRefusesAnotherRunsLabels(t *testing.T) {
	s, err := applyLabels(t, []datasets.SampleLabel{sampleLine("x", "match", 1), sampleLine("y", "no_match", 2)})
	if err == nil || !strings.Contains(err.Error(), "none of the 2 labels names a (case, rule) pair of these results") {
		t.Fatalf("err = %v, want the labels refused as another run's", err)
	}
	if s.Sample != nil || len(s.Warnings) != 0 {
		t.Errorf("a refused sample changed the summary: Sample %+v, warnings %q", s.Sample, s.Warnings)
	}
}

func TestLabeledSampleRefusesWeakLabels(t *testing.T) {
	weak := sampleLine("c0", "match", 1)
	weak.LabelSource = datasets.LabelSourceWeak
	_, err := NewLabeledSample([]datasets.SampleLabel{sampleLine("c1", "match", 2), weak})
	if err == nil || !strings.HasPrefix(err.Error(), "labels.jsonl:1: label_source: weak labels") {
		t.Fatalf("err = %v, want the weak line named", err)
	}
}

// Two people's labels on the same pairs: the figures count the first by
// time, and the warning says the others were set aside and how many
// disagree, instead of only "all 2 labels match".
func TestLabeledSampleSaysWhenPeopleShareAPair(t *testing.T) {
	ben := func(l datasets.SampleLabel, label string, later time.Duration) datasets.SampleLabel {
		l.Labeler, l.Label = "ben", datasets.Label(label)
		at := l.Time.Add(later)
		l.Time = &at
		return l
	}
	a0, a1 := sampleLine("c0", "match", 1), sampleLine("c1", "no_match", 2)
	s, err := applyLabels(t, []datasets.SampleLabel{a0, a1, ben(a0, "match", time.Hour), ben(a1, "match", time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	want := "--labels: 2 of the 2 labeled pairs were labeled by more than one of 2 people; the figures count each pair's first label by time, and the people disagree on 1 of them"
	if len(s.Warnings) == 0 || !strings.HasPrefix(s.Warnings[len(s.Warnings)-1], want) {
		t.Errorf("warnings %q, want the last to start %q", s.Warnings, want)
	}
	if s.Sample == nil || s.Sample.Labels != 2 {
		t.Fatalf("Sample = %+v, want 2 resolved labels", s.Sample)
	}
	// One person alone: no such warning.
	s, err = applyLabels(t, []datasets.SampleLabel{a0, a1})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range s.Warnings {
		if strings.Contains(w, "more than one") {
			t.Errorf("one labeler, yet %q", w)
		}
	}
}
