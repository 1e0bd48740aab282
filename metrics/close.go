package metrics

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apeval/apeval/internal/spill"
	"github.com/apeval/apeval/replay"
)

// Close computes rates, intervals, criteria and verdicts. Call it once,
// after the last Add; the Accumulator must not be used afterwards (its
// buffers move into the Summary).
func (a *Accumulator) Close() *Summary {
	crit := a.cfg.Criteria
	var warnings []string
	if !(crit.Confidence > 0 && crit.Confidence < 1) {
		warnings = append(warnings, fmt.Sprintf("confidence %v is not between 0 and 1; using 0.95", crit.Confidence))
		crit.Confidence = 0.95
	}
	e := newEvaluator(crit)
	e.seed = a.cfg.Seed
	sm, nSess := a.denseSessions()
	s := &Summary{
		Thresholds:  ThresholdsOf(crit),
		Baseline:    a.cfg.Baseline,
		Judges:      []*JudgeSummary{},
		Comparisons: []*Comparison{},
		paired:      map[string]*judgePairs{},
		crit:        crit,
		conf:        crit.Confidence,
		sm:          sm,
		nSess:       nSess,
		pool:        a.pool,
		seed:        a.cfg.Seed,
		contig:      a.contig,
	}
	s.Slices = a.closeSlices()
	ls := newLaneSums(ruleLanes+1, a.contig, nSess, a.pool)
	if a.numCases() > maxCases {
		warnings = append(warnings, fmt.Sprintf("%d distinct cases exceed the %d that paired comparisons can index; comparisons are unreliable", a.numCases(), maxCases))
	}
	a.caseSess = nil
	setup := map[string]map[string]int64{}
	for _, j := range a.judgeOrder() {
		setup[j.id] = j.setup
		js, pairs := j.close(e, sm, ls, a.contig, nSess, a.pool)
		js.IsBaseline = a.cfg.Baseline != "" && j.id == a.cfg.Baseline
		js.NeverInScope = []NeverInScope{}
		for _, id := range a.cfg.PolicyRules {
			if j.rules[id] == nil {
				js.NeverInScope = append(js.NeverInScope, NeverInScope{RuleID: id,
					Reason: "no case replayed by this judge had the rule in scope (its scope matched no case): no figures and no verdict"})
				js.Warnings = append(js.Warnings, fmt.Sprintf("rule %s was never in scope: no case matched its scope, so it has no figures and no verdict", id))
			}
		}
		s.Judges = append(s.Judges, js)
		s.paired[j.id] = pairs
	}

	base := s.Judge(a.cfg.Baseline)
	switch {
	case a.cfg.Baseline == "":
	case base == nil:
		warnings = append(warnings, fmt.Sprintf("baseline judge %q is not among the results; fire_rate_change_max is N/A", a.cfg.Baseline))
	default:
		for _, js := range s.Judges {
			if js == base {
				continue
			}
			s.Comparisons = append(s.Comparisons, s.Compare(base.Judge, js.Judge))
		}
	}
	for _, js := range s.Judges {
		var cmp *Comparison
		for _, c := range s.Comparisons {
			if c.Candidate == js.Judge {
				cmp = c
			}
		}
		for _, r := range js.Rules {
			r.Criteria = append(r.Criteria, fireRateCriterion(s, base, js, cmp, r.RuleID))
		}
		js.finishVerdict()
		js.setupVerdict(setup[js.Judge])
	}

	s.Verdict = runVerdict(s.Judges, base)
	if len(s.Judges) == 0 {
		warnings = append(warnings, "no results: nothing was replayed")
	}
	for _, js := range s.Judges {
		for _, w := range js.Warnings {
			warnings = append(warnings, js.Judge+": "+w)
		}
	}
	s.Warnings = append(warnings, comparisonWarnings(s.Comparisons)...)
	s.Warnings = append(s.Warnings, spillWarnings(a.pool)...)
	if s.Warnings == nil {
		s.Warnings = []string{}
	}
	return s
}

