package reports

import (
	"bytes"
	"testing"

	"github.com/apeval/apeval/metrics"
)

func TestComparisonGolden(t *testing.T) {
	rep := fixtureReport()
	c := rep.Summary.Compare("recorded/judge-v1", "recorded/judge-v2")
	if c == nil {
		t.Fatal("no comparison")
	}
	for _, tt := range []struct {
		file   string
		format Format
	}{
		{"compare.txt", FormatTable}, {"compare.tsv", FormatTSV}, {"compare.md", FormatMarkdown},
	} {
		t.Run(tt.file, func(t *testing.T) {
			var b bytes.Buffer
			if err := rep.WriteComparison(&b, c, tt.format); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.file, b.Bytes())
		})
	}
}

func TestDeltaCell(t *testing.T) {
	p := func(v float64) *float64 { return &v }
	prec := compareMetrics[0]
	p95 := compareMetrics[4]
	tests := []struct {
		name string
		m    compareMetric
		rc   metrics.RuleComparison
		want string
	}{
		{"significant", prec, metrics.RuleComparison{PrecisionDelta: p(0.2425), McNemarP: p(0.0213), Significant: true, Paired: 80}, "+0.24 (p=0.021 n=80)"},
		{"not significant", prec, metrics.RuleComparison{PrecisionDelta: p(-0.06), McNemarP: p(0.41), Paired: 80}, "~ (p=0.41 n=80)"},
		{"nothing paired", prec, metrics.RuleComparison{PrecisionDelta: p(0.1), Paired: 0}, "~ (n=0)"},
		{"no delta", prec, metrics.RuleComparison{}, "–"},
		{"unpaired figure", p95, metrics.RuleComparison{LatencyP95DeltaMS: p(-140.4)}, "−140"},
		{"rounds to zero", prec, metrics.RuleComparison{PrecisionDelta: p(-0.001), McNemarP: p(0.01), Significant: true, Paired: 9}, "0.00 (p=0.01 n=9)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := deltaCell(tt.m, &tt.rc); got != tt.want {
				t.Errorf("deltaCell = %q, want %q", got, tt.want)
			}
		})
	}
	if got, want := fmtCISigned(p(-0.0626), p(-0.164), p(0.0404), 3), "−0.063 [−0.164, +0.040]"; got != want {
		t.Errorf("fmtCISigned = %q, want %q", got, want)
	}
	if got := fmtCISigned(nil, nil, nil, 3); got != na {
		t.Errorf("fmtCISigned(nil) = %q, want %q", got, na)
	}
}
