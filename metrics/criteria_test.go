package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apeval/apeval/replay"
)

// Every criterion the evaluator writes is declared in the table, once.
func TestCriteriaTableDeclaresEveryCriterion(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Criteria {
		if seen[c.Name] {
			t.Errorf("%s declared twice", c.Name)
		}
		seen[c.Name] = true
		if c.Label == "" || c.Figure == "" || c.Direction == "" || c.Scope == "" || c.Method == "" || !(c.Min < c.Max) {
			t.Errorf("%s: incomplete declaration %+v", c.Name, c)
		}
	}
	s := closeAll(handSet(), "")
	for _, js := range s.Judges {
		for _, r := range append([]*Row{js.Total}, js.Rules...) {
			for _, c := range r.Criteria {
				if !seen[c.Name] {
					t.Errorf("rule %s: criterion %s is not in the table", r.RuleID, c.Name)
				}
			}
		}
	}
	if !IsPolicyCriterion(CriterionJudgeRequiredRateMax) || IsPolicyCriterion(CriterionPrecisionMin) {
		t.Error("the judge-required rate is the policy criterion, precision a judge one")
	}
}

// The rule, hand-derived case by case: which side the threshold is on,
// unbounded sides, and the gain test.
func TestDecideRule(t *testing.T) {
	inf := math.Inf(1)
	p := func(v float64) *float64 { return &v }
	cases := []struct {
		d              Direction
		thr, est, l, h float64
		p              *float64
		want           Status
		bad            bool
	}{
		{AtLeast, 0.9, 0.95, 0.91, 0.98, nil, StatusPass, false},
		{AtLeast, 0.9, 0.95, 0.90, 0.98, nil, StatusPass, false}, // lo = threshold: "≥ 0.9", the threshold itself is good
		{AtLeast, 0.9, 0.85, 0.80, 0.899, nil, StatusFail, true},
		{AtLeast, 0.9, 0.85, 0.80, 0.90, nil, StatusInconclusive, true}, // 0.90 itself is not bad
		{Below, 0.1, 0.05, 0.01, 0.099, nil, StatusPass, false},
		{Below, 0.1, 0.15, 0.10, 0.2, nil, StatusFail, true}, // 0.10 itself fails
		{Below, 0.1, 0.10, 0.05, 0.2, nil, StatusInconclusive, true},
		{AtMost, 0.5, 0.6, 0.5, 0.7, nil, StatusInconclusive, true}, // 0.50 itself is not bad
		{AtMost, 1000, 900, -inf, 1000, nil, StatusPass, false},     // "≤ 1000 ms": a P95 bound exactly 1000 ms is good
		{AtMost, 0.5, 0.6, 0.51, 0.7, nil, StatusFail, true},
		{AtMost, 1000, 900, -inf, 990, nil, StatusPass, false},
		{AtMost, 1000, 1100, -inf, inf, nil, StatusInconclusive, true}, // too few calls for a lower bound
		{Within, 0.05, 0.01, -0.04, 0.049, nil, StatusPass, false},
		{Within, 0.05, -0.1, -0.2, -0.051, nil, StatusFail, true},
		{Within, 0.05, 0.07, 0.03, 0.1, nil, StatusInconclusive, true},
		{Gain, 0, 0.2, -0.1, 0.4, p(0.01), StatusPass, false},
		{Gain, 0, 0.2, 0.05, 0.4, p(0.06), StatusInconclusive, false}, // the test decides PASS, not the interval
		{Gain, 0, 0, -0.5, 0.5, p(0.6), StatusInconclusive, true},     // three positives, no gain: open
		{Gain, 0, -0.3, -0.6, -0.01, p(0.99), StatusFail, true},
		{Gain, 0, -0.3, -0.6, 0, p(0.99), StatusInconclusive, true}, // an upper bound exactly at 0: the reverse test does not reject 0
	}
	for _, c := range cases {
		got := c.d.Decide(c.thr, Evidence{Estimate: c.est, Lo: c.l, Hi: c.h, P: c.p, Alpha: 0.05})
		if got.Status != c.want || (got.Status != StatusPass && got.BadSide != c.bad) {
			t.Errorf("%s %g: est %g [%g, %g] p %v: got %+v, want %s (bad side %v)", c.d, c.thr, c.est, c.l, c.h, c.p, got, c.want, c.bad)
		}
	}
}

