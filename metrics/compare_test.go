package metrics

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/apeval/apeval/replay"
)

// compareSet: judges B (baseline, prompt p1) and C (candidate, prompt p2)
// on rule X. On x01..x40 both have X in scope; X fires exactly when its
// result is match:
//
//	x01..x10 both match (label match)      → both
//	x11..x13 B only    (label no_match)    → baseline only
//	x14..x25 C only    (label no_match)    → candidate only
//	x26..x40 neither   (unlabeled)         → neither
//
// x41 only C replayed (excluded everywhere). x42 both replayed, X in
// scope for C only (fired), B had rule Y there: it counts for the fire rate
// (B did not fire X) but not for McNemar. x43: B's recording is missing X,
// C fired it: excluded from both tests.
func compareSet() []*replay.Result {
	var out []*replay.Result
	add := func(judge, prompt, id string, rules ...replay.RuleResult) {
		out = append(out, &replay.Result{CaseID: id, Judge: judge, PromptVersion: prompt, Rules: rules})
	}
	x := func(match bool, label string) replay.RuleResult {
		res := "no_match"
		if match {
			res = "match"
		}
		return rr("X", "style", "judge", res, label, "ok", match, -1)
	}
	for i := 1; i <= 40; i++ {
		id := fmt.Sprintf("x%02d", i)
		var bm, cm bool
		label := ""
		switch {
		case i <= 10:
			bm, cm, label = true, true, "match"
		case i <= 13:
			bm, label = true, "no_match"
		case i <= 25:
			cm, label = true, "no_match"
		}
		add("B", "p1", id, x(bm, label))
		add("C", "p2", id, x(cm, label))
	}
	add("C", "p2", "x41", x(true, ""))
	add("B", "p1", "x42", rr("Y", "style", "judge", "no_match", "", "ok", false, -1))
	add("C", "p2", "x42", x(true, ""))
	add("B", "p1", "x43", rr("X", "style", "judge", "", "", "missing", false, -1))
	add("C", "p2", "x43", x(true, ""))
	return out
}

func TestCompare(t *testing.T) {
	t.Parallel()
	s := summarize(t, Config{Criteria: replay.DefaultKillCriteria(), Baseline: "B"}, compareSet())
	if len(s.Comparisons) != 1 {
		t.Fatalf("comparisons = %d, want 1", len(s.Comparisons))
	}
	cmp := s.Comparisons[0]
	if cmp.Baseline != "B" || cmp.Candidate != "C" || len(cmp.Rules) != 2 {
		t.Fatalf("comparison %s vs %s with %d rules", cmp.Baseline, cmp.Candidate, len(cmp.Rules))
	}
	x := cmp.Rules[0]
	if x.RuleID != "X" {
		t.Fatalf("first rule %s", x.RuleID)
	}
	// x01..x40: 10 both, 3 baseline only, 12 candidate only, 15 neither.
	if x.Paired != 40 || x.Both != 10 || x.BaselineOnly != 3 || x.CandidateOnly != 12 || x.Neither != 15 {
		t.Errorf("paired cells %d: %d %d %d %d", x.Paired, x.Both, x.BaselineOnly, x.CandidateOnly, x.Neither)
	}
	// The legacy unclustered "mcnemar_p" is gone: every test is a figure's.
	if b, _ := json.Marshal(x); strings.Contains(string(b), "mcnemar_p") || strings.Contains(string(b), `"significant"`) {
		t.Error("rule comparison still carries mcnemar_p / significant")
	}
	// Fire rate over cases both replayed with X in scope for either:
	// x01..x40 plus x42 → 41; both 10, candidate only 12+1 = 13, baseline
	// only 3, neither 15. Drift counts only changes the labels do not
	// explain: the 3 baseline-only fires (x11..x13) are labeled no_match,
	// so the candidate's change there moves toward the label and counts
	// as no change (neither); the 12 candidate-only fires are labeled
	// no_match (away from the label) and x42 is unlabeled: both 10,
	// candidate only 13, baseline only 0, neither 18 → 13/41 = 0.317073,
	// with Newcombe's paired interval on those cells (one unit per
	// session); 0.317 > 0.05 → FAIL.
	fr := x.FireRateChange
	if fr.Status != StatusFail || fr.N != 41 {
		t.Errorf("fire-rate change %s n=%d (%s)", fr.Status, fr.N, fr.Reason)
	}
	_, nlo, nhi := NewcombePaired(10, 13, 0, 18, z95)
	near(t, "fire est", *fr.Estimate, 13.0/41, 1e-12)
	near(t, "fire lo", *fr.Lo, nlo, 1e-6)
	near(t, "fire hi", *fr.Hi, nhi, 1e-6)
	// Deltas from the rows: precision C 10/22 − B 10/13 = −0.314685;
	// fire rate C 25/43 (x01..x43: 22 + x41 + x42 + x43) − B 13/40 (x43
	// missing) = 0.256395.
	near(t, "precision delta", *x.PrecisionDelta, 10.0/22-10.0/13, 1e-12)
	near(t, "fire delta", *x.FireRateDelta, 25.0/43-13.0/40, 1e-12)
	if x.LatencyP95DeltaMS != nil {
		t.Error("no calls: P95 delta should be nil")
	}
	// Y: only the baseline had it.
	if y := cmp.Rules[1]; y.RuleID != "Y" || y.Candidate != nil || y.FireRateChange.Status != StatusNA || y.PrecisionDelta != nil {
		t.Errorf("Y comparison %+v", y)
	}
	// The total pools X (Y has no pairs).
	if cmp.Total.Paired != 40 || cmp.Total.FireRateChange.N != 41 {
		t.Errorf("total paired %d, fire n %d", cmp.Total.Paired, cmp.Total.FireRateChange.N)
	}
	w := strings.Join(cmp.Warnings, "\n")
	for _, want := range []string{"prompt versions differ", "0 only by the baseline, 1 only by the candidate, 42 by both", "rules only the baseline had in scope: Y"} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings lack %q:\n%s", want, w)
		}
	}

	// The rule rows carry the criterion: C's X fails, B is the baseline.
	if st := s.Judge("C").Rule("X").Status(CriterionFireRateChangeMax); st != StatusFail {
		t.Errorf("C X fire_rate_change_max = %s", st)
	}
	if c := s.Judge("B").Rule("X").Criterion(CriterionFireRateChangeMax); c.Status != StatusNA || c.Reason != "this judge is the baseline" {
		t.Errorf("B X fire_rate_change_max = %s (%s)", c.Status, c.Reason)
	}
	if !s.Judge("B").IsBaseline || s.Judge("C").IsBaseline {
		t.Error("IsBaseline flags")
	}

	// Comparing the other way round swaps the discordant cells; the
	// two-sided p is the same.
	rev := s.Compare("C", "B")
	if rev.Rules[0].BaselineOnly != 12 || rev.Rules[0].CandidateOnly != 3 {
		t.Errorf("reverse comparison %+v", rev.Rules[0])
	}
	if s.Compare("B", "nope") != nil {
		t.Error("unknown judge should give nil")
	}
}

