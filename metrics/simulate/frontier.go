package simulate

import (
	"math"

	"github.com/apeval/apeval/metrics"
)

// FrontierRow is one configuration on the frontier: its figures on the
// selection half (where the frontier is decided) and on the report half
// (what a team can expect), with the one-sided test that its precision
// exceeds the floor, Holm-adjusted across the frontier.
type FrontierRow struct {
	Config string `json:"config"`
	// Selection half.
	SelectRecall      *float64 `json:"select_recall"`
	SelectPrecisionLo *float64 `json:"select_precision_lo"`
	SelectP95MS       *float64 `json:"select_latency_p95_ms"`
	SelectCostPer1k   *float64 `json:"select_cost_per_1k_tool_calls"`
	// Report half.
	Precision   *float64 `json:"precision"`
	PrecisionLo *float64 `json:"precision_lo"`
	PrecisionHi *float64 `json:"precision_hi"`
	Recall      *float64 `json:"recall"`
	RecallLo    *float64 `json:"recall_lo"`
	RecallHi    *float64 `json:"recall_hi"`
	P95MS       *float64 `json:"latency_p95_ms"`
	CostPer1k   *float64 `json:"cost_per_1k_tool_calls"`
	// PValue is the one-sided p of "precision ≤ precision_min" on the
	// report half (the level at which the clustered interval's lower bound
	// reaches the floor); HolmP adjusts it across the frontier.
	PValue     *float64 `json:"p_value"`
	HolmP      *float64 `json:"holm_p"`
	Defensible bool     `json:"defensible"`
}

// Frontier is the non-dominated set of the configurations (every one but
// the deployed) on cost, P95 and recall at the precision floor, decided on
// the sessions of half 0 and reported on half 1. A configuration is at the
// floor on half 0 when its precision's lower bound clears pmin; among
// those, one is dominated when another is no worse on cost (when both have
// one), P95 and recall and better on one. On half 1 each frontier
// configuration's precision is tested against pmin, Holm across them;
// Defensible when the adjusted p is below 1 − confidence.
func Frontier(d *Data, cfgs []Config, pmin float64, o Options) []FrontierRow {
	o.NoPaired = true
	o.Half = 1
	sel := Run(d, cfgs, o)
	o.Half = 2
	rep := Run(d, cfgs, o)
	star := func(res *Result) map[string]Row {
		m := map[string]Row{}
		for _, r := range res.Rows {
			if r.RuleID == "*" && !r.Deployed {
				m[r.Config] = r
			}
		}
		return m
	}
	s, h := star(sel), star(rep)
	var cand []Row
	for _, c := range cfgs[1:] {
		r, ok := s[c.Name()]
		if ok && r.PrecisionLo != nil && *r.PrecisionLo >= pmin && r.Recall != nil {
			cand = append(cand, r)
		}
	}
	var out []FrontierRow
	for i, a := range cand {
		dominated := false
		for k, b := range cand {
			if k != i && dominates(b, a) {
				dominated = true
				break
			}
		}
		if dominated {
			continue
		}
		fr := FrontierRow{Config: a.Config, SelectRecall: a.Recall, SelectPrecisionLo: a.PrecisionLo,
			SelectP95MS: a.LatencyP95MS, SelectCostPer1k: a.CostPer1k}
		if r, ok := h[a.Config]; ok {
			fr.Precision, fr.PrecisionLo, fr.PrecisionHi = r.Precision, r.PrecisionLo, r.PrecisionHi
			fr.Recall, fr.RecallLo, fr.RecallHi = r.Recall, r.RecallLo, r.RecallHi
			fr.P95MS, fr.CostPer1k = r.LatencyP95MS, r.CostPer1k
			fr.PValue = precisionP(rep, a.Config, pmin)
		}
		out = append(out, fr)
	}
	var ps []float64
	var idx []int
	for i, f := range out {
		if f.PValue != nil {
			ps = append(ps, *f.PValue)
			idx = append(idx, i)
		}
	}
	alpha := 1 - o.Confidence
	for k, p := range metrics.Holm(ps) {
		out[idx[k]].HolmP = ptr(p)
		out[idx[k]].Defensible = p < alpha
	}
	return out
}

// dominates: b is no worse than a on cost (when both have one), P95 and
// recall, and better on one of them.
func dominates(b, a Row) bool {
	better := false
	cmp := func(x, y *float64, lower bool) bool { // x no worse than y
		if x == nil || y == nil {
			return true
		}
		if lower {
			if *x < *y {
				better = true
			}
			return *x <= *y
		}
		if *x > *y {
			better = true
		}
		return *x >= *y
	}
	ok := cmp(b.CostPer1k, a.CostPer1k, true)
	ok = cmp(b.LatencyP95MS, a.LatencyP95MS, true) && ok
	ok = cmp(b.Recall, a.Recall, false) && ok
	return ok && better
}

// precisionP is the one-sided p-value of "precision ≤ pmin" for the
// configuration on the report half: the α at which the clustered
// interval's lower bound (two-sided at 1 − 2α) reaches pmin, by bisection;
// 1 when the estimate is not above pmin.
func precisionP(rep *Result, config string, pmin float64) *float64 {
	var r *Row
	for i := range rep.Rows {
		if rep.Rows[i].Config == config && rep.Rows[i].RuleID == "*" {
			r = &rep.Rows[i]
		}
	}
	if r == nil || r.Precision == nil {
		return nil
	}
	if *r.Precision <= pmin {
		return ptr(1)
	}
	hist := rep.precHist[config]
	lo := func(alpha float64) float64 {
		_, l, _ := hist.interval(1-2*alpha, 1)
		return *l
	}
	a, b := 1e-12, 0.5
	if lo(a) >= pmin {
		return ptr(a)
	}
	for range 40 {
		m := math.Sqrt(a * b)
		if lo(m) >= pmin {
			b = m
		} else {
			a = m
		}
	}
	return ptr(b)
}
