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

// labelPop is a run of one judge and one rule: nMatch pairs the judge
// matched of which tp are positive, nNo it did not of which fn are (the
// errors spread evenly), in sessions of 4; labels hold the truth (a fixed population; labelDraw
// draws one from the traffic instead).
func labelPop(nMatch, tp, nNo, fn int) (*PairTable, map[string]bool) {
	return labelPopSessions(nMatch, tp, nNo, fn, 4)
}

// labelPopSessions is labelPop in sessions of size sess.
func labelPopSessions(nMatch, tp, nNo, fn, sess int) (*PairTable, map[string]bool) {
	t := NewPairTable(nil, nil)
	truth := map[string]bool{}
	add := func(i int, res core.Result, pos bool) {
		id := fmt.Sprintf("c%d", i)
		truth[id] = pos
		t.Add(&replay.Result{Judge: "j", CaseID: id, SessionID: fmt.Sprintf("s%d", i/sess), Rules: []replay.RuleResult{{
			RuleID: "r", Result: res, Status: core.StatusOK, Source: replay.SourceJudge}}})
	}
	// The errors spread evenly over the pairs (and so the sessions).
	spread := func(i, n, k int) bool { return i*k/n != (i+1)*k/n }
	for i := range nMatch {
		add(i, core.Match, !spread(i, nMatch, nMatch-tp))
	}
	for i := range nNo {
		add(nMatch+i, core.NoMatch, spread(i, nNo, fn))
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

// TestLabelSequentialDecides: a judge right on 199 of its 200 matches
// PASSes precision_min after some labels and says after how many; the
// same labels one by one agree on that number; an open standing says
// about how many more labels.
func TestLabelSequentialDecides(t *testing.T) {
	t.Parallel()
	crit := replay.DefaultKillCriteria()
	pt, truth := labelPop(200, 199, 300, 10)
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
	// Every queued label in and still open (precision 0.925 against
	// 0.90 on 30 labels): the reason says the queue is used up, not
	// that "the 0 labels left" would not decide it.
	near, nearTruth := labelPop(200, 185, 300, 10)
	short := labelQueue(t, near, 30, 1)
	done := LabelSequential(near, "r", 0, short, labelsOf(short, nearTruth, len(short)), crit)
	if done.Status != StatusInconclusive || done.More != nil || !strings.Contains(done.Reason, "after every queued label of the rule") || strings.Contains(done.Reason, "0 labels left") {
		t.Errorf("whole queue labeled: %+v", done)
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

// labelDraw draws the labels of labelPop's pairs from the traffic: the
// judge's matches are positive at a session rate drawn around prec with
// ICC icc (sessions of 4), its other pairs at 0.03.
func labelDraw(rng *rand.Rand, nMatch, nNo int, prec, icc float64) map[string]bool {
	return labelDrawSessions(rng, nMatch, nNo, prec, icc, 4)
}

// labelDrawSessions is labelDraw for labelPopSessions' sessions of sess.
func labelDrawSessions(rng *rand.Rand, nMatch, nNo int, prec, icc float64, sess int) map[string]bool {
	truth := map[string]bool{}
	rate := 0.0
	for i := range nMatch + nNo {
		if i%sess == 0 || i == nMatch {
			rate = sessionRate(rng, prec, icc)
		}
		p := rate
		if i >= nMatch {
			p = 0.03
		}
		truth[fmt.Sprintf("c%d", i)] = rng.Float64() < p
	}
	return truth
}

// TestCalibrationLabelSequential: the judge's precision on its traffic
// is exactly the threshold, 0.90 (each replicate draws the run's labels
// anew: sessions of 4 at ICC 0.2, and sessions of 20 at ICC 0.3, where
// the recorded sessions' own spread is most of the uncertainty); labels
// come one by one in queue order and the standing is looked at after
// every one. The sequence decides (wrongly) at most 5 % of the time; the
// page's weighted interval looked at the same way, for comparison, more
// often. A good judge (0.98) is decided; the median labels are reported.
func TestCalibrationLabelSequential(t *testing.T) {
	t.Parallel()
	n, full := calibrationN()
	slack := 0.0
	if !full {
		// The smoke: few queues, and the weighted interval's comparison
		// (250 evaluations a queue) only in the full run.
		n = 20
		slack = smokeSlack(0.05, n)
	}
	crit := replay.DefaultKillCriteria()
	var b strings.Builder
	// The weighted interval evaluated after every label (250 a queue) is
	// slow: its comparison runs on the first naiveQueues queues.
	const naiveQueues = 200
	nv := min(n, naiveQueues)
	fmt.Fprintf(&b, "| label page, %d queues of 250 labels (weighted interval: the first %d), looked at after every label | sequence | weighted interval |\n|---|---|---|\n", n, nv)
	rng := rand.New(rand.NewPCG(17, 3))
	for _, c := range []struct {
		sess int
		icc  float64
	}{{4, 0.2}, {20, 0.3}} {
		pt, _ := labelPopSessions(200, 180, 300, 10, c.sess)
		wrong, naive := 0, 0
		for r := range n {
			truth := labelDrawSessions(rng, 200, 300, 0.9, c.icc, c.sess)
			queue := labelQueue(t, pt, 250, uint64(r+1))
			if st := LabelSequential(pt, "r", 0, queue, labelsOf(queue, truth, len(queue)), crit); st.DecidedAfter != nil {
				wrong++
			}
			for k := 1; full && r < naiveQueues && k <= len(queue); k++ {
				f := SampleFiguresOf(pt, "r", 0, labelsOf(queue, truth, k), crit)
				if f.PrecisionMin.Status == StatusPass || f.PrecisionMin.Status == StatusFail {
					naive++
					break
				}
			}
		}
		rate := float64(wrong) / float64(n)
		fmt.Fprintf(&b, "| precision exactly 0.90 on the traffic (sessions of %d, ICC %.1f), false decisions | %.3f | %.3f |\n", c.sess, c.icc, rate, float64(naive)/float64(nv))
		if rate > 0.05+slack {
			t.Errorf("sessions of %d, ICC %.1f: false decisions %.3f", c.sess, c.icc, rate)
		}
	}
	pt, _ := labelPop(200, 180, 300, 10)
	var seqN, fixN []float64
	for r := range n {
		truth := labelDraw(rng, 200, 300, 0.98, 0.2)
		queue := labelQueue(t, pt, 250, uint64(r+1000))
		if st := LabelSequential(pt, "r", 0, queue, labelsOf(queue, truth, len(queue)), crit); st.Status == StatusPass {
			seqN = append(seqN, float64(*st.DecidedAfter))
		}
		for k := 1; full && r < naiveQueues && k <= len(queue); k++ {
			if f := SampleFiguresOf(pt, "r", 0, labelsOf(queue, truth, k), crit); f.PrecisionMin.Status == StatusPass {
				fixN = append(fixN, float64(k))
				break
			}
		}
	}
	fmt.Fprintf(&b, "| good judge (0.98): PASS within the queue of 250 | %.3f | %.3f |\n", float64(len(seqN))/float64(n), float64(len(fixN))/float64(nv))
	if len(seqN) > 0 && len(fixN) > 0 {
		fmt.Fprintf(&b, "| good judge: median labels to PASS | %.0f | %.0f |\n", median(seqN), median(fixN))
	}
	// The sessions' term costs power: 0.80 of good judges passed when
	// labels counted as independent, about half now.
	goodSlack := 0.0
	if !full {
		goodSlack = smokeSlack(0.4, n)
	}
	if float64(len(seqN))/float64(n) < 0.4-goodSlack {
		t.Errorf("a good judge passed in %d of %d queues", len(seqN), n)
	}
	t.Log("\n" + b.String())
}

// BenchmarkLabelSequential: one rule's standing on a queue of 600 labels
// after 100 of them, its projection included (what the labeling page
// computes for each judge when a label of the rule comes in).
func BenchmarkLabelSequential(b *testing.B) {
	pt, truth := labelPop(800, 740, 1200, 30)
	queue := labelQueue(b, pt, 600, 1)
	labels := labelsOf(queue, truth, 100)
	crit := replay.DefaultKillCriteria()
	for b.Loop() {
		LabelSequential(pt, "r", 0, queue, labels, crit)
	}
}

// TestLabelSequentialEmptiedDoesNotDecide: when a stratum's labels
// exclude every share (the first five matches, then only non-matches: not
// draws in random order), the standing is not decided on the running
// mean alone: at a threshold the bounds still held the look before, it
// stays INCONCLUSIVE and says why.
func TestLabelSequentialEmptiedDoesNotDecide(t *testing.T) {
	t.Parallel()
	pt, _ := labelPop(400, 380, 100, 5)
	queue := labelQueue(t, pt, 400, 1)
	// Labels in queue order: the judge's match stratum's first five
	// positive, every later one negative.
	truth := map[string]bool{}
	seen := 0
	var xs []float64
	for _, q := range queue {
		if strings.Contains(q.Stratum, "A:"+QueueMatch) {
			truth[q.CaseID] = seen < 5
			xs = append(xs, map[bool]float64{true: 1, false: 0}[seen < 5])
			seen++
		}
	}
	// The label at which the stratum's sequence (one stratum: all of
	// the labels' share of α) excludes every share.
	cs := NewConfidenceSequence((1 - 0.95) * LabelSequenceShare)
	excl := -1
	for i, x := range xs {
		cs.Add(x)
		if cs.Excluded() {
			excl = i + 1
			break
		}
	}
	if excl < 0 {
		t.Fatalf("precondition: %d labels never exclude every share", len(xs))
	}
	// The queue position of that label.
	n, k := 0, 0
	for i, q := range queue {
		if strings.Contains(q.Stratum, "A:"+QueueMatch) {
			k++
			if k == excl {
				n = i + 1
				break
			}
		}
	}
	crit := replay.DefaultKillCriteria()
	prev := LabelSequential(pt, "r", 0, queue, labelsOf(queue, truth, n-1), crit)
	crit.PrecisionMin = (*prev.Lo + *prev.Hi) / 2
	prev = LabelSequential(pt, "r", 0, queue, labelsOf(queue, truth, n-1), crit)
	if prev.Status != StatusInconclusive {
		t.Fatalf("precondition: open at %.4f after %d labels, got %+v", crit.PrecisionMin, n-1, prev)
	}
	at := LabelSequential(pt, "r", 0, queue, labelsOf(queue, truth, n), crit)
	if at.Status != StatusInconclusive || !strings.Contains(at.Reason, "excluded every share") {
		t.Errorf("after %d labels (every share excluded): %+v", n, at)
	}
}
