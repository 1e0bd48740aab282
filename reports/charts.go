package reports

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"

	"github.com/apeval/apeval/metrics"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Chart file names inside a run directory.
const (
	LatencyChart   = "latency_cdf.svg"
	PrecisionChart = "precision.svg"
	RecallChart    = "recall.svg"
	FireRateChart  = "fire_rate.svg"
)

// Chart is one rendered SVG chart.
type Chart struct {
	File  string // file name in the run directory
	Title string
	SVG   []byte
}

var (
	chartW          = 8 * vg.Inch
	chartH          = 4 * vg.Inch
	thresholdColour = hexColour(colourThreshold) // thresholds: black dashed, apart from every judge colour
	grey            = color.RGBA{R: 0x88, G: 0x88, B: 0x88, A: 0xff}
	sans            = font.Font{Typeface: "Liberation", Variant: "Sans"}
)

// judgeColourHex is the k-th judge's colour (Okabe–Ito, in order).
func judgeColourHex(k int) string { return okabeIto[k%len(okabeIto)] }

// judgeColour is judgeColourHex as a color.Color for gonum/plot.
func judgeColour(k int) color.Color { return hexColour(judgeColourHex(k)) }

// hexColour parses "#RRGGBB".
func hexColour(h string) color.RGBA {
	var c color.RGBA
	c.A = 0xff
	_, _ = fmt.Sscanf(h, "#%02x%02x%02x", &c.R, &c.G, &c.B)
	return c
}

// newPlot returns a plot with sans-serif text throughout.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Title.TextStyle.Font = font.From(sans, 13)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 11)
		a.Tick.Label.Font = font.From(sans, 9)
	}
	p.Legend.TextStyle.Font = font.From(sans, 9)
	p.Add(plotter.NewGrid())
	return p
}

