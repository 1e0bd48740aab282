package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/apeval/apeval/replay"
)

func TestPlanGuessesNameTheImpossibleValue(t *testing.T) {
	t.Parallel()
	set := func(kv ...any) (PlanGuesses, error) {
		g := PlanGuesses{SessionSize: 1}
		for i := 0; i < len(kv); i += 2 {
			if err := g.Set(kv[i].(string), kv[i+1].(float64)); err != nil {
				return g, err
			}
		}
		return g, g.Check()
	}
	for _, tc := range []struct {
		kv   []any
		want string
	}{
		{[]any{"precision", 1.2}, "precision_min: rate 1.2 is outside [0, 1]"},
		{[]any{"recall", -0.1}, "recall: rate -0.1 is outside [0, 1]"},
		{[]any{"drift", -1.5}, "drift: rate -1.5 is outside [-1, 1]"},
		{[]any{"latency", 0.5}, `"latency" is not a guess`},
		{[]any{"recall", 0.8}, "recall=0.8 needs baseline-recall=R"},
		{[]any{"baseline-recall", 0.7}, "baseline-recall=0.7 needs recall=R"},
		{[]any{"recall", 0.8, "baseline-recall", 0.7, "baseline-only", 0.3}, "baseline-only=0.3 is impossible with recall 0.8 and baseline recall 0.7: it lies in [0, 0.2]"},
		{[]any{"recall", 0.5, "baseline-recall", 0.9, "baseline-only", 0.1}, "it lies in [0.4, 0.5]"},
		{[]any{"drift", 0.05}, "drift=0.05 needs disagree=S"},
		{[]any{"disagree", 0.05}, "disagree=0.05 needs drift=D"},
		{[]any{"drift", -0.08, "disagree", 0.05}, "disagree=0.05 is below |drift=-0.08|"},
		{[]any{"drift", 0.02, "disagree", 0.1, "fire", 0.01}, "fire=0.01 is impossible with drift 0.02 and disagree 0.1: the baseline's fire rate lies in [0.04, 0.94]"},
	} {
		if _, err := set(tc.kv...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.kv, err, tc.want)
		}
	}
	for _, tc := range []struct {
		p50, p95 float64
		want     string
	}{
		{0, -5, "P95 latency -5 ms: a latency is a positive number of ms"},
		{-1, 800, "median latency -1 ms"},
		{900, 800, "median latency 900 ms is not below the P95 800 ms"},
	} {
		g := PlanGuesses{SessionSize: 1}
		g.SetLatency(tc.p50, tc.p95)
		if err := g.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("latency %v/%v: %v, want %q", tc.p50, tc.p95, err, tc.want)
		}
	}
	g := PlanGuesses{SessionSize: 1, ICC: -0.2}
	g.SetLatency(0, 800)
	if err := g.Check(); err == nil || !strings.Contains(err.Error(), "ICC -0.2 is outside [0, 1)") {
		t.Errorf("ICC: %v", err)
	}
	// Without a fire rate the default, moved into what drift and
	// disagree allow.
	g, err := set("drift", 0.02, "disagree", 0.3)
	if err != nil || math.Abs(g.Drift.BaselineFire-0.14) > 1e-12 {
		t.Errorf("default fire rate: %+v %v (want 0.14: the baseline-only share)", g.Drift, err)
	}
	// The cells of a guess are what was guessed.
	g, err = set("recall", 0.8, "baseline-recall", 0.7, "baseline-only", 0.05)
	if err != nil {
		t.Fatal(err)
	}
	c := g.Recall.cells()
	for i, want := range [4]float64{0.65, 0.15, 0.05, 0.15} {
		near(t, fmt.Sprintf("recall cell %d", i), c[i], want, 1e-12)
	}
}

// guessModel draws one session of a guessed setting as replay.Results
// with its own random numbers and its own samplers (not the plan's): the
// independent runs a plan from guesses is checked against go through the
// whole pipeline (Accumulator, Close).
type guessModel struct {
	name  string
	g     PlanGuesses
	judge string // the judge whose criterion is planned
	base  string // the baseline judge (drift), else ""
	rule  string
	crit  string
	draw  func(rng *rand.Rand, sid string) []*replay.Result
}

// knuthSize is 1 + Poisson(size − 1) by Knuth's method.
func knuthSize(rng *rand.Rand, size float64) int {
	m := 1
	if l := size - 1; l > 0 {
		L, p := math.Exp(-l), 1.0
		for p *= rng.Float64(); p > L; p *= rng.Float64() {
			m++
		}
	}
	return m
}

// dirichlet draws cell probabilities around probs at intra-class
// correlation icc (gamma variates normalised).
func dirichlet(rng *rand.Rand, probs []float64, icc float64) []float64 {
	out := append([]float64(nil), probs...)
	if icc == 0 {
		return out
	}
	var s float64
	for i, p := range probs {
		if p > 0 {
			out[i] = distuv.Gamma{Alpha: p * (1 - icc) / icc, Beta: 1, Src: rng}.Rand()
		}
		s += out[i]
	}
	for i := range out {
		out[i] /= s
	}
	return out
}

