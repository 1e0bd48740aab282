package metrics

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/apeval/apeval/replay"
)

// The calibration suite (docs/statistics.md, "Measured calibration"):
// data with known truth, clustered by session, run through the real
// Accumulator; each setting asserts its goal. Plain `go test` (make test,
// CI) runs a fixed-seed smoke of every setting, calibrationSmoke
// replicates each, and asserts each goal less its Monte Carlo slack;
// `make calibrate` runs the full suite (APEVAL_CALIBRATE=N, or
// -calibrate N) against the goals themselves and prints the table the docs
// show.
var calibrateFlag = flag.Int("calibrate", 0, "replicates per calibration setting (0: the smoke count, or $APEVAL_CALIBRATE)")

// calibrationSmoke is the smoke's replicate count: every setting and
// method runs, in seconds rather than minutes on a loaded 2-core machine.
const calibrationSmoke = 60

// calibrationN is the replicate count and whether it is the full suite.
func calibrationN() (int, bool) {
	if *calibrateFlag > 0 {
		return *calibrateFlag, true
	}
	if v, err := strconv.Atoi(os.Getenv("APEVAL_CALIBRATE")); err == nil && v > 0 {
		return v, true
	}
	return calibrationSmoke, false
}

// smokeSlack is how far below (above) its goal a smoke rate may fall: 2.5
// binomial standard errors at the goal, so a method that meets its goal
// passes the smoke with probability ≥ 0.99 on any seed, and one that
// misses it by far does not.
func smokeSlack(goal float64, n int) float64 {
	return 2.5 * math.Sqrt(max(goal*(1-goal), 0.02)/float64(n))
}

// sessionRate draws a session's own rate: Beta with mean mu and
// intra-class correlation icc (mu itself at icc 0).
func sessionRate(rng *rand.Rand, mu, icc float64) float64 {
	if icc <= 0 {
		return mu
	}
	th := (1 - icc) / icc
	return distuv.Beta{Alpha: mu * th, Beta: (1 - mu) * th, Src: rng}.Rand()
}

// sizes is k sessions of m units each, the first holding big when big > 0.
func sizes(k, m, big int) []int {
	out := make([]int, k)
	for i := range out {
		out[i] = m
	}
	if big > 0 {
		out[0] = big
	}
	return out
}

// calSetting is one row of the calibration table.
type calSetting struct {
	name string
	goal string // "coverage ≥ 0.925", "type I ≤ 0.075", "≤ 0.04"
	// run makes one replicate's data from rng and reports whether the
	// event counted (covered, rejected, GO, FAIL, PASS) happened.
	run func(rng *rand.Rand) bool
	// want checks the rate of the event, allowing slack.
	want func(rate, slack float64) bool
}

// recallCoverage: k sessions (sizes sz) of labeled positives, each caught
// at the session's own rate around mu; the event is "the recall interval
// covers mu".
func recallCoverage(sz []int, mu, icc float64) func(*rand.Rand) bool {
	return func(rng *rand.Rand) bool {
		var rs []*replay.Result
		for s, m := range sz {
			p := sessionRate(rng, mu, icc)
			for i := range m {
				res := "no_match"
				if rng.Float64() < p {
					res = "match"
				}
				rs = append(rs, &replay.Result{CaseID: fmt.Sprintf("s%d-%d", s, i), SessionID: fmt.Sprintf("s%d", s), Judge: "J",
					Rules: []replay.RuleResult{rr("R", "style", "judge", res, "match", "ok", res == "match", -1)}})
			}
		}
		r := closeAll(rs, "").Judges[0].Rules[0]
		return *r.RecallLo <= mu && mu <= *r.RecallHi
	}
}

// unknownCoverage: the same for a rate near 0, the unknown rate.
func unknownCoverage(sz []int, mu, icc float64) func(*rand.Rand) bool {
	return func(rng *rand.Rand) bool {
		var rs []*replay.Result
		for s, m := range sz {
			p := sessionRate(rng, mu, icc)
			for i := range m {
				res, st := "no_match", "ok"
				if rng.Float64() < p {
					res, st = "unknown", "unknown"
				}
				rs = append(rs, &replay.Result{CaseID: fmt.Sprintf("s%d-%d", s, i), SessionID: fmt.Sprintf("s%d", s), Judge: "J",
					Rules: []replay.RuleResult{rr("R", "style", "judge", res, "", st, false, -1)}})
			}
		}
		r := closeAll(rs, "").Judges[0].Rules[0]
		return *r.UnknownRateLo <= mu && mu <= *r.UnknownRateHi
	}
}

