package evaluation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge/core"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/internal/fixture"
	"github.com/apeval/apeval/reports/rundir"
)

// results are n cases in n/2 sessions of one rule, judged by judge: the
// judge matches the even cases, every case is labeled match.
func results(judge string, n int) []*replay.Result {
	var rs []*replay.Result
	for i := range n {
		res := core.NoMatch
		if i%2 == 0 {
			res = core.Match
		}
		rs = append(rs, &replay.Result{CaseID: fmt.Sprintf("c%02d", i), SessionID: fmt.Sprintf("s%d", i/2), Seq: int64(i % 2), Judge: judge,
			Rules: []replay.RuleResult{{RuleID: "R1", RuleVersion: 1, Class: replay.ClassDangerous, Source: replay.SourceJudge,
				Result: res, Label: datasets.LabelMatch, Status: core.StatusOK, Fired: res == core.Match, Action: datasets.ActionDenyCurrentTool}},
			Calls: []replay.Call{{Rules: 1, Status: core.StatusOK, LatencyMS: 100}}})
	}
	return rs
}

// writeRun writes a run directory of rs with the given criteria recorded
// (nil: none).
func writeRun(t *testing.T, rs []*replay.Result, crit *replay.KillCriteria) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	info := rundir.RunInfo{RunID: "r", Created: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Version: "test",
		Judges: []rundir.JudgeInfo{{Identity: rs[0].Judge}}}
	if crit != nil {
		th := metrics.ThresholdsOf(*crit)
		info.Criteria, info.CriteriaFrom = &th, "policy.toml"
	}
	fixture.WriteRun(t, dir, info, rs)
	return dir
}

