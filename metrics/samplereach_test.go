package metrics

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/apeval/apeval/replay"
)

// reachTable is one dangerous rule "r" judged by A and B over three
// queue strata of unlabeled pairs, each pair in its own session: 30 pairs
// both call match, 6 only A calls match, 60 neither does.
func reachTable() *PairTable { return reachTableN(60) }

// reachTableN is reachTable with nn pairs neither judge calls match.
func reachTableN(nn int) *PairTable {
	t := NewPairTable([]string{"A", "B"}, nil)
	add := func(prefix string, n int, a, b bool) {
		for i := range n {
			id := fmt.Sprintf("%s%d", prefix, i)
			for _, j := range []struct {
				name string
				got  bool
			}{{"A", a}, {"B", b}} {
				t.Add(&replay.Result{CaseID: id, SessionID: "s-" + id, Judge: j.name,
					Rules: []replay.RuleResult{withBaseline(rr("r", "dangerous", "judge", res(j.got), "", "ok", j.got, 0), res(b))}})
			}
		}
	}
	add("mm", 30, true, true)
	add("mn", 6, true, false)
	add("nn", nn, false, false)
	return t
}

func reachLabel(id, stratum string, size int64, match bool) SampleLabel {
	return SampleLabel{CaseID: id, RuleID: "r", Stratum: stratum, StratumSize: size, Match: match}
}

// TestSampleFiguresHoldUnreachedStrata: the first labels of a queue
// reach only the stratum where A alone says match (both labels
// no_match). On those strata alone A's precision is 0 and its interval
// lies below 0.90 — a FAIL, though 30 of A's 36 match predictions sit in
// a stratum no label has reached. The figure's interval must hold every
// split of those 30 (lo·D/(D+30), (hi·D+30)/(D+30)), recall's the 60
// pairs A did not call match as possible misses, and precision_min is
// INCONCLUSIVE saying so. Once every stratum has a label nothing widens.
func TestSampleFiguresHoldUnreachedStrata(t *testing.T) {
	t.Parallel()
	tab := reachTable()
	crit := replay.DefaultKillCriteria()
	labels := []SampleLabel{reachLabel("mn0", "A:match B:no_match", 6, false), reachLabel("mn1", "A:match B:no_match", 6, false)}
	units, _ := tab.SampleUnits("r", 0, -1, labels)
	plain := WeightedPrecision(units, crit.Confidence)
	if plain.Hi == nil || *plain.Hi >= crit.PrecisionMin || SamplePrecision(plain, crit).Status != StatusFail {
		t.Fatalf("the reached strata alone should FAIL (the defect this guards): %+v", plain)
	}
	f := SampleFiguresOf(tab, "r", 0, labels, crit)
	p := f.Precision
	if p.UnreachedMatch != 30 || p.Predicted != 36 {
		t.Fatalf("unreached match predictions %g of %g, want 30 of 36", p.UnreachedMatch, p.Predicted)
	}
	D := plain.Den // 6: the reached stratum's weighted match predictions
	wantLo, wantHi := *plain.Lo*D/(D+30), (*plain.Hi*D+30)/(D+30)
	if math.Abs(*p.Lo-wantLo) > 1e-12 || math.Abs(*p.Hi-wantHi) > 1e-12 || *p.Estimate != 0 {
		t.Errorf("precision %g [%g, %g], want 0 [%g, %g]", *p.Estimate, *p.Lo, *p.Hi, wantLo, wantHi)
	}
	c := f.PrecisionMin
	if c.Status != StatusInconclusive || !strings.Contains(c.Reason, "30 of the judge's 36 match predictions") ||
		!strings.Contains(c.Reason, "label further down the queue") || c.MoreSamples != nil {
		t.Errorf("precision_min %s: %s (more %v)", c.Status, c.Reason, c.MoreSamples)
	}
	// Recall: no labeled positive yet, so no figure, and the gain N/A.
	if f.Recall.Estimate != nil || f.DangerousRecall.Status != StatusNA {
		t.Errorf("recall %+v, dangerous %s: %s", f.Recall, f.DangerousRecall.Status, f.DangerousRecall.Reason)
	}

	// A positive labeled in the stratum both call match: recall is 1 on
	// the reached strata, but the 60 pairs neither calls match (and the 6
	// A alone does) are unreached or reached: the 60 are unreached and
	// may be misses.
	labels = append(labels, reachLabel("mm0", "A:match B:match", 30, true))
	units, _ = tab.SampleUnits("r", 0, -1, labels)
	rec := WeightedRecall(units, crit.Confidence)
	f = SampleFiguresOf(tab, "r", 0, labels, crit)
	D = rec.Den
	if f.Recall.Unreached != 60 || f.Recall.UnreachedMatch != 0 {
		t.Fatalf("recall unreached %g (match %g), want 60 (0)", f.Recall.Unreached, f.Recall.UnreachedMatch)
	}
	if w := *rec.Lo * D / (D + 60); math.Abs(*f.Recall.Lo-w) > 1e-12 || *f.Recall.Hi != *rec.Hi {
		t.Errorf("recall [%g, %g], want [%g, %g]", *f.Recall.Lo, *f.Recall.Hi, w, *rec.Hi)
	}
	g := f.DangerousRecall
	if g.Status != StatusInconclusive || g.Lo == nil || *g.Lo > -0.5 || !strings.Contains(g.Reason, "widened to hold the 60 unlabeled pairs in queue strata") {
		t.Errorf("dangerous recall %s [%v]: %s", g.Status, g.Lo, g.Reason)
	}

	// Every stratum reached: the figures are the estimator's own.
	labels = append(labels, reachLabel("nn0", "A:no_match B:no_match", 60, false))
	units, _ = tab.SampleUnits("r", 0, -1, labels)
	f = SampleFiguresOf(tab, "r", 0, labels, crit)
	plain, rec = WeightedPrecision(units, crit.Confidence), WeightedRecall(units, crit.Confidence)
	if f.Precision.Unreached != 0 || f.Recall.Unreached != 0 || *f.Precision.Lo != *plain.Lo || *f.Precision.Hi != *plain.Hi ||
		*f.Recall.Lo != *rec.Lo || *f.Recall.Hi != *rec.Hi || strings.Contains(f.PrecisionMin.Reason, "reached") {
		t.Errorf("all strata reached, yet widened: %+v / %+v: %s", f.Precision, f.Recall, f.PrecisionMin.Reason)
	}
}

