package metrics

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/apeval/apeval/replay"
)

// TestBetaBinomDecides: the chance that x errors among n, beta-binomial,
// leave Wilson's interval wholly on one side of the threshold, against
// hand-computed values. n = 2 under a uniform Beta(1, 1): x = 0, 1, 2
// each 1/3; Wilson at z = 1.96 gives [0.342, 1] for 2/2 and [0, 0.658]
// for 0/2, so at 0.3 only x = 0 decides (PASS), at 0.7 only x = 2 (FAIL).
// n = 1 under Beta(1, 3): P(x = 0) = 3/4, and 1/1's bound 1/(1 + z²) =
// 0.207 clears 0.2.
func TestBetaBinomDecides(t *testing.T) {
	t.Parallel()
	z := 1.959964
	for _, tc := range []struct {
		n, a, b, thr float64
		passOnly     bool
		want         float64
	}{
		{2, 1, 1, 0.3, false, 1.0 / 3},
		{2, 1, 1, 0.7, false, 1.0 / 3},
		{2, 1, 1, 0.7, true, 0},
		{2, 1, 1, 0.5, false, 0},
		{1, 1, 3, 0.2, false, 0.75},
	} {
		if got := betaBinomDecides(tc.n, tc.a, tc.b, tc.thr, z, tc.passOnly); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("n %g, Beta(%g, %g), threshold %g, pass only %v: %g, want %g", tc.n, tc.a, tc.b, tc.thr, tc.passOnly, got, tc.want)
		}
	}
	// The probabilities of all outcomes sum to 1 on a large n.
	if got := betaBinomDecides(500, 0.5, 8.5, -1, z, true); math.Abs(got-1) > 1e-9 {
		t.Errorf("every outcome clears −1: %g, want 1", got)
	}
}

