package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/apeval/apeval/replay"
)

// PlanGuess is what a team expects of one proportion before collecting
// data: its rate, the intra-class correlation of sessions and the mean
// number of units per session.
type PlanGuess struct {
	Rate        float64 `json:"rate"`
	ICC         float64 `json:"icc"`
	SessionSize float64 `json:"session_size"`
	// sizes, when set (a fit to a pilot run), are the session sizes seen
	// with their numbers of sessions: new sessions draw their size from
	// them instead of 1 + Poisson(SessionSize − 1).
	sizes []wv
	nSess float64
	// perSession, when set, is the mean units per session of traffic
	// (sessions without a unit of the figure included).
	perSession float64
}

// meanSize is the mean units per session (of traffic, from a pilot).
func (g PlanGuess) meanSize() float64 {
	if g.perSession > 0 {
		return g.perSession
	}
	return g.SessionSize
}

// Check names the first impossible value of g.
func (g PlanGuess) Check() error {
	switch {
	case math.IsNaN(g.Rate) || g.Rate < 0 || g.Rate > 1:
		return fmt.Errorf("rate %v is outside [0, 1]", g.Rate)
	case math.IsNaN(g.ICC) || g.ICC < 0 || g.ICC >= 1:
		return fmt.Errorf("ICC %v is outside [0, 1)", g.ICC)
	case math.IsNaN(g.SessionSize) || g.SessionSize < 1:
		return fmt.Errorf("session size %v is below 1", g.SessionSize)
	case math.IsInf(g.SessionSize, 1):
		return fmt.Errorf("session size %v: a mean number of units per session is finite", g.SessionSize)
	}
	return nil
}

// PlanOptions set the simulation behind a plan.
type PlanOptions struct {
	// Confidence of the intervals (the kill criteria's).
	Confidence float64
	// Target is the decision probability the plan sizes for (0.8).
	Target float64
	// Budget, when positive, is a number of sessions to report the
	// decision rates at.
	Budget int64
	// Reps is the number of simulated data sets per size (200 when 0).
	Reps int
	Seed uint64
	// MaxSessions bounds the search (PlanMaxSessions when 0).
	MaxSessions int64
	// Progress, when set, is told how many plans are done and what is
	// being simulated ("judge rule criterion at 1600 sessions"), at each
	// size a plan tries and as each plan ends; what "" when all are done.
	Progress func(done int, what string)
	// done and label are what Progress is told of the plan under way.
	done  int
	label string
}

// at is o for the plan of judge, rule and criterion, the done-th.
func (o PlanOptions) at(done int, judge, rule, criterion string) PlanOptions {
	o.done, o.label = done, strings.TrimSpace(judge+" "+rule+" "+criterion)
	return o
}

// PlanResult is one criterion's plan.
type PlanResult struct {
	Criterion string  `json:"criterion"`
	Threshold float64 `json:"threshold"`
	// Judge and Rule say whose figure a plan from a pilot run is for
	// (Rule "*": the judge's own criteria; Judge "" for a policy
	// criterion, the same for every judge); both empty from guesses.
	Judge string `json:"judge,omitempty"`
	Rule  string `json:"rule,omitempty"`
	// Guess is the rate, ICC and session size the simulation draws from:
	// the guesses, or their fit to the pilot run. Nil for the criteria a
	// pilot plans by resampling its sessions (P95, recall vs baseline,
	// drift).
	Guess *PlanGuess `json:"guess,omitempty"`
	// RecallGuess, LatencyGuess and DriftGuess are the guesses a plan of
	// dangerous recall, the P95 latency or the drift draws its sessions
	// from (a plan from guesses; nil from a pilot).
	RecallGuess  *RecallGuess  `json:"recall_guess,omitempty"`
	LatencyGuess *LatencyGuess `json:"latency_guess,omitempty"`
	DriftGuess   *DriftGuess   `json:"drift_guess,omitempty"`
	// Pilot describes the pilot's data for the criterion: its sessions,
	// units and estimate (nil from guesses).
	Pilot *PilotData `json:"pilot,omitempty"`
	// Sessions (and Units ≈ Sessions × session size) give a decision
	// (PASS or FAIL) with probability DecideRate ≥ the target; nil when
	// no number up to the bound does (Reason says why).
	Sessions   *int64   `json:"sessions"`
	Units      *int64   `json:"units"`
	DecideRate *float64 `json:"decide_rate"`
	// Path is "labels" for a plan of the label path (PlanLabels): Labels
	// from the queue give a decision with probability DecideRate, and the
	// budget is BudgetLabels labels; Sessions and Units are then nil.
	Path   string `json:"path,omitempty"`
	Labels *int64 `json:"labels,omitempty"`
	// MoreSessions, on the label path, is set when labeling every pair
	// does not decide: the recorded sessions' own spread stays (the
	// two-phase variance's v₁), and about this many more sessions of
	// traffic (the median of the labeled hint over the simulated data
	// sets with every pair labeled) would.
	MoreSessions *int64 `json:"more_sessions,omitempty"`
	// Thin, on the label path from a partly labeled pilot, is the stratum
	// where the judges disagree whose pilot labels the plan rests on most
	// and that holds fewer than ThinLabels of them (nil otherwise): the
	// plan's rates are then a guess (docs/planning.md).
	Thin *ThinStratum `json:"thin_stratum,omitempty"`
	// First, with Thin, is the two-stage plan's first stage: the labels
	// to add to the pilot before planning again (LabelFirst).
	First        *LabelFirst `json:"label_first,omitempty"`
	BudgetLabels int64       `json:"budget_labels,omitempty"`
	// At the budget: the shares of simulated data sets that PASS and FAIL.
	Budget     int64    `json:"budget_sessions,omitempty"`
	BudgetPass *float64 `json:"budget_pass,omitempty"`
	BudgetFail *float64 `json:"budget_fail,omitempty"`
	Reason     string   `json:"reason"`
}

