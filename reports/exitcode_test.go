package reports

import (
	"testing"

	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/reports/rundir"
)

func TestVerdictExit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v    metrics.Verdict
		inc  string
		want int
	}{
		{metrics.VerdictGo, "", 0}, {metrics.VerdictGo, "fail", 0},
		{metrics.VerdictNoGo, "", 1}, {metrics.VerdictNoGo, "pass", 1},
		{metrics.VerdictInconclusive, "", 3}, {metrics.VerdictInconclusive, "pass", 0}, {metrics.VerdictInconclusive, "fail", 1},
		{metrics.VerdictInconclusive, "bogus", 3},
		{metrics.VerdictError, "", 2}, {metrics.VerdictError, "pass", 2},
	} {
		if got := VerdictExit(tc.v, tc.inc); got != tc.want {
			t.Errorf("VerdictExit(%s, %q) = %d, want %d", tc.v, tc.inc, got, tc.want)
		}
	}
}

// TestRunExitPartial: a partial run exits 2 whatever its verdict; a
// whole one with its verdict, --inconclusive applied.
func TestRunExitPartial(t *testing.T) {
	t.Parallel()
	rep := &Report{Summary: &metrics.Summary{Verdict: metrics.VerdictGo}, Run: rundir.RunInfo{Partial: "budget"}}
	if got := rep.RunExit(); got != ExitError {
		t.Errorf("partial GO run: exit %d, want 2", got)
	}
	rep.Run.Partial = ""
	rep.Summary.Verdict, rep.Inconclusive = metrics.VerdictInconclusive, "fail"
	if got := rep.RunExit(); got != ExitNoGo {
		t.Errorf("INCONCLUSIVE with --inconclusive=fail: exit %d, want 1", got)
	}
}