// precisionAtThreshold: every predicted match is a true positive at the
// session's own rate around 0.90, exactly precision_min; the event is
// precision_min PASS, which a GO needs.
func precisionAtThreshold(sz []int, icc float64) func(*rand.Rand) bool {
	return func(rng *rand.Rand) bool {
		var rs []*replay.Result
		for s, m := range sz {
			p := sessionRate(rng, 0.9, icc)
			for i := range m {
				label := "no_match"
				if rng.Float64() < p {
					label = "match"
				}
				rs = append(rs, &replay.Result{CaseID: fmt.Sprintf("s%d-%d", s, i), SessionID: fmt.Sprintf("s%d", s), Judge: "J",
					Rules: []replay.RuleResult{rr("R", "style", "judge", "match", label, "ok", true, -1)}})
			}
		}
		r := closeAll(rs, "").Judges[0].Rules[0]
		return r.Status(CriterionPrecisionMin) == StatusPass
	}
}

// precisionInformative: k sessions of n pairs whose share of positives
// (around 0.1) and the judge's recall on them (around 0.8) are each
// drawn per session with the ICC; the judge matches 2 % of negatives.
// Sessions rich in positives hold more matches and are more precise
// (informative session size): the truth is the pooled precision
// 0.08/(0.08 + 0.02·0.9). Only the matches are generated (the pairs
// precision counts). The event is "the precision interval covers it".
func precisionInformative(k, n int, icc float64) func(*rand.Rand) bool {
	const truth = 0.08 / (0.08 + 0.02*0.9)
	return func(rng *rand.Rand) bool {
		var rs []*replay.Result
		for s := range k {
			tp, fp := infoSession(rng, n, icc)
			for i := range tp + fp {
				label := "match"
				if i >= tp {
					label = "no_match"
				}
				rs = append(rs, &replay.Result{CaseID: fmt.Sprintf("s%d-%d", s, i), SessionID: fmt.Sprintf("s%d", s), Judge: "J",
					Rules: []replay.RuleResult{rr("R", "style", "judge", "match", label, "ok", true, -1)}})
			}
		}
		r := closeAll(rs, "").Judges[0].Rules[0]
		return *r.PrecisionLo <= truth && truth <= *r.PrecisionHi
	}
}

// infoSession is one session of precisionInformative's model: its true
// and false positives among n pairs.
func infoSession(rng *rand.Rand, n int, icc float64) (tp, fp int) {
	pi, rc := sessionRate(rng, 0.1, icc), sessionRate(rng, 0.8, icc)
	for range n {
		if rng.Float64() < pi {
			if rng.Float64() < rc {
				tp++
			}
		} else if rng.Float64() < 0.02 {
			fp++
		}
	}
	return tp, fp
}

// driftAtLimit: the baseline fires at the session's own rate p around
// 0.2; the candidate drops a tenth of the baseline's fires and fires
// elsewhere at (0.05 + 0.1p)/(1 − p), so that its fire rate is exactly
// 0.05 higher in every session: the true change sits on
// fire_rate_change_max. The event is the drift criterion's status being
// want.
func driftAtLimit(sz []int, icc float64, want Status) func(*rand.Rand) bool {
	return func(rng *rand.Rand) bool {
		var rs []*replay.Result
		for s, m := range sz {
			p := sessionRate(rng, 0.2, icc)
			q := (0.05 + 0.1*p) / (1 - p)
			for i := range m {
				fb := rng.Float64() < p
				fc := rng.Float64() < q
				if fb {
					fc = rng.Float64() >= 0.1
				}
				for _, j := range [2]struct {
					id    string
					fired bool
				}{{"B", fb}, {"C", fc}} {
					res := "no_match"
					if j.fired {
						res = "match"
					}
					rs = append(rs, &replay.Result{CaseID: fmt.Sprintf("s%d-%d", s, i), SessionID: fmt.Sprintf("s%d", s), Judge: j.id,
						Rules: []replay.RuleResult{rr("R", "style", "judge", res, "", "ok", j.fired, -1)}})
				}
			}
		}
		sum := closeAll(rs, "B")
		return sum.Judge("C").Rules[0].Status(CriterionFireRateChangeMax) == want
	}
}

