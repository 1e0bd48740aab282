package metrics

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apeval/apeval/internal/spill"
)

// judgePairs is one judge's per-case data kept for comparisons: the cases
// it replayed (judgeAcc.caseList: a case ordinal may repeat), per rule the
// pairs (ruleAcc.pairs), both read back sorted by case ordinal, and the
// sorted latencies of the live calls per rule and in all.
type judgePairs struct {
	cases *spill.List
	rules map[string]*spill.List
	lat   map[string]callLats
	total callLats
}

// cells are the paired counts of one rule between two judges.
type cells struct {
	// decision (result match) on cases both had in scope
	both, baseOnly, candOnly, neither int64
	// fired on cases both replayed where either had the rule in scope
	fBoth, fCand, fBase, fNeither int64
}

func (c *cells) add(o cells) {
	c.both += o.both
	c.baseOnly += o.baseOnly
	c.candOnly += o.candOnly
	c.neither += o.neither
	c.fBoth += o.fBoth
	c.fCand += o.fCand
	c.fBase += o.fBase
	c.fNeither += o.fNeither
}

// pairCells merges two judges' sorted pairs of one rule. A case counts
// once per judge (repeats are skipped); a case where either judge's
// recording is missing the rule is left out of both tests.
func pairCells(pb, pc *judgePairs, base, cand *spill.List, sm sessMap, fs ...*pairSums) cells {
	var out cells
	fire := func(sess uint64, fb, fc bool, flags uint64) {
		// The drift units (fs) count only changes the labels do not
		// explain: a labeled case where the candidate's change moves
		// toward the label (it now fires on a labeled positive, or no
		// longer fires on a labeled negative) is not drift.
		db := fb
		if fb != fc && ((flags&bitPos != 0 && fc) || (flags&bitNeg != 0 && !fc)) {
			db = fc
		}
		for _, f := range fs {
			f.add(sm.at(sess), fc, db)
		}
		switch {
		case fb && fc:
			out.fBoth++
		case fc:
			out.fCand++
		case fb:
			out.fBase++
		default:
			out.fNeither++
		}
	}
	bi, ci := newCursor(base), newCursor(cand)
	// The cases each judge replayed, asked in increasing order.
	replayedB, replayedC := newCursor(pb.cases), newCursor(pc.cases)
	for bi.ok || ci.ok {
		ob, oc := bi.ord(), ci.ord()
		switch {
		case ob == oc:
			b, c := bi.r.K, ci.r.K
			if b&bitMissing == 0 && c&bitMissing == 0 {
				mb, mc := b&bitMatch != 0, c&bitMatch != 0
				switch {
				case mb && mc:
					out.both++
				case mb:
					out.baseOnly++
				case mc:
					out.candOnly++
				default:
					out.neither++
				}
				fire(bi.r.V, b&bitFired != 0, c&bitFired != 0, b|c)
			}
		case ob < oc:
			// In scope for the baseline only: the candidate, if it replayed
			// the case, did not fire the rule there.
			if b := bi.r.K; b&bitMissing == 0 && replayedC.has(ob) {
				fire(bi.r.V, b&bitFired != 0, false, b)
			}
		default:
			if c := ci.r.K; c&bitMissing == 0 && replayedB.has(oc) {
				fire(ci.r.V, false, c&bitFired != 0, c)
			}
		}
		if ob <= oc {
			bi.skip()
		}
		if oc <= ob {
			ci.skip()
		}
	}
	return out
}

// CompareVerdict is the verdict of a comparison (apeval compare): the
// candidate's own; ERROR when either judge's setup broke (a broken
// baseline leaves nothing to compare with); INCONCLUSIVE when the summary
// holds no candidate.
func (s *Summary) CompareVerdict(baseline, candidate string) Verdict {
	v := VerdictInconclusive
	if j := s.Judge(candidate); j != nil {
		v = j.Verdict
	}
	if j := s.Judge(baseline); j != nil && j.Verdict == VerdictError {
		v = VerdictError
	}
	return v
}

