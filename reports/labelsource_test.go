package reports

import (
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/reports/rundir"
)

func TestLabelSourceRefusesMixedRuns(t *testing.T) {
	weak := rundir.RunInfo{LabelSource: datasets.LabelSourceWeak}
	people := rundir.RunInfo{}
	if s, err := LabelSource([]string{"a", "b"}, []rundir.RunInfo{weak, weak}); err != nil || s != datasets.LabelSourceWeak {
		t.Errorf("two weak runs: %q, %v; want weak, nil", s, err)
	}
	_, err := LabelSource([]string{"a", "b"}, []rundir.RunInfo{people, weak})
	if err == nil || !strings.Contains(err.Error(), "a and b were made on different labels (the datasets' labels and weak labels (run --weak-labels))") {
		t.Errorf("mixed runs: err = %v", err)
	}
	if err := CheckSampleOn(datasets.LabelSourceWeak); err == nil {
		t.Error("a labeled sample on a weak run is accepted")
	}
	if err := CheckSampleOn(""); err != nil {
		t.Errorf("a labeled sample on people's labels: %v", err)
	}
}