// driftCoverage: fire-rate drift's interval covers the true change. Each
// session draws its shares of units fired by the candidate only, by the
// baseline only, by both and by neither from a Dirichlet with means
// (pc, pb, both, rest) and intra-class correlation icc (each share Beta with
// that ICC; the two discordance shares correlate negatively, as shares of
// one session's units do); the true change is pc − pb. The event is the
// change lying inside fire_rate_change_max's interval.
func driftCoverage(sz []int, icc, pc, pb float64) func(*rand.Rand) bool {
	const both = 0.1
	return func(rng *rand.Rand) bool {
		var rs []*replay.Result
		means := [4]float64{pc, pb, both, 1 - pc - pb - both}
		for s, m := range sz {
			var share [4]float64
			if icc <= 0 {
				share = means
			} else {
				th := (1 - icc) / icc
				var t float64
				for i, mu := range means {
					share[i] = distuv.Gamma{Alpha: th * mu, Beta: 1, Src: rng}.Rand()
					t += share[i]
				}
				for i := range share {
					share[i] /= t
				}
			}
			for i := range m {
				u := rng.Float64()
				fc := u < share[0] || (u >= share[0]+share[1] && u < share[0]+share[1]+share[2])
				fb := u >= share[0] && u < share[0]+share[1]+share[2]
				for _, j := range [2]struct {
					id    string
					fired bool
				}{{"B", fb}, {"C", fc}} {
					res := "no_match"
					if j.fired {
						res = "match"
					}
					rs = append(rs, &replay.Result{CaseID: fmt.Sprintf("s%d-%d", s, i), SessionID: fmt.Sprintf("s%d", s), Judge: j.id,
						Rules: []replay.RuleResult{rr("R", "style", "judge", res, "", "ok", j.fired, -1)}})
				}
			}
		}
		c := closeAll(rs, "B").Judge("C").Rules[0].Criterion(CriterionFireRateChangeMax)
		return c != nil && c.Lo != nil && c.Hi != nil && *c.Lo <= pc-pb && pc-pb <= *c.Hi
	}
}

// pairedNull: two judges with the same session rates (drawn once per
// session, units independent given them): the named figure of the
// comparison's rule R should be marked (p < 0.05) at most 7.5 % of the
// time. Recall: labeled positives caught at the rate; precision: every
// labeled case matched by each judge at the rate, a match a true positive
// at 0.8.
func pairedNull(sz []int, icc float64, figure string) func(*rand.Rand) bool {
	return func(rng *rand.Rand) bool {
		var rs []*replay.Result
		for s, m := range sz {
			p := sessionRate(rng, 0.6, icc)
			q := sessionRate(rng, 0.8, icc)
			for i := range m {
				label := "match"
				if figure == FigurePrecision && rng.Float64() >= q {
					label = "no_match"
				}
				for _, j := range []string{"B", "C"} {
					res := "no_match"
					if rng.Float64() < p {
						res = "match"
					}
					rs = append(rs, &replay.Result{CaseID: fmt.Sprintf("s%d-%d", s, i), SessionID: fmt.Sprintf("s%d", s), Judge: j,
						Rules: []replay.RuleResult{rr("R", "style", "judge", res, label, "ok", res == "match", -1)}})
				}
			}
		}
		f := figureNamed(closeAll(rs, "B").Comparisons[0].Rules[0], figure)
		return f.PValue != nil && *f.PValue < 0.05
	}
}

// p95Null: 200 calls per judge; the baseline's latencies uniform on
// [0, 1000] ms, the candidate's half on [0, 200], 45 % on [200, 950] and
// 5 % on [950, 1000]: both P95s are 950 ms, the medians 500 and 200. The
// event is the P95 figure marked (p < 0.05).
func p95Null(rng *rand.Rand) bool {
	var rs []*replay.Result
	for i := range 200 {
		for _, j := range []string{"B", "C"} {
			u := rng.Float64()
			lat := 1000 * u
			if j == "C" {
				switch {
				case u < 0.5:
					lat = 200 * u / 0.5
				case u < 0.95:
					lat = 200 + 750*(u-0.5)/0.45
				default:
					lat = 950 + 50*(u-0.95)/0.05
				}
			}
			rs = append(rs, &replay.Result{CaseID: fmt.Sprintf("c%d", i), SessionID: fmt.Sprintf("c%d", i), Judge: j,
				Calls: []replay.Call{call(lat, "ok", false)},
				Rules: []replay.RuleResult{rr("R", "style", "judge", "no_match", "", "ok", false, 0)}})
		}
	}
	f := figureNamed(closeAll(rs, "B").Comparisons[0].Total, FigureLatencyP95)
	return f.PValue != nil && *f.PValue < 0.05
}