// Compare compares two judges of the summary, baseline vs candidate: per
// rule and overall, both rows with deltas (candidate − baseline), an exact
// two-sided McNemar test on the paired decisions, and the fire-rate change
// with a Newcombe paired interval checked against fire_rate_change_max. It
// returns nil when either judge is not in the summary. Two run directories
// are compared by feeding both into one Accumulator (distinct judge names).
func (s *Summary) Compare(baseline, candidate string) *Comparison {
	jb, jc := s.Judge(baseline), s.Judge(candidate)
	pb, pc := s.paired[baseline], s.paired[candidate]
	if jb == nil || jc == nil || pb == nil || pc == nil {
		return nil
	}
	e := newEvaluator(s.crit)
	cmp := &Comparison{Baseline: baseline, Candidate: candidate, Rules: []*RuleComparison{}, Warnings: []string{}}

	var ids []string
	for _, r := range jb.Rules {
		ids = append(ids, r.RuleID)
	}
	for _, r := range jc.Rules {
		ids = append(ids, r.RuleID)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)

	// Fire units per session (candidate, baseline), per rule (one pass in
	// case order) and pooled (one pass per rule).
	fr, ft := newPairSums(s.contig, s.nSess, s.pool), newPairSums(false, s.nSess, s.pool)
	var all [][2]*spill.List
	var total cells
	var onlyBase, onlyCand, versions, few []string
	for _, id := range ids {
		rc := &RuleComparison{RuleID: id, Baseline: jb.Rule(id), Candidate: jc.Rule(id)}
		switch {
		case rc.Baseline == nil:
			onlyCand = append(onlyCand, id)
			rc.FireRateChange = Criterion{Name: CriterionFireRateChangeMax, Status: StatusNA, Threshold: s.crit.FireRateChangeMax,
				Reason: "the baseline judge never had the rule in scope"}
		case rc.Candidate == nil:
			onlyBase = append(onlyBase, id)
			rc.FireRateChange = Criterion{Name: CriterionFireRateChangeMax, Status: StatusNA, Threshold: s.crit.FireRateChangeMax,
				Reason: "the candidate judge never had the rule in scope"}
		default:
			c := pairCells(pb, pc, pb.rules[id], pc.rules[id], s.sm, fr, ft)
			total.add(c)
			rc.fill(e, c, fr.take())
			lists := [][2]*spill.List{{pb.rules[id], pc.rules[id]}}
			all = append(all, lists[0])
			rc.Figures = s.figures(lists, pb.lat[id], pc.lat[id])
			if rc.Baseline.RuleVersion != rc.Candidate.RuleVersion {
				versions = append(versions, fmt.Sprintf("%s (v%d vs v%d)", id, rc.Baseline.RuleVersion, rc.Candidate.RuleVersion))
			}
			if rc.Paired < fewPaired {
				few = append(few, fmt.Sprintf("%s (n=%d)", id, rc.Paired))
			}
		}
		if rc.Figures == nil {
			rc.Figures = s.figures(nil, callLats{}, callLats{})
		}
		rc.deltas()
		cmp.Rules = append(cmp.Rules, rc)
	}
	cmp.Total = &RuleComparison{RuleID: AllRules, Baseline: jb.Total, Candidate: jc.Total}
	cmp.Total.fill(e, total, ft.take())
	cmp.Total.Figures = s.figures(all, pb.total, pc.total)
	cmp.Total.deltas()
	cmp.Slices = s.sliceComparisons(baseline, candidate)
	cmp.adjust()

	if jb.PromptVersion != jc.PromptVersion {
		cmp.Warnings = append(cmp.Warnings, fmt.Sprintf("prompt versions differ: %q vs %q", jb.PromptVersion, jc.PromptVersion))
	}
	nb, nc, shared := caseOverlap(pb.cases, pc.cases)
	cmp.Cases = CaseOverlap{Shared: shared, BaselineOnly: nb, CandidateOnly: nc}
	if nb > 0 || nc > 0 {
		cmp.Warnings = append(cmp.Warnings, fmt.Sprintf("the judges replayed different cases (different datasets?): %d only by the baseline, %d only by the candidate, %d by both; paired figures use the shared cases", nb, nc, shared))
	}
	if len(versions) > 0 {
		cmp.Warnings = append(cmp.Warnings, "rule versions differ (different policies?): "+strings.Join(versions, ", "))
	}
	if len(onlyBase) > 0 {
		cmp.Warnings = append(cmp.Warnings, "rules only the baseline had in scope: "+strings.Join(onlyBase, ", "))
	}
	if len(onlyCand) > 0 {
		cmp.Warnings = append(cmp.Warnings, "rules only the candidate had in scope: "+strings.Join(onlyCand, ", "))
	}
	if len(few) > 0 {
		cmp.Warnings = append(cmp.Warnings, fmt.Sprintf("fewer than %d paired cases, the tests have little power: %s", fewPaired, strings.Join(few, ", ")))
	}
	if s.sample != nil {
		s.sample.weightComparison(s, cmp)
	}
	return cmp
}

