package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/parquet-go/parquet-go"

	"github.com/apeval/apeval/metrics/simulate"
	"github.com/apeval/apeval/reports/rundir"
)

// WriteSimulateParquet writes simulate.parquet: one row per configuration
// × rule (rule "*" for the configuration as a whole), every column of
// simulate.Row but the JSON-only paired figures.
func WriteSimulateParquet(w io.Writer, res *simulate.Result) error {
	pw := parquet.NewGenericWriter[simulate.Row](w, parquet.Compression(&parquet.Zstd), parquet.CreatedBy("apeval", "", ""))
	if _, err := pw.Write(res.Rows); err != nil {
		return err
	}
	return pw.Close()
}

// ReadSimulateJSON reads the simulate.json `apeval simulate` left in a
// run directory (report.html's "Simulated deployment" section); nil when
// there is none.
func ReadSimulateJSON(dir string) (*simulate.Result, error) {
	path := filepath.Join(dir, rundir.SimulateJSONFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var res simulate.Result
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &res, nil
}

// WriteSimulateJSON writes the simulation as one JSON document
// (simulate.Result's keys, every figure at full precision).
func WriteSimulateJSON(w io.Writer, res *simulate.Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// WriteSimulateTable prints the simulation: one line per configuration
// ("*" rows) and, when perRule, one per configuration × rule; each
// comparison with the deployed configuration in benchstat's manner (Δ
// [lo, hi] (p), or ~ when not significant).
func WriteSimulateTable(w io.Writer, res *simulate.Result, f Format, perRule bool) error {
	if f == FormatJSON {
		return WriteSimulateJSON(w, res)
	}
	return simulateGrid(res, perRule).render(w, f)
}

// simulateGrid is the simulation's table, as the terminal and report.html
// show it.
func simulateGrid(res *simulate.Result, perRule bool) *grid {
	g := &grid{header: []string{"configuration", "rule", "effective recall", "Δ vs deployed", "fail-open", "friction /100", "Δ vs deployed",
		"approvals /session", "precision", "recall", "unknown", "fire rate", "P50 ms", "P95 ms", "calls", "cost /1k"},
		right: []bool{false, false, true, true, true, true, true, true, true, true, true, true, true, true, true, true},
		weak:  res.LabelSource == "weak"}
	alpha := 1 - res.Confidence
	delta := func(d, lo, hi, p *float64) string {
		switch {
		case d == nil:
			return "–"
		case p == nil || *p >= alpha:
			return "~"
		}
		return fmt.Sprintf("%s (p=%.2g)", fmtSignedCI(d, lo, hi), *p)
	}
	for _, r := range res.Rows {
		if r.RuleID != "*" && !perRule {
			continue
		}
		eff := fmtCI(r.EffectiveRecall, r.EffectiveRecallLo, r.EffectiveRecallHi, 2)
		if r.EffectiveRecallStatus != "" {
			eff += " " + r.EffectiveRecallStatus
		}
		cost := "–"
		if r.CostPer1k != nil {
			cost = fmt.Sprintf("%.4g", *r.CostPer1k)
		}
		p50, p95, calls := "–", "–", "–"
		if r.RuleID == "*" {
			p50, p95 = fmtMS(r.LatencyP50MS), fmtMS(r.LatencyP95MS)
			if len(r.JudgeCalls) > 0 {
				calls = ""
				for i, n := range r.JudgeCalls {
					if i > 0 {
						calls += " / "
					}
					calls += strconv.FormatInt(n, 10)
				}
			}
		}
		g.add(r.Config, r.RuleID, eff, delta(r.EffectiveRecallDelta, r.EffectiveRecallDeltaLo, r.EffectiveRecallDeltaHi, r.EffectiveRecallP),
			fmtCI(r.FailOpenRate, r.FailOpenRateLo, r.FailOpenRateHi, 3),
			fmtCI(r.FrictionPer100, r.FrictionPer100Lo, r.FrictionPer100Hi, 2),
			delta(r.FrictionDelta, r.FrictionDeltaLo, r.FrictionDeltaHi, r.FrictionP),
			fmtCI(r.ApprovalsPerSession, r.ApprovalsPerSessionLo, r.ApprovalsPerSessionHi, 2),
			fmtCI(r.Precision, r.PrecisionLo, r.PrecisionHi, 2), fmtCI(r.Recall, r.RecallLo, r.RecallHi, 2),
			fmtNum(r.UnknownRate, 3), fmtNum(r.FireRate, 3), p50, p95, calls, cost)
	}
	g.notes = append(g.notes,
		fmt.Sprintf("%d cases in %d sessions. Intervals: %.0f%%, session-clustered, as gate's (docs/statistics.md, intervals that respect sessions); approvals per session: t over sessions.", res.Cases, res.Sessions, 100*res.Confidence),
		"Δ vs deployed: the same rule's figure minus the deployed configuration's on the same units, Newcombe paired interval, session sign-flip p; ~ = not significant.",
		"fail-open: judged pairs lost to the timeout and let through ÷ judged pairs; friction: benign tool calls (labeled no_match) blocked or sent for approval per 100 tool calls.",
		"P50, P95: the hook's latency (a cascade's calls added up, a vote's slowest judge, capped at the timeout); calls: cases each judge of the configuration was asked on, in its order.")
	if res.EffectiveRecallMin != nil {
		g.notes = append(g.notes, fmt.Sprintf("effective_recall_min = %g: PASS when the interval lies wholly at or above it, FAIL when wholly below.", *res.EffectiveRecallMin))
	}
	return g
}

// SimulateCharts draws, when the simulation swept two or more timeouts,
// effective recall and friction per 100 tool calls against the hook
// timeout, one line per judge, cascade or vote (its "*" rows).
func SimulateCharts(res *simulate.Result) ([]Chart, error) {
	type pt struct{ x, rec, fric float64 }
	lines := map[string][]pt{}
	var order []string
	for _, r := range res.Rows {
		if r.RuleID != "*" || r.Deployed || r.TimeoutMS == nil || r.OnFailure != string(simulate.FailPolicy) ||
			r.EffectiveRecall == nil || r.FrictionPer100 == nil {
			continue
		}
		if _, ok := lines[r.Base]; !ok {
			order = append(order, r.Base)
		}
		lines[r.Base] = append(lines[r.Base], pt{*r.TimeoutMS, *r.EffectiveRecall, *r.FrictionPer100})
	}
	multi := false
	for _, l := range lines {
		multi = multi || len(l) >= 2
	}
	if !multi {
		return nil, nil
	}
	var out []Chart
	for _, fig := range []struct {
		file, title, y string
		get            func(pt) float64
	}{
		{"simulate_effective_recall.svg", "Effective recall against the hook timeout", "effective recall", func(p pt) float64 { return p.rec }},
		{"simulate_friction.svg", "Friction (benign calls blocked or sent for approval per 100) against the hook timeout", "friction per 100 tool calls", func(p pt) float64 { return p.fric }},
	} {
		title, y := fig.title, fig.y
		if res.LabelSource == "weak" {
			title, y = title+" (weak labels)", y+" (weak)"
		}
		p := newPlot(title, "hook timeout (ms)", y)
		for k, name := range order {
			xy := make(plotter.XYs, 0, len(lines[name]))
			for _, q := range lines[name] {
				xy = append(xy, plotter.XY{X: q.x, Y: fig.get(q)})
			}
			l, sc, err := plotter.NewLinePoints(xy)
			if err != nil {
				return nil, err
			}
			l.Color, sc.Color = judgeColour(k), judgeColour(k)
			l.Width = vg.Points(1.5)
			sc.Shape, sc.Radius = draw.CircleGlyph{}, vg.Points(3)
			p.Add(l, sc)
			p.Legend.Add(name, l, sc)
		}
		if fig.y == "effective recall" {
			p.Y.Min, p.Y.Max = 0, 1.02
		} else {
			p.Y.Min = 0
		}
		b, err := svgOf(p)
		if err != nil {
			return nil, err
		}
		out = append(out, Chart{File: fig.file, Title: title, SVG: b})
	}
	return out, nil
}

// WriteOperatingPoints prints the operating points: per judge × rule, the
// decision, the threshold chosen on half of the sessions and its
// precision and recall on the other half.
// weak says the run's labels are weak labels: every format marks the
// figures on them.
func WriteOperatingPoints(w io.Writer, ops []simulate.OpPoint, f Format, weak bool) error {
	g := &grid{header: []string{"judge", "rule", "decision", "min confidence", "precision (holdout)", "recall (holdout)", "sessions sel/holdout", "+N sessions", "why"},
		right: []bool{false, false, false, true, true, true, true, true, false}}
	for _, op := range ops {
		more := na
		if op.MoreSessions != nil {
			more = fmt.Sprintf("+%d", *op.MoreSessions)
		}
		g.add(op.Judge, op.RuleID, op.Decision, fmtNum(op.Threshold, 3), fmtCI(op.Precision, op.PrecisionLo, op.PrecisionHi, 2),
			fmtCI(op.Recall, op.RecallLo, op.RecallHi, 2), fmt.Sprintf("%d/%d", op.SelectSessions, op.HoldoutSessions), more, op.Reason)
	}
	g.notes = append(g.notes, "Operating points: the lowest confidence threshold whose precision lower bound clears precision_min, chosen on half of the sessions (seeded hash of the session ID) and reported on the other half, so the figures are not optimistic.")
	g.weak = weak
	return g.render(w, f)
}

// WriteSimulatePatch writes the operating points as a reviewable policy
// patch (TOML, apeval.policy-patch/v1): per rule, the chosen minimum
// confidence, or the demotion to audit, with the evidence as comments.
// Refused rules are listed as comments only.
func WriteSimulatePatch(w io.Writer, ops []simulate.OpPoint, runID string) error {
	bw := &errWriter{w: w}
	bw.printf("# Policy patch from apeval simulate --write-patch (run %s).\n", runID)
	bw.printf("# Thresholds were chosen on half of the sessions and checked on the other half; review before applying.\n")
	bw.printf("schema = \"apeval.policy-patch/v1\"\n")
	for _, op := range ops {
		switch op.Decision {
		case simulate.OpChosen:
			bw.printf("\n# %s: %s\n[[rule]]\nid = %q\njudge = %q\nmin_confidence = %s\n", op.RuleID, op.Reason, op.RuleID, op.Judge, strconv.FormatFloat(*op.Threshold, 'g', -1, 64))
		case simulate.OpDemote:
			bw.printf("\n# %s: %s\n[[rule]]\nid = %q\njudge = %q\naction = \"audit_only\"\nclass = \"audit\"\n", op.RuleID, op.Reason, op.RuleID, op.Judge)
		default:
			more := ""
			if op.MoreSessions != nil {
				more = fmt.Sprintf(" (about +%d sessions would decide)", *op.MoreSessions)
			}
			bw.printf("\n# %s (%s): not changed: %s%s\n", op.RuleID, op.Judge, op.Reason, more)
		}
	}
	return bw.err
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

// WriteFrontier prints the frontier: each non-dominated configuration's
// figures on the selection half and on the report half, with the Holm-
// adjusted test of its precision against the floor.
// weak says the run's labels are weak labels: every format marks the
// figures on them.
func WriteFrontier(w io.Writer, fr []simulate.FrontierRow, f Format, weak bool) error {
	g := &grid{header: []string{"frontier configuration", "recall (sel)", "P95 ms (sel)", "cost /1k (sel)", "lowest rule precision (report)", "recall (report)", "P95 ms (report)", "Holm p", "defensible"},
		right: []bool{false, true, true, true, true, true, true, true, false}}
	for _, r := range fr {
		hp := na
		if r.HolmP != nil {
			hp = fmt.Sprintf("%.2g", *r.HolmP)
		}
		def := "no"
		if r.Defensible {
			def = "yes"
		}
		g.add(r.Config, fmtNum(r.SelectRecall, 2), fmtMS(r.SelectP95MS), fmtNum(r.SelectCostPer1k, 4),
			ruleCI(r.PrecisionRule, fmtCI(r.Precision, r.PrecisionLo, r.PrecisionHi, 2)), fmtCI(r.Recall, r.RecallLo, r.RecallHi, 2), fmtMS(r.P95MS), hp, def)
	}
	if len(fr) == 0 {
		g.add("(no configuration has every judged rule's precision lower bound above the floor on the selection half)", na, na, na, na, na, na, na, na)
	}
	g.notes = append(g.notes, "Frontier: configurations whose every judged rule (with labeled match predictions) has a precision lower bound clearing precision_min on half of the sessions, not dominated on cost, P95 and recall there; reported on the other half, with the rule whose lower bound is lowest. Holm p: the one-sided test that every such rule's precision exceeds the floor (the largest of the rules' p), adjusted across the frontier; defensible when below 1 − confidence.")
	g.weak = weak
	return g.render(w, f)
}

// ruleCI is a rule's figure with the rule named ("–" alone when there is
// no rule).
func ruleCI(rule, ci string) string {
	if rule == "" {
		return ci
	}
	return rule + " " + ci
}
