package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/apeval/apeval/replay"
)

// A hint path: one replicate draws data with known truth, evaluates the
// criterion with the code the verdict uses, and when it is INCONCLUSIVE
// with a "+N", collects that many new sessions (or labels) and decides
// again. It returns whether a hint was given, how the data then decided
// (outcome), and the hint's size.
// hintOutcome is what the data decided after a hint was collected.
type hintOutcome int

const (
	openStill hintOutcome = iota // still INCONCLUSIVE
	otherWay                     // decided, not the way the hint named
	asNamed                      // decided the way the hint named
)

// outcome compares the status after collecting with the one the hint named.
func outcome(got, want Status) hintOutcome {
	switch {
	case got == want:
		return asNamed
	case got == StatusInconclusive:
		return openStill
	}
	return otherWay
}

type hintPath struct {
	name string
	rep  func(rng *rand.Rand) (hinted bool, o hintOutcome, more int64)
}

// recallSession is one session's labeled positives: m positives, the
// judge catching j of them, the baseline b, both of them both.
type recallSession struct{ m, j, b, both int64 }

// drawRecall draws sessions of the given numbers of positives; the
// session's baseline and judge hit rates are Beta around pb and pj with
// intra-class correlation icc, each positive's hits independent given them.
func drawRecall(rng *rand.Rand, sz []int, pb, pj, icc float64) []recallSession {
	out := make([]recallSession, len(sz))
	for i, m := range sz {
		rb, rj := sessionRate(rng, pb, icc), sessionRate(rng, pj, icc)
		s := recallSession{m: int64(m)}
		for range m {
			hb, hj := rng.Float64() < rb, rng.Float64() < rj
			s.b += int64(b2i(hb))
			s.j += int64(b2i(hj))
			s.both += int64(b2i(hb && hj))
		}
		out[i] = s
	}
	return out
}

// evalRecall decides dangerous recall on sessions exactly as Close does:
// the session discordance for the sign-flip test, the paired sessions for
// the interval.
func evalRecall(e *evaluator, ss []recallSession) Criterion {
	var m mcnemar
	var ps []pairSess
	r := &Row{Class: replay.ClassDangerous}
	for _, s := range ss {
		jo, bo := s.j-s.both, s.b-s.both
		m.addSessions(jo-bo, jo+bo, 1)
		ps = append(ps, pairSess{y1: s.j, y2: s.b, y12: s.both, m: s.m})
		r.BaselinePositives += s.m
		r.BaselineHits += s.b
		r.JudgeOnlyHits += jo
		r.BaselineOnlyHits += bo
		r.TP += s.j
		r.FN += s.m - s.j
	}
	return e.dangerousRecall(r, m, newPairDiff(ps), 1)
}

func recallPath(name string, sz []int, pb, pj, icc float64) hintPath {
	return hintPath{name: name, rep: func(rng *rand.Rand) (bool, hintOutcome, int64) {
		e := defaultEval()
		ss := drawRecall(rng, sz, pb, pj, icc)
		c := evalRecall(e, ss)
		if c.Status != StatusInconclusive || c.MoreSessions == nil || *c.MoreSessions > 3000 {
			return false, openStill, 0
		}
		more := make([]int, *c.MoreSessions)
		for i := range more {
			more[i] = int(ss[rng.IntN(len(ss))].m)
		}
		ss = append(ss, drawRecall(rng, more, pb, pj, icc)...)
		return true, outcome(evalRecall(e, ss).Status, StatusPass), *c.MoreSessions
	}}
}

// holmPath: one judge with several dangerous rules, each against its
// baseline (rates[i] = {baseline, judge}), every session holding
// positives of each rule (sizes sz); the rules' tests are adjusted with
// Holm's method (holmDangerous) as Close does. When the first rule is
// open with a "+N" (sized for Holm's level, α/m), that many new sessions
// like these are collected for every rule and the rules decided again,
// Holm included: the first rule must then PASS.
func holmPath(name string, sz []int, rates [][2]float64, icc float64) hintPath {
	return hintPath{name: name, rep: func(rng *rand.Rand) (bool, hintOutcome, int64) {
		e := defaultEval()
		ss := make([][]recallSession, len(rates))
		for i, r := range rates {
			ss[i] = drawRecall(rng, sz, r[0], r[1], icc)
		}
		eval := func() *Criterion {
			rows := make([]*Row, len(rates))
			for i := range rates {
				rows[i] = &Row{Class: replay.ClassDangerous, Criteria: []Criterion{evalRecall(e, ss[i])}}
			}
			e.holmDangerous(rows)
			return rows[0].Criterion(CriterionDangerousRecall)
		}
		c := eval()
		if c.Status != StatusInconclusive || c.MoreSessions == nil || *c.MoreSessions > 3000 {
			return false, openStill, 0
		}
		more := make([]int, *c.MoreSessions)
		for i := range more {
			more[i] = int(ss[0][rng.IntN(len(ss[0]))].m)
		}
		for i, r := range rates {
			ss[i] = append(ss[i], drawRecall(rng, more, r[0], r[1], icc)...)
		}
		return true, outcome(eval().Status, StatusPass), *c.MoreSessions
	}}
}

