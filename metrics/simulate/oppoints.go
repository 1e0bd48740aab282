package simulate

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/apeval/apeval/metrics"
)

// Operating point decisions.
const (
	OpChosen  = "chosen"  // a threshold, confirmed on the other half
	OpRefused = "refused" // too little data to tell: +N sessions
	OpDemote  = "demote"  // no threshold reaches the precision floor: demote to audit
	OpNone    = "no_confidence"
)

// OpPoint is the operating point of one judge × rule: the threshold
// chosen on the sessions of half 0 and its figures on half 1
// (cross-fitted: the chosen point's figures are not optimistic).
type OpPoint struct {
	Judge    string `json:"judge"`
	RuleID   string `json:"rule_id"`
	Decision string `json:"decision"` // chosen, refused, demote, no_confidence
	Reason   string `json:"reason"`
	// Threshold is the chosen minimum confidence for a match (nil unless
	// chosen; for refused, the best threshold tried).
	Threshold    *float64 `json:"threshold"`
	PrecisionMin float64  `json:"precision_min"`
	// On the selection half, at the threshold.
	SelectPrecision   *float64 `json:"select_precision"`
	SelectPrecisionLo *float64 `json:"select_precision_lo"`
	SelectSessions    int64    `json:"select_sessions"`
	// On the holdout half, at the threshold: what a team can expect.
	Precision       *float64 `json:"precision"`
	PrecisionLo     *float64 `json:"precision_lo"`
	PrecisionHi     *float64 `json:"precision_hi"`
	Recall          *float64 `json:"recall"`
	RecallLo        *float64 `json:"recall_lo"`
	RecallHi        *float64 `json:"recall_hi"`
	HoldoutSessions int64    `json:"holdout_sessions"`
	// MoreSessions is "+N": about how many more sessions like these (within
	// a factor of two) would let the choice be made.
	MoreSessions *int64 `json:"more_sessions"`
}