// TestApplySampleTotalHoldsUnreachedStrata: the total row of a judge
// widens by the unreached pairs of its rules, as the rule rows do.
func TestApplySampleTotalHoldsUnreachedStrata(t *testing.T) {
	t.Parallel()
	tab := reachTable()
	labels := []SampleLabel{reachLabel("mn0", "A:match B:no_match", 6, false), reachLabel("mm0", "A:match B:match", 30, true)}
	units, _ := tab.SampleUnits("r", 0, -1, labels)
	var rs []*replay.Result
	for _, p := range tab.Rows() {
		for j, name := range tab.Judges {
			got := p.Results[j] == QueueMatch
			rs = append(rs, &replay.Result{CaseID: p.CaseID, SessionID: p.Session, Judge: name,
				Rules: []replay.RuleResult{withBaseline(rr("r", "dangerous", "judge", res(got), "", "ok", got, 0), string(p.Baseline))}})
		}
	}
	s := closeAll(rs, "B")
	s.ApplySample(tab, labels)
	var a *JudgeSummary
	for _, js := range s.Judges {
		if js.Judge == "A" {
			a = js
		}
	}
	if a == nil {
		t.Fatal("no judge A")
	}
	rc := WeightedRecall(units, 0.95)
	want := *rc.Lo * rc.Den / (rc.Den + 60)
	if a.Total.RecallLo == nil || math.Abs(*a.Total.RecallLo-want) > 1e-9 {
		t.Errorf("total recall lower bound %v, want %g (60 unreached pairs A did not call match)", a.Total.RecallLo, want)
	}
	if r := a.Rules[0]; r.RecallLo == nil || math.Abs(*r.RecallLo-want) > 1e-9 {
		t.Errorf("rule recall lower bound %v, want %g", r.RecallLo, want)
	}
	// The comparison A against B: the recall gain's interval holds the
	// 60 unreached pairs as positives either one alone may catch, and
	// gives no p (its test would speak of the reached strata only).
	if len(s.Comparisons) != 1 {
		t.Fatalf("%d comparisons, want 1", len(s.Comparisons))
	}
	var found bool
	for _, rc := range s.Comparisons[0].Rules {
		for _, f := range rc.Figures {
			if f.Figure != "recall" || rc.RuleID != "r" {
				continue
			}
			found = true
			d := WeightedRecallDiff(units, 0.95)
			wlo, whi := (*d.Lo*d.Den-60)/(d.Den+60), (*d.Hi*d.Den+60)/(d.Den+60)
			if f.DeltaLo == nil || math.Abs(*f.DeltaLo-wlo) > 1e-9 || math.Abs(*f.DeltaHi-whi) > 1e-9 || f.PValue != nil {
				t.Errorf("recall Δ [%v, %v] p %v, want [%g, %g] and no p", f.DeltaLo, f.DeltaHi, f.PValue, wlo, whi)
			}
		}
	}
	if !found {
		t.Error("no recall figure on rule r in the comparison")
	}
}

// TestUnreachedCountAgrees: the reasons count unreached pairs with the
// noun in agreement — "the 1 unlabeled pair", never "the 1 unlabeled
// pairs" (gate printed it so). The table of TestSampleFiguresHoldUnreachedStrata
// with one pair neither judge calls match: once a positive is labeled
// where both say match and two where A alone does, that pair is the only
// one unreached.
func TestUnreachedCountAgrees(t *testing.T) {
	t.Parallel()
	tab := reachTableN(1)
	crit := replay.DefaultKillCriteria()
	labels := []SampleLabel{reachLabel("mn0", "A:match B:no_match", 6, false), reachLabel("mn1", "A:match B:no_match", 6, false),
		reachLabel("mm0", "A:match B:match", 30, true)}
	f := SampleFiguresOf(tab, "r", 0, labels, crit)
	if f.Recall.Unreached != 1 {
		t.Fatalf("recall unreached %g, want 1", f.Recall.Unreached)
	}
	g := f.DangerousRecall
	if !strings.Contains(g.Reason, "widened to hold the 1 unlabeled pair in queue strata") || strings.Contains(g.Reason, "1 unlabeled pairs") {
		t.Errorf("dangerous recall %s: %s", g.Status, g.Reason)
	}
	for _, c := range []struct {
		n    float64
		want string
	}{{0, "0 unlabeled pairs"}, {1, "1 unlabeled pair"}, {2, "2 unlabeled pairs"}, {36, "36 unlabeled pairs"}} {
		if got := counted(c.n, "unlabeled pair", "unlabeled pairs"); got != c.want {
			t.Errorf("counted(%g) = %q, want %q", c.n, got, c.want)
		}
	}
}