// TestDecideAgreesWithBoundText: for every declared criterion, an
// interval with a bound exactly on the threshold is decided as the
// threshold text the tables print (CriterionSpec.Bound) says: the
// threshold itself good under "≥", "≤" and "within ±", bad under "<" and
// "> baseline". The interval's two ends are read against the text's own
// operator: both good PASS, both bad FAIL, else INCONCLUSIVE. The one
// exception is the gain's upper bound exactly on 0: its FAIL is the
// one-sided test the other way, which a bound on 0 does not reject
// (TestRecallGainFailNeedsTheReverseTest), so it stays INCONCLUSIVE.
func TestDecideAgreesWithBoundText(t *testing.T) {
	th := Thresholds{PrecisionMin: 0.9, JudgeP95MaxMS: 1000, JudgeRequiredRateMax: 0.2, UnknownRateMax: 0.1, ApprovalRejectRateMax: 0.5, FireRateChangeMax: 0.05}
	for _, spec := range Criteria {
		thr := spec.Threshold(th)
		text := spec.Bound(thr)
		var good func(x float64) bool
		switch {
		case strings.HasPrefix(text, "≥ "):
			good = func(x float64) bool { return x >= thr }
		case strings.HasPrefix(text, "≤ "):
			good = func(x float64) bool { return x <= thr }
		case strings.HasPrefix(text, "< "):
			good = func(x float64) bool { return x < thr }
		case strings.HasPrefix(text, "within ±"):
			good = func(x float64) bool { return -thr <= x && x <= thr }
		case text == "> baseline":
			good = func(x float64) bool { return x > 0 }
		default:
			t.Fatalf("%s: bound text %q has no operator this test knows", spec.Name, text)
		}
		w := 0.01 * max(1, thr)
		ivs := [][2]float64{{thr, thr + w}, {thr - w, thr}}
		if spec.Direction == Within {
			ivs = append(ivs, [2]float64{-thr, -thr + w}, [2]float64{-thr - w, -thr})
		}
		for _, iv := range ivs {
			lo, hi := iv[0], iv[1]
			want := StatusInconclusive
			switch {
			case good(lo) && good(hi):
				want = StatusPass
			case !good(lo) && !good(hi):
				want = StatusFail
			}
			ev := Evidence{Estimate: (lo + hi) / 2, Lo: lo, Hi: hi, Alpha: 0.05}
			if spec.Direction == Gain {
				// The gain's bounds invert its one-sided test: a lower
				// bound exactly on 0 is p = α, not below it.
				p := 0.05
				if lo > 0 {
					p = 0.01
				}
				ev.P = &p
				if hi == 0 {
					want = StatusInconclusive // the reverse test does not reject at a bound on 0
				}
			}
			if got := spec.Direction.Decide(thr, ev).Status; got != want {
				t.Errorf("%s (%s): [%g, %g] is %s, the text says %s", spec.Name, text, lo, hi, got, want)
			}
		}
	}
}

// pathsData is a run of one judge on a style rule R1 and a dangerous rule
// R2 with a deterministic baseline, every case labeled in the dataset:
// sessions × per cases, precision about prec on R1, and on R2 the judge
// catching positives at judgeHit and the baseline at baseHit.
func pathsData(rng *rand.Rand, sessions, per int, prec, judgeHit, baseHit float64) []*replay.Result {
	var rs []*replay.Result
	for s := range sessions {
		for i := range per {
			l1 := "no_match"
			if rng.Float64() < prec {
				l1 = "match"
			}
			j2, b2 := "no_match", "no_match"
			if rng.Float64() < judgeHit {
				j2 = "match"
			}
			if rng.Float64() < baseHit {
				b2 = "match"
			}
			rs = append(rs, &replay.Result{CaseID: fmt.Sprintf("s%d-%d", s, i), SessionID: fmt.Sprintf("s%d", s), Judge: "J",
				Rules: []replay.RuleResult{
					rr("R1", "style", "judge", "match", l1, "ok", true, -1),
					withBaseline(rr("R2", "dangerous", "judge", j2, "match", "ok", j2 == "match", -1), b2),
				}})
		}
	}
	return rs
}