// OperatingPoints chooses, for every judge of the run that gave
// confidences and every labeled rule it decided, a confidence threshold
// by the objective of Choose on the sessions of half 0 (Half, seeded) and
// reports it on half 1. A rule is refused when half 0 cannot choose (with
// "+N" sessions when its best estimate is above pmin), or when half 1's
// interval straddles pmin ("+N"); it is to be demoted to audit when the
// best threshold's interval lies wholly below pmin on half 0, or half 1
// confirms the chosen one below. With judges (indexes into d.Judges, as
// JudgesOf gives), only those judges' points.
// An error is one reading the run's temporary files.
func OperatingPoints(d *Data, pmin, conf float64, seed uint64, judges ...int) ([]OpPoint, error) {
	if err := d.Done(); err != nil {
		return nil, err
	}
	// One pass: every asked judge's labeled pairs, by rule and half. The
	// items are held in memory (24 bytes a labeled judged pair) for the
	// threshold sweep.
	items := make([][][2][]Item, len(d.Judges))
	withConf := make([][]bool, len(d.Judges))
	for j := range d.Judges {
		if len(judges) > 0 && !slices.Contains(judges, j) {
			continue
		}
		items[j] = make([][2][]Item, len(d.rules))
		withConf[j] = make([]bool, len(d.rules))
	}
	sess := uint32(0)
	err := d.each(false, func(b *block) {
		s := sess
		sess++
		h := Half(string(b.sess), seed)
		for j := range d.Judges {
			if items[j] == nil {
				continue
			}
			for c := range b.n {
				jc := b.at(j, c)
				if !jc.present() {
					continue
				}
				for _, p := range b.rowsOf(jc) {
					r := p.unpack()
					if !r.judged || r.scope || r.label == labNone || r.outcome == outMissing {
						continue
					}
					it := Item{Sess: s, Pos: r.label == labMatch, Match: r.outcome == outMatch, Conf: float64(r.conf)}
					if it.Match && !math.IsNaN(it.Conf) {
						withConf[j][r.rule] = true
					}
					items[j][r.rule][h] = append(items[j][r.rule][h], it)
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	var out []OpPoint
	for j := range d.Judges {
		if items[j] == nil {
			continue
		}
		items, withConf := items[j], withConf[j]
		for ri, hs := range items {
			if len(hs[0])+len(hs[1]) == 0 {
				continue
			}
			op := OpPoint{Judge: d.Judges[j].ID, RuleID: d.rules[ri].ID, PrecisionMin: pmin,
				SelectSessions: sessions(hs[0]), HoldoutSessions: sessions(hs[1])}
			if !withConf[ri] {
				op.Decision, op.Reason = OpNone, "the judge gave no confidence for its matches"
				out = append(out, op)
				continue
			}
			op.decide(hs[0], hs[1], pmin, conf)
			out = append(out, op)
		}
	}
	return out, nil
}

// JudgesOf lists the judges the configurations other than the deployed
// one (cfgs[0], as Expand gives) ask: what the command line or
// apeval.toml named (--judge, --cascade, --vote), every judge by default.
func JudgesOf(cfgs []Config) []int {
	var out []int
	for _, c := range cfgs[min(1, len(cfgs)):] {
		for _, j := range c.Judges {
			if !slices.Contains(out, j) {
				out = append(out, j)
			}
		}
	}
	slices.Sort(out)
	return out
}

func sessions(items []Item) int64 {
	s := map[uint32]bool{}
	for _, it := range items {
		s[it.Sess] = true
	}
	return int64(len(s))
}

func (op *OpPoint) decide(sel, hold []Item, pmin, conf float64) {
	chosen, ok, best := Choose(sel, pmin, conf)
	if !ok {
		switch {
		case best.Precision == nil:
			op.Decision, op.Reason = OpRefused, "the judge predicted no labeled match on the selection half"
			return
		case *best.PrecisionHi < pmin && metrics.FewSessions(best.PrecisionSessions):
			// It would demote, on too few sessions to decide anything.
			op.Decision = OpRefused
			op.Reason = fmt.Sprintf("precision %.3g [%.3g, %.3g] at the best threshold on the selection half is %s", *best.Precision, *best.PrecisionLo, *best.PrecisionHi, metrics.FewSessionsReason(best.PrecisionSessions))
			return
		case *best.PrecisionHi < pmin:
			op.Decision = OpDemote
			op.Reason = fmt.Sprintf("precision %.3g [%.3g, %.3g] at the best threshold lies below %g on the selection half", *best.Precision, *best.PrecisionLo, *best.PrecisionHi, pmin)
			return
		case *best.Precision <= pmin:
			op.Decision = OpRefused
			op.Reason = fmt.Sprintf("precision %.3g [%.3g, %.3g] at the best threshold is not above %g on the selection half: more data like these would not clear it", *best.Precision, *best.PrecisionLo, *best.PrecisionHi, pmin)
			return
		}
		op.Decision = OpRefused
		op.Threshold = ptr(best.Threshold)
		op.SelectPrecision, op.SelectPrecisionLo = best.Precision, best.PrecisionLo
		op.MoreSessions = moreSessions(sel, best.Threshold, pmin, conf)
		op.Reason = fmt.Sprintf("no threshold's precision lower bound clears %g on the selection half (best %.3g at confidence ≥ %.3g)",
			pmin, *best.PrecisionLo, best.Threshold)
		return
	}
	op.Threshold = ptr(chosen.Threshold)
	op.SelectPrecision, op.SelectPrecisionLo = chosen.Precision, chosen.PrecisionLo
	h := Evaluate(hold, chosen.Threshold, conf)
	op.Precision, op.PrecisionLo, op.PrecisionHi = h.Precision, h.PrecisionLo, h.PrecisionHi
	op.Recall, op.RecallLo, op.RecallHi = h.Recall, h.RecallLo, h.RecallHi
	switch {
	case h.PrecisionLo == nil:
		op.Decision, op.Reason = OpRefused, "no predicted match on the holdout half at the chosen threshold"
	case metrics.FewSessions(h.PrecisionSessions):
		op.Decision = OpRefused
		op.MoreSessions = moreSessions(hold, chosen.Threshold, pmin, conf)
		op.Reason = fmt.Sprintf("precision %.3g [%.3g, %.3g] on the holdout half is %s", *h.Precision, *h.PrecisionLo, *h.PrecisionHi, metrics.FewSessionsReason(h.PrecisionSessions))
	case clears(*h.PrecisionLo, pmin):
		op.Decision = OpChosen
		op.Reason = fmt.Sprintf("precision %.3g [%.3g, %.3g] on the holdout half clears %g", *h.Precision, *h.PrecisionLo, *h.PrecisionHi, pmin)
	case *h.PrecisionHi < pmin:
		op.Decision = OpDemote
		op.Reason = fmt.Sprintf("precision %.3g [%.3g, %.3g] on the holdout half lies below %g", *h.Precision, *h.PrecisionLo, *h.PrecisionHi, pmin)
	default:
		op.Decision = OpRefused
		op.MoreSessions = moreSessions(hold, chosen.Threshold, pmin, conf)
		op.Reason = fmt.Sprintf("precision %.3g [%.3g, %.3g] on the holdout half straddles %g: too wide to tell", *h.Precision, *h.PrecisionLo, *h.PrecisionHi, pmin)
	}
}

// WithOperatingPoints adds, per judge with a chosen threshold above 0 (0
// keeps every match: the judge as it is), a
// configuration of that judge with its chosen thresholds, under every
// timeout the others have (the frontier then weighs them with the rest).
func WithOperatingPoints(d *Data, cfgs []Config, ops []OpPoint) []Config {
	timeouts := map[time.Duration]bool{}
	var order []time.Duration
	var mode OnFailure = FailPolicy
	for _, c := range cfgs[1:] {
		if !timeouts[c.Timeout] {
			timeouts[c.Timeout] = true
			order = append(order, c.Timeout)
		}
		mode = c.OnFailure
	}
	if len(order) == 0 {
		order = []time.Duration{0}
	}
	for j, jd := range d.Judges {
		th := map[int]float64{}
		var parts []string
		for _, op := range ops {
			// A threshold of 0 keeps every match: the judge as it is.
			if op.Judge == jd.ID && op.Decision == OpChosen && *op.Threshold > 0 {
				th[d.ruleIx[op.RuleID]] = *op.Threshold
				parts = append(parts, fmt.Sprintf("%s≥%.3g", op.RuleID, *op.Threshold))
			}
		}
		if len(th) == 0 {
			continue
		}
		b := Base{Name: jd.ID + " min_confidence(" + strings.Join(parts, ",") + ")", Kind: KindJudge, Judges: []int{j}, Thresholds: th}
		for _, t := range order {
			cfgs = append(cfgs, Config{Base: b, Timeout: t, OnFailure: mode})
		}
	}
	return cfgs
}
