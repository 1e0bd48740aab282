package main

import (
	"testing"

	"github.com/apeval/apeval/metrics"
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
	} {
		if got := verdictExit(tc.v, tc.inc); got != tc.want {
			t.Errorf("verdictExit(%s, %q) = %d, want %d", tc.v, tc.inc, got, tc.want)
		}
	}
}