// statusesOf is every rule's criterion statuses and intervals.
func statusesOf(s *Summary) map[string]Criterion {
	out := map[string]Criterion{}
	for _, r := range s.Judges[0].Rules {
		for _, c := range r.Criteria {
			out[r.RuleID+" "+c.Name] = c
		}
	}
	return out
}

// The unweighted path and the label-weighted one, given the same evidence
// (every case labeled in the dataset, so the weighted path sees the same
// labels at weight 1), decide every criterion by the same rule: they
// agree wherever the evidence is clear, never contradict each other, and
// never print a bound outside the figure's range.
func TestBothPathsDecideAlike(t *testing.T) {
	type want struct{ prec, dang Status }
	cases := []struct {
		name                    string
		sessions, per           int
		prec, judgeHit, baseHit float64
		want                    want
	}{
		{"clear pass", 40, 10, 0.995, 0.95, 0.3, want{StatusPass, StatusPass}},
		{"clear fail", 40, 10, 0.6, 0.2, 0.9, want{StatusFail, StatusFail}},
		// The case: three positives in three sessions where the
		// judge equals its baseline (here: both catch everything).
		{"three positives, no gain", 3, 1, 0.9, 1, 1, want{StatusInconclusive, StatusInconclusive}},
		// Three positives the judge alone catches: p = 1/8 at best.
		{"three positives, judge-only hits", 3, 1, 0.9, 1, 0, want{StatusInconclusive, StatusInconclusive}},
		// Few sessions holding many cases: the labeled path takes the
		// unweighted path's few-session rule (precision 239/240 over 3
		// sessions was PASS on labels, INCONCLUSIVE unweighted), and its
		// recall gain the sessions' sign flip (a 0.6 gain over 4 sessions
		// was PASS on a weighted t beside an interval holding 0).
		{"three sessions of 80, precision near 1", 3, 80, 0.995, 0.95, 0.3, want{StatusInconclusive, StatusInconclusive}},
		{"four sessions of 60, a large gain", 4, 60, 0.3, 0.95, 0.3, want{StatusFail, StatusInconclusive}},
		{"six sessions of 40, a large gain", 6, 40, 0.3, 0.95, 0.3, want{StatusFail, StatusPass}},
	}
	for k, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rs := pathsData(rand.New(rand.NewPCG(uint64(k+1), 7)), c.sessions, c.per, c.prec, c.judgeHit, c.baseHit)
			s := closeAll(rs, "")
			before := statusesOf(s)
			var rowsBefore []Row
			for _, r := range s.Judges[0].Rules {
				rowsBefore = append(rowsBefore, *r)
			}
			tab := NewPairTable(nil, nil)
			for _, r := range rs {
				tab.Add(r)
			}
			s.ApplySample(tab, nil)
			after := statusesOf(s)
			for key, u := range before {
				w := after[key]
				spec, _ := SpecOf(u.Name)
				for _, cr := range []Criterion{u, w} {
					for _, b := range []*float64{cr.Lo, cr.Hi} {
						if b != nil && (*b < spec.Min || *b > spec.Max) {
							t.Errorf("%s: bound %g outside [%g, %g]: %s", key, *b, spec.Min, spec.Max, cr.Reason)
						}
					}
					if strings.Contains(cr.Reason, "e+") {
						t.Errorf("%s: %s", key, cr.Reason)
					}
				}
				// Every pair is labeled in the dataset (weight 1, the
				// census): the evidence is the same, and so are the
				// interval and the status (one verdict rule, one method).
				if u.Status != w.Status {
					t.Errorf("%s: unweighted %s, weighted %s\n  %s\n  %s", key, u.Status, w.Status, u.Reason, w.Reason)
				}
				if !samePtr(u.Lo, w.Lo) || !samePtr(u.Hi, w.Hi) {
					t.Errorf("%s: unweighted [%v, %v], weighted [%v, %v]\n  %s\n  %s", key, fmtP(u.Lo), fmtP(u.Hi), fmtP(w.Lo), fmtP(w.Hi), u.Reason, w.Reason)
				}
			}
			for i, r := range s.Judges[0].Rules {
				u := rowsBefore[i]
				if !samePtr(u.PrecisionLo, r.PrecisionLo) || !samePtr(u.PrecisionHi, r.PrecisionHi) || !samePtr(u.RecallLo, r.RecallLo) || !samePtr(u.RecallHi, r.RecallHi) {
					t.Errorf("%s: unweighted precision [%s, %s] recall [%s, %s], weighted precision [%s, %s] recall [%s, %s]", r.RuleID,
						fmtP(u.PrecisionLo), fmtP(u.PrecisionHi), fmtP(u.RecallLo), fmtP(u.RecallHi),
						fmtP(r.PrecisionLo), fmtP(r.PrecisionHi), fmtP(r.RecallLo), fmtP(r.RecallHi))
				}
			}
			for _, path := range []struct {
				name string
				m    map[string]Criterion
			}{{"unweighted", before}, {"weighted", after}} {
				if g := path.m["R1 "+CriterionPrecisionMin]; g.Status != c.want.prec {
					t.Errorf("%s precision_min: %s, want %s: %s", path.name, g.Status, c.want.prec, g.Reason)
				}
				if g := path.m["R2 "+CriterionDangerousRecall]; g.Status != c.want.dang {
					t.Errorf("%s dangerous recall: %s, want %s: %s", path.name, g.Status, c.want.dang, g.Reason)
				}
			}
		})
	}
}