// drawDrift draws paired fire units: per session, the candidate-only and
// baseline-only rates are Beta around q1 and q2 (ICC icc); the other units
// fire on both sides or neither.
func drawDrift(rng *rand.Rand, sz []int, q1, q2, icc float64) []pairSess {
	out := make([]pairSess, len(sz))
	for i, m := range sz {
		r1, r2 := sessionRate(rng, q1, icc), sessionRate(rng, q2, icc)
		s := pairSess{m: int64(m)}
		for range m {
			switch u := rng.Float64(); {
			case u < r1:
				s.y1++
			case u < r1+r2:
				s.y2++
			case rng.Float64() < 0.3:
				s.y1++
				s.y2++
				s.y12++
			}
		}
		out[i] = s
	}
	return out
}

func driftPath(name string, sz []int, q1, q2, icc float64) hintPath {
	return hintPath{name: name, rep: func(rng *rand.Rand) (bool, hintOutcome, int64) {
		e := defaultEval()
		ss := drawDrift(rng, sz, q1, q2, icc)
		c := e.fireRateChange(newPairDiff(append([]pairSess(nil), ss...)))
		if c.Status != StatusInconclusive || c.MoreSessions == nil || *c.MoreSessions > 3000 {
			return false, openStill, 0
		}
		want := StatusPass
		if strings.Contains(c.Reason, "confirm the drift") {
			want = StatusFail
		}
		more := make([]int, *c.MoreSessions)
		for i := range more {
			more[i] = int(ss[rng.IntN(len(ss))].m)
		}
		ss = append(ss, drawDrift(rng, more, q1, q2, icc)...)
		return true, outcome(e.fireRateChange(newPairDiff(ss)).Status, want), *c.MoreSessions
	}}
}

// labelPath labels the first n items of a label queue on a population
// drawn afresh (simPopulationSeed: 3,000 pairs in 600 sessions,
// precision ≈ 0.71, the candidate's recall ≈ 0.75 against a reference
// judge's 0.95), evaluates the labeled criterion and, on a hint of m
// labels, labels the next m items of the same queue and decides again; on
// a hint of k more sessions (labels cannot decide it), draws k more
// sessions of the same traffic, queues the whole (a new run) with the
// labels given plus the hint's and labels that queue — or, where the
// hint names `label queue … --matches`, labels every pair of the new run
// the candidate called match.
func labelPath(name string, n int, crit replay.KillCriteria, recall bool) hintPath {
	return hintPath{name: name, rep: func(rng *rand.Rand) (bool, hintOutcome, int64) {
		ps := simPopulationSeed(rng.Uint64())
		seed := rng.Uint64()
		eval := func(ps []simPair, budget, k int, seed uint64) Criterion {
			us := queueUnitsOther(ps, budget, k, seed)
			sessions, pairs := int64(len(ps)/5), int64(len(ps))
			if recall {
				// The reference judge's gain over the candidate (≈ 0.20).
				return SampleDangerousRecall(WeightedRecallDiff(swap(us), crit.Confidence).WithTraffic(sessions, pairs), replay.ClassDangerous, true, crit)
			}
			// The printed interval: the stratified draws' over the
			// reached strata (the hint keeps the two-phase variance).
			tr, _, _ := reachedTraffic(us, ps)
			return SamplePrecision(WeightedPrecision(us, crit.Confidence).withDraws(us, tr, "", precisionFn, crit.Confidence).WithTraffic(sessions, pairs), crit)
		}
		c := eval(ps, 3000, n, seed)
		if c.Status != StatusInconclusive || c.MoreSamples == nil {
			return false, openStill, 0
		}
		want := StatusPass
		if strings.Contains(c.Reason, "confirm the failure") {
			want = StatusFail
		}
		m := *c.MoreSamples
		if c.MoreSessions != nil {
			k := int(*c.MoreSessions)
			if k > 6000 {
				return false, openStill, 0
			}
			more := labelModels[0].drawSessions(rng.Uint64(), k, "new")
			all := append(append([]simPair(nil), ps...), more...)
			if strings.Contains(c.Reason, "--matches") {
				us := matchesUnits(all)
				sessions, pairs := int64(len(all)/5), int64(len(all))
				return true, outcome(SamplePrecision(WeightedPrecision(us, crit.Confidence).WithTraffic(sessions, pairs), crit).Status, want), -int64(k)
			}
			total := n + int(m)
			// A hint in sessions is returned negative (the table splits them).
			return true, outcome(eval(all, total, total, rng.Uint64()).Status, want), -int64(k)
		}
		if n+int(m) > 2900 {
			return false, openStill, 0
		}
		return true, outcome(eval(ps, 3000, n+int(m), seed).Status, want), m
	}}
}

