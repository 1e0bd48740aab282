package metrics

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apeval/apeval/replay"
)

func TestMcNemarExactPublished(t *testing.T) {
	t.Parallel()
	// The issue's own recomputation from the sample's decisions.parquet:
	// recall 5 vs 33 discordant positives, p ≈ 4e-6; false positives 19 vs
	// 1, p ≈ 4e-5. Exact: 2·Σ_{k≤5} C(38,k)/2³⁸ = 2·584935/274877906944 =
	// 4.25596e-6, and 2·(1 + 20)/2²⁰ = 4.00543e-5.
	near(t, "5 vs 33", McNemarTwoSided(5, 33), 4.255962267052382e-06, 1e-15)
	near(t, "19 vs 1", McNemarTwoSided(19, 1), 4.00543212890625e-05, 1e-15)
}

func TestSignFlipHand(t *testing.T) {
	t.Parallel()
	// Four sessions, discordant units (b_i = baseline only, c_i =
	// candidate only):
	//
	//	session  b_i  c_i  d_i = b_i − c_i
	//	S1        2    0        2
	//	S2        1    0        1
	//	S3        0    1       −1
	//	S4        3    1        2
	//	                   T = Σd = 4
	//
	// The 16 sign flips: the ±1 pair sums to −2, 0, 0, 2 and the ±2 pair
	// to −4, 0, 0, 4; |sum| ≥ 4 needs the ±2 pair at ±4 and the ±1 pair
	// not against it: 3 + 3 of 16 → p = 0.375; P(T* ≥ 4) = 3/16.
	r := SignFlip([]int64{2, 1, -1, 2}, 1)
	near(t, "two-sided", r.two, 0.375, 1e-12)
	near(t, "greater", r.greater, 0.1875, 1e-12)
	if r.mcErr != nil {
		t.Error("exact test with a Monte Carlo error")
	}
	// Four sessions each at +3: only all-plus and all-minus reach |12|:
	// 2/16 = 0.125 (Durkalski's χ² gave 0.0455).
	near(t, "four at +3", SignFlip([]int64{3, 3, 3, 3}, 1).two, 0.125, 1e-12)
	near(t, "no discordance", SignFlip([]int64{0, 0}, 1).two, 1, 0)

	// The same table through the scratch: S1 and S4 hold more than one
	// discordant unit.
	sc := newLaneSums(1, false, 0, nil)
	for _, u := range []struct {
		s    uint32
		b, c int
	}{{0, 2, 0}, {1, 1, 0}, {2, 0, 1}, {3, 3, 1}} {
		for range u.b {
			sc.addDisc(u.s, 0, true, false)
		}
		for range u.c {
			sc.addDisc(u.s, 0, false, true)
		}
		sc.addDisc(u.s, 0, false, false) // concordant: ignored
	}
	sc.done()
	m := sc.mcnemar(0)
	if !m.clustered || m.b != 6 || m.c != 2 || m.test() != TestSignFlip {
		t.Errorf("mcnemar %+v", m)
	}
	near(t, "via scratch", m.flip(1).two, 0.375, 1e-12)
	// One discordant unit per session: exact McNemar on b vs c.
	for i := range uint32(4) {
		sc.addDisc(i, 0, i < 3, i == 3)
	}
	sc.done()
	m = sc.mcnemar(0)
	if m.clustered {
		t.Errorf("one per session: %+v", m)
	}
	near(t, "exact 3 vs 1", m.flip(1).two, McNemarTwoSided(3, 1), 0)
	// With every |d_i| = 1 the dynamic programme itself gives McNemar.
	near(t, "dp = McNemar", SignFlip([]int64{1, 1, 1, 1, 1, 1, -1}, 1).two, McNemarTwoSided(6, 1), 1e-12)
	near(t, "dp = McNemar one-sided", SignFlip([]int64{1, 1, 1, 1, 1, 1, -1}, 1).greater, McNemarGreater(6, 1), 1e-12)

	// Too many distinct sums for the exact distribution: Monte Carlo, with
	// its error, near the normal approximation Z = Σd/√Σd².
	var big []int64
	for i := range 3000 {
		big = append(big, int64(i%37+1)*[]int64{1, 1, -1}[i%3])
	}
	r = SignFlip(big, 7)
	if r.mcErr == nil || *r.mcErr <= 0 {
		t.Fatalf("no Monte Carlo error: %+v", r)
	}
	var s, ss float64
	for _, d := range big {
		s += float64(d)
		ss += float64(d * d)
	}
	near(t, "monte carlo vs normal", r.two, 2*normalSurvival(math.Abs(s)/math.Sqrt(ss)), 5**r.mcErr+0.005)
}