func TestNoBaseline(t *testing.T) {
	t.Parallel()
	s := summarize(t, Config{Criteria: replay.DefaultKillCriteria()}, compareSet())
	if len(s.Comparisons) != 0 {
		t.Error("no baseline: no comparisons")
	}
	if c := s.Judge("C").Rule("X").Criterion(CriterionFireRateChangeMax); c.Status != StatusNA || !strings.Contains(c.Reason, "--baseline") {
		t.Errorf("fire_rate_change_max without baseline: %s (%s)", c.Status, c.Reason)
	}
	s = summarize(t, Config{Criteria: replay.DefaultKillCriteria(), Baseline: "Z"}, compareSet())
	if !strings.Contains(strings.Join(s.Warnings, "\n"), `baseline judge "Z" is not among the results`) {
		t.Errorf("absent baseline warning missing: %q", s.Warnings)
	}
}

func TestJudgeOrder(t *testing.T) {
	t.Parallel()
	names := func(s *Summary) string {
		var out []string
		for _, j := range s.Judges {
			out = append(out, j.Judge)
		}
		return strings.Join(out, ",")
	}
	in := compareSet() // C's first result comes after B's
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "B,C"},
		{Config{Baseline: "C"}, "C,B"},
		{Config{Judges: []string{"C", "B"}}, "C,B"},
		{Config{Judges: []string{"C"}, Baseline: "B"}, "C,B"},
	} {
		tc.cfg.Criteria = replay.DefaultKillCriteria()
		if got := names(summarize(t, tc.cfg, in)); got != tc.want {
			t.Errorf("%+v: order %s, want %s", tc.cfg, got, tc.want)
		}
	}
}

// TestFalsePositiveRateDenominator: FP/(FP+TN) counts the labeled
// negatives both judges decided; a failure on a negative is neither FP
// nor TN, so it is not a unit of the figure.
func TestFalsePositiveRateDenominator(t *testing.T) {
	t.Parallel()
	var rs []*replay.Result
	for i := range 10 {
		id := fmt.Sprintf("n%d", i)
		cres, cst, src := "no_match", "ok", "judge"
		if i < 4 {
			cres, cst, src = "", "error", "failure" // the candidate failed on four negatives
		}
		rs = append(rs,
			&replay.Result{CaseID: id, Judge: "B", Rules: []replay.RuleResult{rr("X", "style", "judge", map[bool]string{true: "match", false: "no_match"}[i == 9], "no_match", "ok", i == 9, -1)}},
			&replay.Result{CaseID: id, Judge: "C", Rules: []replay.RuleResult{rr("X", "style", src, cres, "no_match", cst, false, -1)}})
	}
	s := summarize(t, Config{Criteria: replay.DefaultKillCriteria(), Baseline: "B"}, rs)
	f := figureNamed(s.Comparisons[0].Rules[0], FigureFalsePositiveRate)
	// Six negatives decided by both (n4..n9); the baseline flagged n9.
	if f.N != 6 {
		t.Fatalf("false-positive rate on %d units, want 6 (FP+TN of both)", f.N)
	}
	near(t, "baseline FPR", *f.Baseline, 1.0/6, 1e-12)
	near(t, "candidate FPR", *f.Candidate, 0, 0)
}

func TestCompareVerdictIsTheCandidatesUnlessASetupBroke(t *testing.T) {
	s := &Summary{Judges: []*JudgeSummary{{Judge: "base", Verdict: VerdictGo}, {Judge: "cand", Verdict: VerdictNoGo}}}
	if v := s.CompareVerdict("base", "cand"); v != VerdictNoGo {
		t.Errorf("candidate NO-GO: %s", v)
	}
	if v := s.CompareVerdict("base", "missing"); v != VerdictInconclusive {
		t.Errorf("no candidate: %s, want INCONCLUSIVE", v)
	}
	s.Judges[0].Verdict = VerdictError
	if v := s.CompareVerdict("base", "cand"); v != VerdictError {
		t.Errorf("baseline's setup broken: %s, want ERROR", v)
	}
	s.Judges[0].Verdict, s.Judges[1].Verdict = VerdictNoGo, VerdictGo
	if v := s.CompareVerdict("base", "cand"); v != VerdictGo {
		t.Errorf("a NO-GO baseline does not decide the candidate's verdict: %s", v)
	}
}
