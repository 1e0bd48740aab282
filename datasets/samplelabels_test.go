package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestReadSampleLabelsErrorsNameFileAndLine(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "l.jsonl")
	os.WriteFile(p, []byte(`{"schema":"apeval.labels/v1","case_id":"c1","rule_id":"r","stratum":"A:match","stratum_size":3,"order":1,"label":"match","labeler":"a","time":"2026-12-01T10:00:00Z"}
{"schema":"apeval.labels/v1","case_id":"c2","rule_id":"r","stratum":"A:match","stratum_size":3,"order":2,"label":"maybe","labeler":"a","time":"2026-12-01T10:00:00Z"}
{"schema":"apeval.labels/v1","case_id":"","rule_id":"r","stratum":"A:match","stratum_size":3,"order":3}
{"schema":"apeval.labels/v1","case_id":"c4","rule_id":"r","stratum":"A:match","stratum_size":"x","order":4}
`), 0o644)
	_, err := ReadSampleLabels([]string{p}, false)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{p + `:2: label: "maybe"`, p + ":3: case_id: missing", p + ":4: stratum_size: wrong type"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestLabelAppenderCutsTornLineAndUndoes(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "l.jsonl")
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	l := SampleLabel{Schema: SampleLabelsSchema, CaseID: "c1", RuleID: "r", Stratum: "A:match", StratumSize: 3, Order: 1, Label: LabelMatch, Labeler: "a", Time: &now}
	a, err := OpenLabelAppender(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Append(l); err != nil {
		t.Fatal(err)
	}
	a.Close()
	// A crash mid-write leaves a torn line; reopening cuts it.
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"schema":"apeval.lab`)
	f.Close()
	if a, err = OpenLabelAppender(p); err != nil {
		t.Fatal(err)
	}
	l2 := l
	l2.CaseID, l2.Order = "c2", 2
	a.Append(l2)
	got, err := ReadSampleLabels([]string{p}, false)
	if err != nil || len(got) != 2 || got[1].CaseID != "c2" {
		t.Fatalf("after torn line: %v %+v", err, got)
	}
	if err := a.Remove(l2); err != nil {
		t.Fatal(err)
	}
	a.Append(l2)
	if err := a.Remove(l2); err != nil {
		t.Fatal(err)
	}
	if err := a.Remove(l); err != nil {
		t.Fatal(err)
	}
	if err := a.Remove(l); err == nil {
		t.Error("removed a line from an empty file")
	}
	a.Close()
	if b, _ := os.ReadFile(p); len(b) != 0 {
		t.Errorf("file after undoing everything: %q", b)
	}
}

func TestWithoutLabels(t *testing.T) {
	t.Parallel()
	got, err := WithoutLabels([]byte(`{"id":"c1","labels":{"r":"match"},"tags":["x"]}`))
	if err != nil || string(got) != `{"id":"c1","labels":{},"tags":["x"]}` {
		t.Errorf("%s %v", got, err)
	}
}
