package metrics

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge/core"
	"github.com/apeval/apeval/replay"
)

// TestFiniteSequenceCovers: drawn without replacement from a population
// of 200 with 37 ones, the interval holds 37/200 at every draw in ≥ 95 %
// of random orders, narrows as the draws go, and is exactly the mean
// once every value is drawn.
func TestFiniteSequenceCovers(t *testing.T) {
	t.Parallel()
	const size, ones = 200, 37
	truth := float64(ones) / size
	rng := rand.New(rand.NewPCG(4, 5))
	miss := 0
	const reps = 200
	for r := range reps {
		fs := NewFiniteSequence(0.05, size)
		if lo, hi := fs.Interval(); lo != 0 || hi != 1 {
			t.Fatalf("empty: [%v, %v]", lo, hi)
		}
		perm := rng.Perm(size)
		missed := false
		prevW := 2.0
		for k, i := range perm {
			x := 0.0
			if i < ones {
				x = 1
			}
			fs.Add(x)
			lo, hi := fs.Interval()
			if lo > truth+1e-12 || hi < truth-1e-12 {
				missed = true
			}
			if hi-lo > prevW+1e-12 {
				t.Fatalf("rep %d draw %d: width grew to %v from %v", r, k, hi-lo, prevW)
			}
			prevW = hi - lo
		}
		if lo, hi := fs.Interval(); lo != truth || hi != truth {
			t.Fatalf("all drawn: [%v, %v], want %v", lo, hi, truth)
		}
		if missed {
			miss++
		}
	}
	if rate := float64(miss) / reps; rate > 0.05+smokeSlack(0.05, reps) {
		t.Errorf("missed the population mean at some draw in %.3f of orders", rate)
	}
	// Half drawn, the finite sequence is narrower than the unbounded one.
	fs, cs := NewFiniteSequence(0.05, size), NewConfidenceSequence(0.05)
	for i := range size / 2 {
		x := 0.0
		if i%5 == 0 {
			x = 1
		}
		fs.Add(x)
		cs.Add(x)
	}
	fl, fh := fs.Interval()
	cl, ch := cs.Interval()
	if fh-fl >= ch-cl {
		t.Errorf("half drawn: finite width %v, unbounded %v", fh-fl, ch-cl)
	}
}

// labelPop is a run of one judge and one rule: nMatch pairs the judge
// matched of which tp are positive, nNo it did not of which fn are, in
// sessions of 4; labels hold the truth.
func labelPop(nMatch, tp, nNo, fn int) (*PairTable, map[string]bool) {
	t := NewPairTable(nil, nil)
	truth := map[string]bool{}
	add := func(i int, res core.Result, pos bool) {
		id := fmt.Sprintf("c%d", i)
		truth[id] = pos
		t.Add(&replay.Result{Judge: "j", CaseID: id, SessionID: fmt.Sprintf("s%d", i/4), Rules: []replay.RuleResult{{
			RuleID: "r", Result: res, Status: core.StatusOK, Source: replay.SourceJudge}}})
	}
	for i := range nMatch {
		add(i, core.Match, i < tp)
	}
	for i := range nNo {
		add(nMatch+i, core.NoMatch, i < fn)
	}
	return t, truth
}

// labelQueue draws a queue of budget from t and returns its lines.
func labelQueue(tb testing.TB, t *PairTable, budget int, seed uint64) []datasets.SampleLabel {
	pairs, _ := t.QueuePairs()
	q, err := BuildQueue(pairs, QueueConfig{Budget: budget, Seed: seed, Letters: []string{"A"}})
	if err != nil {
		tb.Fatal(err)
	}
	out := make([]datasets.SampleLabel, len(q.Items))
	for i, it := range q.Items {
		out[i] = datasets.SampleLabel{CaseID: it.CaseID, RuleID: it.RuleID, Stratum: it.Stratum, StratumSize: it.StratumSize, Order: it.Order}
	}
	return out
}

// labelsOf are the first n queue lines labeled from the truth.
func labelsOf(queue []datasets.SampleLabel, truth map[string]bool, n int) []SampleLabel {
	var out []SampleLabel
	for _, q := range queue[:n] {
		out = append(out, SampleLabel{CaseID: q.CaseID, RuleID: q.RuleID, Stratum: q.Stratum, StratumSize: q.StratumSize, Match: truth[q.CaseID]})
	}
	return out
}

