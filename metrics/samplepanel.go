package metrics

import (
	"github.com/apeval/apeval/replay"
)

// SampleFigures are one judge's figures on one rule from a labeled
// sample: what the labels decide, with the criteria they feed.
type SampleFigures struct {
	RuleID string       `json:"rule_id"`
	Judge  string       `json:"judge"`
	Class  replay.Class `json:"class"`
	// Sampled and Census count the labels the figures rest on: queue
	// labels (weighted N_h/n_h) and dataset labels (weight 1). Dropped
	// counts queue labels of pairs the run does not have in scope.
	Sampled int64 `json:"labels_sampled"`
	Census  int64 `json:"labels_census"`
	Dropped int   `json:"labels_dropped,omitempty"`
	// Weighted confusion counts.
	TP float64 `json:"tp_weighted"`
	FP float64 `json:"fp_weighted"`
	FN float64 `json:"fn_weighted"`
	TN float64 `json:"tn_weighted"`

	Precision WeightedRatio `json:"-"`
	Recall    WeightedRatio `json:"-"`
	// PrecisionMin is the precision_min criterion on the weighted
	// precision; DangerousRecall the dangerous-recall criterion on the
	// weighted paired gain over the rule's baseline (N/A on other rules).
	PrecisionMin    Criterion `json:"precision_min"`
	DangerousRecall Criterion `json:"dangerous_recall_must_beat_baseline"`
}

// SampleFiguresOf computes the labeled-sample figures of judge index j on
// rule from a pair table and the resolved sampled labels.
func SampleFiguresOf(t *PairTable, rule string, j int, labels []SampleLabel, crit replay.KillCriteria) SampleFigures {
	return sampleFiguresOf(t, rule, j, labels, crit, 0)
}

// sampleFiguresOf is SampleFiguresOf with the seed of the recall gain's
// Monte Carlo sign flip where every labeled positive weighs 1 (the
// run's, as the unweighted path takes it).
func sampleFiguresOf(t *PairTable, rule string, j int, labels []SampleLabel, crit replay.KillCriteria, seed uint64) SampleFigures {
	units, dropped := t.SampleUnits(rule, j, -1, labels)
	f := SampleFigures{RuleID: rule, Judge: t.Judges[j], Dropped: dropped}
	hasBase := false
	for _, p := range t.order {
		if p.RuleID == rule {
			f.Class = p.Class
			if p.Baseline != "" {
				hasBase = true
			}
			break
		}
	}
	sessions, pairs := t.traffic(rule, j)
	// Strata no label has reached yet widen every figure (samplereach.go).
	um, uo, pred := t.unreached(rule, j, units)
	// The queue-labeled interval is the stratified draws' where the run
	// holds the queue's traffic, else the two-phase design's
	// (sampletraffic.go); the unreached strata widen either.
	traffic, why := t.queueTraffic(rule, j, units, labels)
	f.Precision = WeightedPrecision(units, crit.Confidence).withDraws(units, traffic, why, precisionFn, crit.Confidence).
		WithTraffic(sessions, pairs).Of(rule, t.Judges[j]).reach(reachPrecision, um, uo, pred)
	f.Recall = WeightedRecall(units, crit.Confidence).withDraws(units, traffic, why, recallFn, crit.Confidence).
		WithTraffic(sessions, pairs).reach(reachRecall, um, uo, pred)
	strata := strataOf(units)
	for _, s := range strata {
		w := s.size / float64(s.labeled)
		for _, i := range s.idx {
			u := &units[i]
			if s.census {
				f.Census++
			} else {
				f.Sampled++
			}
			switch {
			case u.Match && u.Label:
				f.TP += w
			case u.Match:
				f.FP += w
			case u.Label:
				f.FN += w
			case !u.Undecided:
				// An unknown answer (or a failure) on a no_match label
				// is neither an FP nor a TN (DESIGN §6), as without
				// --labels.
				f.TN += w
			}
		}
	}
	f.PrecisionMin = SamplePrecision(f.Precision, crit)
	f.DangerousRecall = sampleDangerousRecall(WeightedRecallDiff(units, crit.Confidence).WithTraffic(sessions, pairs).reach(reachGain, um, uo, pred), f.Class, hasBase, crit, seed)
	return f
}

// SampleRules returns the rules of the table in first-seen order.
func (t *PairTable) SampleRules() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range t.order {
		if !seen[p.RuleID] {
			seen[p.RuleID] = true
			out = append(out, p.RuleID)
		}
	}
	return out
}

// traffic counts the recorded sessions and pairs of a rule that judge j
// answered: what a labeled figure of the rule describes, and what a hint
// for more sessions is stated against.
func (t *PairTable) traffic(rule string, j int) (sessions, pairs int64) {
	seen := map[string]bool{}
	for _, p := range t.order {
		if p.RuleID != rule || p.Results[j] == "" {
			continue
		}
		pairs++
		if !seen[p.Session] {
			seen[p.Session] = true
			sessions++
		}
	}
	return sessions, pairs
}
