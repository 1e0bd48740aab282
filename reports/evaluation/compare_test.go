package evaluation

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/judge/core"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/diff"
	"github.com/apeval/apeval/reports/internal/fixture"
	"github.com/apeval/apeval/reports/rundir"
)

func writeJudgeRun(t *testing.T, id string, rs []*replay.Result) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run-"+id)
	fixture.WriteRun(t, dir, rundir.RunInfo{RunID: "r-" + id, Created: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Version: "test",
		Judges: []rundir.JudgeInfo{{Identity: rs[0].Judge}}, Datasets: []rundir.FileRef{{Name: id + ".jsonl", SHA256: id}}}, rs)
	return dir
}

// TestCompareTwoRuns: B matches every case of A's 20 (A matches the even
// ones): recall 1 against 0.5, the warnings name the datasets that differ;
// runs that share no case are refused, naming both datasets.
func TestCompareTwoRuns(t *testing.T) {
	t.Parallel()
	crit := replay.DefaultKillCriteria()
	b := results("B", 20)
	for _, r := range b {
		r.Rules[0].Result, r.Rules[0].Fired = core.Match, true
	}
	dirs := []string{writeJudgeRun(t, "a", results("A", 20)), writeJudgeRun(t, "b", b)}
	rs, err := Open(dirs)
	if err != nil {
		t.Fatal(err)
	}
	c, err := rs.Compare(Spec{Criteria: crit}, reports.JudgePair{Baseline: "A", Candidate: "B"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Report.Summary.Release()
	if c.Cmp == nil || c.Banner != "" || c.Cmp.Cases.Shared != 20 {
		t.Fatalf("comparison %+v, banner %q", c.Cmp, c.Banner)
	}
	if c.Report.Summary.Baseline != "A" {
		t.Errorf("baseline = %q", c.Report.Summary.Baseline)
	}
	if len(c.Cmp.Warnings) == 0 || !strings.HasPrefix(c.Cmp.Warnings[0], "the runs replayed different datasets") {
		t.Errorf("warnings %q, want the runs' differing datasets first", c.Cmp.Warnings)
	}
	if c.Verdict != c.Report.Summary.CompareVerdict("A", "B") {
		t.Errorf("verdict %s", c.Verdict)
	}
	c.ForComment(rs.Infos)
	if c.Report.Run.RunID != "r-b" || c.Report.Run.Datasets[0].Name != "b.jsonl" {
		t.Errorf("comment run = %+v, want the head run's facts", c.Report.Run)
	}

	other := results("B", 4)
	for _, r := range other {
		r.CaseID = "x" + r.CaseID
	}
	rs2, err := Open([]string{dirs[0], writeJudgeRun(t, "x", other)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = rs2.Compare(Spec{Criteria: crit}, reports.JudgePair{Baseline: "A", Candidate: "B"})
	if !errors.Is(err, diff.ErrNothingInCommon) || !strings.Contains(err.Error(), "x.jsonl") {
		t.Errorf("no case in common: err = %v", err)
	}
	if _, err := rs.Compare(Spec{Criteria: crit}, reports.JudgePair{Baseline: "A", Candidate: "C"}); err == nil || !strings.Contains(err.Error(), "no results for A or C") {
		t.Errorf("unknown candidate: err = %v", err)
	}
	if got := Changes([]string{t.TempDir()}, "A", "B", "", nil); !strings.HasPrefix(got, "\n### What changes\n\nNot shown: ") {
		t.Errorf("Changes of no run = %q", got)
	}
}

func TestDistinct(t *testing.T) {
	one := &RunSet{Infos: []rundir.RunInfo{{RunID: "a", Layout: rundir.LayoutHive, Judges: []rundir.JudgeInfo{{Identity: "J"}}}}}
	if !one.Distinct() {
		t.Error("one flat run: not distinct")
	}
	hive := &RunSet{Infos: []rundir.RunInfo{{RunID: "a", Layout: rundir.LayoutHive, Judges: []rundir.JudgeInfo{{Identity: "J"}, {Identity: "K"}}}}}
	if hive.Distinct() {
		t.Error("a hive run of two judges: distinct")
	}
	two := &RunSet{Dirs: []string{"a", "b"}, Infos: []rundir.RunInfo{{RunID: "a"}, {RunID: "b"}}}
	if two.Distinct() {
		t.Error("two runs (cases may repeat): distinct")
	}
}