// TestNormalTailErfc: p-values far in the tail stay above 0 (1 − Erf
// underflows to 0 there; Erfc does not).
func TestNormalTailErfc(t *testing.T) {
	t.Parallel()
	var x, y []float64
	for i := range 200 {
		x = append(x, float64(i))
		y = append(y, float64(1000+i))
	}
	_, p := MannWhitney(x, y)
	if !(p > 0) {
		t.Errorf("Mann–Whitney p = %v on fully separated samples of 200, want a tiny positive", p)
	}
}

func TestMannWhitneyTies(t *testing.T) {
	t.Parallel()
	// x = 1 2 2 3, y = 2 3 4 4 5. Pooled ranks: 1→1; the three 2s share
	// ranks 2..4 → 3; the two 3s 5,6 → 5.5; the two 4s 7,8 → 7.5; 5 → 9.
	// R_y = 3 + 5.5 + 7.5 + 7.5 + 9 = 32.5, U_y = 32.5 − 5·6/2 = 17.5.
	// Mean n₁n₂/2 = 10. Ties Σ(t³ − t) = 24 + 6 + 6 = 36:
	// σ² = 20/12 · (10 − 36/(9·8)) = 15.8333, σ = 3.97911.
	// z = (|17.5 − 10| − 0.5)/σ = 1.75919, p = 2(1 − Φ(z)) = 0.0785459.
	// Reference: scipy.stats.mannwhitneyu([2,3,4,4,5], [1,2,2,3],
	// method="asymptotic") (use_continuity=True, tie-corrected) gives
	// statistic 17.5, pvalue 0.0785459.
	u, p := MannWhitney([]float64{1, 2, 2, 3}, []float64{2, 3, 4, 4, 5})
	near(t, "U", u, 17.5, 0)
	near(t, "p", p, 0.0785458509511907, 1e-9)
	// Symmetric in the samples' order except U.
	u2, p2 := MannWhitney([]float64{2, 3, 4, 4, 5}, []float64{1, 2, 2, 3})
	near(t, "U other way", u2, 20-17.5, 0)
	near(t, "p other way", p2, p, 1e-15)
	// All equal: σ = 0 → p = 1.
	if _, p := MannWhitney([]float64{5, 5}, []float64{5}); p != 1 {
		t.Errorf("all tied p = %v", p)
	}
}

// bruteForceBB is the equal-tailed 95 % posterior interval of μ under the
// beta-binomial model (bruteForceBBAt at 0.95) with a flat prior on μ and the Beta(1, bbRhoPrior)
// prior on ρ, by a plain uniform 2000 × 400 midpoint grid in (μ, ρ): an
// implementation independent of bbPosterior's adaptive grids.
func bruteForceBB(ys, ms []int64) (lo, hi float64) { return bruteForceBBAt(ys, ms, 0.95) }

// bruteForceBBAt is bruteForceBB's equal-tailed interval at credible
// level cred.
func bruteForceBBAt(ys, ms []int64, cred float64) (lo, hi float64) {
	return bruteForceMarg(ys, ms).at(cred)
}

