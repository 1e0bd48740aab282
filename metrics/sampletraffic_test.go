package metrics

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/apeval/apeval/replay"
)

// drawsRun is a small labeled run through the real path: judges A and B
// on one rule, 105 unlabeled pairs in the given number of sessions (48:
// at least drawMinSessions, where the draws are printed), in the four queue
// strata of A's and B's results (30 both match, 6 A alone, 9 B alone, 60
// neither), and 5 queue labels of each stratum naming the queue's judges
// as label queue writes them.
func drawsRun(judges []string, sessions int) (*PairTable, []SampleLabel) {
	type stratum struct {
		a, b bool
		n    int
		// pos marks the labeled pairs (the first 5) that are match.
		pos []bool
	}
	strata := []stratum{
		{true, true, 30, []bool{true, true, true, true, false}},
		{true, false, 6, []bool{false, true, false, false, true}},
		{false, true, 9, []bool{true, true, false, true, true}},
		{false, false, 60, []bool{false, false, false, false, false}},
	}
	tab := NewPairTable(judges, nil)
	var labels []SampleLabel
	i := 0
	for _, s := range strata {
		name := "A:" + res(s.a) + " B:" + res(s.b)
		for k := range s.n {
			id := fmt.Sprintf("c%03d", i)
			for _, j := range []struct {
				id  string
				got bool
			}{{"A", s.a}, {"B", s.b}} {
				tab.Add(&replay.Result{CaseID: id, SessionID: fmt.Sprintf("s%02d", i%sessions), Judge: j.id,
					Rules: []replay.RuleResult{rr("r", "dangerous", "judge", res(j.got), "", "ok", j.got, 0)}})
			}
			if k < len(s.pos) {
				labels = append(labels, SampleLabel{CaseID: id, RuleID: "r", Stratum: name, StratumSize: int64(s.n),
					Match: s.pos[k], Judges: []string{"A=A", "B=B"}})
			}
			i++
		}
	}
	return tab, labels
}

// TestSampleFiguresDrawsInterval: on a queue-labeled run holding the
// queue's judges, the printed precision and recall intervals are the
// stratified draws' over the queue's traffic (every recorded pair of the
// reached strata, counted here by hand), the reason says so, and the same
// labels in another order print the same bounds. A run without a queue
// judge, labels that do not name their judges, or strata sizes other
// than the queue's keep the two-phase interval and say why.
func TestSampleFiguresDrawsInterval(t *testing.T) {
	crit := replay.DefaultKillCriteria()
	tab, labels := drawsRun(nil, 48)
	j := slices.Index(tab.Judges, "A")
	units, _ := tab.SampleUnits("r", j, -1, labels)

	traffic, why := tab.queueTraffic("r", j, units, labels)
	if why != "" {
		t.Fatalf("no traffic: %s", why)
	}
	count := map[string]int{}
	matches, sessions := 0, map[string]bool{}
	for _, p := range traffic {
		count[p.Stratum]++
		sessions[p.Session] = true
		if p.Match {
			matches++
		}
	}
	want := map[string]int{"A:match B:match": 30, "A:match B:no_match": 6, "A:no_match B:match": 9, "A:no_match B:no_match": 60}
	if fmt.Sprint(count) != fmt.Sprint(want) || matches != 36 || len(sessions) != 48 {
		t.Fatalf("traffic %v, %d of A's match predictions, %d sessions; want %v, 36, 48", count, matches, len(sessions), want)
	}

	f := SampleFiguresOf(tab, "r", j, labels, crit)
	for _, c := range []struct {
		name    string
		got     WeightedRatio
		twoFig  WeightedRatio
		fn      ratioFn
		wantEst float64
	}{
		// Precision: TP 30·4/5 + 6·2/5 = 26.4, FP 30·1/5 + 6·3/5 = 9.6:
		// 26.4/36.
		{"precision", f.Precision, WeightedPrecision(units, 0.95), precisionFn, 26.4 / 36},
		// Recall: TP 26.4, FN 9·4/5 = 7.2 (none of the 60 labeled so): 26.4/33.6.
		{"recall", f.Recall, WeightedRecall(units, 0.95), recallFn, 26.4 / 33.6},
	} {
		if c.got.Estimate == nil || math.Abs(*c.got.Estimate-c.wantEst) > 1e-12 {
			t.Fatalf("%s estimate %v (%v/%v), want %.6f", c.name, *c.got.Estimate, c.got.Num, c.got.Den, c.wantEst)
		}
		lo, hi, ok := drawnInterval(units, traffic, c.fn, c.wantEst, 0.95)
		if !ok || c.got.Method != IntervalDraws || *c.got.Lo != lo || *c.got.Hi != hi {
			t.Errorf("%s: [%v, %v] by %q, want the draws' [%v, %v] (ok %v)", c.name, *c.got.Lo, *c.got.Hi, c.got.Method, lo, hi, ok)
		}
		if *c.twoFig.Lo == lo && *c.twoFig.Hi == hi {
			t.Errorf("%s: the two-phase interval is the draws' [%v, %v]: the test cannot tell them apart", c.name, lo, hi)
		}
	}
	if !strings.Contains(f.PrecisionMin.Reason, "stratified draws (4,000, seeded from the labels") {
		t.Errorf("precision_min reason does not name the draws: %s", f.PrecisionMin.Reason)
	}
	// The same labels in another order: the same bounds.
	rev := slices.Clone(labels)
	slices.Reverse(rev)
	g := SampleFiguresOf(tab, "r", j, rev, crit)
	if *g.Precision.Lo != *f.Precision.Lo || *g.Precision.Hi != *f.Precision.Hi || *g.Recall.Lo != *f.Recall.Lo || *g.Recall.Hi != *f.Recall.Hi {
		t.Errorf("labels reversed: precision [%v, %v] recall [%v, %v], was [%v, %v] [%v, %v]",
			*g.Precision.Lo, *g.Precision.Hi, *g.Recall.Lo, *g.Recall.Hi, *f.Precision.Lo, *f.Precision.Hi, *f.Recall.Lo, *f.Recall.Hi)
	}

	// Fallbacks: the two-phase interval, and the reason says why.
	noB, _ := drawsRun([]string{"A"}, 48)
	few, fewLabels := drawsRun(nil, 12)
	renamed, _ := drawsRun([]string{"A", "B [head]"}, 48)
	bare := make([]SampleLabel, len(labels))
	for i, l := range labels {
		l.Judges = nil
		bare[i] = l
	}
	stale := slices.Clone(labels)
	for i := range stale {
		if stale[i].Stratum == "A:no_match B:no_match" {
			stale[i].StratumSize = 61
		}
	}
	for _, c := range []struct {
		name   string
		tab    *PairTable
		labels []SampleLabel
		why    string
	}{
		{"run without the queue's judge B", noB, labels, "the queue's judge B=B is not in this run"},
		{"labels without their queue's judges", tab, bare, "the labels file does not name the queue's judges"},
		{"a stratum the queue counted 61 pairs", tab, stale, `stratum "A:no_match B:no_match" holds 60 pairs in this run, 61 in the queue`},
		{"compare across runs: B renamed", renamed, labels, `the queue's judge B=B is "B [head]" here, a second run's in a comparison across runs (report on that run alone prints the draws)`},
		{"the rule's pairs in 12 sessions", few, fewLabels, "the rule's recorded pairs in the labeled strata come from 12 sessions, fewer than the draws need (40)"},
	} {
		jj := slices.Index(c.tab.Judges, "A")
		us, _ := c.tab.SampleUnits("r", jj, -1, c.labels)
		h := SampleFiguresOf(c.tab, "r", jj, c.labels, crit)
		for _, x := range []struct {
			name string
			got  WeightedRatio
			two  WeightedRatio
		}{{"precision", h.Precision, WeightedPrecision(us, 0.95)}, {"recall", h.Recall, WeightedRecall(us, 0.95)}} {
			if x.got.Method != IntervalTwoPhase || !strings.Contains(x.got.MethodWhy, c.why) {
				t.Errorf("%s, %s: method %q (%q), want %q (%q)", c.name, x.name, x.got.Method, x.got.MethodWhy, IntervalTwoPhase, c.why)
			}
			if *x.got.Lo != *x.two.Lo || *x.got.Hi != *x.two.Hi {
				t.Errorf("%s, %s: [%v, %v], want the two-phase [%v, %v]", c.name, x.name, *x.got.Lo, *x.got.Hi, *x.two.Lo, *x.two.Hi)
			}
		}
		if !strings.Contains(h.PrecisionMin.Reason, "two-phase design 95% CI") || !strings.Contains(h.PrecisionMin.Reason, "not the stratified draws: "+c.why) {
			t.Errorf("%s: precision_min reason %q does not say the two-phase interval and why", c.name, h.PrecisionMin.Reason)
		}
	}
}