// PlanProportion plans one proportion criterion (the name's direction
// from Criteria) at threshold thr from a guess: it simulates data sets of
// k sessions — sizes 1 + Poisson(size − 1), each session's rate drawn from
// a Beta with the guessed mean and ICC — decides each with interval (the
// interval the verdict uses: ClusteredInterval at the confidence when
// nil) and the one verdict rule, and finds the fewest sessions whose
// decision rate reaches the target. The same random numbers serve every
// k (data sets grow by adding sessions), so the rate rises smoothly with
// k and the search is stable.
func PlanProportion(name string, thr float64, g PlanGuess, o PlanOptions, interval func(ys, ms []int64) (lo, hi float64)) (PlanResult, error) {
	res := PlanResult{Criterion: name, Threshold: thr, Guess: &g}
	spec, ok := SpecOf(name)
	if !ok {
		return res, fmt.Errorf("%q is not a kill criterion", name)
	}
	if err := g.Check(); err != nil {
		return res, err
	}
	o = o.withDefaults()
	// The replicates are independent (each its own random numbers and
	// sessions) and the interval a pure function: the verdict's own is
	// run on every core, counts summed, the same figures as one by one.
	workers := runtime.GOMAXPROCS(0)
	if interval == nil {
		conf := o.Confidence
		interval = func(ys, ms []int64) (float64, float64) {
			lo, hi, _ := ClusteredInterval(ys, ms, conf)
			return lo, hi
		}
	} else {
		workers = 1 // the caller's interval may keep state
	}
	sims := [2]*planSim{newPlanSim(g, o.Reps, o.Seed), newPlanSim(g, o.Reps, o.Seed^freshSeed)}
	rates := func(k int64, fresh bool) (pass, fail float64) {
		sim := sims[b2i(fresh)]
		p, f := countStatuses(o.Reps, workers, func(r int) Status {
			ys, ms := sim.data(r, int(k))
			var Y, M int64
			for i := range ys {
				Y += ys[i]
				M += ms[i]
			}
			if M == 0 {
				return StatusInconclusive // sessions of traffic without a unit of the figure
			}
			lo, hi := interval(ys, ms)
			return spec.Direction.Decide(thr, Evidence{Estimate: float64(Y) / float64(M), Lo: lo, Hi: hi, Sessions: ClusteredSessions(ms)}).Status
		})
		return float64(p) / float64(o.Reps), float64(f) / float64(o.Reps)
	}
	planSearch(&res, o, g.meanSize(), "units", rates)
	return res, nil
}

// ClusteredSessions is the sessions holding units of a figure whose
// sessions hold ms units each, 0 when none holds more than one (the units
// are then independent): the verdict's Evidence.Sessions, which
// FewSessions checks.
func ClusteredSessions(ms []int64) float64 {
	var k float64
	clustered := false
	for _, m := range ms {
		if m > 0 {
			k++
		}
		clustered = clustered || m > 1
	}
	if !clustered {
		return 0
	}
	return k
}

// countStatuses decides replicates 0 … reps−1 with decide, on up to
// workers goroutines (each a contiguous share of the replicates; decide
// must be safe for distinct replicates at once), and counts the PASS and
// FAIL.
func countStatuses(reps, workers int, decide func(r int) Status) (pass, fail int) {
	workers = max(1, min(workers, reps/16))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var p, f int
			for r := w * reps / workers; r < (w+1)*reps/workers; r++ {
				switch decide(r) {
				case StatusPass:
					p++
				case StatusFail:
					f++
				}
			}
			mu.Lock()
			pass, fail = pass+p, fail+f
			mu.Unlock()
		}()
	}
	wg.Wait()
	return pass, fail
}

