package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/apeval/apeval/replay"
)

// PlanGuesses are what a team without a pilot run expects, for `apeval
// plan`: the proportions' rates, dangerous recall against the
// deterministic baseline, the fire-rate drift against a baseline judge
// and the call latency, with one intra-class correlation and one mean
// session size (units of each figure per session) for all of them.
type PlanGuesses struct {
	// Rates maps a proportion criterion (PlanCriteria) to its rate.
	Rates       map[string]float64
	ICC         float64
	SessionSize float64
	Recall      *RecallGuess
	Drift       *DriftGuess
	Latency     *LatencyGuess
}

// RecallGuess is dangerous recall as guessed: the judge's and the
// baseline's recall on the rule's labeled positives and, when known, the
// share of positives only the baseline catches (else the two catch a
// positive independently of each other).
type RecallGuess struct {
	Recall         float64  `json:"recall"`
	BaselineRecall float64  `json:"baseline_recall"`
	BaselineOnly   *float64 `json:"baseline_only,omitempty"`
	ICC            float64  `json:"icc"`
	SessionSize    float64  `json:"session_size"`
}

// DriftGuess is the fire-rate drift as guessed: the change of the fire
// rate (candidate − baseline judge), the share of cases on which the two
// judges differ (whether the rule fires) and the baseline's fire rate.
type DriftGuess struct {
	Change       float64 `json:"change"`
	Disagree     float64 `json:"disagree"`
	BaselineFire float64 `json:"baseline_fire"`
	ICC          float64 `json:"icc"`
	SessionSize  float64 `json:"session_size"`
	// fireSet: BaselineFire was guessed (else DefaultBaselineFire, moved
	// into the range the other two allow).
	fireSet bool
}

// LatencyGuess is the judge's call latency as guessed: its median and P95
// in ms (a lognormal through both; the ICC is the share of the
// log-latency's variance between sessions).
type LatencyGuess struct {
	P50MS       float64 `json:"p50_ms"`
	P95MS       float64 `json:"p95_ms"`
	ICC         float64 `json:"icc"`
	SessionSize float64 `json:"session_size"`
}

// DefaultBaselineFire is the baseline judge's fire rate a drift guess
// assumes when none is given. Only sessions of one case depend on it
// (the paired Newcombe interval uses the concordant cells); the interval
// over sessions of several rests on the two discordant rates alone.
const DefaultBaselineFire = 0.1

// The guess keys besides the proportions (`--rate KEY=VALUE`).
const (
	GuessRecall         = "recall"
	GuessBaselineRecall = "baseline-recall"
	GuessBaselineOnly   = "baseline-only"
	GuessDrift          = "drift"
	GuessDisagree       = "disagree"
	GuessBaselineFire   = "fire"
)

// GuessKeys lists every key Set takes, for help and errors.
var GuessKeys = []string{"precision", "unknown", "judge-required", "approval rejects", GuessRecall, GuessBaselineRecall, GuessBaselineOnly, GuessDrift, GuessDisagree, GuessBaselineFire}

// Set records one guess, KEY=VALUE: a proportion criterion (its name or
// label) and its rate, or one of the Guess* keys. A value outside its
// range is an error naming it; Check then checks the guesses together.
func (g *PlanGuesses) Set(key string, v float64) error {
	key = strings.TrimSpace(key)
	lo := 0.0
	switch key {
	case GuessDrift, "fire-rate drift", CriterionFireRateChangeMax:
		key, lo = GuessDrift, -1
	case GuessRecall, GuessBaselineRecall, GuessBaselineOnly, GuessDisagree, GuessBaselineFire:
	default:
		name, err := PlanCriterionNamed(key)
		if err != nil {
			return err
		}
		key = name
	}
	if math.IsNaN(v) || v < lo || v > 1 {
		return fmt.Errorf("%s: rate %v is outside [%g, 1]", key, v, lo)
	}
	recall := func() *RecallGuess {
		if g.Recall == nil {
			g.Recall = &RecallGuess{Recall: math.NaN(), BaselineRecall: math.NaN()}
		}
		return g.Recall
	}
	drift := func() *DriftGuess {
		if g.Drift == nil {
			g.Drift = &DriftGuess{Change: math.NaN(), Disagree: math.NaN()}
		}
		return g.Drift
	}
	switch key {
	case GuessRecall:
		recall().Recall = v
	case GuessBaselineRecall:
		recall().BaselineRecall = v
	case GuessBaselineOnly:
		recall().BaselineOnly = new(v)
	case GuessDrift:
		drift().Change = v
	case GuessDisagree:
		drift().Disagree = v
	case GuessBaselineFire:
		d := drift()
		d.BaselineFire, d.fireSet = v, true
	default:
		if g.Rates == nil {
			g.Rates = map[string]float64{}
		}
		g.Rates[key] = v
	}
	return nil
}