// bruteMarg is the marginal posterior of μ on bruteNM cells of [0, 1]
// (bruteForceMarg): one integration gives the interval at every level.
type bruteMarg []float64

const bruteNM, bruteNR = 2000, 400

// bruteForceMarg integrates the model on a bruteNM × bruteNR grid of (μ, ρ).
// Sessions with the same (y, m) are one term times their count: the same
// sum, computed once.
func bruteForceMarg(ys, ms []int64) bruteMarg {
	const nm, nr = bruteNM, bruteNR
	lbeta := func(a, b float64) float64 {
		x, _ := math.Lgamma(a)
		y, _ := math.Lgamma(b)
		z, _ := math.Lgamma(a + b)
		return x + y - z
	}
	type group struct{ y, f, n float64 }
	var groups []group
	count := map[[2]int64]int{}
	for i := range ms {
		k := [2]int64{ys[i], ms[i]}
		if j, ok := count[k]; ok {
			groups[j].n++
			continue
		}
		count[k] = len(groups)
		groups = append(groups, group{float64(ys[i]), float64(ms[i] - ys[i]), 1})
	}
	sessions := float64(len(ms))
	logp := make([]float64, nm*nr)
	top := math.Inf(-1)
	for j := range nm {
		mu := (float64(j) + 0.5) / nm
		for k := range nr {
			rho := (float64(k) + 0.5) / nr
			th := (1 - rho) / rho
			a, b := mu*th, (1-mu)*th
			l := (bbRhoPrior-1)*math.Log1p(-rho) - sessions*lbeta(a, b)
			for _, g := range groups {
				l += g.n * lbeta(g.y+a, g.f+b)
			}
			logp[j*nr+k] = l
			top = max(top, l)
		}
	}
	marg := make(bruteMarg, nm)
	for j := range nm {
		for k := range nr {
			marg[j] += math.Exp(logp[j*nr+k] - top)
		}
	}
	return marg
}

// at is the equal-tailed interval at credible level cred.
func (marg bruteMarg) at(cred float64) (lo, hi float64) {
	nm := len(marg)
	qa, qb := (1-cred)/2, 1-(1-cred)/2
	var tot float64
	for _, v := range marg {
		tot += v
	}
	var c float64
	lo, hi = -1, -1
	for j := range nm {
		prev := c
		c += marg[j] / tot
		// Linear within the cell [j/nm, (j+1)/nm].
		at := func(q float64) float64 { return (float64(j) + (q-prev)/(c-prev)) / float64(nm) }
		if lo < 0 && c >= qa {
			lo = at(qa)
		}
		if hi < 0 && c >= qb {
			hi = at(qb)
		}
	}
	return lo, hi
}