// PlanMaxSessions is the most sessions a plan simulates: the search's
// bound, and the largest budget (each of Reps data sets is held in memory,
// 16 bytes a session).
const PlanMaxSessions = 100_000

// PlanMaxReps is the most simulated data sets per size a plan takes
// (`plan --reps`): its time grows with them, and at this many a decision
// rate near 0.8 is known to ±0.011 (2 standard errors).
const PlanMaxReps = 5000

// freshSeed sets apart the random numbers that check a plan's size.
const freshSeed = 0x5eed_f2e5

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// planSearch finds the fewest sessions whose decision rate (PASS + FAIL
// from rates) reaches o.Target — doubling, then bisection to within 2 %
// — and the shares at o.Budget, and fills res (units: sessions × per
// session, named unit in the reason). The size found is checked on fresh
// random numbers (rates with fresh set): the first size whose noisy rate
// crosses the target overstates its rate, so the plan reports the fresh
// rate and steps up by 10 % (at most 20 times) while it falls short.
func planSearch(res *PlanResult, o PlanOptions, perSession float64, unit string, rates func(k int64, fresh bool) (pass, fail float64)) {
	name, thr := res.Criterion, res.Threshold
	if o.Progress != nil {
		label := o.label
		if label == "" {
			label = name
		}
		inner := rates
		rates = func(k int64, fresh bool) (float64, float64) {
			o.Progress(o.done, fmt.Sprintf("%s at %d sessions", label, k))
			return inner(k, fresh)
		}
	}
	decides := func(k int64) (bool, float64) {
		p, f := rates(k, false)
		return p+f >= o.Target, p + f
	}
	lo, hi := int64(0), int64(2)
	okHi, rHi := decides(hi)
	for !okHi {
		if hi >= o.MaxSessions {
			res.Reason = fmt.Sprintf("even %d sessions decide %s with probability %.2f, below %.2f: the figure sits too close to %s", hi, name, rHi, o.Target, fmtF(thr))
			break
		}
		lo, hi = hi, min(2*hi, o.MaxSessions)
		okHi, rHi = decides(hi)
	}
	if okHi {
		for hi-lo > max(1, hi/50) {
			mid := lo + (hi-lo)/2
			if ok, _ := decides(mid); ok {
				hi = mid
			} else {
				lo = mid
			}
		}
		p, f := rates(hi, true)
		for i := 0; i < 20 && p+f < o.Target && hi < o.MaxSessions; i++ {
			hi = min(o.MaxSessions, max(hi+1, hi*11/10))
			p, f = rates(hi, true)
		}
		rHi = p + f
		res.Sessions = new(hi)
		res.Units = new(int64(math.Round(float64(hi) * perSession)))
		res.DecideRate = new(rHi)
		res.Reason = fmt.Sprintf("about %d sessions (≈ %d %s) decide %s with probability %.2f", hi, *res.Units, unit, name, rHi)
	}
	if o.Budget > 0 {
		p, f := rates(o.Budget, true)
		res.Budget, res.BudgetPass, res.BudgetFail = o.Budget, new(p), new(f)
		res.Reason += fmt.Sprintf("; with %d sessions: decided %.0f%% (PASS %.0f%%, FAIL %.0f%%)", o.Budget, 100*(p+f), 100*p, 100*f)
	}
}

// withDefaults fills the zero fields of o.
func (o PlanOptions) withDefaults() PlanOptions {
	if o.Confidence == 0 {
		o.Confidence = 0.95
	}
	if o.Target == 0 {
		o.Target = assurance
	}
	if o.Reps <= 0 {
		o.Reps = 200
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = PlanMaxSessions
	}
	return o
}

// planSim draws the simulated sessions of a plan lazily and keeps them:
// data set r with k sessions is the first k sessions of replicate r's
// stream. Only sessions holding units are kept, each with its place in
// the stream: a session of traffic without a unit of the figure (most of
// a pilot's sessions, for a rare rule) adds nothing to the data, so the
// stream skips over a run of them in one draw, and a session's successes
// are one binomial draw, not one per unit. The cost of a data set follows
// its sessions with units, not its units nor its empty sessions.
type planSim struct {
	g PlanGuess
	// pEmpty is the share of sessions without a unit; sizes the sizes of
	// the others, n their number.
	pEmpty float64
	sizes  []wv
	n      float64
	rngs   []*rand.Rand
	// per replicate: sessions drawn so far (empty ones included), and the
	// kept sessions' places in the stream, successes and units
	drawn []int64
	at    [][]int64
	ys    [][]int64
	ms    [][]int64
}