// BenchmarkSampleFigures100Rules is report --labels' figures on 100
// rules (SampleFiguresOf for 2 judges of each): per rule 600 recorded
// pairs in 120 sessions and 75 labels naming the queue's judges, some in
// every stratum (so the draws' traffic spans all 120 sessions, at least
// drawMinSessions), each figure's interval from the stratified draws.
func BenchmarkSampleFigures100Rules(b *testing.B) {
	tab := NewPairTable([]string{"A", "B"}, nil)
	var labels []SampleLabel
	type key struct {
		rule, stratum string
	}
	size := map[key]int64{}
	var pend []SampleLabel
	for r := range 100 {
		rule := fmt.Sprintf("r%03d", r)
		for i := range 600 {
			id := fmt.Sprintf("c%05d", i)
			a := i%10 == 0
			bm := i%10 == 0 && i%30 != 0 || i%37 == 0
			for _, j := range []struct {
				id  string
				got bool
			}{{"A", a}, {"B", bm}} {
				tab.Add(&replay.Result{CaseID: id, SessionID: fmt.Sprintf("s%03d", i%120), Judge: j.id,
					Rules: []replay.RuleResult{rr(rule, "dangerous", "judge", res(j.got), "", "ok", j.got, 0)}})
			}
			k := key{rule, "A:" + res(a) + " B:" + res(bm)}
			size[k]++
			if i%20 <= 1 || (a != bm && i%3 == 0) {
				pend = append(pend, SampleLabel{CaseID: id, RuleID: rule, Stratum: k.stratum, Match: a && i%7 != 0, Judges: []string{"A=A", "B=B"}})
			}
		}
	}
	for _, l := range pend {
		l.StratumSize = size[key{l.RuleID, l.Stratum}]
		labels = append(labels, l)
	}
	crit := replay.DefaultKillCriteria()
	rules := tab.SampleRules()
	b.ResetTimer()
	for b.Loop() {
		for _, rule := range rules {
			for j := range 2 {
				if f := SampleFiguresOf(tab, rule, j, labels, crit); f.Precision.Method != IntervalDraws {
					b.Fatalf("%s: %q (%s)", rule, f.Precision.Method, f.Precision.MethodWhy)
				}
			}
		}
	}
}
