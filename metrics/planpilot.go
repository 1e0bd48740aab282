package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/apeval/apeval/replay"
)

// PilotData is what a pilot run shows of one criterion's figure: the
// sessions and units it rests on and its estimate there.
type PilotData struct {
	// Sessions hold a unit of the figure, of TrafficSessions the judge
	// replayed: the plan counts sessions of traffic, so sessions without
	// a unit (no match prediction, no call, no positive) come along.
	Sessions        int64    `json:"sessions"`
	TrafficSessions int64    `json:"traffic_sessions"`
	Units           int64    `json:"units"`
	Unit            string   `json:"unit"`
	Estimate        *float64 `json:"estimate"`
}

// FitPilot fits the plan's model to a proportion's sessions (y_i
// successes of m_i units): the rate Y/M, the intra-class correlation by
// the one-way ANOVA estimator for unequal session sizes (clipped to
// [0, 0.99]; 0 with one session, one unit a session, or every session
// at one rate), and the session
// sizes seen, from which new sessions draw theirs. A pilot without an
// event (or with only events) is planned at (Y + ½)/(M + 1), not at 0 (1).
func fitPilot(counts []ymCount, traffic int64) (g PlanGuess, d PilotData, ok bool) {
	var K, Y, M, smm, ssw float64
	for _, c := range counts {
		if c.m <= 0 || c.n == 0 {
			continue
		}
		n, y, m := float64(c.n), float64(c.y), float64(c.m)
		K += n
		Y += n * y
		M += n * m
		smm += n * m * m
		ssw += n * (y - y*y/m) // Σ within-session sum of squares of 0/1 units
		g.sizes = append(g.sizes, wv{m, n})
	}
	if M == 0 {
		return g, d, false
	}
	// The sessions' spread is measured around the rate they show: a
	// pilot where every session is at one rate (no event, or only events)
	// shows no spread and no ICC (0, as with one session), not the spread
	// of its sessions around the planned rate below (which made 9 of 9
	// match predictions an ICC of 0.99 and a plan of thousands of sessions).
	p := Y / M
	var ssb float64
	for _, c := range counts {
		if c.m <= 0 || c.n == 0 {
			continue
		}
		m := float64(c.m)
		pi := float64(c.y) / m
		ssb += float64(c.n) * m * (pi - p) * (pi - p)
	}
	if Y == 0 || Y == M {
		// A pilot with no event (or only events) does not show a rate of
		// exactly 0 (1): plan for half an event more, (Y + ½)/(M + 1).
		p = (Y + 0.5) / (M + 1)
	}
	icc := 0.0
	if K > 1 && M > K {
		msb, msw := ssb/(K-1), ssw/(M-K)
		m0 := (M - smm/M) / (K - 1)
		if den := msb + (m0-1)*msw; den > 0 {
			icc = min(max((msb-msw)/den, 0), 0.99)
		}
	}
	if T := float64(traffic); T > K {
		// Sessions of traffic without a unit of the figure.
		g.sizes = append(g.sizes, wv{0, T - K})
	}
	g.sizes = regroup(g.sizes)
	g.Rate, g.ICC, g.SessionSize = p, icc, M/K
	for _, s := range g.sizes {
		g.nSess += s.n
	}
	g.perSession = M / g.nSess
	return g, PilotData{Sessions: int64(K), TrafficSessions: int64(g.nSess), Units: int64(M), Estimate: ptr(Y / M)}, true
}