// SetLatency records the latency guess: P95 (and the median; 0 for half
// the P95) in ms.
func (g *PlanGuesses) SetLatency(p50, p95 float64) {
	if p50 == 0 {
		p50 = p95 / 2
	}
	g.Latency = &LatencyGuess{P50MS: p50, P95MS: p95}
}

// Empty reports whether nothing is guessed.
func (g *PlanGuesses) Empty() bool {
	return len(g.Rates) == 0 && g.Recall == nil && g.Drift == nil && g.Latency == nil
}

// Check names the first impossible or missing guess, and copies the ICC
// and session size into each guess.
func (g *PlanGuesses) Check() error {
	if err := (PlanGuess{Rate: 0.5, ICC: g.ICC, SessionSize: g.SessionSize}).Check(); err != nil {
		return err
	}
	if r := g.Recall; r != nil {
		switch {
		case math.IsNaN(r.Recall):
			return fmt.Errorf("%s=%v needs %s=R too: the judge's recall on the dangerous rule's positives", GuessBaselineRecall, r.BaselineRecall, GuessRecall)
		case math.IsNaN(r.BaselineRecall):
			return fmt.Errorf("%s=%v needs %s=R too: the deterministic baseline's recall on the same positives (dangerous_recall_must_beat_baseline)", GuessRecall, r.Recall, GuessBaselineRecall)
		}
		if b := r.BaselineOnly; b != nil {
			// Only-baseline positives are caught by the baseline and
			// missed by the judge, and the baseline's other hits are
			// among the judge's.
			if lo, hi := max(0, r.BaselineRecall-r.Recall), min(r.BaselineRecall, 1-r.Recall); *b < lo-1e-12 || *b > hi+1e-12 {
				return fmt.Errorf("%s=%v is impossible with recall %v and baseline recall %v: it lies in [%.4g, %.4g]", GuessBaselineOnly, *b, r.Recall, r.BaselineRecall, lo, hi)
			}
		}
		r.ICC, r.SessionSize = g.ICC, g.SessionSize
	}
	if d := g.Drift; d != nil {
		switch {
		case math.IsNaN(d.Change):
			return fmt.Errorf("%s=%v needs %s=D too: the expected change of the fire rate, candidate − baseline judge", GuessDisagree, d.Disagree, GuessDrift)
		case math.IsNaN(d.Disagree):
			return fmt.Errorf("%s=%v needs %s=S too: the share of cases on which the two judges differ (the rule fires on one side only), at least |drift|", GuessDrift, d.Change, GuessDisagree)
		case math.Abs(d.Change) > d.Disagree+1e-12:
			return fmt.Errorf("%s=%v is below |%s=%v|: a change of the fire rate needs at least as many cases on which the judges differ", GuessDisagree, d.Disagree, GuessDrift, d.Change)
		}
		b, c := d.only()
		lo, hi := c, 1-b
		if !d.fireSet {
			d.BaselineFire = min(max(DefaultBaselineFire, lo), hi)
		} else if d.BaselineFire < lo-1e-12 || d.BaselineFire > hi+1e-12 {
			return fmt.Errorf("%s=%v is impossible with drift %v and disagree %v: the baseline's fire rate lies in [%.4g, %.4g]", GuessBaselineFire, d.BaselineFire, d.Change, d.Disagree, lo, hi)
		}
		d.ICC, d.SessionSize = g.ICC, g.SessionSize
	}
	if l := g.Latency; l != nil {
		switch {
		case math.IsNaN(l.P95MS) || l.P95MS <= 0 || math.IsInf(l.P95MS, 0):
			return fmt.Errorf("P95 latency %v ms: a latency is a positive number of ms", l.P95MS)
		case math.IsNaN(l.P50MS) || l.P50MS <= 0:
			return fmt.Errorf("median latency %v ms: a latency is a positive number of ms", l.P50MS)
		case l.P50MS >= l.P95MS:
			return fmt.Errorf("median latency %v ms is not below the P95 %v ms", l.P50MS, l.P95MS)
		}
		l.ICC, l.SessionSize = g.ICC, g.SessionSize
	}
	for name, v := range g.Rates {
		if err := (PlanGuess{Rate: v, ICC: g.ICC, SessionSize: g.SessionSize}).Check(); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// only is the candidate-only and the baseline-only shares of the cases:
// (disagree ± change)/2.
func (d DriftGuess) only() (cand, base float64) {
	return max(0, (d.Disagree+d.Change)/2), max(0, (d.Disagree-d.Change)/2)
}

// sessionSize draws 1 + Poisson(size − 1) units.
func sessionSize(rng *rand.Rand, size float64) int64 {
	if size <= 1 {
		return 1
	}
	return 1 + int64(distuv.Poisson{Lambda: size - 1, Src: rng}.Rand())
}

// drawCells draws one session's units into cells: the session's cell
// probabilities from a Dirichlet around probs whose intra-class
// correlation is icc (concentration (1 − icc)/icc; probs themselves at
// icc 0), then the m units into the cells (multinomial).
func drawCells(rng *rand.Rand, probs []float64, icc float64, m int64, out []int64) {
	p := make([]float64, len(probs))
	copy(p, probs)
	if icc > 0 {
		th := (1 - icc) / icc
		var sum float64
		for i, q := range probs {
			p[i] = 0
			if q > 0 {
				p[i] = distuv.Gamma{Alpha: q * th, Beta: 1, Src: rng}.Rand()
			}
			sum += p[i]
		}
		if sum > 0 {
			for i := range p {
				p[i] /= sum
			}
		} else {
			copy(p, probs)
		}
	}
	// The m units into the cells: a binomial per cell given the units
	// left (a multinomial draw), not a draw per unit.
	clear(out)
	left, rest, last := m, 1.0, -1
	for i, q := range p {
		if q <= 0 {
			continue
		}
		last = i
		if left == 0 || rest <= 0 {
			continue
		}
		n := binomial(rng, left, min(1, q/rest))
		out[i] += n
		left -= n
		rest -= q
	}
	if last >= 0 {
		out[last] += left // rounding of the shares left units over
	}
}

// cells is the guess's four cells per positive: both catch it, the judge
// only, the baseline only, neither.
func (r RecallGuess) cells() [4]float64 {
	both := r.Recall * r.BaselineRecall
	if r.BaselineOnly != nil {
		both = r.BaselineRecall - *r.BaselineOnly
	}
	return [4]float64{both, max(0, r.Recall-both), max(0, r.BaselineRecall-both), max(0, 1-r.Recall-r.BaselineRecall+both)}
}

// draw draws one session's labeled positives.
func (r RecallGuess) draw(rng *rand.Rand) pairSess {
	probs := r.cells()
	var n [4]int64
	m := sessionSize(rng, r.SessionSize)
	drawCells(rng, probs[:], r.ICC, m, n[:])
	return pairSess{y1: n[0] + n[1], y2: n[0] + n[2], y12: n[0], m: m}
}

// cells is the guess's four cells per case: both fire, the candidate
// only, the baseline only, neither.
func (d DriftGuess) cells() [4]float64 {
	b, c := d.only()
	both := max(0, d.BaselineFire-c)
	return [4]float64{both, b, c, max(0, 1-both-b-c)}
}

// draw draws one session's paired fire units.
func (d DriftGuess) draw(rng *rand.Rand) pairSess {
	probs := d.cells()
	var n [4]int64
	m := sessionSize(rng, d.SessionSize)
	drawCells(rng, probs[:], d.ICC, m, n[:])
	return pairSess{y1: n[0] + n[1], y2: n[0] + n[2], y12: n[0], m: m}
}

// logSD is the log-latency's standard deviation: the lognormal through
// the median and the P95.
func (l LatencyGuess) logSD() float64 {
	return (math.Log(l.P95MS) - math.Log(l.P50MS)) / distuv.UnitNormal.Quantile(0.95)
}

// draw draws one session's call latencies: the session's log-scale
// effect (variance ICC·σ²) and each call's own (variance (1 − ICC)·σ²),
// around log P50.
func (l LatencyGuess) draw(rng *rand.Rand) []float64 {
	sd := l.logSD()
	mu := math.Log(l.P50MS) + math.Sqrt(l.ICC)*sd*rng.NormFloat64()
	within := math.Sqrt(1-l.ICC) * sd
	m := sessionSize(rng, l.SessionSize)
	out := make([]float64, m)
	for i := range out {
		out[i] = math.Exp(mu + within*rng.NormFloat64())
	}
	return out
}

// Plan plans every guessed criterion under crit, in the order of
// Criteria: the proportions from their rate (PlanProportion), dangerous
// recall, the P95 latency and the fire-rate drift from data sets of
// sessions drawn from the guessed model, each decided by the verdict's
// own code (the code a plan from a pilot uses on resampled sessions). An
// impossible guess is an error naming the value.
func Plan(crit replay.KillCriteria, g PlanGuesses, o PlanOptions) ([]PlanResult, error) {
	o.Confidence = crit.Confidence
	if o.Budget < 0 {
		return nil, fmt.Errorf("budget %d sessions is below 1", o.Budget)
	}
	if err := g.Check(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	e := newEvaluator(crit)
	var out []PlanResult
	if o.Progress != nil {
		defer o.Progress(0, "")
	}
	for _, spec := range Criteria {
		name := spec.Name
		o := o.at(len(out), "", "", name)
		switch name {
		case CriterionDangerousRecall:
			if r := g.Recall; r != nil {
				res := PlanResult{Criterion: name, RecallGuess: r}
				if !crit.DangerousRecallMustBeatBaseline {
					res.Reason = "disabled in the kill criteria"
				} else {
					planSearch(&res, o, r.SessionSize, "labeled positives", drawRates(o.Reps, o.Seed^0x7ec1, r.draw, recallDecider(e, replay.ClassDangerous)))
				}
				out = append(out, res)
			}
			continue
		case CriterionJudgeP95Max:
			if l := g.Latency; l != nil {
				maxMS := float64(crit.JudgeP95Max.Nanoseconds()) / 1e6
				res := PlanResult{Criterion: name, Threshold: maxMS, LatencyGuess: l}
				if crit.JudgeP95Max <= 0 {
					res.Reason = "disabled in the kill criteria"
				} else {
					planSearch(&res, o, l.SessionSize, "calls", drawRates(o.Reps, o.Seed^0x95, l.draw, p95Decider(e.conf, maxMS)))
				}
				out = append(out, res)
			}
			continue
		case CriterionFireRateChangeMax:
			if d := g.Drift; d != nil {
				res := PlanResult{Criterion: name, Threshold: crit.FireRateChangeMax, DriftGuess: d}
				if crit.FireRateChangeMax <= 0 {
					res.Reason = "disabled in the kill criteria"
				} else {
					planSearch(&res, o, d.SessionSize, "paired cases", drawRates(o.Reps, o.Seed^0xd71f, d.draw, driftDecider(e)))
				}
				out = append(out, res)
			}
			continue
		}
		rate, ok := g.Rates[name]
		if !ok {
			continue
		}
		pg := PlanGuess{Rate: rate, ICC: g.ICC, SessionSize: g.SessionSize}
		thr, on := PlanThreshold(crit, name)
		if !on {
			out = append(out, PlanResult{Criterion: name, Guess: &pg, Reason: "disabled in the kill criteria"})
			continue
		}
		r, err := PlanProportion(name, thr, pg, o, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// LabelGuesses collects the guesses of a plan of the label path (`plan
// RUN_DIR --labels N --rate precision=P --rate recall=R`): what the labels
// will show where the pilot has none.
type LabelGuesses struct{ rates map[string]float64 }

// Set records precision=P or recall=R; another key, or a value outside
// [0, 1] (a recall of 0), is an error naming it.
func (l *LabelGuesses) Set(key string, v float64) error {
	key = strings.TrimSpace(key)
	if key != "precision" && key != "recall" {
		return fmt.Errorf("%q: with --labels, give --rate precision=P and --rate recall=R (what the labels will show)", key)
	}
	if math.IsNaN(v) || v < 0 || v > 1 || (key == "recall" && v == 0) {
		return fmt.Errorf("%s=%v is not a rate in [0, 1] (recall above 0)", key, v)
	}
	if l.rates == nil {
		l.rates = map[string]float64{}
	}
	l.rates[key] = v
	return nil
}

// Guess is the label guess: nil when none was given, an error when only
// one of the two was.
func (l *LabelGuesses) Guess() (*LabelGuess, error) {
	switch len(l.rates) {
	case 0:
		return nil, nil
	case 1:
		return nil, fmt.Errorf("give both precision=P and recall=R, or neither")
	}
	return &LabelGuess{Precision: l.rates["precision"], Recall: l.rates["recall"]}, nil
}

// OnLabels reports whether the criterion's figure rests on the labels
// (precision, recall vs baseline, and drift, which leaves out the changes
// labels explain): a plan from a pilot on weak labels says so for these.
func OnLabels(criterion string) bool {
	switch criterion {
	case CriterionPrecisionMin, CriterionDangerousRecall, CriterionFireRateChangeMax:
		return true
	}
	return false
}
