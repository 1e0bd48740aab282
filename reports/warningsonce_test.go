package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
)

// TestJudgeWarningsPrintedOnce: a judge's warning reaches the run's warnings
// too (metrics prefixes it with the judge); the tables' footnotes,
// summary.md and report.html list it once, not once from each list (the
// sample's four evidence-altered warnings were printed eight times).
func TestJudgeWarningsPrintedOnce(t *testing.T) {
	t.Parallel()
	acc := metrics.New(metrics.Config{Criteria: replay.DefaultKillCriteria()})
	for _, r := range summaryResults() {
		if r.Judge == "recorded/judge-v2" {
			// No recorded latency on this judge's calls: metrics warns.
			r.LatencyMS = nil
			for i := range r.Calls {
				r.Calls[i].LatencyMS = 0
			}
		}
		acc.Add(r)
	}
	rep := &Report{Run: testInfo(), Summary: acc.Close(), Exit: 1}
	const warning = "its calls carry no recorded latency"
	var js *metrics.JudgeSummary
	for _, j := range rep.Summary.Judges {
		if j.Judge == "recorded/judge-v2" {
			js = j
		}
	}
	if js == nil || len(js.Warnings) == 0 || !strings.Contains(strings.Join(js.Warnings, "\n"), warning) {
		t.Fatalf("precondition: the judge carries no %q warning: %+v", warning, js)
	}
	outputs := map[string]func(*bytes.Buffer) error{
		"table":      func(b *bytes.Buffer) error { return rep.WriteTables(b, FormatTable) },
		"markdown":   func(b *bytes.Buffer) error { return rep.WriteTables(b, FormatMarkdown) },
		"summary.md": func(b *bytes.Buffer) error { return rep.WriteMarkdown(b) },
		"html":       func(b *bytes.Buffer) error { return rep.WriteHTML(b) },
	}
	for name, write := range outputs {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n := strings.Count(b.String(), warning); n != 1 {
			t.Errorf("%s: the judge's warning printed %d times, want once", name, n)
		}
	}
}