// PlanPilot plans every criterion from a pilot run's summary (its own
// kill criteria): per judge and rule, the proportions (precision, unknown
// rate, approval reject rate; per judge the unknown rate over all rules;
// the judge-required rate once, a policy criterion) by simulating from
// their fit (fitPilot), and the criteria whose method is not a proportion
// — the P95 latency per judge, dangerous recall against the baseline per
// rule, the fire-rate drift per rule against the run's baseline judge —
// by resampling the pilot's sessions with replacement: a data set of k
// sessions is k sessions drawn from the pilot's, decided by the verdict's
// own code. The baseline judge of the run is planned for drift only.
func PlanPilot(s *Summary, o PlanOptions) ([]PlanResult, error) {
	o.Confidence = s.crit.Confidence
	o = o.withDefaults()
	if o.Budget < 0 {
		return nil, fmt.Errorf("budget %d sessions is below 1", o.Budget)
	}
	e := newEvaluator(s.crit)
	var out []PlanResult
	defer func() {
		if o.Progress != nil {
			o.Progress(len(out), "")
		}
	}()
	add := func(r PlanResult) {
		out = append(out, r)
		if o.Progress != nil {
			o.Progress(len(out), strings.TrimSpace(r.Judge+" "+r.Rule+" "+r.Criterion))
		}
	}
	prop := func(judge, rule, name string, r *Row, lane int, traffic int64) error {
		thr, on := PlanThreshold(s.crit, name)
		if !on || r.post[lane] == nil {
			return nil
		}
		g, d, ok := fitPilot(r.post[lane].counts, traffic)
		if !ok {
			return nil
		}
		d.Unit = laneUnit[lane]
		res, err := PlanProportion(name, thr, g, o.at(len(out), judge, rule, name), nil)
		if err != nil {
			return err
		}
		res.Judge, res.Rule, res.Pilot = judge, rule, &d
		add(res)
		return nil
	}
	jrDone := false
	for ji, j := range s.Judges {
		if j.Total == nil {
			continue
		}
		cand := !j.IsBaseline
		// The judge's sessions of traffic: every session it replayed.
		var traffic int64
		if p := j.Total.post[laneJR]; p != nil {
			traffic = int64(p.sessions())
		}
		if cand && !jrDone {
			jrDone = true
			if err := prop("", AllRules, CriterionJudgeRequiredRateMax, j.Total, laneJR, traffic); err != nil {
				return nil, err
			}
		}
		if cand {
			if r, ok := planP95(e, j, s.paired[j.Judge], o.at(len(out), j.Judge, AllRules, CriterionJudgeP95Max), uint64(ji), traffic); ok {
				add(r)
			}
			if err := prop(j.Judge, AllRules, CriterionUnknownRateMax, j.Total, laneUnk, traffic); err != nil {
				return nil, err
			}
		}
		var cmp *Comparison
		for _, c := range s.Comparisons {
			if c.Candidate == j.Judge {
				cmp = c
			}
		}
		for _, r := range j.Rules {
			if cand {
				for _, pl := range []struct {
					name string
					lane int
				}{{CriterionPrecisionMin, lanePrec}, {CriterionUnknownRateMax, laneUnk}, {CriterionApprovalRejectRateMax, laneAppr}} {
					if err := prop(j.Judge, r.RuleID, pl.name, r, pl.lane, traffic); err != nil {
						return nil, err
					}
				}
				if res, ok := planRecall(e, j.Judge, r, o.at(len(out), j.Judge, r.RuleID, CriterionDangerousRecall), traffic); ok {
					add(res)
				}
			}
			if cmp != nil {
				for _, rc := range cmp.Rules {
					if rc.RuleID == r.RuleID {
						if res, ok := planDrift(e, j.Judge, rc, o.at(len(out), j.Judge, rc.RuleID, CriterionFireRateChangeMax), traffic); ok {
							add(res)
						}
					}
				}
			}
		}
	}
	return out, nil
}

// laneUnit names the units of each proportion's lane.
var laneUnit = [ruleLanes]string{lanePrec: "match predictions", laneRec: "labeled positives", laneUnk: "judged pairs", laneJR: "cases", laneAppr: "approval outcomes"}

// draws are a plan's data sets: per replicate a stream of sessions drawn
// (from the pilot's sessions with replacement, or from a guessed model),
// data set r of k sessions being the first k draws of replicate r's
// stream, so the decision rate grows smoothly with k. The stream is drawn
// again at each size into one buffer: memory stays that of one data set,
// however many replicates and sizes the search tries.
type draws[T any] struct {
	seed uint64
	buf  []T
	draw func(*rand.Rand) T
}

func (d *draws[T]) data(r, k int) []T {
	rng := rand.New(rand.NewPCG(d.seed, uint64(r)+1))
	d.buf = d.buf[:0]
	for range k {
		d.buf = append(d.buf, d.draw(rng))
	}
	return d.buf
}

