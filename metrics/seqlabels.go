package metrics

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
	"gonum.org/v1/gonum/stat/distuv"
)

// LabelStanding is where precision_min stands on a labeling queue's
// labels, anytime-valid (docs/sequential.md, "On the labeling page"): the
// labeling page shows "decided after 140 labels" or "open: about 60 more
// labels". Labels may be looked at after every one: a wrong decision
// happens with probability at most 1 − confidence however often.
type LabelStanding struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Labels counts the rule's labels so far (skips left out), in queue
	// order; DecidedAfter the labels after which it was decided.
	Labels       int      `json:"labels"`
	DecidedAfter *int     `json:"decided_after,omitempty"`
	More         *int     `json:"more,omitempty"`
	Queued       int      `json:"queued"`
	Estimate     *float64 `json:"estimate,omitempty"`
	Lo           *float64 `json:"lo,omitempty"`
	Hi           *float64 `json:"hi,omitempty"`
	Reason       string   `json:"reason"`
}

// labelSims is the number of simulated continuations of the queue an
// open standing's "about N more labels" is the median of.
const labelSims = 11

// LabelSequential decides precision_min of judge j on rule from the
// labels of a queue, in queue order, anytime-valid over the looks, on the
// two-phase design of the page's weighted interval (docs/sequential.md,
// "On the labeling page"). The figure is the judge's precision on its
// traffic; the recorded sessions sample that traffic (phase 1) and the
// queue samples the recorded pairs (phase 2).
//
// Phase 2, the labels: in each stratum where the judge said match, the
// queue's labels come in a seeded random order, so they are draws of the
// stratum's share of match labels, and the confidence sequence of `gate
// --sequential` (ConfidenceSequence) bounds that share; the dataset's own
// labels of pairs the judge matched (census) are one more such stratum.
// Each of the H strata gets 0.3·α/H (Bonferroni); their bounds combine,
// weighted by stratum size, into bounds on the recorded pairs' precision
// that hold at every look together.
//
// Phase 1, the sessions: the recorded pairs' precision differs from the
// traffic's by how the recorded sessions happen to fall, once, whatever
// the looks; the bounds widen on each side by z·√v₁ at the rest of α
// (two-sided), v₁ the session-clustered part of the weighted precision's
// two-phase variance (WeightedRatio.Var − SampledVar) on the labels so
// far, raised to its 90 % upper χ² bound on the sessions' degrees of
// freedom. Fewer than two sessions among the labels cannot show v₁:
// nothing is decided.
//
// The one verdict rule decides on the widened bounds. The judge's letter
// in the stratum names is the table's judge index (A for the first), as
// `apeval label queue` names them; a queue drawn on other judges gives
// N/A. queue is the queue in order, labels the resolved labels (skips
// left out).
func LabelSequential(t *PairTable, rule string, j int, queue []datasets.SampleLabel, labels []SampleLabel, crit replay.KillCriteria) LabelStanding {
	st := LabelStanding{Name: CriterionPrecisionMin}
	conf := crit.Confidence
	if conf <= 0 || conf >= 1 {
		conf = 0.95
	}
	alpha := 1 - conf
	// α is split: LabelSequenceShare of it for the labels' sequences, the
	// rest for the sessions' term.
	alpha2 := alpha * LabelSequenceShare
	letter := string(rune('A'+j)) + ":"
	if j >= 26 {
		letter = fmt.Sprintf("J%d:", j+1)
	}
	// Census: the dataset's labels, known.
	var cTP, cDen float64
	for _, p := range t.order {
		if p.RuleID != rule || p.Label == "" || p.Results[j] == "" {
			continue
		}
		if p.Results[j] == QueueMatch {
			cDen++
			if p.Label == datasets.LabelMatch {
				cTP++
			}
		}
	}
	// The queue's strata of the rule, and the judge's result in each.
	type stratum struct {
		size  int
		match bool
		fs    *ConfidenceSequence
		k, n  int
	}
	strata := map[string]*stratum{}
	var names []string
	pos := map[string]int{}
	for i, q := range queue {
		if q.RuleID != rule {
			continue
		}
		st.Queued++
		pos[q.CaseID] = i
		s := strata[q.Stratum]
		if s == nil {
			res := ""
			for _, tok := range strings.Fields(q.Stratum) {
				if strings.HasPrefix(tok, letter) {
					res = strings.TrimPrefix(tok, letter)
				}
			}
			if res == "" {
				st.Status = StatusNA
				st.Reason = fmt.Sprintf("the queue's strata do not name judge %s (%s): draw the queue on the run's judges for a sequential standing", strings.TrimSuffix(letter, ":"), t.Judges[j])
				return st
			}
			s = &stratum{size: int(max(q.StratumSize, 1)), match: res == QueueMatch}
			strata[q.Stratum] = s
			names = append(names, q.Stratum)
		}
	}
	slices.Sort(names)
	h := 0
	for _, nm := range names {
		if strata[nm].match {
			h++
		}
	}
	if cDen > 0 {
		h++ // the census
	}
	if h == 0 {
		st.Status = StatusInconclusive
		st.Reason = "no match prediction of the judge is queued or labeled: no rule goes live on no evidence"
		return st
	}
	for _, nm := range names {
		if s := strata[nm]; s.match {
			s.fs = NewConfidenceSequence(alpha2 / float64(h))
		}
	}
	// The census: its labels are known before the queue's, in the run's
	// order (which no outcome chose).
	var census *ConfidenceSequence
	if cDen > 0 {
		census = NewConfidenceSequence(alpha2 / float64(h))
		for _, p := range t.order {
			if p.RuleID == rule && p.Label != "" && p.Results[j] == QueueMatch {
				x := 0.0
				if p.Label == datasets.LabelMatch {
					x = 1
				}
				census.Add(x)
			}
		}
	}
	// The labels of the rule in queue order.
	var mine []SampleLabel
	for _, l := range labels {
		if _, ok := pos[l.CaseID]; ok && l.RuleID == rule {
			mine = append(mine, l)
		}
	}
	slices.SortFunc(mine, func(a, b SampleLabel) int { return cmp.Compare(pos[a.CaseID], pos[b.CaseID]) })
	bounds := func() (lo, hi, est float64) {
		den := cDen
		if census != nil {
			l, u := census.Interval()
			lo, hi, est = cDen*l, cDen*u, cTP
		}
		for _, nm := range names {
			s := strata[nm]
			if !s.match {
				continue
			}
			l, u := s.fs.Interval()
			n := float64(s.size)
			lo += n * l
			hi += n * u
			if s.n > 0 {
				est += n * float64(s.k) / float64(s.n)
			} else {
				est += n * (l + u) / 2
			}
			den += n
		}
		return lo / den, hi / den, est / den
	}
	// phase1 is the sessions' half-width on the first n labels of mine:
	// z·√v₁ of the weighted precision at the rest of α (two-sided), v₁
	// raised to its 90 % upper χ² bound on the sessions' degrees of
	// freedom (spreadUp: the sessions the labels reach so far may
	// understate it, and it is estimated anew at every look); 1, never
	// decided, on fewer than two sessions.
	phase1 := func(n int) float64 {
		units, _ := t.SampleUnits(rule, j, -1, mine[:n])
		f := WeightedPrecision(units, conf)
		if f.Estimate == nil || f.Sessions < 2 {
			return 1
		}
		v1 := max(0, f.Var-f.SampledVar)
		return distuv.UnitNormal.Quantile(1-(alpha-alpha2)/2) * spreadUp(f.DF) * math.Sqrt(v1)
	}
	// emptied: a stratum's labels (or the census) excluded every share,
	// so its interval is the running mean alone: nothing is decided on
	// it (a decision made before stays).
	emptied := func() bool {
		if census != nil && census.Excluded() {
			return true
		}
		for _, nm := range names {
			if s := strata[nm]; s.fs != nil && s.fs.Excluded() {
				return true
			}
		}
		return false
	}
	decideAt := func(delta float64) Status {
		if emptied() {
			return StatusInconclusive
		}
		lo, hi, _ := bounds()
		return AtLeast.Decide(crit.PrecisionMin, Evidence{Lo: lo - delta, Hi: hi + delta}).Status
	}
	labeled := map[string]bool{}
	for _, l := range mine {
		st.Labels++
		labeled[l.CaseID] = true
		s := strata[l.Stratum]
		if s == nil {
			s = strata[queue[pos[l.CaseID]].Stratum]
		}
		if s == nil || !s.match {
			continue
		}
		s.n++
		x := 0.0
		if l.Match {
			s.k++
			x = 1
		}
		s.fs.Add(x)
		// The labels' bounds alone must decide first (the sessions'
		// term only widens them); only then is v₁ computed.
		if st.DecidedAfter == nil && decideAt(0) != StatusInconclusive {
			if d := decideAt(phase1(st.Labels)); d != StatusInconclusive {
				st.Status, st.DecidedAfter = d, new(st.Labels)
			}
		}
	}
	delta := phase1(len(mine))
	lo, hi, est := bounds()
	lo, hi = max(0, lo-delta), min(1, hi+delta)
	st.Lo, st.Hi, st.Estimate = ptr(lo), ptr(hi), ptr(est)
	desc := fmt.Sprintf("precision %s, %.0f%% confidence sequence [%s, %s] (labels, then sessions)", fmtF(est), conf*100, fmtF(lo), fmtF(hi))
	if st.DecidedAfter != nil {
		st.Reason = fmt.Sprintf("%s after %d labels; now %s", st.Status, *st.DecidedAfter, desc)
		return st
	}
	st.Status = StatusInconclusive
	if emptied() {
		st.Reason = fmt.Sprintf("open: the labels of a stratum excluded every share, so the sequence cannot decide (they do not look like draws in random order: were labels changed or the queue reordered?); %s", desc)
		return st
	}
	// About how many more labels: the median over simulated
	// continuations of the rest of the queue, each stratum's labels drawn
	// at its smoothed share so far.
	var rest []int
	for i, q := range queue {
		if q.RuleID == rule && !labeled[q.CaseID] {
			rest = append(rest, i)
		}
	}
	if len(rest) == 0 {
		// Every queued pair of the rule is labeled (or skipped): no
		// continuation of this queue is left to simulate.
		st.Reason = fmt.Sprintf("open: %s still reaches %s after every queued label of the rule (a longer queue, apeval label queue --budget, or more recorded sessions may decide it)", desc, fmtF(crit.PrecisionMin))
		return st
	}
	rng := rand.New(rand.NewPCG(uint64(len(mine))+1, uint64(len(rest))+7))
	var need []int
	for range labelSims {
		fss := map[string]*ConfidenceSequence{}
		for _, nm := range names {
			if s := strata[nm]; s.match {
				fss[nm] = s.fs.Clone()
			}
		}
		orig := map[string]*ConfidenceSequence{}
		for nm, f := range fss {
			orig[nm], strata[nm].fs = strata[nm].fs, f
		}
		got := -1
		for k, i := range rest {
			s := strata[queue[i].Stratum]
			if !s.match {
				continue
			}
			p := (float64(s.k) + 0.5) / (float64(s.n) + 1)
			x := 0.0
			if rng.Float64() < p {
				x = 1
			}
			s.fs.Add(x)
			// v₁ is the recorded sessions' spread: more labels of them
			// do not shrink it (held at its value now).
			if decideAt(delta) != StatusInconclusive {
				got = k + 1
				break
			}
		}
		for nm, f := range orig {
			strata[nm].fs = f
		}
		if got > 0 {
			need = append(need, got)
		}
	}
	if 2*len(need) > labelSims {
		slices.Sort(need)
		// The median over all continuations, undecided ones counting as
		// beyond the queue (after every decided one): more than half
		// decided, so it is one of them.
		st.More = new(need[(labelSims-1)/2])
		st.Reason = fmt.Sprintf("open: %s still reaches %s; about %d more labels from the queue would decide it at the labels' rates so far", desc, fmtF(crit.PrecisionMin), *st.More)
		return st
	}
	st.Reason = fmt.Sprintf("open: %s still reaches %s; the %d labels left in the queue would likely not decide it at the rates so far (a longer queue: apeval label queue --budget)", desc, fmtF(crit.PrecisionMin), len(rest))
	return st
}

// LabelSequenceShare is the share of α the labels' confidence sequences
// get; the sessions' term, estimated once more at every look from the
// labels so far, gets the rest. Measured (TestCalibrationLabelSequential,
// sessions of 20 at ICC 0.3, 400 queues): an even split with the t
// quantile decided falsely 0.055, this split with the 90 % upper bound of
// v₁ 0.040; at sessions of 4 both 0.003.
const LabelSequenceShare = 0.3