// TestBuildQueueMatches: a queue with Matches holds every unlabeled pair
// the judge called match, in each stratum where it says match whatever
// the other judge says, and nothing else; the dataset's labels and the
// labels files' pairs are not queued, and the sizes are the run's.
func TestBuildQueueMatches(t *testing.T) {
	t.Parallel()
	ps := queuePairs()
	letters := []string{"A", "B"}
	excl := map[[2]string]bool{{ps[1000].CaseID, "r1"}: true} // an A:match B:no_match pair a labels file labels
	q, err := BuildQueue(ps, QueueConfig{Matches: "A", Labeled: map[[2]string]int{{"r1", "A:match B:no_match"}: 1}, Exclude: excl, Seed: 3, Letters: letters})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	sizes := map[string]int64{}
	for _, s := range q.Strata {
		got[s.RuleID+" "+s.Name] = s.Allocated
		sizes[s.RuleID+" "+s.Name] = s.Size
	}
	want := map[string]int{
		"r1 A:match B:no_match": 39, "r1 A:match B:match": 100, "r2 A:match B:match": 8,
		"r1 A:no_match B:no_match": 0, "r1 A:no_match B:match": 0, "r2 A:no_match B:undecided": 0,
	}
	if !reflect.DeepEqual(got, want) || len(q.Items) != 147 || q.Matches != "A" || sizes["r1 A:match B:no_match"] != 40 {
		t.Errorf("allocation %v (want %v), %d items, matches %q, sizes %v", got, want, len(q.Items), q.Matches, sizes)
	}
	for _, it := range q.Items {
		if !strings.HasPrefix(it.Stratum, "A:match") || excl[[2]string{it.CaseID, it.RuleID}] {
			t.Errorf("queued %s %s (%s)", it.CaseID, it.RuleID, it.Stratum)
		}
	}
	for _, cfg := range []QueueConfig{{Matches: "C", Letters: letters}, {Matches: "A", Budget: 10, Letters: letters}, {Matches: "A", Reach: 10, Letters: letters}} {
		if _, err := BuildQueue(ps, cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
}

// TestLabelHintFewMatchesCensus: the labeling walkthrough's
// access-control-notify (8 match predictions in 644 pairs over 135
// sessions, 5 of them labeled, all right) needs sessions; its hint now
// asks for a new run whose every match prediction of the judge is
// labeled (label queue --matches), and the new run's match predictions,
// all labeled, are enough for Wilson's bound at 1 to clear 0.9: what a
// "labeled at the same rate" hint promised and a budget queue never gave
// (10 labels of the judge's matches in 736).
func TestLabelHintFewMatchesCensus(t *testing.T) {
	t.Parallel()
	crit := replay.DefaultKillCriteria()
	crit.PrecisionMin = 0.9
	us := walkthroughUnits(8, 636)
	f := WeightedPrecision(us, crit.Confidence).WithTraffic(135, 644).Of("access-control-notify", "recorded/ollama/qwen2.5:3b")
	c := SamplePrecision(f, crit)
	if c.Status != StatusInconclusive || c.MoreSessions == nil || c.MoreSamples == nil {
		t.Fatalf("want an open figure with a hint in sessions and labels: %s", c.Reason)
	}
	if !strings.Contains(c.Reason, "`apeval label queue NEW_RUN --rule access-control-notify --matches recorded/ollama/qwen2.5:3b`") {
		t.Errorf("the hint does not name the queue to draw: %s", c.Reason)
	}
	k, m := float64(*c.MoreSessions), float64(*c.MoreSamples)
	if want := math.Ceil(8 * (135 + k) / 135); m != want {
		t.Errorf("%g labels named, the new run's %g match predictions expected", m, want)
	}
	z := 1.959964
	if need := crit.PrecisionMin * z * z / (1 - crit.PrecisionMin); m < need {
		t.Errorf("%g labels of match predictions; Wilson at 1 clears %.2f only from %.3g: %s", m, crit.PrecisionMin, need, c.Reason)
	}
	t.Log(c.Reason)
}

// TestLabelHintCensusNamesMatches: a precision whose every label weighs
// 1 from a queue (the judge's 8 match predictions of 644 pairs in 135
// sessions, all labeled: label queue --matches) is decided as without
// --labels, and its hint names the same step as the two-phase path's:
// the new run's match predictions labeled through `label queue NEW_RUN
// --matches`, in sessions of traffic, not "sessions like these" (the 8
// sessions holding the predictions; the traffic brings one in about
// 17). Against the same data labeled in the dataset, which keeps the
// unweighted hint: the same units, K/Den times the sessions.
func TestLabelHintCensusNamesMatches(t *testing.T) {
	t.Parallel()
	crit := replay.DefaultKillCriteria()
	crit.PrecisionMin = 0.9
	var us []SampleUnit
	for i := range 8 {
		us = append(us, SampleUnit{Stratum: "A:match B:match", StratumSize: 8, Session: fmt.Sprintf("m%d", i), Label: true, Match: true})
	}
	f := WeightedPrecision(us, crit.Confidence).WithTraffic(135, 644).Of("access-control-notify", "recorded/ollama/qwen2.5:3b")
	c := SamplePrecision(f, crit)
	if c.Status != StatusInconclusive || c.MoreSessions == nil || c.MoreSamples == nil || !strings.HasSuffix(c.Reason, censusNote) {
		t.Fatalf("want an open census figure with a hint: %s", c.Reason)
	}
	const cmd = "apeval label queue NEW_RUN --rule access-control-notify --matches recorded/ollama/qwen2.5:3b"
	if !strings.Contains(c.Reason, "(`"+cmd+"`: about ") || c.MoreLabelsQueue != cmd {
		t.Errorf("the hint does not name the queue to draw (more_labels_queue %q): %s", c.MoreLabelsQueue, c.Reason)
	}
	if strings.Contains(c.Reason, "like these") {
		t.Errorf("sessions like these on the census path: %s", c.Reason)
	}
	// The unweighted path on the same 8/8 in 8 sessions: its units are
	// the new match predictions.
	lo, hi, deff := ClusteredInterval(ones(8), ones(8), crit.Confidence)
	u := newEvaluator(crit).proportion(Criterion{Name: CriterionPrecisionMin, Threshold: 0.9}, "precision", 8, 8, &lo, &hi, &deff, newBBPosterior(ones(8), ones(8), 1))
	if u.MoreSamples == nil || u.MoreSessions == nil {
		t.Fatalf("the unweighted path gives no hint: %s", u.Reason)
	}
	units := *u.MoreSamples
	if got, want := *c.MoreSamples, 8+units; got != want {
		t.Errorf("%d labels named, want the new run's 8 + %d match predictions", got, units)
	}
	if got, want := *c.MoreSessions, int64(math.Ceil(float64(units)*135/8)); got != want {
		t.Errorf("%d sessions of traffic, want ⌈%d·135/8⌉ = %d", got, units, want)
	}
	if !strings.Contains(c.Reason, fmt.Sprintf("about %d more sessions of traffic", *c.MoreSessions)) || !strings.Contains(c.Reason, fmt.Sprintf("≈ %d more match predictions of the judge", units)) {
		t.Errorf("reason does not state the figures: %s", c.Reason)
	}
	// Labeled in the dataset (no queue label): the unweighted hint as is.
	for i := range us {
		us[i].Stratum = CensusStratum
	}
	d := SamplePrecision(WeightedPrecision(us, crit.Confidence).WithTraffic(135, 644).Of("access-control-notify", "recorded/ollama/qwen2.5:3b"), crit)
	if d.MoreLabelsQueue != "" || !strings.Contains(d.Reason, "like these") {
		t.Errorf("dataset labels: %s (queue %q)", d.Reason, d.MoreLabelsQueue)
	}
	t.Log(c.Reason)
}

func ones(n int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

// TestLabelHintNoVarianceNoLabelHint: the near-threshold 300-label
// calibration row's shape. The precision's two labeled strata each agree
// within themselves (12 of 12 right, 9 of 9 wrong) past the floors'
// reach (more than 5 labels, a tenth of each stratum), so the labels
// show no variance (v₂ = 0) and the hint's model of more labels has only
// the t quantile's degrees of freedom to move: it asked "about 1 more
// labels from the queue" at [0.4725, 0.6513] against 0.65, which the
// queue's next item (a no_match stratum) could not deliver. Labels are
// not shown to decide it: the hint is in sessions.
func TestLabelHintNoVarianceNoLabelHint(t *testing.T) {
	t.Parallel()
	crit := replay.DefaultKillCriteria()
	crit.PrecisionMin = 0.65
	var us []SampleUnit
	for i := range 12 {
		us = append(us, SampleUnit{Stratum: "A:match B:match", StratumSize: 100, Session: fmt.Sprintf("s%d", i), Label: true, Match: true})
	}
	for i := range 9 {
		us = append(us, SampleUnit{Stratum: "A:match B:no_match", StratumSize: 80, Session: fmt.Sprintf("s%d", 20+i), Match: true})
	}
	for i := range 270 {
		us = append(us, SampleUnit{Stratum: "A:no_match B:no_match", StratumSize: 2800, Session: fmt.Sprintf("s%d", 40+i)})
	}
	f := WeightedPrecision(us, crit.Confidence).WithTraffic(600, 3000)
	if v := f.SampledVar + f.SampledFPC; v > f.Var*1e-9 {
		t.Fatalf("the labels show variance %g: not the shape under test", v)
	}
	c := SamplePrecision(f, crit)
	if c.Status != StatusInconclusive || c.Hi == nil || !(*c.Hi > 0.65) {
		t.Fatalf("want an open figure reaching 0.65: %s", c.Reason)
	}
	if c.MoreSessions == nil || strings.Contains(c.Reason, "more labels from the queue") {
		t.Errorf("a hint in labels where the labels show no variance: %s", c.Reason)
	}
}