// svgOf renders p as SVG with its legend in a strip below the plot, outside
// the data area, so no entry hides a point or a line.
func svgOf(p *plot.Plot) ([]byte, error) {
	leg := p.Legend
	p.Legend = plot.NewLegend()  // the plot itself draws none
	leg.Padding = vg.Points(2.5) // entries do not touch
	probe := draw.New(vgsvg.New(chartW, chartH))
	legH := vg.Length(0)
	if r := leg.Rectangle(probe); r.Size().Y > 0 {
		legH = r.Size().Y + vg.Points(14)
	}
	c := vgsvg.New(chartW, chartH+legH)
	dc := draw.New(c)
	p.Draw(draw.Crop(dc, 0, 0, legH, 0))
	if legH > 0 {
		leg.Top, leg.Left = true, true
		leg.XOffs, leg.YOffs = vg.Points(48), -vg.Points(4)
		strip := dc
		strip.Max.Y = strip.Min.Y + legH
		leg.Draw(strip)
	}
	p.Legend = leg
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Charts renders every chart the report has data for: the latency CDF
// (when a judge made calls; JudgeSummary.Latencies), precision and
// recall per rule with their intervals, and fire rate per rule per judge.
func (rep *Report) Charts() ([]Chart, error) {
	var out []Chart
	add := func(file, title string, p *plot.Plot, err error) error {
		if err != nil || p == nil {
			return err
		}
		b, err := svgOf(p)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		out = append(out, Chart{File: file, Title: title, SVG: b})
		return nil
	}
	p, err := rep.latencyPlot()
	if err := add(LatencyChart, "Judge latency (every call; a cached answer at its recorded latency)", p, err); err != nil {
		return nil, err
	}
	pt, rt, py, ry := "Precision per rule", "Recall per rule", "precision", "recall"
	if rep.Weak() {
		pt, rt, py, ry = "Precision per rule (weak labels)", "Recall per rule (weak labels)", "precision (weak)", "recall (weak)"
	}
	p, err = rep.intervalPlot(pt, py, func(r *metrics.Row) (v, lo, hi *float64) {
		return r.Precision, r.PrecisionLo, r.PrecisionHi
	}, rep.Summary.Thresholds.PrecisionMin, metrics.CriterionPrecisionMin)
	if err := add(PrecisionChart, pt, p, err); err != nil {
		return nil, err
	}
	p, err = rep.intervalPlot(rt, ry, func(r *metrics.Row) (v, lo, hi *float64) {
		return r.Recall, r.RecallLo, r.RecallHi
	}, math.NaN(), "")
	if err := add(RecallChart, rt, p, err); err != nil {
		return nil, err
	}
	p, err = rep.fireRatePlot()
	if err := add(FireRateChart, "Fire rate per rule", p, err); err != nil {
		return nil, err
	}
	return out, nil
}

// nominalRules puts the rule IDs on the X axis, slanted when they would
// not fit side by side.
func nominalRules(p *plot.Plot, ids []string) {
	p.NominalX(ids...)
	width := 0
	for _, id := range ids {
		width += len(id) + 2
	}
	if width > 90 { // about what fits under an 8-inch chart at 9 pt
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
}

// cdfPoints samples the empirical CDF of sorted values at up to max ranks
// for a step line: (x_(k), k/n).
func cdfPoints(sorted []float64, max int) plotter.XYs {
	n := len(sorted)
	m := min(n, max)
	pts := make(plotter.XYs, 0, m+1)
	pts = append(pts, plotter.XY{X: sorted[0], Y: 0})
	for k := 1; k <= m; k++ {
		rank := (k*n + m - 1) / m // ⌈k·n/m⌉: the last rank always included
		pts = append(pts, plotter.XY{X: sorted[rank-1], Y: float64(rank) / float64(n)})
	}
	return pts
}

// latencyPlot draws each judge's latency CDF over its calls (a cached
// answer at its recorded latency, as metrics counts it), the P95
// metrics computed marked on it, and the judge_p95_max line.
func (rep *Report) latencyPlot() (*plot.Plot, error) {
	p := newPlot("Judge latency per call (CDF)", "latency (ms)", "fraction of calls ≤ x")
	p.Legend.Top, p.Legend.Left = false, false // the CDF leaves the lower right empty
	p.Legend.YOffs = vg.Points(8)
	p.Y.Min, p.Y.Max = 0, 1.02
	maxX := rep.Summary.Thresholds.JudgeP95MaxMS * 1.1
	drawn := 0
	for k, j := range rep.Summary.Judges {
		lat := j.Latencies
		if len(lat) == 0 {
			continue
		}
		drawn++
		maxX = math.Max(maxX, lat[len(lat)-1])
		l, err := plotter.NewLine(cdfPoints(lat, 2000))
		if err != nil {
			return nil, err
		}
		l.StepStyle = plotter.PostStep
		l.Color = judgeColour(k)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(j.Judge, l)
		if t := j.Total; t != nil && t.LatencyP95MS != nil {
			pt := plotter.XYs{{X: *t.LatencyP95MS, Y: 0.95}}
			s, err := plotter.NewScatter(pt)
			if err != nil {
				return nil, err
			}
			s.Color = judgeColour(k)
			s.Shape = draw.CircleGlyph{}
			s.Radius = vg.Points(4)
			lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pt,
				Labels: []string{fmt.Sprintf("P95 %.0f ms", *t.LatencyP95MS)}})
			if err != nil {
				return nil, err
			}
			for i := range lb.TextStyle {
				lb.TextStyle[i].Font = font.From(sans, 9)
				lb.TextStyle[i].Color = judgeColour(k)
			}
			lb.Offset = vg.Point{X: vg.Points(6), Y: vg.Points(-12 - 10*float64(k))}
			p.Add(s, lb)
		}
	}
	if drawn == 0 {
		return nil, nil
	}
	thr := rep.Summary.Thresholds.JudgeP95MaxMS
	crit, err := plotter.NewLine(plotter.XYs{{X: thr, Y: 0}, {X: thr, Y: 1.02}})
	if err != nil {
		return nil, err
	}
	crit.Color, crit.Dashes, crit.Width = thresholdColour, []vg.Length{vg.Points(5), vg.Points(3)}, vg.Points(1.2)
	p95, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0.95}, {X: maxX, Y: 0.95}})
	if err != nil {
		return nil, err
	}
	p95.Color, p95.Dashes = grey, []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(crit, p95)
	p.Legend.Add(fmt.Sprintf("judge_p95_max %g ms", thr), crit)
	p.Legend.Add("0.95", p95)
	p.X.Min, p.X.Max = 0, maxX*1.02
	return p, nil
}

// errPoints are points with asymmetric Y errors for YErrorBars.
type errPoints struct {
	plotter.XYs
	lo, hi []float64 // distances below and above
}