// manyRulesNull: 8 rules, two judges with the same rates (per session and
// rule), 30 sessions × 8 cases: the event is any figure of any rule (or
// the total) marked by its q-value — what a reader of a null comparison
// would see.
func manyRulesNull(rng *rand.Rand) bool {
	var rs []*replay.Result
	for s := range 30 {
		var rate [8]float64
		for k := range rate {
			rate[k] = sessionRate(rng, 0.3, 0.2)
		}
		for i := range 8 {
			labels := make([]string, 8)
			for k := range labels {
				labels[k] = "no_match"
				if rng.Float64() < 0.5 {
					labels[k] = "match"
				}
			}
			for _, j := range []string{"B", "C"} {
				res := &replay.Result{CaseID: fmt.Sprintf("s%d-%d", s, i), SessionID: fmt.Sprintf("s%d", s), Judge: j}
				for k := range 8 {
					out := "no_match"
					if rng.Float64() < rate[k] {
						out = "match"
					}
					res.Rules = append(res.Rules, rr(fmt.Sprintf("R%d", k), "style", "judge", out, labels[k], "ok", out == "match", -1))
				}
				rs = append(rs, res)
			}
		}
	}
	c := closeAll(rs, "B").Comparisons[0]
	for _, rc := range append(c.Rules, c.Total) {
		for _, f := range rc.Figures {
			if f.Significant(0.95) {
				return true
			}
		}
	}
	return false
}

func figureNamed(rc *RuleComparison, name string) Figure {
	for _, f := range rc.Figures {
		if f.Figure == name {
			return f
		}
	}
	return Figure{}
}

func closeAll(rs []*replay.Result, baseline string) *Summary {
	a := New(Config{Criteria: replay.DefaultKillCriteria(), Baseline: baseline, SpillBudget: -1})
	for _, r := range rs {
		a.Add(r)
	}
	return a.Close()
}

// atLeast and atMost are goals on a rate; the smoke allows smokeSlack.
func atLeast(v float64) func(float64, float64) bool {
	return func(r, slack float64) bool { return r >= v-slack }
}
func atMost(v float64) func(float64, float64) bool {
	return func(r, slack float64) bool { return r <= v+slack }
}

// goalValue is the number a goal names ("coverage ≥ 0.925" → 0.925).
func goalValue(goal string) float64 {
	f := strings.Fields(goal)
	v, _ := strconv.ParseFloat(f[len(f)-1], 64)
	return v
}

