package metrics

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apeval/apeval/replay"
)

// edgeUnits is the labeling walkthrough's shape of a rule with few
// pairs (network-boundary: 28 pairs in 6 sessions): the judge's 12 match
// pairs all labeled and all right (precision 1), 11 of its 16 no_match
// pairs labeled, 5 left in the queue. flip turns every label the other
// way (the mirror case: precision 0).
func edgeUnits(flip bool) []SampleUnit {
	var us []SampleUnit
	for i := range 12 {
		us = append(us, SampleUnit{Stratum: "A:match", StratumSize: 12, Session: fmt.Sprintf("s%d", i%6), Label: !flip, Match: true})
	}
	for i := range 11 {
		us = append(us, SampleUnit{Stratum: "A:no_match", StratumSize: 16, Session: fmt.Sprintf("s%d", i%6), Label: flip})
	}
	return us
}

// TestLabelHintAtEstimateOne: a labeled precision at 1 whose strata show
// no error (no variance, no floor) still shrinks toward 1 with more
// sessions, so its hint names them; it said "neither more labels nor
// more sessions like these would clear it" (labelsToDecide gave up on a
// zero variance). Estimate 0 is the mirror: a FAIL is confirmed the
// same way.
func TestLabelHintAtEstimateOne(t *testing.T) {
	for _, tc := range []struct {
		flip bool
		thr  float64
		verb string
	}{{false, 0.9, "clear it"}, {true, 0.1, "confirm the failure"}} {
		crit := replay.DefaultKillCriteria()
		crit.PrecisionMin = tc.thr
		f := WeightedPrecision(edgeUnits(tc.flip), crit.Confidence).WithTraffic(6, 28)
		if f.Var != 0 {
			t.Fatalf("flip=%v: fixture has variance %g, want 0", tc.flip, f.Var)
		}
		c := SamplePrecision(f, crit)
		if c.Status != StatusInconclusive {
			t.Fatalf("flip=%v: status %s, want open: %s", tc.flip, c.Status, c.Reason)
		}
		if strings.Contains(c.Reason, "neither") || c.MoreSessions == nil || *c.MoreSessions <= 0 {
			t.Fatalf("flip=%v: no hint in sessions: %s", tc.flip, c.Reason)
		}
		if !strings.Contains(c.Reason, tc.verb) {
			t.Errorf("flip=%v: want %q in %s", tc.flip, tc.verb, c.Reason)
		}
		t.Logf("flip=%v: %s", tc.flip, c.Reason)
	}
}

// TestLabelHintAtEstimateOneFloors: a labeled precision at 1 whose
// strata carry floors (the walkthrough's access-control-notify, 5 of 5
// labels right, here with 50 match predictions for labels to reach) was
// told too few labels (125 here, 14 on the sample): the floors' variance
// vanished in the projection, while the verdict's interval at 1 is
// Wilson's at n_eff, which the labels grow at most as they do. The
// hint's labels, spread like these, must bring n_eff to where Wilson's
// bound at 1 clears the threshold at least.
func TestLabelHintAtEstimateOneFloors(t *testing.T) {
	crit := replay.DefaultKillCriteria()
	crit.PrecisionMin = 0.9
	us := walkthroughUnits(50, 600)
	f := WeightedPrecision(us, crit.Confidence).WithTraffic(135, 640)
	c := SamplePrecision(f, crit)
	if c.Status != StatusInconclusive || c.MoreSamples == nil || c.MoreSessions != nil {
		t.Fatalf("want an open figure with a hint in labels: %s", c.Reason)
	}
	z := 1.959964
	need := crit.PrecisionMin * z * z / (1 - crit.PrecisionMin) // Wilson's lower bound at 1 reaches it
	grow := float64(f.SampledAll+*c.MoreSamples) / float64(f.SampledAll)
	if f.NEff*grow < need {
		t.Errorf("+%d labels bring n_eff %.3g to %.3g; Wilson at 1 clears %.2f only from %.3g: %s", *c.MoreSamples, f.NEff, f.NEff*grow, crit.PrecisionMin, need, c.Reason)
	}
	t.Logf("n_eff %.3g, var %.3g: %s", f.NEff, f.Var, c.Reason)
}