func cell(rng *rand.Rand, p []float64) int {
	u := rng.Float64()
	for i, q := range p {
		if u < q {
			return i
		}
		u -= q
	}
	return len(p) - 1
}

func recallModel(name string, recall, base, icc, size float64) guessModel {
	g := PlanGuesses{ICC: icc, SessionSize: size}
	_ = g.Set("recall", recall)
	_ = g.Set("baseline-recall", base)
	return guessModel{name: name, g: g, judge: "J", rule: "R", crit: CriterionDangerousRecall,
		draw: func(rng *rand.Rand, sid string) []*replay.Result {
			// The judge and the baseline catch a positive independently.
			p := dirichlet(rng, []float64{recall * base, recall * (1 - base), (1 - recall) * base, (1 - recall) * (1 - base)}, icc)
			var out []*replay.Result
			for c := range knuthSize(rng, size) {
				k := cell(rng, p)
				res, b := "no_match", "no_match"
				if k <= 1 {
					res = "match"
				}
				if k == 0 || k == 2 {
					b = "match"
				}
				out = append(out, &replay.Result{RunID: "r", CaseID: fmt.Sprintf("%s-%d", sid, c), SessionID: sid, Judge: "J",
					Rules: []replay.RuleResult{withBaseline(rr("R", "dangerous", "judge", res, "match", "ok", res == "match", -1), b)}})
			}
			return out
		}}
}

func latencyModel(name string, p50, p95, icc, size float64) guessModel {
	g := PlanGuesses{ICC: icc, SessionSize: size}
	g.SetLatency(p50, p95)
	sd := (math.Log(p95) - math.Log(p50)) / 1.6448536269514722
	return guessModel{name: name, g: g, judge: "J", rule: AllRules, crit: CriterionJudgeP95Max,
		draw: func(rng *rand.Rand, sid string) []*replay.Result {
			mu := math.Log(p50) + math.Sqrt(icc)*sd*rng.NormFloat64()
			var out []*replay.Result
			for c := range knuthSize(rng, size) {
				ms := math.Exp(mu + math.Sqrt(1-icc)*sd*rng.NormFloat64())
				out = append(out, &replay.Result{RunID: "r", CaseID: fmt.Sprintf("%s-%d", sid, c), SessionID: sid, Judge: "J",
					JudgeCalled: true, Calls: []replay.Call{call(ms, "ok", false)},
					Rules: []replay.RuleResult{rr("R", "style", "judge", "no_match", "", "ok", false, 0)}})
			}
			return out
		}}
}

func driftModel(name string, change, disagree, fire, icc, size float64) guessModel {
	g := PlanGuesses{ICC: icc, SessionSize: size}
	_ = g.Set("drift", change)
	_ = g.Set("disagree", disagree)
	_ = g.Set("fire", fire)
	b, c := (disagree+change)/2, (disagree-change)/2
	return guessModel{name: name, g: g, judge: "C", base: "B", rule: "X", crit: CriterionFireRateChangeMax,
		draw: func(rng *rand.Rand, sid string) []*replay.Result {
			p := dirichlet(rng, []float64{fire - c, b, c, 1 - fire - b}, icc)
			var out []*replay.Result
			for i := range knuthSize(rng, size) {
				k := cell(rng, p)
				fc, fb := k <= 1, k == 0 || k == 2
				id := fmt.Sprintf("%s-%d", sid, i)
				for _, j := range []struct {
					judge string
					fired bool
				}{{"B", fb}, {"C", fc}} {
					res := map[bool]string{true: "match", false: "no_match"}[j.fired]
					out = append(out, &replay.Result{RunID: "r", CaseID: id, SessionID: sid, Judge: j.judge,
						Rules: []replay.RuleResult{rr("X", "style", "judge", res, "", "ok", j.fired, -1)}})
				}
			}
			return out
		}}
}

// decides runs n independent runs of k sessions of m through the whole
// pipeline and returns the share whose criterion is decided.
func (m guessModel) decides(rng *rand.Rand, k, n int) float64 {
	var dec int
	for range n {
		a := New(Config{Criteria: replay.DefaultKillCriteria(), Baseline: m.base})
		for s := range k {
			for _, r := range m.draw(rng, fmt.Sprintf("s%d", s)) {
				a.Add(r)
			}
		}
		sum := a.Close()
		row := sum.Judge(m.judge).Total
		if m.rule != AllRules {
			row = sum.Judge(m.judge).Rule(m.rule)
		}
		if c := row.Criterion(m.crit); c != nil && c.Status != StatusInconclusive && c.Status != StatusNA {
			dec++
		}
	}
	return float64(dec) / float64(n)
}