func TestCriteriaResolution(t *testing.T) {
	t.Parallel()
	strict := replay.DefaultKillCriteria()
	strict.PrecisionMin = 0.99
	loose := replay.DefaultKillCriteria()
	loose.PrecisionMin = 0.5
	a, b := writeRun(t, results("J", 4), &strict), writeRun(t, results("J", 4), &loose)
	none := writeRun(t, results("J", 4), nil)

	rs, err := Open([]string{a})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	c, from, err := rs.Criteria("", "", &out)
	if err != nil || c.PrecisionMin != 0.99 || from != "policy.toml" || out.Len() != 0 {
		t.Errorf("recorded: precision_min %g from %q, %v, said %q", c.PrecisionMin, from, err, out.String())
	}

	rs, _ = Open([]string{a, b})
	if _, _, err := rs.Criteria("", "", &out); err == nil || !strings.Contains(err.Error(), "were made with different kill criteria") {
		t.Errorf("two runs, different criteria: err %v", err)
	}
	file := filepath.Join(t.TempDir(), "strict.toml")
	if err := os.WriteFile(file, []byte("[kill_criteria]\nprecision_min = 0.7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	c, from, err = rs.Criteria(file, "", &out)
	if err != nil || c.PrecisionMin != 0.7 || from != file+" (--criteria)" || !strings.Contains(out.String(), "replace the ones "+a+" was made with") {
		t.Errorf("--criteria: precision_min %g from %q, %v, said %q", c.PrecisionMin, from, err, out.String())
	}

	rs, _ = Open([]string{none})
	out.Reset()
	c, from, err = rs.Criteria("", "", &out)
	if err != nil || from != "defaults" || c != replay.DefaultKillCriteria() || !strings.Contains(out.String(), "using the defaults") {
		t.Errorf("no recorded criteria: from %q, %v, said %q", from, err, out.String())
	}
	th := metrics.ThresholdsOf(strict)
	data, _ := json.Marshal(map[string]any{"thresholds": th})
	if err := os.WriteFile(filepath.Join(none, rundir.SummaryJSON), data, 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	c, from, err = rs.Criteria("", "", &out)
	if err != nil || c.PrecisionMin != 0.99 || !strings.HasPrefix(from, rundir.SummaryJSON) || !strings.Contains(out.String(), "using the thresholds of its summary.json") {
		t.Errorf("summary.json fallback: precision_min %g from %q, %v, said %q", c.PrecisionMin, from, err, out.String())
	}
}

func TestOpenRefusesWhatIsNoRunDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := Open([]string{dir})
	if err == nil || !strings.HasPrefix(err.Error(), dir+" is not a run directory") {
		t.Errorf("err %v", err)
	}
}

// A run read twice repeats every case: the check of cases numbered as
// they come fails, and the second read gives the figures of an
// accumulator keeping every case ID — the same as without the check.
func TestEvaluateReadsAgainWhenCasesRepeat(t *testing.T) {
	t.Parallel()
	crit := replay.DefaultKillCriteria()
	dir := writeRun(t, results("J", 20), &crit)
	summary := func(check bool) (string, int) {
		rs, err := Open([]string{dir, dir})
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		ev, err := rs.Evaluate(Spec{Criteria: crit, CheckDistinct: check}, false, func(_ int, _ *replay.Result, again bool) (bool, error) {
			if !again {
				seen++
			}
			return true, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := ev.Finish(rs.Infos[0])
		if err != nil {
			t.Fatal(err)
		}
		defer rep.Summary.Release()
		j := rep.Summary.Judge("J")
		if j == nil || j.Total == nil {
			t.Fatal("no judge J in the summary")
		}
		b, _ := json.Marshal(rep.Summary)
		return string(b), seen
	}
	got, seen := summary(true)
	want, _ := summary(false)
	if got != want {
		t.Errorf("with the check:\n%s\nwithout:\n%s", got, want)
	}
	if seen != 40 {
		t.Errorf("each saw %d results on the first read, want 40 (20 per directory)", seen)
	}
}

func TestEvaluateKeepsOnlyWhatEachKeeps(t *testing.T) {
	t.Parallel()
	crit := replay.DefaultKillCriteria()
	a, b := writeRun(t, results("A", 6), &crit), writeRun(t, results("B", 6), &crit)
	rs, err := Open([]string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := rs.Evaluate(Spec{Criteria: crit}, true, func(i int, r *replay.Result, _ bool) (bool, error) { return i == 1, nil })
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ev.Finish(rs.Infos[0])
	if err != nil {
		t.Fatal(err)
	}
	defer rep.Summary.Release()
	if rep.Summary.Judge("A") != nil || rep.Summary.Judge("B") == nil {
		t.Errorf("judges %v, want B alone", judgesOf(rep.Summary))
	}
	if rep.Run.Criteria == nil || rep.Run.Criteria.PrecisionMin != crit.PrecisionMin {
		t.Errorf("the report's run records criteria %+v", rep.Run.Criteria)
	}
}

func judgesOf(s *metrics.Summary) []string {
	var out []string
	for _, j := range s.Judges {
		out = append(out, j.Judge)
	}
	return out
}

// TestRunSetReport: report's evaluation gives the verdict's exit code,
// and WriteReports writes the files with it; a partial run exits 2.
func TestRunSetReport(t *testing.T) {
	t.Parallel()
	dir := writeRun(t, results("J", 8), nil)
	rs, err := Open([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := rs.Report(Spec{Criteria: replay.DefaultKillCriteria(), Inconclusive: "fail"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rep.Summary.Release() }()
	if rep.Exit != reports.VerdictExit(rep.Summary.Verdict, "fail") || rep.Run.RunID != "r" {
		t.Errorf("exit %d for %s (run %q)", rep.Exit, rep.Summary.Verdict, rep.Run.RunID)
	}
	out := t.TempDir()
	rep.Run.Partial = "budget"
	if err := WriteReports(out, rep, nil); err != nil {
		t.Fatal(err)
	}
	if rep.Exit != reports.ExitError {
		t.Errorf("partial run: exit %d, want 2", rep.Exit)
	}
	if _, err := os.Stat(filepath.Join(out, "summary.json")); err != nil {
		t.Errorf("no summary.json: %v", err)
	}
}