// edgePath is the labeling walkthrough's shape of a rule at precision 1
// (on the sample: network-boundary, 28 pairs in 6 sessions, all but 5
// labeled; access-control-notify, 644 pairs in 135 sessions, 24 labels):
// K sessions of 3–7 pairs, all but left of them labeled (or the queue's
// first labels); the candidate matches 45 % of the pairs, a second judge
// agrees with it on 95 %, and a pair the candidate matches is right with
// the population's precision, drawn per replicate from [pLo, pHi] (at 1,
// the labels show no error: the figure's variance is 0). An open figure's
// hint in labels labels the next m items of the queue; in sessions, k
// more sessions (sizes drawn from these) are queued with the old ones
// and the labels given plus the hint's are labeled, or, where the hint
// names `label queue … --matches`, every pair the candidate called match
// in the new run (matchesUnits); then it is decided again. match is the
// share of pairs the candidate calls match (0.45; 0.0125 on the
// access-control-notify shape, ≈ 8 of 640 pairs).
func edgePath(name string, K, left, labels int, match, pLo, pHi float64, crit replay.KillCriteria) hintPath {
	sz := []int{3, 4, 4, 5, 5, 7}
	return hintPath{name: name, rep: func(rng *rand.Rand) (bool, hintOutcome, int64) {
		prec := pLo + (pHi-pLo)*rng.Float64()
		var ps []simPair
		draw := func(k int, tag string) {
			for s := range k {
				for range sz[rng.IntN(len(sz))] {
					c := rng.Float64() < match
					r := c
					if rng.Float64() < 0.05 {
						r = !r
					}
					pos := rng.Float64() < 0.05
					if c {
						pos = rng.Float64() < prec
					}
					ps = append(ps, simPair{id: fmt.Sprintf("p%d", len(ps)), session: fmt.Sprintf("%s%d", tag, s), pos: pos, c: c, r: r})
				}
			}
		}
		draw(K, "s")
		sessions := K
		eval := func(budget, n int, seed uint64) Criterion {
			us := queueUnitsOther(ps, budget, n, seed)
			return SamplePrecision(WeightedPrecision(us, crit.Confidence).WithTraffic(int64(sessions), int64(len(ps))), crit)
		}
		n, seed := max(0, len(ps)-left), rng.Uint64()
		if labels > 0 {
			n = min(labels, len(ps))
		}
		c := eval(len(ps), n, seed)
		if c.Status != StatusInconclusive || (c.MoreSamples == nil && c.MoreSessions == nil) {
			return false, openStill, 0
		}
		want := StatusPass
		if strings.Contains(c.Reason, "confirm the failure") {
			want = StatusFail
		}
		var m int
		if c.MoreSamples != nil {
			m = int(*c.MoreSamples)
		}
		if c.MoreSessions != nil {
			k := int(*c.MoreSessions)
			if k > 20000 {
				return false, openStill, 0
			}
			draw(k, "new")
			sessions += k
			if strings.Contains(c.Reason, "--matches") {
				// Every match prediction of the new run labeled, as
				// `label queue NEW_RUN --matches C` queues them.
				us := matchesUnits(ps)
				return true, outcome(SamplePrecision(WeightedPrecision(us, crit.Confidence).WithTraffic(int64(sessions), int64(len(ps))), crit).Status, want), -int64(k)
			}
			total := min(n+m, len(ps))
			return true, outcome(eval(total, total, rng.Uint64()).Status, want), -int64(k)
		}
		return true, outcome(eval(len(ps), n+m, seed).Status, want), int64(m)
	}}
}