// A candidate that removes the baseline's false positives is not
// drifting: with those cases labeled no_match the change is explained
// (estimate 0, PASS); the same change on unlabeled cases is drift (FAIL).
func TestDriftCountsOnlyUnexplainedChanges(t *testing.T) {
	run := func(label string) Criterion {
		rng := rand.New(rand.NewPCG(3, 4))
		var rs []*replay.Result
		for s := range 40 {
			for i := range 25 {
				fb := rng.Float64() < 0.2
				for _, j := range []struct {
					id    string
					fired bool
				}{{"B", fb}, {"C", false}} {
					res := "no_match"
					if j.fired {
						res = "match"
					}
					rs = append(rs, &replay.Result{CaseID: fmt.Sprintf("s%d-%d", s, i), SessionID: fmt.Sprintf("s%d", s), Judge: j.id,
						Rules: []replay.RuleResult{rr("R", "style", "judge", res, label, "ok", j.fired, -1)}})
				}
			}
		}
		return *closeAll(rs, "B").Judge("C").Rules[0].Criterion(CriterionFireRateChangeMax)
	}
	if c := run("no_match"); c.Status != StatusPass || *c.Estimate != 0 {
		t.Errorf("labeled false positives removed: %s, estimate %v: %s", c.Status, *c.Estimate, c.Reason)
	}
	if c := run(""); c.Status != StatusFail || *c.Estimate > -0.1 {
		t.Errorf("unlabeled fires removed: %s, estimate %v: %s", c.Status, *c.Estimate, c.Reason)
	}
}

// samePtr is whether two optional figures are both absent or equal to
// within rounding.
func samePtr(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return math.Abs(*a-*b) < 1e-9
}

func fmtP(v *float64) string {
	if v == nil {
		return "nil"
	}
	return fmt.Sprintf("%.4g", *v)
}

// compareData is two judges, J (baseline) and K, on a style rule R1 and a
// dangerous rule R2, every case labeled in the dataset: sessions × per
// cases, labels match at rate pos; each judge answers right at its rate,
// and unknown at rate unk (an unknown is neither an FP nor a TN).
func compareData(rng *rand.Rand, sessions, per int, pos, rightJ, rightK, unk float64) []*replay.Result {
	var rs []*replay.Result
	answer := func(label string, right float64) string {
		switch {
		case rng.Float64() < unk:
			return "unknown"
		case rng.Float64() < right:
			return label
		case label == "match":
			return "no_match"
		}
		return "match"
	}
	for s := range sessions {
		for i := range per {
			var ls [2]string
			for k := range ls {
				ls[k] = "no_match"
				if rng.Float64() < pos {
					ls[k] = "match"
				}
			}
			for _, j := range []struct {
				id    string
				right float64
			}{{"J", rightJ}, {"K", rightK}} {
				a1, a2 := answer(ls[0], j.right), answer(ls[1], j.right)
				rs = append(rs, &replay.Result{CaseID: fmt.Sprintf("s%d-%d", s, i), SessionID: fmt.Sprintf("s%d", s), Judge: j.id,
					Rules: []replay.RuleResult{
						rr("R1", "style", "judge", a1, ls[0], "ok", a1 == "match", -1),
						withBaseline(rr("R2", "dangerous", "judge", a2, ls[1], "ok", a2 == "match", -1), "no_match"),
					}})
			}
		}
	}
	return rs
}