func newPlanSim(g PlanGuess, reps int, seed uint64) *planSim {
	s := &planSim{g: g, rngs: make([]*rand.Rand, reps), drawn: make([]int64, reps), at: make([][]int64, reps), ys: make([][]int64, reps), ms: make([][]int64, reps)}
	for _, w := range g.sizes {
		if w.v <= 0 {
			s.pEmpty += w.n
			continue
		}
		s.sizes = append(s.sizes, w)
		s.n += w.n
	}
	if g.nSess > 0 {
		s.pEmpty /= g.nSess
	}
	for r := range s.rngs {
		s.rngs[r] = rand.New(rand.NewPCG(seed, uint64(r)+1))
	}
	return s
}

// size draws the units of a session that holds some.
func (s *planSim) size(rng *rand.Rand) int64 {
	switch {
	case len(s.sizes) > 0:
		u := rng.Float64() * s.n
		for _, w := range s.sizes {
			if u < w.n {
				return int64(w.v)
			}
			u -= w.n
		}
		return int64(s.sizes[len(s.sizes)-1].v)
	case s.g.SessionSize > 1:
		return 1 + int64(distuv.Poisson{Lambda: s.g.SessionSize - 1, Src: rng}.Rand())
	}
	return 1
}

func (s *planSim) data(r, k int) (ys, ms []int64) {
	rng := s.rngs[r]
	for s.drawn[r] < int64(k) {
		if s.pEmpty > 0 {
			// The sessions without a unit before the next with one:
			// geometric, P(gap ≥ j) = pEmpty^j.
			if s.pEmpty >= 1 {
				s.drawn[r] = math.MaxInt64
				break
			}
			gap := math.Floor(math.Log(1-rng.Float64()) / math.Log(s.pEmpty))
			if gap >= float64(PlanMaxSessions) {
				s.drawn[r] += PlanMaxSessions
				continue
			}
			s.drawn[r] += int64(gap)
		}
		m := s.size(rng)
		p := s.g.Rate
		if s.g.ICC > 0 && p > 0 && p < 1 {
			th := (1 - s.g.ICC) / s.g.ICC
			p = distuv.Beta{Alpha: p * th, Beta: (1 - p) * th, Src: rng}.Rand()
		}
		s.at[r] = append(s.at[r], s.drawn[r])
		s.ys[r] = append(s.ys[r], binomial(rng, m, p))
		s.ms[r] = append(s.ms[r], m)
		s.drawn[r]++
	}
	// The kept sessions among the first k of the stream.
	n, _ := slices.BinarySearch(s.at[r], int64(k))
	return s.ys[r][:n], s.ms[r][:n]
}

// binomial draws the successes of m units at rate p in a few steps
// whatever m: by inversion (walking the pmf up from 0, about m·p steps,
// one uniform) while m·min(p, 1 − p) is small, else gonum's rejection
// sampler.
func binomial(rng *rand.Rand, m int64, p float64) int64 {
	switch {
	case p <= 0 || m <= 0:
		return 0
	case p >= 1:
		return m
	case p > 0.5:
		return m - binomial(rng, m, 1-p)
	case float64(m)*p >= 30:
		return int64(distuv.Binomial{N: float64(m), P: p, Src: rng}.Rand())
	}
	// Inversion (Kachitvichyanukul and Schmeiser's BINV).
	q := 1 - p
	s, a := p/q, float64(m+1)*p/q
	r := math.Exp(float64(m) * math.Log1p(-p)) // P(0)
	u := rng.Float64()
	var x int64
	for u > r && x < m {
		u -= r
		x++
		r *= a/float64(x) - s
	}
	return x
}

// PlanCriteria are the criteria a plan from guesses covers: the
// proportions, whose data a rate, an ICC and a session size describe.
var PlanCriteria = []string{CriterionPrecisionMin, CriterionUnknownRateMax, CriterionJudgeRequiredRateMax, CriterionApprovalRejectRateMax}

// PlanCriterionNamed resolves a criterion given by name or by its label
// in Criteria ("precision", "unknown", …) among PlanCriteria.
func PlanCriterionNamed(s string) (string, error) {
	for _, name := range PlanCriteria {
		if spec, _ := SpecOf(name); s == name || s == spec.Label {
			return name, nil
		}
	}
	return "", fmt.Errorf("%q is not a guess: plan takes %s (or %s)", s, strings.Join(GuessKeys, ", "), strings.Join(PlanCriteria, ", "))
}

// PlanThreshold is the criterion's threshold in crit; ok is false for a
// name that is not a planned proportion. A maximum of 0 is a threshold
// like any other (the verdict fails every rate against it), not "off".
func PlanThreshold(crit replay.KillCriteria, name string) (thr float64, ok bool) {
	switch name {
	case CriterionPrecisionMin:
		return crit.PrecisionMin, true
	case CriterionUnknownRateMax:
		return crit.UnknownRateMax, true
	case CriterionJudgeRequiredRateMax:
		return crit.JudgeRequiredRateMax, true
	case CriterionApprovalRejectRateMax:
		return crit.ApprovalRejectRateMax, true
	}
	return 0, false
}
