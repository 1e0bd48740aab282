package reports

import (
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/internal/fixture"
	"github.com/apeval/apeval/reports/rundir"
)

// The fixtures live in reports/internal/fixture, shared with reports/otlp.

func fp(v float64) *float64 { return &v }
func ip(v int64) *int64     { return &v }

func fixtureResults() []*replay.Result   { return fixture.Results() }
func bulkResults(n int) []*replay.Result { return fixture.BulkResults(n) }
func summaryResults() []*replay.Result   { return fixture.SummaryResults() }
func fingerprint(s string) replay.Digest { return fixture.Fingerprint(s) }
func testInfo() rundir.RunInfo           { return fixture.Info() }
func fixtureSummary() *metrics.Summary   { return fixture.Summary() }
