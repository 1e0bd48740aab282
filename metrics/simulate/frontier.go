package simulate

import (
	"errors"
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
	SelectRecall *float64 `json:"select_recall"`
	// SelectPrecisionLo is the lowest precision lower bound of the
	// configuration's judged rules on the selection half (the rule that
	// decides whether it is at the floor), SelectPrecisionRule that rule.
	SelectPrecisionLo   *float64 `json:"select_precision_lo"`
	SelectPrecisionRule string   `json:"select_precision_rule"`
	SelectP95MS         *float64 `json:"select_latency_p95_ms"`
	SelectCostPer1k     *float64 `json:"select_cost_per_1k_tool_calls"`
	// Report half. Precision is the judged rule with the lowest precision
	// lower bound there (PrecisionRule), the figure a team must defend.
	PrecisionRule string   `json:"precision_rule"`
	Precision     *float64 `json:"precision"`
	PrecisionLo   *float64 `json:"precision_lo"`
	PrecisionHi   *float64 `json:"precision_hi"`
	Recall        *float64 `json:"recall"`
	RecallLo      *float64 `json:"recall_lo"`
	RecallHi      *float64 `json:"recall_hi"`
	P95MS         *float64 `json:"latency_p95_ms"`
	CostPer1k     *float64 `json:"cost_per_1k_tool_calls"`
	// PValue is the one-sided p of "some judged rule's precision ≤
	// precision_min" on the report half: the largest of the rules' p-values
	// (each the level at which the rule's clustered interval's lower bound
	// reaches the floor), an intersection-union test, valid without
	// adjustment across the rules; HolmP adjusts it across the frontier.
	PValue     *float64 `json:"p_value"`
	HolmP      *float64 `json:"holm_p"`
	Defensible bool     `json:"defensible"`
}

// Frontier is the non-dominated set of the configurations (every one but
// the deployed) on cost, P95 and recall at the precision floor, decided on
// the sessions of half 0 and reported on half 1. precision_min is a
// per-rule criterion (a rule goes live only when its own precision clears
// it), so the floor is per rule: a configuration is at the floor on half 0
// when every rule its judges decided (judged pairs, labeled match
// predictions) has a precision lower bound clearing pmin; rules it never
// predicted a labeled match for, and deterministic rules (the same in
// every configuration), are not held to it. Among those at the floor, one
// is dominated when another is no worse on cost (when both have one), P95
// and recall (all rules) and better on one. On half 1 each frontier
// configuration's rules are tested against pmin (the largest p of its
// rules), Holm across the configurations; Defensible when the adjusted p
// is below 1 − confidence.
//
// An error is one reading the run's temporary files.
func Frontier(d *Data, cfgs []Config, pmin float64, o Options) ([]FrontierRow, error) {
	o.NoPaired = true
	o.Half = 1
	sel := Run(d, cfgs, o)
	o.Half = 2
	rep := Run(d, cfgs, o)
	if err := errors.Join(sel.Err(), rep.Err()); err != nil {
		return nil, err
	}
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
	selFloor, repFloor := floors(sel), floors(rep)
	var cand []Row
	for _, c := range cfgs[1:] {
		r, ok := s[c.Name()]
		f := selFloor[c.Name()]
		if ok && f.lo != nil && clears(*f.lo, pmin) && r.Recall != nil {
			cand = append(cand, r)
		}
	}
	out := []FrontierRow{}
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
		sf := selFloor[a.Config]
		fr := FrontierRow{Config: a.Config, SelectRecall: a.Recall, SelectPrecisionLo: sf.lo, SelectPrecisionRule: sf.rule,
			SelectP95MS: a.LatencyP95MS, SelectCostPer1k: a.CostPer1k}
		if r, ok := h[a.Config]; ok {
			if f := repFloor[a.Config]; f.row != nil {
				fr.PrecisionRule = f.rule
				fr.Precision, fr.PrecisionLo, fr.PrecisionHi = f.row.Precision, f.row.PrecisionLo, f.row.PrecisionHi
				fr.PValue = rulesP(rep, a.Config, pmin)
			}
			fr.Recall, fr.RecallLo, fr.RecallHi = r.Recall, r.RecallLo, r.RecallHi
			fr.P95MS, fr.CostPer1k = r.LatencyP95MS, r.CostPer1k
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
	return out, nil
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

// floor is a configuration's binding rule at the precision floor: the
// judged rule with the lowest precision lower bound.
type floor struct {
	rule string
	lo   *float64
	row  *Row
}

// heldToFloor says whether a rule row is held to precision_min on the
// frontier: a rule the configuration's judges decided, with labeled match
// predictions.
func heldToFloor(r *Row) bool {
	return r.RuleID != "*" && r.Judged > 0 && r.PrecisionLo != nil
}

// floors gives each configuration's binding rule (none: no rule is held
// to the floor).
func floors(res *Result) map[string]floor {
	m := map[string]floor{}
	for i := range res.Rows {
		r := &res.Rows[i]
		if !heldToFloor(r) {
			continue
		}
		if f, ok := m[r.Config]; !ok || *r.PrecisionLo < *f.lo {
			m[r.Config] = floor{rule: r.RuleID, lo: r.PrecisionLo, row: r}
		}
	}
	return m
}

// rulesP is the intersection-union p-value of "some judged rule's
// precision ≤ pmin" for the configuration on the report half: the largest
// of its held rules' p-values (precisionP); nil when no rule is held.
func rulesP(rep *Result, config string, pmin float64) *float64 {
	var worst *float64
	for i := range rep.Rows {
		r := &rep.Rows[i]
		if r.Config != config || !heldToFloor(r) {
			continue
		}
		p := precisionP(r, rep.precHist[config][rep.slotOf(r.RuleID)], pmin)
		if p != nil && (worst == nil || *p > *worst) {
			worst = p
		}
	}
	return worst
}

// precisionP is the one-sided p-value of "precision ≤ pmin" for a row
// whose precision histogram is hist: the α at which the clustered
// interval's lower bound (two-sided at 1 − 2α) reaches pmin, by bisection;
// 1 when the estimate is not above pmin.
func precisionP(r *Row, hist hist, pmin float64) *float64 {
	if r.Precision == nil {
		return nil
	}
	if *r.Precision <= pmin {
		return ptr(1)
	}
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
