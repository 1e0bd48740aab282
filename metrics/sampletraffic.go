package metrics

import (
	"fmt"
	"slices"
	"strings"
)

// The printed interval of a queue-labeled precision or recall is the
// stratified draws' (drawnInterval) where the run holds the queue's
// traffic: every recorded pair of the rule in the strata the labels
// reached, with its queue stratum, session and the judge's result. The
// queue's strata are named by its judges' results ("A:match B:no_match"),
// and its labels file names those judges by letter (SampleLabel.Judges),
// so the run gives every pair's stratum where it holds those judges. Where
// it does not (a labels file written before label queue recorded its
// judges, a queue judge absent from the run, strata whose sizes differ
// from the queue's), the figure keeps the two-phase design's interval and
// says why (docs/statistics.md, "The labeled interval from stratified
// draws, adopted").

// Interval methods of a queue-labeled proportion (WeightedRatio.Method).
const (
	IntervalDraws    = "stratified draws"
	IntervalTwoPhase = "two-phase design"
)

// IntervalDrawsText is how a reason names the draws' interval.
var IntervalDrawsText = fmt.Sprintf("stratified draws (%d,%03d, seeded from the labels; recorded pairs clustered by session)", drawDraws/1000, drawDraws%1000)

// queueTraffic returns the recorded pairs of rule in the queue strata
// units reach (their non-census strata), each with its stratum, session
// and whether judge j called it match, for drawnInterval; or, when the
// run cannot give them, nil and why. Every judge of need (j, and a paired
// figure's other judge) must have a result on each of them, each labeled
// pair's stratum in the run must be its label's, and each reached
// stratum must hold as many unlabeled pairs of the rule as the queue said
// (its StratumSize): the traffic is then the queue's own.
func (t *PairTable) queueTraffic(rule string, j int, units []SampleUnit, labels []SampleLabel) ([]TrafficPair, string) {
	reached := map[string]int64{}
	for i := range units {
		if units[i].Stratum != CensusStratum {
			reached[units[i].Stratum] = max(reached[units[i].Stratum], units[i].StratumSize)
		}
	}
	if len(reached) == 0 {
		return nil, "no queue label"
	}
	var judges []string
	for i, l := range labels {
		if l.RuleID != rule {
			continue
		}
		if len(l.Judges) == 0 {
			return nil, "the labels file does not name the queue's judges (written before label queue recorded them)"
		}
		if judges == nil {
			judges = labels[i].Judges
		} else if !slices.Equal(judges, l.Judges) {
			return nil, "its labels come from queues of different judges"
		}
	}
	letters := make([]string, len(judges))
	idx := make([]int, len(judges))
	for i, e := range judges {
		letter, id, ok := strings.Cut(e, "=")
		k, in := t.jidx[id]
		if !ok || !in {
			for _, name := range t.Judges {
				if strings.HasPrefix(name, id+" [") {
					// compare across runs renames a second run's
					// colliding judge "ID [dir]": its table mixes the
					// runs, so the strata are not rebuilt from it.
					return nil, fmt.Sprintf("the queue's judge %s is %q here, a second run's in a comparison across runs (report on that run alone prints the draws)", e, name)
				}
			}
			return nil, fmt.Sprintf("the queue's judge %s is not in this run", e)
		}
		letters[i], idx[i] = letter, k
	}
	name := func(p *PairRow) string {
		rs := make([]string, len(idx))
		for i, k := range idx {
			rs[i] = p.Results[k]
			if rs[i] == "" {
				rs[i] = QueueUndecided
			}
		}
		return StratumName(letters, rs)
	}
	for _, l := range labels {
		if l.RuleID != rule {
			continue
		}
		p := t.by[[2]string{l.CaseID, l.RuleID}]
		if p == nil || p.Label != "" || p.Results[j] == "" {
			continue
		}
		if got := name(p); got != l.Stratum {
			return nil, fmt.Sprintf("case %s is in stratum %q in this run, %q in the queue", l.CaseID, got, l.Stratum)
		}
	}
	size := map[string]int64{}
	var out []TrafficPair
	for _, p := range t.order {
		if p.RuleID != rule || p.Label != "" {
			continue
		}
		h := name(p)
		if _, ok := reached[h]; !ok {
			continue
		}
		size[h]++
		if p.Results[j] == "" {
			return nil, fmt.Sprintf("the judge has no result on case %s of stratum %q", p.CaseID, h)
		}
		out = append(out, TrafficPair{Stratum: h, Session: p.sessionKey(), Match: p.Results[j] == QueueMatch})
	}
	for h, n := range reached {
		if size[h] != n {
			return nil, fmt.Sprintf("stratum %q holds %d pairs in this run, %d in the queue", h, size[h], n)
		}
	}
	return out, ""
}

// drawMinSessions is the fewest recorded sessions (of the strata the
// labels reached) on which withDraws prints the draws' interval. The
// draws take the sessions' spread of the strata's sizes as normal, from
// the sessions themselves; on a small rule's few sessions that misses
// below: a rule of 6–30 sessions of 5 pairs, its queue labeling most of
// them, covered 0.84–0.92 (the two-phase interval 0.97–0.997), at 40–50
// sessions 0.93–0.98 (TestLabeledDrawsFewSessions; docs/statistics.md,
// "The draws on a small rule's few sessions").
const drawMinSessions = 40

// withDraws returns f, a queue-labeled proportion (precision, recall;
// fn its ratio) on units, with the stratified draws' interval in place of
// the two-phase design's where traffic allows (why == ""), Method saying
// which. The census (every label weighs 1) keeps its own interval and no
// Method; so does a figure without a sampled label. The few-session guard
// composes on top as on the two-phase interval (the hull of both); labels
// from one session keep the two-phase interval, which counts them as one
// unit. Var, NEff and every hint keep the two-phase variance.
func (f WeightedRatio) withDraws(units []SampleUnit, traffic []TrafficPair, why string, fn ratioFn, conf float64) WeightedRatio {
	if f.Estimate == nil || f.census != nil || f.Lo == nil || f.Sampled == 0 {
		return f
	}
	f.Method = IntervalTwoPhase
	if why != "" {
		f.MethodWhy = why
		return f
	}
	if f.Sessions < 2 {
		f.MethodWhy = "its labels come from one session"
		return f
	}
	sess := map[string]bool{}
	for _, p := range traffic {
		sess[p.Session] = true
	}
	if len(sess) < drawMinSessions {
		f.MethodWhy = fmt.Sprintf("the rule's recorded pairs in the labeled strata come from %d sessions, fewer than the draws need (%d)", len(sess), drawMinSessions)
		return f
	}
	lo, hi, ok := drawnInterval(units, traffic, fn, *f.Estimate, conf)
	if !ok {
		f.MethodWhy = "the draws had no denominator"
		return f
	}
	// The few-session guard, as designRatio applied it.
	if f.few != nil {
		lo, hi = min(lo, f.few[0]), max(hi, f.few[1])
	}
	f.Lo, f.Hi = ptr(lo), ptr(hi)
	f.Method, f.MethodWhy = IntervalDraws, ""
	return f
}