// fewPaired is the paired-case count below which a comparison warns.
const fewPaired = 30

// fill sets the paired figures from the cells, and the drift criterion
// from the fire units per session.
func (rc *RuleComparison) fill(e *evaluator, c cells, fire []pairCount) {
	rc.Both, rc.BaselineOnly, rc.CandidateOnly, rc.Neither = c.both, c.baseOnly, c.candOnly, c.neither
	rc.Paired = c.both + c.baseOnly + c.candOnly + c.neither
	rc.fire = newPairDiffCounts(fire)
	rc.FireRateChange = e.fireRateChange(rc.fire)
}

// deltas sets candidate − baseline for the figures both rows have.
func (rc *RuleComparison) deltas() {
	if rc.Baseline == nil || rc.Candidate == nil {
		return
	}
	b, c := rc.Baseline, rc.Candidate
	rc.PrecisionDelta = diff(c.Precision, b.Precision)
	rc.RecallDelta = diff(c.Recall, b.Recall)
	rc.UnknownRateDelta = diff(c.UnknownRate, b.UnknownRate)
	rc.FireRateDelta = diff(c.FireRate, b.FireRate)
	rc.LatencyP95DeltaMS = diff(c.LatencyP95MS, b.LatencyP95MS)
}

func diff(a, b *float64) *float64 {
	if a == nil || b == nil {
		return nil
	}
	return ptr(*a - *b)
}

// caseOverlap counts cases replayed only by the first, only by the second,
// and by both (each case once however often it repeats).
func caseOverlap(x, y *spill.List) (onlyX, onlyY, both int) {
	cx, cy := newCursor(x), newCursor(y)
	for cx.ok && cy.ok {
		switch ox, oy := cx.ord(), cy.ord(); {
		case ox == oy:
			both++
			cx.skip()
			cy.skip()
		case ox < oy:
			onlyX++
			cx.skip()
		default:
			onlyY++
			cy.skip()
		}
	}
	for ; cx.ok; cx.skip() {
		onlyX++
	}
	for ; cy.ok; cy.skip() {
		onlyY++
	}
	return onlyX, onlyY, both
}

// comparisonWarnings lifts comparison warnings into the summary's list.
func comparisonWarnings(cs []*Comparison) []string {
	var out []string
	for _, c := range cs {
		for _, w := range c.Warnings {
			out = append(out, fmt.Sprintf("%s vs %s: %s", c.Baseline, c.Candidate, w))
		}
	}
	return out
}

// adjust sets the Benjamini–Hochberg q-value of every figure with a
// p-value, over all of them: the rules', the total's and every slice's.
// The figures describe; none decides a verdict, so the false discovery
// rate, not the family-wise error, is what a reader of many marks needs.
// The family is exactly the figures the comparison reports with a p-value:
// a labeled sample replaces figures after Compare (weightComparison), and
// adjust runs again then, so a replaced test's p never counts in m and no
// figure keeps a q-value its p no longer has.
func (c *Comparison) adjust() {
	var fs []*Figure
	add := func(rc *RuleComparison) {
		if rc == nil {
			return
		}
		for i := range rc.Figures {
			rc.Figures[i].QValue = nil
			if rc.Figures[i].PValue != nil {
				fs = append(fs, &rc.Figures[i])
			}
		}
	}
	for _, rc := range c.Rules {
		add(rc)
	}
	add(c.Total)
	seen := map[*RuleComparison]bool{}
	for _, sl := range c.Slices {
		for _, rc := range sl.Rules {
			if !seen[rc] {
				seen[rc] = true
				add(rc)
			}
		}
	}
	ps := make([]float64, len(fs))
	for i, f := range fs {
		ps[i] = *f.PValue
	}
	for i, q := range BenjaminiHochberg(ps) {
		fs[i].QValue = ptr(q)
	}
	c.Adjustment, c.Tests = AdjustBH, len(fs)
}