func (e errPoints) YError(i int) (float64, float64) { return e.lo[i], e.hi[i] }

// intervalPlot draws one figure per rule and judge with its interval as
// whiskers, judges side by side within a rule, and an optional threshold.
func (rep *Report) intervalPlot(title, ylabel string, get func(*metrics.Row) (v, lo, hi *float64),
	threshold float64, thresholdName string) (*plot.Plot, error) {
	ids := ruleIDs(rep.Summary)
	if len(ids) == 0 {
		return nil, nil
	}
	p := newPlot(title, "rule", ylabel+" ("+fmt.Sprintf("%g%%", rep.Summary.Thresholds.Confidence*100)+" interval)")
	nominalRules(p, ids)
	p.Y.Min, p.Y.Max = 0, 1.05
	p.X.Min, p.X.Max = -0.6, float64(len(ids))-0.4
	p.Legend.Top, p.Legend.Left = false, true
	judges := rep.Summary.Judges
	drawn := 0
	for k, j := range judges {
		off := (float64(k) - float64(len(judges)-1)/2) * 0.12
		var pts errPoints
		for i, id := range ids {
			r := j.Rule(id)
			if r == nil {
				continue
			}
			v, lo, hi := get(r)
			if v == nil {
				continue
			}
			l, h := *v, *v
			if lo != nil {
				l = *lo
			}
			if hi != nil {
				h = *hi
			}
			pts.XYs = append(pts.XYs, plotter.XY{X: float64(i) + off, Y: *v})
			pts.lo, pts.hi = append(pts.lo, *v-l), append(pts.hi, h-*v)
		}
		if len(pts.XYs) == 0 {
			continue
		}
		drawn++
		s, err := plotter.NewScatter(pts.XYs)
		if err != nil {
			return nil, err
		}
		s.Color, s.Shape, s.Radius = judgeColour(k), plotutil.Shape(k), vg.Points(3.5)
		eb, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, err
		}
		eb.Color = judgeColour(k)
		p.Add(eb, s)
		p.Legend.Add(j.Judge, s)
	}
	if drawn == 0 {
		return nil, nil
	}
	if !math.IsNaN(threshold) {
		l, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: threshold}, {X: p.X.Max, Y: threshold}})
		if err != nil {
			return nil, err
		}
		l.Color, l.Dashes = thresholdColour, []vg.Length{vg.Points(5), vg.Points(3)}
		p.Add(l)
		name := thresholdName
		if rep.Weak() {
			name += " (weak labels)"
		}
		p.Legend.Add(fmt.Sprintf("%s %g", name, threshold), l)
	}
	return p, nil
}

// fireRatePlot draws fire rate per rule as bars grouped by rule, one bar
// per judge.
func (rep *Report) fireRatePlot() (*plot.Plot, error) {
	ids := ruleIDs(rep.Summary)
	judges := rep.Summary.Judges
	if len(ids) == 0 || len(judges) == 0 {
		return nil, nil
	}
	p := newPlot("Fire rate per rule", "rule", "fire rate (cases fired ÷ in scope)")
	nominalRules(p, ids)
	p.Legend.Top, p.Legend.Left = true, false
	width := vg.Points(math.Min(24, 300/float64(len(ids)*len(judges))))
	top := 0.0
	for k, j := range judges {
		vals := make(plotter.Values, len(ids))
		for i, id := range ids {
			if r := j.Rule(id); r != nil && r.FireRate != nil {
				vals[i] = *r.FireRate
				top = math.Max(top, *r.FireRate)
			}
		}
		b, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return nil, err
		}
		b.Color = judgeColour(k)
		b.LineStyle.Width = 0
		b.Offset = vg.Length(float64(k)-float64(len(judges)-1)/2) * width
		p.Add(b)
		p.Legend.Add(j.Judge, b)
	}
	// Without padding the outer bars of the first and last group are clipped.
	p.X.Min, p.X.Max = -0.7, float64(len(ids))-0.3
	p.Y.Min, p.Y.Max = 0, math.Max(0.05, top*1.35+0.05*float64(len(judges)))
	return p, nil
}

// errNoSummary guards the run writer against a Report without metrics.
var errNoSummary = errors.New("reports: report has no metrics summary")

// writeChart writes one chart's SVG.
func writeChart(w io.Writer, c Chart) error {
	_, err := w.Write(c.SVG)
	return err
}