// TestCalibrationPlanGuesses: a plan from guesses of dangerous recall,
// the P95 latency and the fire-rate drift predicts the share of runs of
// the planned size (and of a budget) that decide the criterion, runs
// drawn from the guessed model with other random numbers and samplers and
// decided by the whole pipeline (Accumulator, Close): within ±0.1 (goal),
// less the Monte Carlo error of the smoke.
func TestCalibrationPlanGuesses(t *testing.T) {
	t.Parallel()
	n, full := calibrationN()
	reps := 400
	if !full {
		n, reps = 40, 80
	} else {
		n = min(n, 400) // each run is a whole pipeline of hundreds of sessions
	}
	// The smoke's ±0.1 widened by 2 standard errors of its n runs.
	tol := 0.1
	if !full {
		tol += 2 * math.Sqrt(0.8*0.2/float64(n))
	}
	models := []guessModel{
		recallModel("recall 0.85 vs baseline 0.70, ICC 0.1, 3 positives a session", 0.85, 0.70, 0.1, 3),
		latencyModel("P95 800 ms (P50 400) vs 1 s, ICC 0.2, 5 calls a session", 400, 800, 0.2, 5),
		driftModel("drift +0.01 within ±0.05, disagree 0.06, ICC 0.1, 8 cases a session", 0.01, 0.06, 0.2, 0.1, 8),
		driftModel("drift +0.08 beyond ±0.05, disagree 0.12, ICC 0.1, 4 cases a session", 0.08, 0.12, 0.2, 0.1, 4),
	}
	if !full {
		models = models[:3]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| plan from guesses (%d simulated data sets a size) | planned sessions | plan's rate | independent runs (%d) | at a budget: plan / runs |\n|---|---|---|---|---|\n", reps, n)
	for i, m := range models {
		plans, err := Plan(replay.DefaultKillCriteria(), m.g, PlanOptions{Reps: reps, Seed: uint64(i + 1)})
		if err != nil || len(plans) != 1 || plans[0].Sessions == nil {
			t.Fatalf("%s: %+v %v", m.name, plans, err)
		}
		p := plans[0]
		k := int(*p.Sessions)
		rng := rand.New(rand.NewPCG(uint64(i+1), 0x9e55))
		got := m.decides(rng, k, n)
		if !full {
			// The smoke checks the planned size only.
			fmt.Fprintf(&b, "| %s | %d | %.3f | %.3f | – |\n", m.name, k, *p.DecideRate, got)
			if math.Abs(got-*p.DecideRate) > tol {
				t.Errorf("%s: plan says %d sessions decide %.3f, independent runs %.3f", m.name, k, *p.DecideRate, got)
			}
			continue
		}
		// A budget of half the planned sessions: the rate below the target.
		bud := max(2, k/2)
		po := PlanOptions{Reps: reps, Seed: uint64(i + 1), Budget: int64(bud)}
		pb, err := Plan(replay.DefaultKillCriteria(), m.g, po)
		if err != nil {
			t.Fatal(err)
		}
		predB := *pb[0].BudgetPass + *pb[0].BudgetFail
		gotB := m.decides(rng, bud, n)
		fmt.Fprintf(&b, "| %s | %d | %.3f | %.3f | %d sessions: %.3f / %.3f |\n", m.name, k, *p.DecideRate, got, bud, predB, gotB)
		if math.Abs(got-*p.DecideRate) > tol {
			t.Errorf("%s: plan says %d sessions decide %.3f, independent runs %.3f", m.name, k, *p.DecideRate, got)
		}
		if math.Abs(gotB-predB) > tol {
			t.Errorf("%s: at %d sessions the plan says %.3f, independent runs %.3f", m.name, bud, predB, gotB)
		}
	}
	t.Log("\n" + b.String())
}

func TestLabelGuesses(t *testing.T) {
	t.Parallel()
	var l LabelGuesses
	if g, err := l.Guess(); g != nil || err != nil {
		t.Errorf("none: %v %v", g, err)
	}
	for _, tc := range []struct {
		key  string
		v    float64
		want string
	}{
		{"unknown", 0.1, `"unknown": with --labels, give --rate precision=P`},
		{"precision", 1.1, "precision=1.1 is not a rate in [0, 1]"},
		{"recall", 0, "recall=0 is not a rate in [0, 1] (recall above 0)"},
	} {
		if err := l.Set(tc.key, tc.v); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s=%v: %v, want %q", tc.key, tc.v, err, tc.want)
		}
	}
	if err := l.Set("precision", 0.9); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Guess(); err == nil || !strings.Contains(err.Error(), "both precision=P and recall=R") {
		t.Errorf("one of two: %v", err)
	}
	if err := l.Set(" recall ", 0.8); err != nil {
		t.Fatal(err)
	}
	if g, err := l.Guess(); err != nil || *g != (LabelGuess{Precision: 0.9, Recall: 0.8}) {
		t.Errorf("both: %+v %v", g, err)
	}
	var on []string
	for _, c := range Criteria {
		if OnLabels(c.Name) {
			on = append(on, c.Name)
		}
	}
	if s := strings.Join(on, ","); s != "precision_min,dangerous_recall_must_beat_baseline,fire_rate_change_max" {
		t.Errorf("on labels: %s", s)
	}
}