// TestClusteredIntervalReference checks the beta-binomial posterior
// behind ClusteredInterval's fallback (bbInterval) against an independent
// brute-force integration of the same model (bruteForceBB), and that
// interval against its definition: the posterior's bound on the side away
// from the nearer end of [0, 1] at the credible level fewLevel sets for
// the sessions (Student's t of 95 % on 3(K − 1) df from 3 sessions on:
// 0.9856 with 3 sessions, 0.9707 with 5, 0.9624 with 8), the hull with
// Wilson at the observed rate (at the posterior's width) on the side
// toward it.
func TestClusteredIntervalReference(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ys, ms []int64
	}{
		{[]int64{3, 1, 0}, []int64{4, 4, 2}},
		// 40 of 40 in one session: no PASS of precision ≥ 0.90 here.
		{[]int64{40}, []int64{40}},
		// p̂ = 1 over five sessions: as wide as five sessions warrant.
		{[]int64{5, 5, 5, 5, 5}, []int64{5, 5, 5, 5, 5}},
		{[]int64{9, 8, 10, 7}, []int64{10, 10, 10, 10}},
		// No event in eight sessions of 35.
		{[]int64{0, 0, 0, 0, 0, 0, 0, 0}, []int64{35, 35, 35, 35, 35, 35, 35, 35}},
	} {
		marg := bruteForceMarg(c.ys, c.ms) // one integration, both levels
		blo, bhi := marg.at(0.95)
		p := newBBPosterior(c.ys, c.ms, 1)
		p.fit()
		name := fmt.Sprint(c.ys, c.ms)
		near(t, name+" posterior lo", p.quantile(0.025), blo, 0.003)
		near(t, name+" posterior hi", p.quantile(0.975), bhi, 0.003)
		// The interval's bounds are the posterior's at the raised level.
		if cred := fewLevel(0.95, float64(len(c.ms))); cred != 0.95 {
			blo, bhi = marg.at(cred)
		}
		lo, hi, deff := newBBPosterior(c.ys, c.ms, 1).bbInterval(0.95)
		var y, m int64
		for i := range c.ms {
			y, m = y+c.ys[i], m+c.ms[i]
		}
		rate := float64(y) / float64(m)
		if lo > blo+0.003 || hi < bhi-0.003 || lo > rate || hi < rate {
			t.Errorf("%s: [%v, %v] does not hold the posterior's [%v, %v] and %v", name, lo, hi, blo, bhi, rate)
		}
		// The far side is the posterior's own bound.
		if far := hi; rate >= 0.5 {
			far = lo
			near(t, name+" far side", far, max(blo, 0), 0.003)
		} else {
			near(t, name+" far side", far, max(bhi, rate), 0.003)
		}
		n := float64(m) / deff
		wl, wh := Wilson(rate*n, n, z95)
		near(t, name+" deff width", wh-wl, hi-lo, 1e-9)
	}
	// One unit per session: plain Wilson.
	lo, hi, _ := ClusteredInterval([]int64{1, 0, 1, 1}, []int64{1, 1, 1, 1}, 0.95)
	wl, wh := Wilson(3, 4, z95)
	near(t, "wilson lo", lo, wl, 1e-12)
	near(t, "wilson hi", hi, wh, 1e-12)
}

// TestOneUnitPerSessionIsPlainWilson: when every session holds one unit
// the clustered intervals are exactly the unclustered ones.
func TestOneUnitPerSessionIsPlainWilson(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := range 50 {
		n := 1 + rng.IntN(200)
		var rs []*replay.Result
		for i := range n {
			label := []string{"match", "no_match", ""}[rng.IntN(3)]
			res := []string{"match", "no_match", "unknown"}[rng.IntN(3)]
			st := "ok"
			if res == "unknown" {
				st = "unknown"
			}
			rs = append(rs, &replay.Result{CaseID: fmt.Sprintf("c%d", i), SessionID: fmt.Sprintf("s%d", i), Judge: "J",
				JudgeCalled: rng.IntN(2) == 0,
				Rules:       []replay.RuleResult{rr("R", "style", "judge", res, label, st, res == "match", -1)}})
		}
		s := summarize(t, Config{Criteria: replay.DefaultKillCriteria()}, rs)
		for _, r := range []*Row{s.Judges[0].Rules[0], s.Judges[0].Total} {
			check := func(what string, x, m int64, deff, lo, hi *float64) {
				if m == 0 {
					if deff != nil || lo != nil {
						t.Errorf("trial %d %s %s: no units but deff %v", trial, r.RuleID, what, deff)
					}
					return
				}
				l, h := Wilson(float64(x), float64(m), zScore(0.95))
				if *deff != 1 || *lo != l || *hi != h {
					t.Errorf("trial %d %s %s %d/%d: deff %v [%v, %v], want 1 [%v, %v]", trial, r.RuleID, what, x, m, *deff, *lo, *hi, l, h)
				}
			}
			check("precision", r.TP, r.TP+r.FP, r.PrecisionDeff, r.PrecisionLo, r.PrecisionHi)
			check("recall", r.TP, r.TP+r.FN, r.RecallDeff, r.RecallLo, r.RecallHi)
			check("unknown", r.Unknown.Total(), r.Judged, r.UnknownRateDeff, r.UnknownRateLo, r.UnknownRateHi)
		}
		tot := s.Judges[0].Total
		check := tot.JudgeRequiredRateDeff
		l, h := Wilson(float64(tot.JudgeRequired), float64(tot.Cases), zScore(0.95))
		if *check != 1 || *tot.JudgeRequiredRateLo != l || *tot.JudgeRequiredRateHi != h {
			t.Errorf("trial %d judge-required: deff %v", trial, *check)
		}
	}
}

