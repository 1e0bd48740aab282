package evaluation

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/internal/fixture"
	"github.com/apeval/apeval/reports/rundir"
)

func TestReadPairsChoosesJudgesByPrefix(t *testing.T) {
	t.Parallel()
	var rs []*replay.Result
	for _, j := range []string{"ollama/a:1b", "ollama/b:7b"} {
		for _, r := range results(j, 6) {
			r.Rules[0].Label = "" // unlabeled: queued, not census
			rs = append(rs, r)
		}
	}
	dir := filepath.Join(t.TempDir(), "run")
	fixture.WriteRun(t, dir, rundir.RunInfo{RunID: "r", Created: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Version: "test",
		Judges: []rundir.JudgeInfo{{Identity: "ollama/a:1b"}, {Identity: "ollama/b:7b"}}}, rs)

	all, info, err := ReadPairs(dir, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if info.RunID != "r" || !slices.Equal(all.Judges, []string{"ollama/a:1b", "ollama/b:7b"}) {
		t.Fatalf("judges = %v (run %q), want both in run order", all.Judges, info.RunID)
	}
	pairs, census := all.QueuePairs()
	if len(pairs) != 6 || len(census) != 0 || len(pairs[0].Results) != 2 {
		t.Fatalf("pairs = %d (census %v), want 6 unlabeled pairs with 2 results each", len(pairs), census)
	}
	one, _, err := ReadPairs(dir, []string{"ollama/b"}, []string{"R1"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(one.Judges, []string{"ollama/b:7b"}) {
		t.Errorf("--judge ollama/b chose %v", one.Judges)
	}
	if p, _ := one.QueuePairs(); len(p) != 6 || len(p[0].Results) != 1 || p[0].Results[0] != "match" {
		t.Errorf("pairs of one judge = %+v", p)
	}
	if _, _, err := ReadPairs(dir, []string{"ollama/c"}, nil); err == nil || !strings.Contains(err.Error(), "--judge") {
		t.Errorf("unknown judge: err = %v, want one naming --judge", err)
	}
	if _, _, err := ReadPairs(t.TempDir(), nil, nil); err == nil || !strings.Contains(err.Error(), "is not a run directory") {
		t.Errorf("no run directory: err = %v", err)
	}
}
