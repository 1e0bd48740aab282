package evaluation

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge/core"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/internal/fixture"
	"github.com/apeval/apeval/reports/rundir"
)

// TestFindDisagreementsRanksAndLimits: B flips A's result on c00, c01 and
// c04 (opposite) and fails on c03 (unknown): 4 disagreements in 4 cases,
// 6 pairs both judged; a limit of 2 keeps the first two cases.
func TestFindDisagreementsRanksAndLimits(t *testing.T) {
	t.Parallel()
	rs := results("A", 6)
	for _, r := range results("B", 6) {
		rr := &r.Rules[0]
		switch r.CaseID {
		case "c00", "c01", "c04":
			if rr.Result == core.Match {
				rr.Result = core.NoMatch
			} else {
				rr.Result = core.Match
			}
		case "c03":
			rr.Result, rr.Status = core.Unknown, core.StatusTimeout
		}
		rs = append(rs, r)
	}
	dir := filepath.Join(t.TempDir(), "run")
	fixture.WriteRun(t, dir, rundir.RunInfo{RunID: "r", Created: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Version: "test",
		Judges: []rundir.JudgeInfo{{Identity: "A"}, {Identity: "B"}}}, rs)
	pair := reports.JudgePair{Baseline: "A", Candidate: "B"}
	all, err := FindDisagreements([]string{dir}, pair, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Ranked) != 4 || all.Opposite != 3 || all.Total != 4 || len(all.Cases) != 4 || all.Paired != 6 {
		t.Fatalf("found %d (%d opposite) in %d cases of %d paired", len(all.Ranked), all.Opposite, all.Total, all.Paired)
	}
	if last := all.Ranked[3]; last.Kind != metrics.DisagreeUnknown || last.CaseID != "c03" {
		t.Errorf("unknown ranks last: %+v", last)
	}
	two, err := FindDisagreements([]string{dir}, pair, 2)
	if err != nil {
		t.Fatal(err)
	}
	if two.Total != 4 || len(two.Cases) != 2 || two.Cases[0].CaseID != all.Cases[0].CaseID {
		t.Errorf("limit 2: total %d, cases %+v", two.Total, two.Cases)
	}
	// The cases' lines come from the dataset; one it lacks is named.
	in := `{"id":"` + two.Cases[0].CaseID + `","x":1}` + "\n"
	if _, _, err := two.Lines([]string{"-"}, strings.NewReader(in), nil); err == nil || !strings.Contains(err.Error(), "1 disagreeing case(s) not found") ||
		!strings.Contains(err.Error(), two.Cases[1].CaseID) {
		t.Errorf("missing case: err = %v", err)
	}
	in += `{"id":"` + two.Cases[1].CaseID + `","x":2}` + "\n"
	lines, where, err := two.Lines([]string{"-"}, strings.NewReader(in), nil)
	if err != nil || len(lines) != 2 || !strings.Contains(string(lines[1]), `"x":2`) || where[1] != "stdin:2" {
		t.Errorf("lines = %q, where %v, err %v", lines, where, err)
	}
	// Each line gets its disagreements; the rest of it is kept.
	var b strings.Builder
	if err := two.Write(&b, lines, where); err != nil {
		t.Fatal(err)
	}
	out := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(out) != 2 || !strings.Contains(out[1], `"x":2`) || !strings.Contains(out[1], `"apeval_disagreement"`) {
		t.Errorf("written:\n%s", b.String())
	}
	if err := two.Write(&b, [][]byte{[]byte("not json"), lines[1]}, where); err == nil || !strings.HasPrefix(err.Error(), "stdin:1: ") {
		t.Errorf("bad line: %v", err)
	}
	if got, want := two.Summary(pair, "stdout"), "4 disagreements (3 opposite, 1 unknown) in 4 cases over 6 pairs both judged (baseline A, candidate B); 2 cases written to stdout"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if _, err := FindDisagreements([]string{t.TempDir()}, pair, 0); err == nil || !strings.Contains(err.Error(), "is not a run directory") {
		t.Errorf("no run directory: %v", err)
	}
}

func TestReplayedSample(t *testing.T) {
	sample := rundir.RunInfo{Datasets: []rundir.FileRef{{Name: datasets.SampleName, SHA256: datasets.SampleSHA256()}}}
	other := rundir.RunInfo{Datasets: []rundir.FileRef{{Name: "a.jsonl", SHA256: "x"}}}
	if !ReplayedSample([]rundir.RunInfo{sample, sample}) || ReplayedSample([]rundir.RunInfo{sample, other}) || ReplayedSample([]rundir.RunInfo{{}}) {
		t.Error("ReplayedSample")
	}
}