// drawRates is planSearch's rates: the shares of data sets of k sessions
// that decide PASS and FAIL, on the plan's draws or (fresh) on draws with
// other random numbers that check its size.
func drawRates[T any](reps int, seed uint64, draw func(*rand.Rand) T, decide func([]T) Status) func(k int64, fresh bool) (float64, float64) {
	ds := [2]*draws[T]{{seed: seed, draw: draw}, {seed: seed ^ freshSeed, draw: draw}}
	return func(k int64, fresh bool) (float64, float64) {
		d := ds[b2i(fresh)]
		var p, f int
		for r := range reps {
			switch decide(d.data(r, int(k))) {
			case StatusPass:
				p++
			case StatusFail:
				f++
			}
		}
		return float64(p) / float64(reps), float64(f) / float64(reps)
	}
}

// resample draws one of the pilot's sessions.
func resample[T any](sess []T) func(*rand.Rand) T {
	return func(rng *rand.Rand) T { return sess[rng.IntN(len(sess))] }
}

// padded lists pairCounts one entry per session, then empty sessions up
// to traffic (sessions of traffic without a unit of the figure); with is
// the number with units, m their units.
func padded(counts []pairCount, traffic int64) (out []pairSess, with, m int64) {
	for _, c := range counts {
		for range c.n {
			out = append(out, c.s)
			m += c.s.m
		}
	}
	with = int64(len(out))
	for int64(len(out)) < traffic {
		out = append(out, pairSess{})
	}
	return out, with, m
}

// planP95 plans judge_p95_max from the judge's live calls, sessions
// resampled with their calls; the interval is the verdict's
// (sessionQuantile). ok is false without latency or with the criterion off.
func planP95(e *evaluator, j *JudgeSummary, jp *judgePairs, o PlanOptions, seed uint64, traffic int64) (PlanResult, bool) {
	if e.crit.JudgeP95Max <= 0 || jp == nil || len(jp.total.ms) == 0 || j.Total.noLatency || unrecordedLatency(jp.total.ms) {
		return PlanResult{}, false
	}
	maxMS := float64(e.crit.JudgeP95Max.Nanoseconds()) / 1e6
	by := map[uint32][]float64{}
	var order []uint32
	for i, s := range jp.total.sess {
		if _, ok := by[s]; !ok {
			order = append(order, s)
		}
		by[s] = append(by[s], jp.total.ms[i])
	}
	slices.Sort(order)
	sess := make([][]float64, len(order))
	for i, s := range order {
		sess[i] = by[s]
	}
	calls := float64(len(jp.total.ms))
	withCalls := int64(len(sess))
	for int64(len(sess)) < traffic {
		sess = append(sess, nil) // a session of traffic without a call
	}
	res := PlanResult{Criterion: CriterionJudgeP95Max, Threshold: maxMS, Judge: j.Judge, Rule: AllRules,
		Pilot: &PilotData{Sessions: withCalls, TrafficSessions: int64(len(sess)), Units: int64(calls), Unit: "calls", Estimate: j.Total.LatencyP95MS}}
	planSearch(&res, o, calls/float64(len(sess)), "calls", drawRates(o.Reps, o.Seed^seed, resample(sess), p95Decider(e.conf, maxMS)))
	return res, true
}

// p95Decider decides judge_p95_max on a data set of sessions' call
// latencies as the verdict does: the nearest-rank P95 with its
// session-clustered order-statistic interval (sessionQuantile).
func p95Decider(conf, maxMS float64) func(sess [][]float64) Status {
	var sc latScratch
	var c callLats
	return func(sess [][]float64) Status {
		c.ms, c.sess = c.ms[:0], c.sess[:0]
		for k, s := range sess {
			for _, v := range s {
				c.ms = append(c.ms, v)
				c.sess = append(c.sess, uint32(k))
			}
		}
		if len(c.ms) == 0 {
			return StatusInconclusive
		}
		sortCalls(c)
		q := sessionQuantile(c, 95, 100, conf, &sc)
		ev := Evidence{Estimate: q.est, Lo: math.Inf(-1), Hi: math.Inf(1)}
		if lo, hi := q.bounds(c.ms); lo != nil || hi != nil {
			if lo != nil {
				ev.Lo = *lo
			}
			if hi != nil {
				ev.Hi = *hi
			}
		}
		return AtMost.Decide(maxMS, ev).Status
	}
}