// With every case labeled in the dataset (weight 1), compare --labels
// gives what compare without --labels gives: the same recall, false-
// positive-rate and precision difference, interval, test and p-value, on
// every rule and on the total row (one evidence, one answer).
func TestBothPathsCompareAlike(t *testing.T) {
	cases := []struct {
		name                     string
		sessions, per            int
		pos, rightJ, rightK, unk float64
	}{
		{"many sessions, a better candidate", 40, 8, 0.4, 0.8, 0.95, 0.05},
		{"few sessions of many cases", 5, 40, 0.3, 0.85, 0.9, 0.1},
		{"singletons, equal judges", 200, 1, 0.5, 0.9, 0.9, 0.05},
	}
	for k, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rs := compareData(rand.New(rand.NewPCG(uint64(k+1), 11)), c.sessions, c.per, c.pos, c.rightJ, c.rightK, c.unk)
			u := closeAll(rs, "J").Compare("J", "K")
			s := closeAll(rs, "J")
			tab := NewPairTable(nil, nil)
			for _, r := range rs {
				tab.Add(r)
			}
			s.ApplySample(tab, nil)
			w := s.Compare("J", "K")
			check := func(ur, wr *RuleComparison) {
				for _, name := range []string{FigureRecall, FigureFalsePositiveRate, FigurePrecision} {
					uf, wf := figureNamed(ur, name), figureNamed(wr, name)
					if uf.Test != wf.Test || uf.N != wf.N || !samePtr(uf.Baseline, wf.Baseline) || !samePtr(uf.Candidate, wf.Candidate) ||
						!samePtr(uf.Delta, wf.Delta) || !samePtr(uf.DeltaLo, wf.DeltaLo) || !samePtr(uf.DeltaHi, wf.DeltaHi) ||
						!samePtr(uf.PValue, wf.PValue) || !samePtr(uf.QValue, wf.QValue) {
						t.Errorf("%s %s:\n  without --labels %s n=%d Δ %s [%s, %s] p %s q %s\n  with --labels    %s n=%d Δ %s [%s, %s] p %s q %s",
							ur.RuleID, name, uf.Test, uf.N, fmtP(uf.Delta), fmtP(uf.DeltaLo), fmtP(uf.DeltaHi), fmtP(uf.PValue), fmtP(uf.QValue),
							wf.Test, wf.N, fmtP(wf.Delta), fmtP(wf.DeltaLo), fmtP(wf.DeltaHi), fmtP(wf.PValue), fmtP(wf.QValue))
					}
				}
			}
			for i := range u.Rules {
				check(u.Rules[i], w.Rules[i])
			}
			check(u.Total, w.Total)
		})
	}
}

// The labeled false-positive rate counts the negatives the judge decided,
// as FP/(FP+TN) does without --labels: an unknown answer on a no_match
// label is neither an FP nor a TN; the paired difference counts the
// negatives both judges decided. Four queue-labeled negatives of one
// stratum (equal weights): FP, TN, TN and an unknown; the other judge
// TN, FP, TN and FP.
func TestWeightedFPRCountsDecidedNegatives(t *testing.T) {
	us := []SampleUnit{
		{Match: true, Other: false},
		{Match: false, Other: true},
		{Match: false, Other: false},
		{Undecided: true, Other: true},
		{Label: true, Match: true, Other: true},
	}
	for i := range us {
		us[i].Stratum, us[i].StratumSize, us[i].Session = "S", 10, fmt.Sprint(i)
	}
	if f := weightedFPR(us, 0.95); f.Estimate == nil || math.Abs(*f.Estimate-1.0/3) > 1e-12 {
		t.Errorf("FPR %v, want 1/3 (FP 1 of 3 decided negatives)", fmtP(f.Estimate))
	}
	// Decided by both: units 0-2; FPR 1/3 against 1/3.
	if d := WeightedFPRDiff(us, 0.95); d.Estimate == nil || math.Abs(*d.Estimate) > 1e-12 {
		t.Errorf("FPR difference %v, want 0 on the three negatives both decided", fmtP(d.Estimate))
	}
}
