package diff

import (
	"errors"
	"strings"
	"testing"

	"github.com/apeval/apeval/reports/rundir"
)

func TestOverlap(t *testing.T) {
	o := NewOverlap(rundir.RunInfo{Datasets: []rundir.FileRef{{Name: "a.jsonl"}}},
		rundir.RunInfo{Datasets: []rundir.FileRef{{Name: "b.jsonl"}, {Name: "c.jsonl"}}})
	o.OnlyBase, o.OnlyHead = 3, 4
	err := o.Err()
	if !errors.Is(err, ErrNothingInCommon) || !strings.Contains(err.Error(), "a.jsonl") || !strings.Contains(err.Error(), "b.jsonl, c.jsonl") {
		t.Fatalf("Err() = %v, want ErrNothingInCommon naming both datasets", err)
	}
	o.Common = 5
	if err := o.Err(); err != nil {
		t.Fatalf("Err() with cases in common = %v", err)
	}
	if b := o.Banner(); !strings.HasPrefix(b, "partial overlap: 5 cases in common") || !strings.Contains(b, "3 only in the base run (a.jsonl)") || !strings.Contains(b, "4 only in the head run (b.jsonl, c.jsonl)") {
		t.Fatalf("Banner() = %q", b)
	}
	o.OnlyBase, o.OnlyHead = 0, 0
	if b := o.Banner(); b != "" {
		t.Fatalf("Banner() of a full overlap = %q, want empty", b)
	}
}
