package reports

import (
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/apeval/apeval/internal/trunc"
	"github.com/apeval/apeval/metrics"
)

// Okabe–Ito, a palette that stays distinct under the common colour-vision
// deficiencies (Okabe & Ito 2008, "Color Universal Design"). Judges take
// the colours in palette order; blue and orange come first, so two judges
// are never a red/green pair.
var okabeIto = []string{
	"#0072B2", // blue
	"#E69F00", // orange
	"#009E73", // bluish green
	"#CC79A7", // reddish purple
	"#56B4E9", // sky blue
	"#D55E00", // vermillion
	"#F0E442", // yellow
	"#000000", // black
}

// Colours with a fixed meaning on the page and in the charts.
const (
	colourThreshold = "#000000" // black (dashed): a kill-criterion threshold
	colourChance    = "#56B4E9" // sky blue, hollow dot, dashed whiskers: a difference chance explains (~)
	colourBand      = "#F0E442" // yellow: the allowed drift band
)

// forestRow is one rule's difference with its interval.
type forestRow struct {
	label         string
	delta, lo, hi *float64
	marked        bool // p < 1 − confidence
}

// forestPlot draws one comparison figure as a forest plot: a line per rule
// with Δ (candidate − baseline) and its interval, a zero line, and for
// fire rate the allowed drift band ±fire_rate_change_max. Hand-written SVG,
// so the rule labels sit in their own column and never overlap the data.
// It returns "" when no rule has the figure.
func forestPlot(c *metrics.Comparison, m figureMeta, conf, band float64) string {
	var rows []forestRow
	for _, rc := range comparisonRows(c) {
		f := figurePtr(rc, m.name)
		if f == nil || f.Delta == nil {
			continue
		}
		rows = append(rows, forestRow{label: ruleLabel(rc.RuleID), delta: f.Delta, lo: f.DeltaLo, hi: f.DeltaHi,
			marked: f.PValue == nil || f.Significant(conf)})
	}
	if len(rows) == 0 {
		return ""
	}
	// The X range is symmetric around 0 and holds every interval and the band.
	ext := band
	for _, r := range rows {
		for _, v := range []*float64{r.delta, r.lo, r.hi} {
			if v != nil && !math.IsInf(*v, 0) && !math.IsNaN(*v) {
				ext = math.Max(ext, math.Abs(*v))
			}
		}
	}
	if ext == 0 {
		ext = 1
	}
	step := niceStep(ext)
	ext = math.Ceil(ext/step) * step

	const (
		width  = 640.0
		left   = 150.0 // rule labels
		right  = 20.0
		top    = 34.0 // title
		rowH   = 22.0
		bottom = 44.0 // axis ticks and label
	)
	plotW := width - left - right
	height := top + rowH*float64(len(rows)) + bottom
	x := func(v float64) float64 { return left + (v+ext)/(2*ext)*plotW }
	yEnd := top + rowH*float64(len(rows))

	var b strings.Builder
	title := fmt.Sprintf("%s: candidate − baseline (%g%% interval)", m.label, conf*100)
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="forest" data-figure="%s" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" role="img" aria-label="%s">`,
		m.name, width, height, width, height, html.EscapeString(title))
	fmt.Fprintf(&b, `<rect width="%.0f" height="%.0f" fill="#ffffff"/>`, width, height)
	fmt.Fprintf(&b, `<text x="%.0f" y="20" font-size="14" font-weight="600">%s</text>`, left, html.EscapeString(title))
	if band > 0 {
		fmt.Fprintf(&b, `<rect class="band" x="%.1f" y="%.0f" width="%.1f" height="%.0f" fill="%s" fill-opacity="0.35"/>`,
			x(-band), top, x(band)-x(-band), yEnd-top, colourBand)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" font-size="10" fill="#1b1f24">drift band ±%g</text>`, x(band)+3, top+10, band)
	}
	// Grid and ticks.
	for v := -ext; v <= ext+step/2; v += step {
		xv := x(v)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#d0d7de" stroke-width="0.5"/>`, xv, top, xv, yEnd)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" font-size="10" text-anchor="middle">%s</text>`, xv, yEnd+14, html.EscapeString(m.signedNum(v)))
	}
	fmt.Fprintf(&b, `<line class="zero" x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#1b1f24" stroke-width="1.2"/>`, x(0), top-4, x(0), yEnd)
	axis := "Δ " + m.label + " (candidate − baseline)"
	fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" font-size="11" text-anchor="middle">%s</text>`, left+plotW/2, yEnd+32, html.EscapeString(axis))
	for i, r := range rows {
		y := top + rowH*(float64(i)+0.5)
		colour, dash := okabeIto[0], ""
		if !r.marked {
			colour, dash = colourChance, ` stroke-dasharray="4 2"`
		}
		fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" font-size="11" text-anchor="end" dominant-baseline="middle">%s</text>`, left-8, y, html.EscapeString(trunc.Width(r.label, 22)))
		if r.lo != nil && r.hi != nil {
			lo, hi := math.Max(*r.lo, -ext), math.Min(*r.hi, ext)
			fmt.Fprintf(&b, `<line class="ci" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"%s/>`, x(lo), y, x(hi), y, colour, dash)
			for _, e := range []float64{lo, hi} {
				fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/>`, x(e), y-4, x(e), y+4, colour)
			}
		}
		fill := colour
		if !r.marked {
			fill = "#ffffff"
		}
		fmt.Fprintf(&b, `<circle class="est" cx="%.1f" cy="%.1f" r="4" fill="%s" stroke="%s" stroke-width="1.5"><title>%s: %s</title></circle>`,
			x(*r.delta), y, fill, colour, html.EscapeString(r.label), html.EscapeString(m.signedNum(*r.delta)))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// niceStep picks a tick step (1, 2 or 5 × 10^k) giving 2–5 ticks per side.
func niceStep(ext float64) float64 {
	raw := ext / 3
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, f := range []float64{1, 2, 5, 10} {
		if f*mag >= raw {
			return f * mag
		}
	}
	return 10 * mag
}
