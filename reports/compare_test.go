package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/apeval/apeval/metrics"
)

func TestComparisonGolden(t *testing.T) {
	t.Parallel()
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

func TestFigureCell(t *testing.T) {
	t.Parallel()
	p := func(v float64) *float64 { return &v }
	tests := []struct {
		name string
		f    metrics.Figure
		want string
	}{
		// p < 1 − 0.95: Δ with its interval, p and n.
		{"significant", metrics.Figure{Figure: metrics.FigureRecall, Delta: p(0.2425), DeltaLo: p(0.1), DeltaHi: p(0.35), PValue: p(0.0213), N: 80},
			"+0.24 [+0.10, +0.35] (p=0.021 n=80)"},
		// p ≥ 0.05: "~" only.
		{"not significant", metrics.Figure{Figure: metrics.FigureRecall, Delta: p(-0.06), PValue: p(0.41), N: 80}, "~ (p=0.41 n=80)"},
		{"no delta", metrics.Figure{Figure: metrics.FigureRecall}, "–"},
		{"latency", metrics.Figure{Figure: metrics.FigureLatencyP95, Delta: p(-140.4), DeltaLo: p(-300), DeltaHi: p(-20), PValue: p(1e-6), N: 200},
			"−140 [−300, −20] (p=1e-06 n=200)"},
		{"sub-millisecond latency", metrics.Figure{Figure: metrics.FigureLatencyP50, Delta: p(0.0412), DeltaLo: p(0.0123), DeltaHi: p(0.78), PValue: p(0.001), N: 20},
			"+0.041 [+0.012, +0.78] (p=0.001 n=20)"},
		{"rounds to zero", metrics.Figure{Figure: metrics.FigureRecall, Delta: p(-0.001), PValue: p(0.01), N: 9}, "0.00 (p=0.01 n=9)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := figureCell(tt.f, 0.95); got != tt.want {
				t.Errorf("figureCell = %q, want %q", got, tt.want)
			}
		})
	}
	for v, want := range map[float64]string{0.78: "0.78", 0.7849: "0.78", 0.05: "0.05", 12.4: "12", 1: "1", 0: "0"} {
		if got := fmtMS(&v); got != want {
			t.Errorf("fmtMS(%v) = %q, want %q", v, got, want)
		}
	}
	if got, want := fmtCISigned(p(-0.0626), p(-0.164), p(0.0404), 3), "−0.063 [−0.164, +0.040]"; got != want {
		t.Errorf("fmtCISigned = %q, want %q", got, want)
	}
	if got := fmtCISigned(nil, nil, nil, 3); got != na {
		t.Errorf("fmtCISigned(nil) = %q, want %q", got, na)
	}
}

// Figures a labeled sample replaced (tests weighted_paired, weighted): every
// output that explains "~" says their p-values are in the q-values' family
// (and a Δ without p is always ~), and only when the comparison has such
// figures.
func TestWeightedMarkNote(t *testing.T) {
	t.Parallel()
	rep := fixtureReport()
	c := rep.Summary.Compare("recorded/judge-v1", "recorded/judge-v2")
	if c == nil {
		t.Fatal("no comparison")
	}
	if n := weightedMarkNote(c); n != "" {
		t.Fatalf("an unweighted comparison: %q", n)
	}
	for i := range c.Total.Figures {
		if c.Total.Figures[i].Figure == "recall" {
			c.Total.Figures[i].Test, c.Total.Figures[i].QValue = "weighted_paired", nil
		}
	}
	want := "their p-values count in the q-values' family in place of the unweighted tests they replace"
	for _, f := range []Format{FormatTable, FormatMarkdown} {
		var b bytes.Buffer
		if err := rep.WriteComparison(&b, c, f); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), want) {
			t.Errorf("format %v lacks the weighted note:\n%s", f, b.String())
		}
	}
	var b bytes.Buffer
	if err := rep.WriteComment(&b, c, CommentOptions{Marker: "m"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), want) {
		t.Errorf("the comment lacks the weighted note:\n%.3000s", b.String())
	}
}