// TestClusteredRowIntervals: a rule whose positives sit in few sessions
// gets the clustered interval of its sessions, and a design effect above 1.
func TestClusteredRowIntervals(t *testing.T) {
	t.Parallel()
	// Recall units: session a 4 positives, 3 caught; b 4 positives, 1
	// caught; c 2 positives, none caught → the (3,4), (1,4), (0,2) table
	// of TestClusteredIntervalReference.
	var rs []*replay.Result
	add := func(sess string, n, hits int) {
		for i := range n {
			res := "no_match"
			if i < hits {
				res = "match"
			}
			rs = append(rs, &replay.Result{CaseID: fmt.Sprintf("%s%d", sess, i), SessionID: sess, Judge: "J",
				Rules: []replay.RuleResult{rr("R", "style", "judge", res, "match", "ok", res == "match", -1)}})
		}
	}
	add("a", 4, 3)
	add("b", 4, 1)
	add("c", 2, 0)
	s := summarize(t, Config{Criteria: replay.DefaultKillCriteria()}, rs)
	r := s.Judges[0].Rules[0]
	lo, hi, _ := ClusteredInterval([]int64{3, 1, 0}, []int64{4, 4, 2}, 0.95)
	near(t, "recall lo", *r.RecallLo, lo, 0)
	near(t, "recall hi", *r.RecallHi, hi, 0)
	// The data's design effect, by hand: R = 4/10; residuals 1.4, −0.6,
	// −0.8 over 1 − m/M = 0.6, 0.6, 0.8 give Σ = 4.6667, v = 0.046667
	// against R(1 − R)/M = 0.024: 1.9444 (the few-session interval is
	// wider than that; its reason says so, not the deff).
	near(t, "recall deff", *r.RecallDeff, 4.666666666666667/100/0.024, 1e-9)
	// Precision units (the 4 matches, all TP, in sessions a and b): p̂ = 1,
	// and still clustered: 3 and 1 in two sessions are not 4 independent.
	plo, _, _ := ClusteredInterval([]int64{3, 1}, []int64{3, 1}, 0.95)
	near(t, "precision lo", *r.PrecisionLo, plo, 0)
	if wl, _ := Wilson(4, 4, z95); plo >= wl {
		t.Errorf("precision lo %v not below plain Wilson's %v", plo, wl)
	}
	// The "*" row clusters the same units: same interval.
	near(t, "total recall lo", *s.Judges[0].Total.RecallLo, lo, 0)
}

// bootSet is a comparison with sessions of several cases each.
func bootSet() []*replay.Result {
	rng := rand.New(rand.NewPCG(3, 4))
	var out []*replay.Result
	for sess := range 40 {
		for k := range 1 + rng.IntN(5) {
			id := fmt.Sprintf("s%02d-c%d", sess, k)
			label := []string{"match", "no_match"}[rng.IntN(2)]
			for _, j := range []string{"B", "C"} {
				p := 0.5
				if (j == "C") == (label == "match") {
					p = 0.8
				}
				res := "no_match"
				if rng.Float64() < p {
					res = "match"
				}
				out = append(out, &replay.Result{CaseID: id, SessionID: fmt.Sprintf("s%02d", sess), Judge: j, RunID: "r",
					Calls: []replay.Call{{Rules: 1, Status: "ok", LatencyMS: float64(100 + rng.IntN(900))}},
					Rules: []replay.RuleResult{rr("R", "style", "judge", res, label, "ok", res == "match", 0)}})
			}
		}
	}
	return out
}