// judgeOrder is Config.Judges first, then the baseline, then the rest by
// identity, so reports do not depend on the order results arrived in.
func (a *Accumulator) judgeOrder() []*judgeAcc {
	rank := func(id string) int {
		if i := slices.Index(a.cfg.Judges, id); i >= 0 {
			return i
		}
		if id == a.cfg.Baseline {
			return len(a.cfg.Judges)
		}
		return len(a.cfg.Judges) + 1
	}
	out := slices.Clone(a.order)
	slices.SortFunc(out, func(x, y *judgeAcc) int {
		if rx, ry := rank(x.id), rank(y.id); rx != ry {
			return rx - ry
		}
		return strings.Compare(x.id, y.id)
	})
	return out
}

// fireRateCriterion picks the fire_rate_change_max result of a rule row.
func fireRateCriterion(s *Summary, base, js *JudgeSummary, cmp *Comparison, ruleID string) Criterion {
	c := Criterion{Name: CriterionFireRateChangeMax, Status: StatusNA, Threshold: s.crit.FireRateChangeMax}
	switch {
	case s.Baseline == "":
		c.Reason = "no baseline judge was given (--baseline)"
	case base == nil:
		c.Reason = fmt.Sprintf("baseline judge %q is not among the results", s.Baseline)
	case js == base:
		c.Reason = "this judge is the baseline"
	case cmp != nil:
		for _, rc := range cmp.Rules {
			if rc.RuleID == ruleID {
				return rc.FireRateChange
			}
		}
		c.Reason = "the rule is not in the comparison"
	default:
		c.Reason = "no comparison with the baseline"
	}
	return c
}

// runVerdict is the worst verdict over the candidate judges: every judge
// but the baseline, or the baseline alone when it is the only judge; a
// broken setup of any judge, the baseline's included, makes it ERROR. No
// judge at all is INCONCLUSIVE (nothing was shown to be safe).
func runVerdict(judges []*JudgeSummary, base *JudgeSummary) Verdict {
	if len(judges) == 0 {
		return VerdictInconclusive
	}
	v := VerdictGo
	for _, js := range judges {
		// A broken baseline leaves nothing to compare with: ERROR too.
		if js != base || len(judges) == 1 || js.Verdict == VerdictError {
			v = worse(v, js.Verdict)
		}
	}
	return v
}