func calibrationSettings() []calSetting {
	cov := "coverage ≥ 0.925"
	return []calSetting{
		{"recall 0.8, 10 sessions × 10, ICC 0.1", cov, recallCoverage(sizes(10, 10, 0), 0.8, 0.1), atLeast(0.925)},
		{"recall 0.8, 10 sessions × 10, ICC 0.3", cov, recallCoverage(sizes(10, 10, 0), 0.8, 0.3), atLeast(0.925)},
		{"recall 0.8, 30 sessions × 10, ICC 0.3", cov, recallCoverage(sizes(30, 10, 0), 0.8, 0.3), atLeast(0.925)},
		{"recall 0.8, 5 sessions × 10, ICC 0.3", cov, recallCoverage(sizes(5, 10, 0), 0.8, 0.3), atLeast(0.925)},
		{"recall 0.97, 20 sessions × 10, ICC 0.3", cov, recallCoverage(sizes(20, 10, 0), 0.97, 0.3), atLeast(0.925)},
		{"recall 0.8, one session of 100 and 9 of 3, ICC 0.3", cov, recallCoverage(sizes(10, 3, 100), 0.8, 0.3), atLeast(0.925)},
		{"recall 0.8, 30 sessions × 10, ICC 0", cov, recallCoverage(sizes(30, 10, 0), 0.8, 0), atLeast(0.925)},
		{"recall 0.8, 200 sessions of 1 (plain Wilson)", cov, recallCoverage(sizes(200, 1, 0), 0.8, 0), atLeast(0.925)},
		{"unknown rate 0.03, 20 sessions × 10, ICC 0.3", cov, unknownCoverage(sizes(20, 10, 0), 0.03, 0.3), atLeast(0.925)},
		{"precision exactly 0.90, 50 sessions × 20, ICC 0.1: precision_min PASS", "≤ 0.04", precisionAtThreshold(sizes(50, 20, 0), 0.1), atMost(0.04)},
		{"precision exactly 0.90, 100 sessions × 5, ICC 0.3: precision_min PASS", "≤ 0.04", precisionAtThreshold(sizes(100, 5, 0), 0.3), atMost(0.04)},
		{"fire rate +0.05 exactly, 40 sessions × 50, ICC 0.2: drift FAIL", "≤ 0.04", driftAtLimit(sizes(40, 50, 0), 0.2, StatusFail), atMost(0.04)},
		{"fire rate +0.05 exactly, 40 sessions × 50, ICC 0.2: drift PASS", "≤ 0.04", driftAtLimit(sizes(40, 50, 0), 0.2, StatusPass), atMost(0.04)},
		{"fire-rate change 0.3 − 0.21 of units discordant, 3 sessions × 50, ICC 0.5: drift interval", cov, driftCoverage(sizes(3, 50, 0), 0.5, 0.3, 0.21), atLeast(0.925)},
		{"fire-rate change 0.3 − 0.21 of units discordant, 4 sessions × 20, ICC 0.5: drift interval", cov, driftCoverage(sizes(4, 20, 0), 0.5, 0.3, 0.21), atLeast(0.925)},
		{"fire-rate change 0.3 − 0.21 of units discordant, 5 sessions × 20, ICC 0.5: drift interval", cov, driftCoverage(sizes(5, 20, 0), 0.5, 0.3, 0.21), atLeast(0.925)},
		{"fire-rate change 0.3 − 0.21 of units discordant, 8 sessions × 20, ICC 0.5: drift interval", cov, driftCoverage(sizes(8, 20, 0), 0.5, 0.3, 0.21), atLeast(0.925)},
		{"precision 0.816, informative session size (positives 0.1 and recall 0.8 per session at ICC 0.5), 20 sessions × 150 pairs", cov, precisionInformative(20, 150, 0.5), atLeast(0.925)},
		{"recall Δ, equal judges, 20 sessions × 10, ICC 0.3: sign-flip p < 0.05", "type I ≤ 0.075", pairedNull(sizes(20, 10, 0), 0.3, FigureRecall), atMost(0.075)},
		{"recall Δ, equal judges, 6 sessions × 10, ICC 0.3: sign-flip p < 0.05", "type I ≤ 0.075", pairedNull(sizes(6, 10, 0), 0.3, FigureRecall), atMost(0.075)},
		{"precision Δ, equal judges, 20 sessions × 10, ICC 0.3: delta-t p < 0.05", "type I ≤ 0.075", pairedNull(sizes(20, 10, 0), 0.3, FigurePrecision), atMost(0.075)},
		{"P95 Δ, equal P95s, medians 500 vs 200 ms, 200 calls each: bootstrap p < 0.05", "type I ≤ 0.075", p95Null, atMost(0.075)},
		{"8 rules × 8 figures, equal judges: any figure marked by its q-value", "≤ 0.075", manyRulesNull, atMost(0.075)},
	}
}

// TestCalibration runs every setting and checks its goal; with -v (or
// `make calibrate`) it prints the table docs/statistics.md shows.
func TestCalibration(t *testing.T) {
	n, full := calibrationN()
	settings := calibrationSettings()
	rates := make([]float64, len(settings))
	var wg sync.WaitGroup
	for i, s := range settings {
		t.Run(s.name, func(t *testing.T) {
			wg.Add(1)
			defer wg.Done()
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(i+1), 0xca11b))
			hits := 0
			for range n {
				if s.run(rng) {
					hits++
				}
			}
			rates[i] = float64(hits) / float64(n)
			slack := 0.0
			if !full {
				slack = smokeSlack(goalValue(s.goal), n)
			}
			if !s.want(rates[i], slack) {
				t.Errorf("%s: %.3f over %d replicates, goal %s (slack %.3f)", s.name, rates[i], n, s.goal, slack)
			}
		})
	}
	t.Cleanup(func() {
		wg.Wait()
		var b strings.Builder
		fmt.Fprintf(&b, "| setting (%d replicates each) | goal | measured |\n|---|---|---|\n", n)
		for i, s := range settings {
			fmt.Fprintf(&b, "| %s | %s | %.3f (±%.3f) |\n", s.name, s.goal, rates[i], math.Sqrt(rates[i]*(1-rates[i])/float64(n)))
		}
		t.Log("\n" + b.String())
	})
}