// matchesUnits labels every item of the queue `label queue --matches C`
// draws on ps: every pair the candidate called match.
func matchesUnits(ps []simPair) []SampleUnit {
	by := map[string]*simPair{}
	pairs := make([]QueuePair, len(ps))
	for i := range ps {
		by[ps[i].id] = &ps[i]
		pairs[i] = QueuePair{CaseID: ps[i].id, RuleID: "r", Results: []string{res(ps[i].c), res(ps[i].r)}}
	}
	q, err := BuildQueue(pairs, QueueConfig{Matches: "C", Letters: []string{"C", "R"}})
	if err != nil {
		panic(err)
	}
	var us []SampleUnit
	for _, it := range q.Items {
		p := by[it.CaseID]
		us = append(us, SampleUnit{Stratum: it.Stratum, StratumSize: it.StratumSize, Session: p.session, Label: p.pos, Match: p.c, Other: p.r})
	}
	return us
}

// queueUnitsOther is queueUnits with the reference judge as Other (the
// paired side of a recall difference) and no testing.TB.
func queueUnitsOther(ps []simPair, budget, n int, seed uint64) []SampleUnit {
	by := map[string]*simPair{}
	pairs := make([]QueuePair, len(ps))
	for i := range ps {
		by[ps[i].id] = &ps[i]
		pairs[i] = QueuePair{CaseID: ps[i].id, RuleID: "r", Results: []string{res(ps[i].c), res(ps[i].r)}}
	}
	q, err := BuildQueue(pairs, QueueConfig{Budget: budget, Seed: seed, Letters: []string{"C", "R"}})
	if err != nil {
		panic(err)
	}
	var us []SampleUnit
	for _, it := range q.Items[:min(n, len(q.Items))] {
		p := by[it.CaseID]
		us = append(us, SampleUnit{Stratum: it.Stratum, StratumSize: it.StratumSize, Session: p.session, Label: p.pos, Match: p.c, Other: p.r})
	}
	return us
}

func hintPaths() []hintPath {
	prec := replay.DefaultKillCriteria()
	prec.PrecisionMin = 0.6
	near := replay.DefaultKillCriteria()
	near.PrecisionMin = 0.65
	precFail := replay.DefaultKillCriteria()
	precFail.PrecisionMin = 0.8
	p90 := replay.DefaultKillCriteria()
	p90.PrecisionMin = 0.9
	return []hintPath{
		recallPath("dangerous recall 0.70 → 0.80, 15 sessions × 3 positives, ICC 0.1", sizes(15, 3, 0), 0.70, 0.80, 0.1),
		recallPath("dangerous recall 0.60 → 0.75, 40 sessions of 1 positive", sizes(40, 1, 0), 0.60, 0.75, 0),
		holmPath("dangerous recall under Holm, 2 rules 0.70 → 0.80, 15 sessions × 3, ICC 0.1", sizes(15, 3, 0), [][2]float64{{0.70, 0.80}, {0.70, 0.80}}, 0.1),
		holmPath("dangerous recall under Holm, 3 rules 0.60 → 0.75 (others 0.70 → 0.90), 40 sessions of 1", sizes(40, 1, 0), [][2]float64{{0.60, 0.75}, {0.70, 0.90}, {0.70, 0.90}}, 0),
		driftPath("fire-rate drift +0.01 within ±0.05, 20 sessions × 8, ICC 0.1", sizes(20, 8, 0), 0.03, 0.02, 0.1),
		driftPath("fire-rate drift +0.09 beyond ±0.05, 15 sessions × 6, ICC 0.1", sizes(15, 6, 0), 0.11, 0.02, 0.1),
		labelPath("labels: precision ≈ 0.71 ≥ 0.60, 40 labels", 40, prec, false),
		labelPath("labels: precision ≈ 0.71 < 0.80 (failing), 60 labels", 60, precFail, false),
		labelPath("labels: recall gain ≈ 0.20 over the baseline, 40 labels", 40, replay.DefaultKillCriteria(), true),
		labelPath("labels: precision ≈ 0.71 ≥ 0.65 (near), 300 labels", 300, near, false),
		labelPath("labels: precision ≈ 0.71 ≥ 0.65 (near: labels alone seldom decide), 1000 labels", 1000, near, false),
		edgePath("labels: precision 1 ≥ 0.90, 6 sessions, ≈ 28 pairs, all but 5 labeled", 6, 5, 0, 0.45, 1, 1, p90),
		edgePath("labels: precision 0.97–1 ≥ 0.90, 6 sessions, ≈ 28 pairs, all but 5 labeled", 6, 5, 0, 0.45, 0.97, 1, p90),
		edgePath("labels: precision 0.97–1 ≥ 0.90, 134 sessions, ≈ 625 pairs, 60 labels", 134, 0, 60, 0.45, 0.97, 1, p90),
		edgePath("labels: precision 0.97–1 ≥ 0.90, 135 sessions, ≈ 640 pairs, 1.25 % matched (≈ 8), 24 labels", 135, 0, 24, 0.0125, 0.97, 1, p90),
	}
}