// close turns one judge's counts into its summary and hands over its
// paired data.
func (j *judgeAcc) close(e *evaluator, sm sessMap, ls *laneSums, contig bool, nSess int, pool *spill.Pool) (*JudgeSummary, *judgePairs) {
	js := &JudgeSummary{
		Judge: j.id, Model: j.model, ModelDigest: j.digest, PromptVersion: j.prompt,
		RunIDs: j.runIDs, Rules: []*Row{}, Warnings: []string{},
	}
	if js.RunIDs == nil {
		js.RunIDs = []string{}
	}
	slices.Sort(js.RunIDs)
	if len(js.RunIDs) > 0 {
		js.RunID = js.RunIDs[0]
	}
	pairs := &judgePairs{rules: make(map[string]*spill.List, len(j.ruleOrder)), lat: make(map[string]callLats, len(j.ruleOrder))}
	for i, s := range j.latSess {
		j.latSess[i] = sm.at(uint64(s))
	}

	rules := slices.Clone(j.ruleOrder)
	slices.SortFunc(rules, func(x, y *ruleAcc) int { return strings.Compare(x.id, y.id) })
	// The judge-level counts and intervals come from the cases first:
	// every row carries the judge's case count.
	var cc caseTally
	distinct := eachCase(j.caseList, sm, &cc, func(sess uint32, f uint64) {
		if f&caseReplayed != 0 {
			ls.add(sess, 0, f&caseJudgeCalled != 0)
		}
		if f&caseApprOut != 0 {
			ls.add(sess, 1, f&caseApprRej != 0)
		}
	})
	ls.done()
	jrCases, apprCases := ls.clustered(0, e.z, e.conf), ls.clustered(1, e.z, e.conf)
	ls.reset()
	total := &Row{RuleID: AllRules, Cases: cc.cases}
	var scratch callLats
	ps := newPairSums(contig, nSess, pool)
	var versionClash []string
	for _, ra := range rules {
		r := &Row{RuleID: ra.id, RuleVersion: ra.version, Class: ra.class, Action: ra.action,
			Cases: cc.cases, Criteria: []Criterion{}}
		// One pass: the counts, the units of each clustered figure, and
		// the discordance with the baseline for dangerous recall.
		ls.over(sm, ruleLanes, true, r, ra.pairs)
		r.JudgeRequired = r.Judged
		r.rates()
		r.setClustered(lanePrec, ls.clustered(lanePrec, e.z, e.conf))
		r.setClustered(laneRec, ls.clustered(laneRec, e.z, e.conf))
		r.setClustered(laneUnk, ls.clustered(laneUnk, e.z, e.conf))
		r.setClustered(laneJR, ls.clustered(laneJR, e.z, e.conf))
		r.setClustered(laneAppr, ls.clustered(laneAppr, e.z, e.conf))
		disc := ls.mcnemar(ruleLanes)
		ls.reset()
		fillRepeats(r, sm, ls, e.conf, []*spill.List{ra.rep.list})
		r.JudgeRequiredRate = ratio(r.Judged, r.InScope)
		scratch.ms, scratch.sess = scratch.ms[:0], scratch.sess[:0]
		for _, p := range ra.callRefs {
			scratch.ms = append(scratch.ms, j.lat[p])
			scratch.sess = append(scratch.sess, j.latSess[p])
		}
		sortCalls(scratch)
		r.Calls = int64(len(scratch.ms))
		e.latency(r, scratch)
		if len(scratch.ms) > 0 {
			pairs.lat[ra.id] = callLats{slices.Clone(scratch.ms), slices.Clone(scratch.sess)}
		}
		r.recall = baselinePairs(sm, ps, ra.pairs, r)
		r.Criteria = []Criterion{e.precision(r), e.dangerousRecall(r, disc, r.recall, e.seed), e.unknownRate(r), e.approvalRejectRate(r)}
		js.Rules = append(js.Rules, r)
		total.add(r)
		if ra.minVersion != ra.version {
			versionClash = append(versionClash, fmt.Sprintf("%s (%d..%d)", ra.id, ra.minVersion, ra.version))
		}
		pairs.rules[ra.id] = ra.pairs
		ra.callRefs = nil
	}
	e.holmDangerous(js.Rules)
	// The "*" row clusters all its rules' units by session.
	all := make([]*spill.List, len(rules))
	for i, ra := range rules {
		all[i], ra.pairs = ra.pairs, nil
	}
	ls.over(sm, totalLanes, false, nil, all...)
	total.rates()
	total.setClustered(lanePrec, ls.clustered(lanePrec, e.z, e.conf))
	total.setClustered(laneRec, ls.clustered(laneRec, e.z, e.conf))
	total.setClustered(laneUnk, ls.clustered(laneUnk, e.z, e.conf))
	ls.reset()
	total.ApprovalOutcomes, total.ApprovalRejected = cc.apprOut, cc.apprRej
	total.ApprovalRejectRate = ratio(total.ApprovalRejected, total.ApprovalOutcomes)
	total.setClustered(laneJR, jrCases)
	total.setClustered(laneAppr, apprCases)
	reps := make([]*spill.List, len(rules))
	for i, ra := range rules {
		reps[i] = ra.rep.list
	}
	fillRepeats(total, sm, ls, e.conf, reps)
	for _, ra := range rules {
		if ra.rep.list != nil {
			ra.rep.list.Release()
			ra.rep.list = nil
		}
	}
	total.JudgeRequired = cc.judgeCalled
	total.JudgeRequiredRate = ratio(cc.judgeCalled, cc.cases)
	// Baseline recall is a per-rule comparison; a pooled figure would mix
	// rules with and without baselines.
	total.BaselineRecall = nil
	total.Calls, total.CachedCalls, total.FailedCalls = j.calls, j.cachedCalls, j.failedCalls
	calls := callLats{j.lat, j.latSess}
	sortCalls(calls)
	e.latency(total, calls)
	pairs.total = calls
	total.Criteria = []Criterion{e.judgeP95(total), e.judgeRequiredRate(total), e.unknownRate(total)}
	js.Total = total

	if dup := cc.cases - distinct; dup > 0 {
		js.Warnings = append(js.Warnings, fmt.Sprintf("%d results repeat a case already replayed by this judge (overlapping inputs?); every copy is counted", dup))
	}
	pairs.cases = j.caseList
	js.Latencies = j.lat // sorted above; the summary keeps the only copy
	j.caseList, j.lat, j.latSess = nil, nil, nil

	if total.noLatency {
		js.Warnings = append(js.Warnings, "its calls carry no recorded latency (every one at 0 ms): P50/P95/P99 are N/A, judge_p95_max is N/A and no latency comparison is made with it")
	}
	if missing := total.Missing; missing > 0 {
		js.Warnings = append(js.Warnings, fmt.Sprintf("%d rule results are missing from the recording (the policy changed after it was recorded?); they are left out of this judge's rates", missing))
	}
	if len(versionClash) > 0 {
		js.Warnings = append(js.Warnings, "rules seen with more than one version (mixed policies?): "+strings.Join(versionClash, ", "))
	}
	if len(j.classClash) > 0 {
		js.Warnings = append(js.Warnings, fmt.Sprintf("%d rules seen with more than one class; the last one is used", len(j.classClash)))
	}
	if n := j.unknownStatus; n > 0 {
		js.Warnings = append(js.Warnings, fmt.Sprintf("%d judged rule results carry no recognisable result or failure status; counted as errors", n))
	}
	if n := j.unknownSource; n > 0 {
		js.Warnings = append(js.Warnings, fmt.Sprintf("%d rule results carry an unknown source; counted as not judged", n))
	}
	for _, r := range js.Rules {
		if r.EvidenceAlteredRate != nil && *r.EvidenceAlteredRate > EvidenceAlteredWarn {
			js.Warnings = append(js.Warnings, fmt.Sprintf("rule %s: in %d of %d judge inputs (%s) masking or the input's length bound changed an argument its condition refers to: "+
				"the judge was evaluated on evidence it never got (evidence_altered_rate, warned above %s)",
				r.RuleID, r.EvidenceAltered, r.Judged, percent(*r.EvidenceAlteredRate), percent(EvidenceAlteredWarn)))
		}
	}
	if n := j.badCalls; n > 0 {
		js.Warnings = append(js.Warnings, fmt.Sprintf("%d rule results point at a call the case does not have; left out of per-rule latency", n))
	}
	return js, pairs
}

