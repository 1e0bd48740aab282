package reports

import (
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
)

// fixtureSummary runs summaryResults through the real metrics accumulator
// with judge-v1 as the baseline, so reports are tested on the Summary shape
// metrics produces.
func fixtureSummary() *metrics.Summary {
	acc := metrics.New(metrics.Config{Criteria: replay.DefaultKillCriteria(), Baseline: "recorded/judge-v1"})
	for _, r := range summaryResults() {
		acc.Add(r)
	}
	return acc.Close()
}