func figureJSON(t *testing.T, s *Summary) string {
	t.Helper()
	b, err := json.Marshal([]any{s.Comparisons[0].Total.Figures, s.Comparisons[0].Rules[0].Figures})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestBootstrapDeterministic: the figures depend on the data and the seed
// only: any arrival order (concurrency), and any split into shards read
// back in any order (merge), gives the same numbers.
func TestBootstrapDeterministic(t *testing.T) {
	t.Parallel()
	cfg := Config{Criteria: replay.DefaultKillCriteria(), Baseline: "B"}
	rs := bootSet()
	want := figureJSON(t, summarize(t, cfg, rs))
	rng := rand.New(rand.NewPCG(9, 9))
	for trial := range 5 {
		sh := append([]*replay.Result(nil), rs...)
		rng.Shuffle(len(sh), func(i, j int) { sh[i], sh[j] = sh[j], sh[i] })
		if got := figureJSON(t, summarize(t, cfg, sh)); got != want {
			t.Fatalf("order %d changed the figures:\n%s\nwant\n%s", trial, got, want)
		}
		// Shards: odd and even sessions written apart, the second first.
		var odd, even []*replay.Result
		for _, r := range sh {
			if r.SessionID[len(r.SessionID)-1]%2 == 1 {
				odd = append(odd, r)
			} else {
				even = append(even, r)
			}
		}
		if got := figureJSON(t, summarize(t, cfg, append(even, odd...))); got != want {
			t.Fatalf("shards %d changed the figures", trial)
		}
	}
	// Sessions hold several calls: the latency figures are the
	// session-clustered linearized test, which depends on the data alone.
	if f := summarize(t, cfg, rs).Comparisons[0].Total.Figures; f[len(f)-2].Test != TestQuantileSessions {
		t.Errorf("P95 test %q, want %q", f[len(f)-2].Test, TestQuantileSessions)
	}
	cfg.Seed = 2
	if figureJSON(t, summarize(t, cfg, rs)) != want {
		t.Error("seed 2 changed figures that use no seed")
	}
	// One call per session: the bootstrap of calls, which uses the seed.
	cfg.Seed = 1
	single := func(cfg Config) string {
		var out []*replay.Result
		for _, r := range rs {
			c := *r
			c.SessionID = ""
			out = append(out, &c)
		}
		return figureJSON(t, summarize(t, cfg, out))
	}
	one := single(cfg)
	cfg.Seed = 2
	if single(cfg) == one {
		t.Error("seed 2 gives the same bootstrap as seed 1")
	}
}

func TestFiguresOfComparison(t *testing.T) {
	t.Parallel()
	s := summarize(t, Config{Criteria: replay.DefaultKillCriteria(), Baseline: "B"}, compareSet())
	x := s.Comparisons[0].Rules[0]
	if len(x.Figures) != len(FigureNames) {
		t.Fatalf("%d figures", len(x.Figures))
	}
	fig := map[string]Figure{}
	for i, f := range x.Figures {
		if f.Figure != FigureNames[i] {
			t.Errorf("figure %d is %s, want %s", i, f.Figure, FigureNames[i])
		}
		fig[f.Figure] = f
	}
	// Recall on x01..x10 (labeled positives, both matched): 10 units, no
	// discordance: Δ 0, p 1.
	r := fig[FigureRecall]
	if r.N != 10 || *r.Delta != 0 || *r.PValue != 1 || *r.DiscordantBaseline != 0 || r.Test != TestSignFlip {
		t.Errorf("recall %+v", r)
	}
	// False-positive rate on x11..x25 (labeled negatives): B matched 3, C
	// matched 12, never both: b = 3, c = 12, n = 15; Δ = (12 − 3)/15 = 0.6;
	// exact p = 2·P(X ≤ 3 | Bin(15, ½)) = 2·(1+15+105+455)/32768 = 0.03515625.
	f := fig[FigureFalsePositiveRate]
	if f.N != 15 || *f.DiscordantBaseline != 3 || *f.DiscordantCandidate != 12 {
		t.Errorf("fpr %+v", f)
	}
	near(t, "fpr baseline", *f.Baseline, 0.2, 1e-12)
	near(t, "fpr delta", *f.Delta, 0.6, 1e-12)
	near(t, "fpr p", *f.PValue, 0.03515625, 1e-12)
	if !(*f.DeltaLo < 0.6 && 0.6 < *f.DeltaHi) {
		t.Errorf("fpr interval [%v, %v]", *f.DeltaLo, *f.DeltaHi)
	}
	// Fire rate on x01..x40 (x42 is in scope for C only, x43 missing):
	// both 10, b 3, c 12, neither 15 → Δ = 9/40.
	fr := fig[FigureFireRate]
	if fr.N != 40 || *fr.DiscordantBaseline != 3 || *fr.DiscordantCandidate != 12 {
		t.Errorf("fire %+v", fr)
	}
	near(t, "fire delta", *fr.Delta, 9.0/40, 1e-12)
	// Precision: labeled units where either matched: x01..x25, each case
	// its own session (no session IDs); B: 10/13, C: 10/22, Δ = −0.3147.
	p := fig[FigurePrecision]
	near(t, "precision B", *p.Baseline, 10.0/13, 1e-12)
	near(t, "precision C", *p.Candidate, 10.0/22, 1e-12)
	near(t, "precision delta", *p.Delta, 10.0/22-10.0/13, 1e-12)
	if p.N != 25 || !(*p.DeltaLo < *p.Delta && *p.Delta < *p.DeltaHi) || *p.DeltaHi >= 0 || p.Test != TestDeltaT || p.DiscordantBaseline != nil {
		t.Errorf("precision %+v [%v, %v]", p, *p.DeltaLo, *p.DeltaHi)
	}
	// One session: no between-session variance, no test.
	one := []precisionSession{{tpB: 10, ppB: 13, tpC: 10, ppC: 22}}
	if d, lo, _, pv := precisionDeltaT(one, 0.95); math.Abs(*d-(10.0/22-10.0/13)) > 1e-12 || lo != nil || pv != nil {
		t.Errorf("one session: %v [%v] p %v", *d, lo, pv)
	}
	// No calls: latency figures without values.
	if l := fig[FigureLatencyP95]; l.Baseline != nil || l.PValue != nil || l.N != 0 || l.Test != TestBootstrapCalls {
		t.Errorf("latency %+v", l)
	}
	// The total carries the figures too.
	if len(s.Comparisons[0].Total.Figures) != len(FigureNames) {
		t.Error("total without figures")
	}
}

func TestLatencyFigure(t *testing.T) {
	t.Parallel()
	base := []float64{100, 200, 300, 400, 500, 600, 700, 800, 900, 1000}
	cand := []float64{1100, 1200, 1300, 1400, 1500, 1600, 1700, 1800, 1900, 2000}
	f := latencyFigure(FigureLatencyP95, singleCalls(base), singleCalls(cand), 95, 1, 0.95, &latScratch{})
	// P95 = 10th smallest: 1000 vs 2000, Δ 1000. The bootstrap draws of
	// the difference: the candidate's smallest resampled P95 is 1100, the
	// baseline's largest 1000, so no draw is ≤ 0: p = 0, marked, and the
	// interval excludes 0 too.
	near(t, "delta", *f.Delta, 1000, 0)
	near(t, "p", *f.PValue, 0, 0)
	if f.N != 20 || *f.NBaseline != 10 || *f.NCandidate != 10 || *f.DeltaLo > 1000 || *f.DeltaHi < 1000 || *f.DeltaLo <= 0 || f.Test != TestBootstrapCalls {
		t.Errorf("latency %+v [%v, %v]", f, *f.DeltaLo, *f.DeltaHi)
	}
	// latency_shift is Mann–Whitney: no overlap: U = 100, σ² = 100/12·21 =
	// 175, z = (50 − 0.5)/13.2288 = 3.7418, p = 1.82672e-4
	// (scipy.stats.mannwhitneyu(cand, base, method="asymptotic") agrees);
	// Δ = U/(n₁n₂) − ½ = ½.
	sh := latencyShift(base, cand)
	near(t, "shift p", *sh.PValue, 0.00018267179110955002, 1e-12)
	near(t, "shift delta", *sh.Delta, 0.5, 0)
	if sh.Test != TestMannWhitney || sh.Figure != FigureLatencyShift {
		t.Errorf("shift %+v", sh)
	}
	// The resampled quantile draws only values of the sample, and with the
	// distribution of resampling: the P50 (5th of 10) of a resample of
	// 1..10 is at most 5 with probability P(Bin(10, 0.5) ≥ 5) = 638/1024.
	rng := rand.New(rand.NewPCG(1, 1))
	q := newQuantileBoot(base, 50, 100)
	atMost5 := 0
	const draws = 20000
	for range draws {
		v := q.draw(rng)
		if int(v)%100 != 0 || v < 100 || v > 1000 {
			t.Fatalf("draw gave %v", v)
		}
		if v <= 500 {
			atMost5++
		}
	}
	// 638/1024 = 0.6230; 4 standard errors at 20,000 draws ≈ 0.0137.
	near(t, "P(resampled P50 ≤ x(5))", float64(atMost5)/draws, 638.0/1024, 0.0137)
}

// TestLatencyCallsCountedOnce: the none judge makes no calls (its latency
// criterion is N/A, not PASS at 0 ms), and a recorded call that replay
// split over two batches counts once.
func TestLatencyCallsCountedOnce(t *testing.T) {
	t.Parallel()
	none := &replay.Result{CaseID: "c1", Judge: "none", JudgeCalled: true,
		Calls: []replay.Call{{Rules: 1, Status: "error", Error: "no judge configured (--judge none)"}},
		Rules: []replay.RuleResult{rr("R", "style", "failure", "no_match", "", "error", false, 0)}}
	// Two batches of one recorded call (same recorded latency and status),
	// and a second, different recorded call.
	rec := &replay.Result{CaseID: "c1", Judge: "recorded/v1", JudgeCalled: true,
		Calls: []replay.Call{{Rules: 10, Status: "ok", LatencyMS: 1200, Attempts: 1}, {Rules: 5, Status: "ok", LatencyMS: 1200, Attempts: 1},
			{Rules: 1, Status: "ok", LatencyMS: 300, Attempts: 1}},
		Rules: []replay.RuleResult{rr("A", "style", "judge", "match", "", "ok", true, 0), rr("B", "style", "judge", "match", "", "ok", true, 1),
			rr("C", "style", "judge", "match", "", "ok", true, 2)}}
	s := summarize(t, Config{Criteria: replay.DefaultKillCriteria()}, []*replay.Result{none, rec})
	n := s.Judge("none").Total
	if n.Calls != 0 || n.LatencyP95MS != nil || n.Status(CriterionJudgeP95Max) != StatusNA {
		t.Errorf("none judge: %d calls, P95 %v, %s", n.Calls, n.LatencyP95MS, n.Status(CriterionJudgeP95Max))
	}
	r := s.Judge("recorded/v1")
	if r.Total.Calls != 2 {
		t.Errorf("recorded: %d calls, want 2 (1200 once, 300)", r.Total.Calls)
	}
	// Rule B was in the second batch of the 1200 ms call: its latency is that call's.
	if b := r.Rule("B"); b.Calls != 1 || *b.LatencyP95MS != 1200 {
		t.Errorf("rule B: %d calls, P95 %v", b.Calls, *b.LatencyP95MS)
	}
}