// TestLabelHintAtEstimateOneFewMatches: the walkthrough's
// access-control-notify as it is, 8/8 from 5 labels where the judge made
// only 8 match predictions on the rule's 644 pairs: labeling all of them
// gives n_eff 8 at most, whose Wilson bound at 1 stays below 0.9, so no
// number of labels clears it (it was told 14 labels, then 259, and a
// queue of 400 labels left it open); the hint is in sessions, and those
// sessions bring the matches that can.
func TestLabelHintAtEstimateOneFewMatches(t *testing.T) {
	crit := replay.DefaultKillCriteria()
	crit.PrecisionMin = 0.9
	var us []SampleUnit
	for i := range 5 {
		us = append(us, SampleUnit{Stratum: "A:match B:match", StratumSize: 8, Session: fmt.Sprintf("m%d", i), Label: true, Match: true})
	}
	for i := range 19 {
		us = append(us, SampleUnit{Stratum: "A:no_match B:no_match", StratumSize: 636, Session: fmt.Sprintf("n%d", i)})
	}
	f := WeightedPrecision(us, crit.Confidence).WithTraffic(135, 644)
	if f.Den != 8 {
		t.Fatalf("fixture: weighted matches %g, want 8", f.Den)
	}
	c := SamplePrecision(f, crit)
	if c.Status != StatusInconclusive || c.MoreSessions == nil {
		t.Fatalf("want an open figure with a hint in sessions: %s", c.Reason)
	}
	// The sessions must bring at least the matches Wilson's bound at 1
	// needs to clear the threshold.
	z := 1.959964
	need := crit.PrecisionMin * z * z / (1 - crit.PrecisionMin)
	if got := f.NEff * float64(135+*c.MoreSessions) / 135; got < need {
		t.Errorf("+%d sessions bring n_eff %.3g to %.3g; Wilson at 1 clears %.2f only from %.3g: %s", *c.MoreSessions, f.NEff, got, crit.PrecisionMin, need, c.Reason)
	}
	t.Logf("n_eff %.3g: %s", f.NEff, c.Reason)
}

// TestLabeledGainHintAtOne: a labeled recall gain of 1 (every labeled
// positive caught by the judge alone, no variance) on positives from 4
// sessions is decided by the sessions' sign flip, p = 1/16 > 0.05 however
// many pairs of these sessions are labeled. It was told "about 1 more
// labels from the queue … would decide it" (the variance model saw nothing
// for labels to change); the hint now says positives from another session
// are needed.
func TestLabeledGainHintAtOne(t *testing.T) {
	crit := replay.DefaultKillCriteria()
	var us []SampleUnit
	for i := range 8 {
		us = append(us, SampleUnit{Stratum: "A:match B:no_match", StratumSize: 8, Session: fmt.Sprintf("s%d", i%4), Label: true, Match: true})
	}
	for i := range 20 {
		us = append(us, SampleUnit{Stratum: "A:no_match B:no_match", StratumSize: 60, Session: fmt.Sprintf("n%d", i)})
	}
	d := WeightedRecallDiff(us, crit.Confidence).WithTraffic(40, 200)
	if d.Var != 0 || d.Estimate == nil || *d.Estimate != 1 || d.GainSessions != 4 {
		t.Fatalf("fixture: gain %v, variance %g, %d sessions; want 1, 0, 4", d.Estimate, d.Var, d.GainSessions)
	}
	c := SampleDangerousRecall(d, replay.ClassDangerous, true, crit)
	if c.Status != StatusInconclusive {
		t.Fatalf("status %s, want open: %s", c.Status, c.Reason)
	}
	if c.MoreSamples != nil {
		t.Errorf("a hint of %d labels, which cannot bring p below 1/16: %s", *c.MoreSamples, c.Reason)
	}
	if c.MoreSessions == nil || *c.MoreSessions < 1 || !strings.Contains(c.Reason, "positives from at least 1 more session are needed") {
		t.Errorf("want positives from another session named: %s", c.Reason)
	}
	t.Log(c.Reason)
}

// walkthroughUnits are the labeling walkthrough's access-control-notify
// labels: 5 labels of the judges' match stratum (matches pairs), all
// right, each in a session of its own, and 19 of the stratum where both
// say no_match (others pairs).
func walkthroughUnits(matches, others int64) []SampleUnit {
	var us []SampleUnit
	for i := range 5 {
		us = append(us, SampleUnit{Stratum: "A:match B:match", StratumSize: matches, Session: fmt.Sprintf("m%d", i), Label: true, Match: true})
	}
	for i := range 19 {
		us = append(us, SampleUnit{Stratum: "A:no_match B:no_match", StratumSize: others, Session: fmt.Sprintf("n%d", i)})
	}
	return us
}