// TestLabelSequentialDecides: a judge right on 196 of its 200 matches
// PASSes precision_min after some labels and says after how many; the
// same labels one by one agree on that number; an open standing says
// about how many more labels.
func TestLabelSequentialDecides(t *testing.T) {
	t.Parallel()
	crit := replay.DefaultKillCriteria()
	pt, truth := labelPop(200, 196, 300, 10)
	queue := labelQueue(t, pt, 250, 1)
	all := LabelSequential(pt, "r", 0, queue, labelsOf(queue, truth, len(queue)), crit)
	if all.Status != StatusPass || all.DecidedAfter == nil || all.Labels != len(queue) || all.Queued != len(queue) {
		t.Fatalf("all labels: %+v", all)
	}
	n := *all.DecidedAfter
	if n < 10 || n >= len(queue) {
		t.Fatalf("decided after %d of %d labels", n, len(queue))
	}
	// One label fewer: still open, and the hint is about the next one.
	before := LabelSequential(pt, "r", 0, queue, labelsOf(queue, truth, n-1), crit)
	if before.Status != StatusInconclusive || before.DecidedAfter != nil || !strings.HasPrefix(before.Reason, "open:") {
		t.Fatalf("after %d labels: %+v", n-1, before)
	}
	if at := LabelSequential(pt, "r", 0, queue, labelsOf(queue, truth, n), crit); at.Status != StatusPass || *at.DecidedAfter != n {
		t.Errorf("after %d labels: %+v", n, at)
	}
	// One label short of the decision, the continuations decide soon.
	if before.More == nil || *before.More <= 0 || *before.More > 10 || !strings.Contains(before.Reason, "more labels from the queue would decide it") {
		t.Errorf("after %d labels: more %v, %s", n-1, before.More, before.Reason)
	}
	// After 5 labels at 5 of 5, the rate the continuations assume
	// ((5+½)/6 ≈ 0.92) is too near 0.90 for the rest of the queue.
	early := LabelSequential(pt, "r", 0, queue, labelsOf(queue, truth, 5), crit)
	if early.More != nil || !strings.Contains(early.Reason, "would likely not decide it") {
		t.Errorf("after 5 labels: %+v", early)
	}
	// A queue drawn on another judge's results cannot say where this
	// judge stands.
	other := append([]datasets.SampleLabel(nil), queue...)
	for i := range other {
		other[i].Stratum = strings.ReplaceAll(other[i].Stratum, "A:", "B:")
	}
	if na := LabelSequential(pt, "r", 0, other, nil, crit); na.Status != StatusNA || !strings.Contains(na.Reason, "do not name judge A") {
		t.Errorf("other judges' queue: %+v", na)
	}
}

// TestCalibrationLabelSequential: the judge's precision over the run's
// pairs is exactly the threshold (180 of 200 matches right); labels come
// one by one in queue order and the standing is looked at after every
// one. The sequence decides (wrongly) at most 5 % of the time; the page's
// weighted figure looked at the same way, for comparison, far more often.
// A good judge (196 of 200) is decided; the median labels are reported.
func TestCalibrationLabelSequential(t *testing.T) {
	t.Parallel()
	n, full := calibrationN()
	slack := 0.0
	if !full {
		n = 40
		slack = smokeSlack(0.05, n)
	}
	crit := replay.DefaultKillCriteria()
	var b strings.Builder
	fmt.Fprintf(&b, "| label page, %d queues of 250 labels, looked at after every label | sequence | weighted interval |\n|---|---|---|\n", n)
	pt, truth := labelPop(200, 180, 300, 10)
	wrong, naive := 0, 0
	for r := range n {
		queue := labelQueue(t, pt, 250, uint64(r+1))
		if st := LabelSequential(pt, "r", 0, queue, labelsOf(queue, truth, len(queue)), crit); st.DecidedAfter != nil {
			wrong++
		}
		for k := 1; k <= len(queue); k++ {
			f := SampleFiguresOf(pt, "r", 0, labelsOf(queue, truth, k), crit)
			if f.PrecisionMin.Status == StatusPass || f.PrecisionMin.Status == StatusFail {
				naive++
				break
			}
		}
	}
	rate := float64(wrong) / float64(n)
	fmt.Fprintf(&b, "| precision exactly 0.90 (180 of 200 matches), false decisions | %.3f | %.3f |\n", rate, float64(naive)/float64(n))
	if rate > 0.05+slack {
		t.Errorf("false decisions %.3f", rate)
	}
	good, _ := labelPop(200, 196, 300, 10)
	_, gtruth := labelPop(200, 196, 300, 10)
	var seqN, fixN []float64
	for r := range n {
		queue := labelQueue(t, good, 250, uint64(r+1000))
		if st := LabelSequential(good, "r", 0, queue, labelsOf(queue, gtruth, len(queue)), crit); st.Status == StatusPass {
			seqN = append(seqN, float64(*st.DecidedAfter))
		}
		for k := 1; k <= len(queue); k++ {
			if f := SampleFiguresOf(good, "r", 0, labelsOf(queue, gtruth, k), crit); f.PrecisionMin.Status == StatusPass {
				fixN = append(fixN, float64(k))
				break
			}
		}
	}
	fmt.Fprintf(&b, "| good judge (196 of 200 matches right): PASS within the queue | %.3f | %.3f |\n", float64(len(seqN))/float64(n), float64(len(fixN))/float64(n))
	if len(seqN) > 0 && len(fixN) > 0 {
		fmt.Fprintf(&b, "| good judge: median labels to PASS | %.0f | %.0f |\n", median(seqN), median(fixN))
	}
	if len(seqN) < n/2 {
		t.Errorf("a good judge passed in %d of %d queues", len(seqN), n)
	}
	t.Log("\n" + b.String())
}