// planRecall plans dangerous_recall_must_beat_baseline from the rule's
// labeled positives with a baseline, sessions resampled; each data set is
// decided by the verdict's own test (without Holm's adjustment across
// rules).
func planRecall(e *evaluator, judge string, r *Row, o PlanOptions, traffic int64) (PlanResult, bool) {
	if !e.crit.DangerousRecallMustBeatBaseline || r.recall == nil || len(r.recall.sess) == 0 {
		return PlanResult{}, false
	}
	sess, with, m := padded(r.recall.sess, traffic)
	res := PlanResult{Criterion: CriterionDangerousRecall, Judge: judge, Rule: r.RuleID,
		Pilot: &PilotData{Sessions: with, TrafficSessions: int64(len(sess)), Units: m, Unit: "labeled positives", Estimate: recallGain(r)}}
	planSearch(&res, o, float64(m)/float64(len(sess)), "labeled positives", drawRates(o.Reps, o.Seed^hashString(r.RuleID), resample(sess), recallDecider(e, r.Class)))
	return res, true
}

// recallDecider decides dangerous_recall_must_beat_baseline on a data
// set of sessions' labeled positives (first side the judge, second the
// baseline) with the verdict's own test (without Holm's adjustment
// across rules).
func recallDecider(e *evaluator, class replay.Class) func(sess []pairSess) Status {
	return func(sess []pairSess) Status {
		var mc mcnemar
		row := &Row{Class: class}
		for _, s := range sess {
			jo, bo := s.y1-s.y12, s.y2-s.y12
			mc.addSessions(jo-bo, jo+bo, 1)
			row.BaselinePositives += s.m
			row.BaselineHits += s.y2
			row.JudgeOnlyHits += jo
			row.BaselineOnlyHits += bo
			row.TP += s.y1
			row.FN += s.m - s.y1
		}
		pd := newPairDiff(sess)
		if pd == nil {
			return StatusInconclusive
		}
		return e.dangerousRecall(row, mc, pd, e.seed).Status
	}
}

// recallGain is the row's recall minus its baseline's on the positives
// with a baseline.
func recallGain(r *Row) *float64 {
	if r.BaselinePositives == 0 {
		return nil
	}
	return ptr(float64(r.JudgeOnlyHits-r.BaselineOnlyHits) / float64(r.BaselinePositives))
}

// planDrift plans fire_rate_change_max of a candidate's rule against the
// run's baseline judge from the paired fire units, sessions resampled.
func planDrift(e *evaluator, judge string, rc *RuleComparison, o PlanOptions, traffic int64) (PlanResult, bool) {
	if e.crit.FireRateChangeMax <= 0 || rc.fire == nil || len(rc.fire.sess) == 0 {
		return PlanResult{}, false
	}
	sess, with, m := padded(rc.fire.sess, traffic)
	est, _, _ := rc.fire.interval(1, e.conf)
	res := PlanResult{Criterion: CriterionFireRateChangeMax, Threshold: e.crit.FireRateChangeMax, Judge: judge, Rule: rc.RuleID,
		Pilot: &PilotData{Sessions: with, TrafficSessions: int64(len(sess)), Units: m, Unit: "paired cases", Estimate: ptr(est)}}
	planSearch(&res, o, float64(m)/float64(len(sess)), "paired cases", drawRates(o.Reps, o.Seed^hashString(rc.RuleID)^0xd71f, resample(sess), driftDecider(e)))
	return res, true
}

// driftDecider decides fire_rate_change_max on a data set of sessions'
// paired fire units (first side the candidate) as the verdict does.
func driftDecider(e *evaluator) func(sess []pairSess) Status {
	return func(sess []pairSess) Status {
		pd := newPairDiff(sess)
		if pd == nil {
			return StatusInconclusive
		}
		return e.fireRateChange(pd).Status
	}
}

// hashString is FNV-1a, to seed each rule's resampling apart.
func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := range len(s) {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
