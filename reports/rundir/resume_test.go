package rundir

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/judge/core"
	"github.com/apeval/apeval/replay"
)

// resumable writes a run of judge J whose cases 0 and 3 have a failed call
// (a timeout, then an error) and whose other cases were answered.
func resumable(t *testing.T, settings *Settings, partial string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "first")
	w, err := CreateRun(dir, RunInfo{RunID: "first", Created: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Version: "test",
		Judges: []JudgeInfo{{Identity: "openai/judge@d/p"}}, Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		call := replay.Call{Rules: 1, Status: core.StatusOK, LatencyMS: 10}
		switch i {
		case 0:
			call.Status, call.Cause, call.Error = core.StatusTimeout, core.CauseTimeout, "deadline"
		case 3:
			call.Status, call.Cause, call.Error = core.StatusError, core.CauseServer, "HTTP 500"
		}
		r := &replay.Result{CaseID: fmt.Sprintf("c%d", i), SessionID: fmt.Sprintf("s%d", i), Judge: "openai/judge@d/p",
			Rules: []replay.RuleResult{{RuleID: "R", RuleVersion: 1, Class: replay.ClassDangerous, Source: replay.SourceJudge, Status: call.Status, Call: 0}},
			Calls: []replay.Call{call}}
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if partial != "" {
		w.Info().Partial = partial
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w.ReportsWritten()
	w.Release()
	return dir
}

func TestResumeCountsFailedAndResentCalls(t *testing.T) {
	t.Parallel()
	dir := resumable(t, &Settings{Datasets: []string{"cases.jsonl"}}, "")
	rs, err := OpenResume(dir)
	if err != nil {
		t.Fatal(err)
	}
	sent := &replay.Result{Judge: "openai/judge@d/p", Calls: []replay.Call{{Status: core.StatusOK}, {Status: core.StatusOK, Cached: true}}}
	notSent := &replay.Result{Judge: "openai/judge@d/p", Calls: []replay.Call{{Status: core.StatusError, Cause: core.CauseBudget}}}
	none := &replay.Result{Judge: "none", Calls: []replay.Call{{Status: core.StatusError}}}
	for _, r := range []*replay.Result{sent, notSent, none, sent} {
		rs.Count(r)
	}
	got := rs.Report()
	if got.From != dir || got.RunID != "first" || got.FailedCalls != 2 || got.Resent != 2 || got.FromPartial {
		t.Errorf("Report = %+v, want 2 failed there and 2 re-sent (cache hits, budget stops and none not counted)", got)
	}
	if m := rs.Message(); !strings.HasSuffix(m, "re-sent 2 call(s); 2 had failed there (timeout or error)") {
		t.Errorf("Message = %q", m)
	}
	rs.Count(sent)
	if m := rs.Message(); !strings.Contains(m, "; the other 1 are later calls of those sessions") {
		t.Errorf("more re-sent than failed: Message = %q", m)
	}
}

func TestResumeOfAPartialRunSaysWhyMoreWereSent(t *testing.T) {
	t.Parallel()
	rs, err := OpenResume(resumable(t, &Settings{}, "budget --max-calls 5 reached"))
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		rs.Count(&replay.Result{Judge: "j", Calls: []replay.Call{{Status: core.StatusOK}}})
	}
	if r := rs.Report(); !r.FromPartial {
		t.Errorf("Report = %+v, want FromPartial", r)
	}
	if m := rs.Message(); !strings.HasSuffix(m, "; the others are the cases it did not finish") {
		t.Errorf("Message = %q", m)
	}
}

func TestResumeRefusesOldRunsAndChangedJudges(t *testing.T) {
	t.Parallel()
	if _, err := OpenResume(resumable(t, nil, "")); err == nil || !strings.Contains(err.Error(), "records no settings") {
		t.Errorf("a run.json without settings: err %v", err)
	}
	rs, err := OpenResume(resumable(t, &Settings{}, ""))
	if err != nil {
		t.Fatal(err)
	}
	if err := rs.CheckIdentities([]string{"openai/judge@d/p"}); err != nil {
		t.Errorf("same judge: %v", err)
	}
	err = rs.CheckIdentities([]string{"openai/judge@d/p2"})
	if err == nil || !strings.HasPrefix(err.Error(), "its judges are openai/judge@d/p, this run's are openai/judge@d/p2;") {
		t.Errorf("another prompt: err %v", err)
	}
}