// TestCalibrationHintPaths: dangerous recall's, the drift criterion's and
// the labeled path's "+N", once collected, decide (PASS or FAIL) at least
// 80 % of the time (goal 0.80 less the Monte Carlo error); the share
// decided the way the hint named is printed beside it (an estimate on the
// wrong side of a limit names a decision the truth cannot give).
func TestCalibrationHintPaths(t *testing.T) {
	t.Parallel()
	n, full := calibrationN()
	slack := 0.0
	if !full {
		n = 60
		slack = smokeSlack(0.8, n)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| hints, %d replicates | share with a hint | decided after collecting it (goal ≥ 0.80) | decided as the hint named | median hint |\n|---|---|---|---|---|\n", n)
	// APEVAL_HINT_ROW runs only the rows whose name holds it (a
	// calibration run of one row; the seeds stay the row's own).
	only := os.Getenv("APEVAL_HINT_ROW")
	for i, p := range hintPaths() {
		if only != "" && !strings.Contains(p.name, only) {
			continue
		}
		rng := rand.New(rand.NewPCG(uint64(i+1), 0x5e55))
		var got, ok, named int
		// On the labeled path a hint in sessions (labels cannot decide)
		// comes back negative: counted apart as well.
		var sGot, sOK, lOK int
		var more, sMore []float64
		for range n {
			h, o, m := p.rep(rng)
			if !h {
				continue
			}
			got++
			d := o != openStill
			if d {
				ok++
			}
			if o == asNamed {
				named++
			}
			if m < 0 {
				sGot++
				sMore = append(sMore, float64(-m))
				if d {
					sOK++
				}
				continue
			}
			more = append(more, float64(m))
			if d {
				lOK++
			}
		}
		if got == 0 {
			t.Errorf("%s: no replicate got a hint", p.name)
			continue
		}
		hinted, decided := float64(got)/float64(n), float64(ok)/float64(got)
		unit := "sessions"
		if strings.HasPrefix(p.name, "labels") {
			unit = "labels"
		}
		med := "–"
		if len(more) > 0 {
			med = fmt.Sprintf("%.0f %s", median(more), unit)
		}
		if strings.HasPrefix(p.name, "labels") && len(more) > 0 {
			med += fmt.Sprintf(" (%d, of which %.3f decided)", len(more), float64(lOK)/float64(len(more)))
		}
		if sGot > 0 {
			med += fmt.Sprintf("; %d hinted sessions instead (median %.0f), of which %.3f decided", sGot, median(sMore), float64(sOK)/float64(sGot))
		}
		fmt.Fprintf(&b, "| %s | %.3f | %.3f | %.3f | %s |\n", p.name, hinted, decided, float64(named)/float64(got), med)
		if decided < 0.8-slack-2*math.Sqrt(0.16/float64(got)) {
			t.Errorf("%s: decided %.3f after the hint (%d hinted)", p.name, decided, got)
		}
		// On the labeled path the hints that ask for labels keep the
		// promise by themselves, not only with the session hints beside
		// them, on every row (the near-threshold 300-label one included:
		// its label hints decided 0.690 when the check that labels can
		// decide was centred on the estimate), and so do the hints in
		// sessions of new traffic given where labels alone cannot.
		if strings.HasPrefix(p.name, "labels") {
			for _, h := range []struct {
				what    string
				ok, got int
			}{{"in labels", lOK, len(more)}, {"in sessions", sOK, sGot}} {
				// Fewer than 10 hints of a kind are too few to judge the
				// kind by itself: at 2 the check below fails whenever
				// neither decides, 1 time in 25 (0.2²) when the hints keep
				// the promise exactly; the row's own check above counts
				// them, and the table prints every kind's count.
				if h.got < 10 {
					continue
				}
				if l := float64(h.ok) / float64(h.got); l < 0.8-slack-2*math.Sqrt(0.16/float64(h.got)) {
					t.Errorf("%s: the hints %s decided %.3f (%d hinted)", p.name, h.what, l, h.got)
				}
			}
		}
	}
	t.Log("\n" + b.String())
}