// setupVerdict makes the verdict ERROR when half or more of the judge's
// calls failed with one setup-class cause (the commonest one is named):
// the figures describe the setup, not the judge.
func (js *JudgeSummary) setupVerdict(causes map[string]int64) {
	calls := js.Total.Calls
	var cause string
	var n int64
	for c, k := range causes {
		if k > n || (k == n && c < cause) {
			cause, n = c, k
		}
	}
	if calls == 0 || 2*n < calls {
		return
	}
	js.SetupError = fmt.Sprintf("%d of %d calls failed with %s", n, calls, cause)
	js.Verdict, js.Total.Verdict = VerdictError, VerdictError
}

// finishVerdict sets rule verdicts and the judge verdict (the worst of the
// judge-level criteria and every rule's verdict).
//
// The policy criteria (CriterionSpec.Policy) count in Verdict but are
// split out: JudgeVerdict leaves them out, PolicyVerdict has only them.
func (js *JudgeSummary) finishVerdict() {
	var own, policy []Criterion
	for _, c := range js.Total.Criteria {
		if IsPolicyCriterion(c.Name) {
			policy = append(policy, c)
		} else {
			own = append(own, c)
		}
	}
	v := verdictOf(own)
	for _, r := range js.Rules {
		var rown []Criterion
		for _, c := range r.Criteria {
			if IsPolicyCriterion(c.Name) {
				policy = append(policy, c)
			} else {
				rown = append(rown, c)
			}
		}
		r.Verdict = verdictOf(r.Criteria)
		v = worse(v, verdictOf(rown))
	}
	js.JudgeVerdict = v
	js.PolicyVerdict = verdictOf(policy)
	v = worse(v, js.PolicyVerdict)
	js.Verdict = v
	js.Total.Verdict = v
}

// baselinePairs is, for a dangerous rule with a deterministic baseline,
// its labeled positives with a baseline result per session: the judge's
// hit (first side) and the baseline's, for dangerous recall's interval.
// Nil for other rules.
func baselinePairs(sm sessMap, ps *pairSums, l *spill.List, r *Row) *pairDiff {
	if r.Class != replay.ClassDangerous || r.BaselinePositives == 0 {
		return nil
	}
	it := l.Iter()
	for c := it.Chunk(); len(c) > 0; c = it.Chunk() {
		for _, p := range c {
			if f := p.K; f&bitBase != 0 {
				ps.add(sm.at(p.V), f&bitMatch != 0, f&bitBaseHit != 0)
			}
		}
	}
	return newPairDiffCounts(ps.take())
}
