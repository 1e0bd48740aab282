package reports

import (
	"strings"
	"testing"

	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/reports/rundir"
)

// TestFactsSaySkippedInvalidLines: a run with --skip-invalid says under
// its verdict (summary.md, report.html) how many dataset lines it left
// out. By hand: 3 bad lines of 1,590 skipped, and only stderr and
// run.json's invalid_lines said so; summary.md read "1587 cases" as if
// that were the dataset.
func TestFactsSaySkippedInvalidLines(t *testing.T) {
	t.Parallel()
	rep := &Report{Summary: &metrics.Summary{}, Run: rundir.RunInfo{RunID: "r1", InvalidLines: 3}}
	got := strings.Join(rep.facts(func(s string) string { return s }), " · ")
	if !strings.Contains(got, "⚠️ 3 invalid dataset line(s) skipped (--skip-invalid)") {
		t.Errorf("facts %q do not say the skipped lines", got)
	}
	rep.Run.InvalidLines = 0
	if got := strings.Join(rep.facts(func(s string) string { return s }), " · "); strings.Contains(got, "invalid") {
		t.Errorf("a run with no skipped line: %q", got)
	}
}
