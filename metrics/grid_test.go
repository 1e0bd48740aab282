package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// The interval grid (docs/statistics.md, "The interval on the grid"):
// ClusteredInterval against the methods it replaced or was tried against,
// on sessions with known truth. `make calibrate` runs every setting at
// APEVAL_CALIBRATE replicates and prints the table; plain `go test` runs a
// fixed-seed smoke of a few settings.

// gridMethod is an interval method over per-session counts.
type gridMethod struct {
	name string
	f    func(ys, ms []int64) (lo, hi float64)
}

// betaBinomial is the verdict's interval before the ratio interval: the
// beta-binomial posterior (Beta(1, 3) prior on ρ) with Wilson's hull
// toward the nearer end, at 95 % whatever the number of sessions
// (bbInterval before fewLevel).
func betaBinomial(ys, ms []int64) (float64, float64) {
	p := newBBPosterior(ys, ms, 1)
	if p == nil {
		return 0, 1
	}
	l, h, _ := p.bbIntervalAt(0.95, 0.95)
	return l, h
}

// ratioK1 is the ratio interval with K − 1 degrees of freedom whatever
// the sessions' sizes (simulate.RatioInterval before it became
// ClusteredInterval), the beta-binomial where its variance says nothing.
func ratioK1(ys, ms []int64) (float64, float64) {
	p := newBBPosterior(ys, ms, 1)
	if p == nil {
		return 0, 1
	}
	if p.wilson {
		return Wilson(p.Y, p.M, z95)
	}
	f, ok := fitRatio(p.pairs)
	if !ok {
		l, h, _ := p.bbIntervalAt(0.95, 0.95)
		return l, h
	}
	// Both bounds on K − 1 df (no farDF: the interval as it was).
	r := f.Y / f.M
	n := min(f.M, r*(1-r)/f.v)
	return Wilson(r*n, n, distuv.StudentsT{Mu: 0, Sigma: 1, Nu: f.K - 1}.Quantile(0.975))
}

var gridMethods = []gridMethod{
	{"ClusteredInterval", func(ys, ms []int64) (float64, float64) {
		l, h, _ := ClusteredInterval(ys, ms, 0.95)
		return l, h
	}},
	{"beta-binomial (the previous interval)", betaBinomial},
	{"ratio, K − 1 df", ratioK1},
}

type gridSetting struct {
	name string
	sz   []int
	mu   float64
	icc  float64
}

func gridSettings() []gridSetting {
	withOnes := func(k, m, ones int) []int {
		s := sizes(k, m, 0)
		for range ones {
			s = append(s, 1)
		}
		return s
	}
	var out []gridSetting
	for _, icc := range []float64{0, 0.1, 0.3, 0.5} {
		for _, k := range []int{5, 10, 30, 200} {
			out = append(out, gridSetting{fmt.Sprintf("0.8, %d sessions × 10, ICC %g", k, icc), sizes(k, 10, 0), 0.8, icc})
		}
		out = append(out,
			gridSetting{fmt.Sprintf("0.8, one session of 100 and 9 of 3, ICC %g", icc), sizes(10, 3, 100), 0.8, icc},
			gridSetting{fmt.Sprintf("0.8, 5 sessions × 20 and 45 singletons, ICC %g", icc), withOnes(5, 20, 45), 0.8, icc},
			gridSetting{fmt.Sprintf("0.03, 20 sessions × 10, ICC %g", icc), sizes(20, 10, 0), 0.03, icc},
			gridSetting{fmt.Sprintf("0.97, 20 sessions × 10, ICC %g", icc), sizes(20, 10, 0), 0.97, icc},
			gridSetting{fmt.Sprintf("0.005, 8 sessions × 35 (mostly no event), ICC %g", icc), sizes(8, 35, 0), 0.005, icc},
			gridSetting{fmt.Sprintf("0.95, 200 sessions × 5, ICC %g", icc), sizes(200, 5, 0), 0.95, icc})
	}
	return out
}

// drawCounts draws one replicate's per-session successes.
func drawCounts(rng *rand.Rand, sz []int, mu, icc float64) (ys, ms []int64) {
	ys, ms = make([]int64, len(sz)), make([]int64, len(sz))
	for i, m := range sz {
		p := sessionRate(rng, mu, icc)
		ms[i] = int64(m)
		for range m {
			if rng.Float64() < p {
				ys[i]++
			}
		}
	}
	return ys, ms
}

type gridStat struct{ cov, below, above, width float64 }

// gridSlack is how far past its goal a grid test's rate may fall: the
// smoke's smokeSlack, and in the full run two Monte Carlo standard errors
// at the goal, so that a calibrated method passes at a user's
// APEVAL_CALIBRATE=400 as well as at make calibrate's 2,000.
func gridSlack(goal float64, reps int, full bool) float64 {
	if !full {
		return smokeSlack(goal, reps)
	}
	return 2 * math.Sqrt(goal*(1-goal)/float64(reps))
}

// tally counts one interval [l, h] against the truth: covered, wholly
// above it (the truth below l) or wholly below it, and its width.
func (st *gridStat) tally(truth, l, h float64) {
	switch {
	case truth < l:
		st.below++
	case truth > h:
		st.above++
	default:
		st.cov++
	}
	st.width += h - l
}

func runGrid(s gridSetting, reps int, seed uint64) []gridStat {
	rng := rand.New(rand.NewPCG(seed, 0x671d))
	out := make([]gridStat, len(gridMethods))
	for range reps {
		ys, ms := drawCounts(rng, s.sz, s.mu, s.icc)
		for k, m := range gridMethods {
			l, h := m.f(ys, ms)
			out[k].tally(s.mu, l, h)
		}
	}
	for k := range out {
		out[k].cov /= float64(reps)
		out[k].below /= float64(reps)
		out[k].above /= float64(reps)
		out[k].width /= float64(reps)
	}
	return out
}

// TestIntervalGrid: ClusteredInterval covers 0.925 or more on every
// setting; the table sets its width beside the beta-binomial interval it
// replaced and the ratio interval with K − 1 degrees of freedom. The
// smoke runs four settings (zero events, uneven sizes, a high ICC, many
// sessions) at 60 replicates.
func TestIntervalGrid(t *testing.T) {
	t.Parallel()
	reps, full := calibrationN()
	settings := gridSettings()
	if !full {
		var few []gridSetting
		for _, s := range settings {
			if s.name == "0.005, 8 sessions × 35 (mostly no event), ICC 0.3" || s.name == "0.8, one session of 100 and 9 of 3, ICC 0.3" ||
				s.name == "0.8, 10 sessions × 10, ICC 0.5" || s.name == "0.95, 200 sessions × 5, ICC 0.1" {
				few = append(few, s)
			}
		}
		settings = few
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n| setting (%d replicates) |", reps)
	for _, m := range gridMethods {
		fmt.Fprintf(&b, " %s: coverage (below / above) | width |", m.name)
	}
	b.WriteString(" width ÷ beta-binomial |\n|---|")
	for range gridMethods {
		b.WriteString("---|---|")
	}
	b.WriteString("---|\n")
	for i, s := range settings {
		st := runGrid(s, reps, uint64(i+1))
		fmt.Fprintf(&b, "| %s |", s.name)
		for _, x := range st {
			fmt.Fprintf(&b, " %.3f (%.3f / %.3f) | %.4f |", x.cov, x.below, x.above, x.width)
		}
		fmt.Fprintf(&b, " %.2f |\n", st[0].width/st[1].width)
		if slack := gridSlack(0.925, reps, full); st[0].cov < 0.925-slack {
			t.Errorf("%s: coverage %.3f over %d replicates, goal ≥ 0.925", s.name, st[0].cov, reps)
		}
	}
	t.Log(b.String())
}

// TestElevenRulesGo: a judge whose 11 rules all have true precision 0.95
// (precision_min 0.90), each rule's predictions in 200 sessions of 2 at
// ICC 0.1: how often every rule's precision_min PASSes (GO on precision),
// with ClusteredInterval and with the previous method. The smoke checks
// the new method does not GO less often; the full run prints the rates.
func TestElevenRulesGo(t *testing.T) {
	t.Parallel()
	reps, full := calibrationN()
	if !full {
		reps = 20
	}
	rng := rand.New(rand.NewPCG(11, 95))
	var goNew, goOld int
	for range reps {
		allNew, allOld := true, true
		for range 11 {
			ys, ms := drawCounts(rng, sizes(200, 2, 0), 0.95, 0.1)
			l, _, _ := ClusteredInterval(ys, ms, 0.95)
			lo, _ := betaBinomial(ys, ms)
			allNew = allNew && l > 0.9
			allOld = allOld && lo > 0.9
		}
		if allNew {
			goNew++
		}
		if allOld {
			goOld++
		}
	}
	t.Logf("| 11 rules at precision 0.95, 200 sessions × 2, ICC 0.1: all precision_min PASS | ClusteredInterval %.3f | beta-binomial %.3f | (%d replicates) |",
		float64(goNew)/float64(reps), float64(goOld)/float64(reps), reps)
	if goNew < goOld {
		t.Errorf("GO %d of %d with ClusteredInterval, %d with the beta-binomial interval", goNew, reps, goOld)
	}
}

// priorHull is the beta-binomial interval with a Beta(1, b) prior on ρ, or — hull
// false — the posterior interval alone: the alternatives tried against
// its over-coverage (docs/statistics.md, "Where it over-covers").
func priorHull(b float64, hull bool) func(ys, ms []int64) (float64, float64) {
	return func(ys, ms []int64) (float64, float64) {
		p := newBBPosterior(ys, ms, 1)
		if p == nil {
			return 0, 1
		}
		p.rhoB = b
		if !hull {
			if p.wilson {
				return Wilson(p.Y, p.M, z95)
			}
			p.fit()
			return p.quantile(0.025), p.quantile(0.975)
		}
		lo, hi, _ := p.bbIntervalAt(0.95, 0.95)
		return lo, hi
	}
}

// clopperPearson is the exact binomial interval of the pooled counts,
// sessions ignored: valid only at ICC 0, where it is the exact method
// that knows the units are independent.
func clopperPearson(ys, ms []int64) (float64, float64) {
	var y, m float64
	for i := range ys {
		y += float64(ys[i])
		m += float64(ms[i])
	}
	lo, hi := 0.0, 1.0
	if y > 0 {
		lo = distuv.Beta{Alpha: y, Beta: m - y + 1}.Quantile(0.025)
	}
	if y < m {
		hi = distuv.Beta{Alpha: y + 1, Beta: m - y}.Quantile(0.975)
	}
	return lo, hi
}

// exactCPCoverage is Clopper–Pearson's exact coverage of mu with m
// independent units: Σ_y P(Y = y)·[mu in its interval].
func exactCPCoverage(m int, mu float64) float64 {
	b := distuv.Binomial{N: float64(m), P: mu}
	var c float64
	for y := 0; y <= m; y++ {
		lo, hi := clopperPearson([]int64{int64(y)}, []int64{int64(m)})
		if lo <= mu && mu <= hi {
			c += b.Prob(float64(y))
		}
	}
	return c
}

// TestIntervalGridOvercoverage: where ClusteredInterval covers more than
// 0.975 (ICC 0, rare events, few sessions), the narrower alternatives —
// a prior on ρ concentrated nearer 0 (Beta(1, 6), Beta(1, 10)), or the
// posterior without Wilson's hull toward the nearer end — each lose
// 0.925 elsewhere on the grid; and with rare events at ICC 0 even the
// exact binomial interval, which knows the units are independent, covers
// more than 0.975 (discreteness). The smoke checks the exact coverages;
// the full run prints the table docs/statistics.md shows.
func TestIntervalGridOvercoverage(t *testing.T) {
	t.Parallel()
	// Discreteness: exact coverages, no simulation. With 280 units at
	// 0.005 (1.4 events expected) the exact interval covers 0.986: no
	// interval at least as wide as it can miss above (0 events of 280
	// bound the rate at 0.013), and missing below needs a lower bound
	// above 0.005 at 4 events. The others are logged for the table.
	if got := exactCPCoverage(280, 0.005); got < 0.975 {
		t.Errorf("Clopper–Pearson, 280 units at 0.005: exact coverage %.4f, want ≥ 0.975", got)
	}
	for _, c := range []struct {
		m  int
		mu float64
	}{{280, 0.005}, {200, 0.03}, {200, 0.97}, {50, 0.8}, {100, 0.8}, {1000, 0.95}} {
		t.Logf("Clopper–Pearson, %d independent units at %g: exact coverage %.4f", c.m, c.mu, exactCPCoverage(c.m, c.mu))
	}
	reps, full := calibrationN()
	if !full {
		return
	}
	methods := []gridMethod{
		{"beta-binomial (Beta(1, 3) prior on ρ)", betaBinomial},
		{"posterior only, Beta(1, 3)", priorHull(3, false)},
		{"Beta(1, 6) prior", priorHull(6, true)},
		{"Beta(1, 10) prior", priorHull(10, true)},
		{"Clopper–Pearson, sessions ignored", clopperPearson},
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n| setting (%d replicates) |", reps)
	for _, m := range methods {
		fmt.Fprintf(&b, " %s: coverage (below / above) | width |", m.name)
	}
	b.WriteString("\n|---|")
	for range methods {
		b.WriteString("---|---|")
	}
	b.WriteString("\n")
	for i, s := range gridSettings() {
		rng := rand.New(rand.NewPCG(uint64(i+1), 0x671d))
		st := make([]gridStat, len(methods))
		for range reps {
			ys, ms := drawCounts(rng, s.sz, s.mu, s.icc)
			for k, m := range methods {
				l, h := m.f(ys, ms)
				st[k].tally(s.mu, l, h)
			}
		}
		fmt.Fprintf(&b, "| %s |", s.name)
		r := float64(reps)
		for _, x := range st {
			fmt.Fprintf(&b, " %.3f (%.3f / %.3f) | %.4f |", x.cov/r, x.below/r, x.above/r, x.width/r)
		}
		b.WriteString("\n")
	}
	t.Log(b.String())
}

// sizeDependent draws k sessions whose sizes vary (1 + geometric, mean
// meanM) and whose own rate falls with their size: logit p_s = logit mu
// + beta·(log m_s − log meanM) + sd·N(0, 1). The report shows the pooled
// ratio Y/M, whose truth is E[m·p]/E[m], not the mean of the sessions'
// rates the beta-binomial model targets (informative session size).
func sizeDependent(rng *rand.Rand, k int, meanM, mu, beta, sd float64) (ys, ms []int64) {
	ys, ms = make([]int64, k), make([]int64, k)
	for i := range k {
		m := 1
		for rng.Float64() > 1/meanM {
			m++
		}
		l := math.Log(mu/(1-mu)) + beta*(math.Log(float64(m))-math.Log(meanM)) + sd*rng.NormFloat64()
		p := 1 / (1 + math.Exp(-l))
		ms[i] = int64(m)
		for range m {
			if rng.Float64() < p {
				ys[i]++
			}
		}
	}
	return ys, ms
}

// pooledTruth is E[m·p]/E[m] of sizeDependent, by a large fixed-seed
// simulation.
func pooledTruth(meanM, mu, beta, sd float64) float64 {
	rng := rand.New(rand.NewPCG(99, 1))
	var num, den float64
	for range 400000 {
		m := 1
		for rng.Float64() > 1/meanM {
			m++
		}
		l := math.Log(mu/(1-mu)) + beta*(math.Log(float64(m))-math.Log(meanM)) + sd*rng.NormFloat64()
		num += float64(m) / (1 + math.Exp(-l))
		den += float64(m)
	}
	return num / den
}

// TestIntervalSizeDependent: coverage of the pooled ratio when a
// session's rate depends on its size (docs/statistics.md, "Informative
// session size"): ClusteredInterval, which targets that ratio, covers
// 0.925 or more on every setting; the beta-binomial interval it replaced,
// which targets the mean of the sessions' rates, is printed beside it
// (0.52 at 300 sessions). The smoke runs no size effect and 100 sessions
// with long sessions worse at 100 replicates.
func TestIntervalSizeDependent(t *testing.T) {
	t.Parallel()
	reps, full := calibrationN()
	type setting struct {
		k               int
		meanM, beta, sd float64
	}
	settings := []setting{{30, 10, 0, 0}, {100, 10, -0.5, 0.8}}
	if full {
		settings = append(settings, setting{5, 10, -0.5, 0.8}, setting{10, 10, -0.5, 0.8}, setting{30, 10, -0.5, 0.8}, setting{300, 10, -0.5, 0.8},
			setting{100, 10, 0, 0.8}, setting{100, 10, 0.5, 0.8}, setting{300, 10, -1, 0.5})
	} else {
		reps = 100
	}
	methods := []gridMethod{gridMethods[0], gridMethods[1]}
	var b strings.Builder
	fmt.Fprintf(&b, "\n| setting (%d replicates) | pooled truth | mean of session rates |", reps)
	for _, m := range methods {
		fmt.Fprintf(&b, " %s: coverage of the pooled ratio (below / above) | width |", m.name)
	}
	b.WriteString("\n|---|---|---|---|---|---|---|\n")
	for i, s := range settings {
		truth := pooledTruth(s.meanM, 0.8, s.beta, s.sd)
		var sessMean float64
		rng := rand.New(rand.NewPCG(uint64(i+7), 0x517e))
		st := make([]gridStat, len(methods))
		for range reps {
			ys, ms := sizeDependent(rng, s.k, s.meanM, 0.8, s.beta, s.sd)
			var r float64
			for j := range ys {
				r += float64(ys[j]) / float64(ms[j])
			}
			sessMean += r / float64(len(ys))
			for k, m := range methods {
				l, h := m.f(ys, ms)
				st[k].tally(truth, l, h)
			}
		}
		n := float64(reps)
		fmt.Fprintf(&b, "| %d sessions, mean size %g, size effect %g, session sd %g | %.3f | %.3f |", s.k, s.meanM, s.beta, s.sd, truth, sessMean/n)
		for _, x := range st {
			fmt.Fprintf(&b, " %.3f (%.3f / %.3f) | %.4f |", x.cov/n, x.below/n, x.above/n, x.width/n)
		}
		b.WriteString("\n")
		if s.beta == 0 && s.sd == 0 && math.Abs(truth-0.8) > 0.005 {
			t.Errorf("no size effect: truth %.4f, want 0.8", truth)
		}
		if c, slack := st[0].cov/n, gridSlack(0.925, reps, full); c < 0.925-slack {
			t.Errorf("%d sessions, size effect %g, sd %g: ClusteredInterval covers the pooled ratio %.3f over %d replicates, goal ≥ 0.925", s.k, s.beta, s.sd, c, reps)
		}
	}
	t.Log(b.String())
}

// TestIntervalInformativeSize: precision over k sessions of 3,000/k pairs
// whose share of positives (around 0.1) and the judge's recall (around
// 0.8) are drawn per session with the ICC (infoSession): sessions rich in
// positives hold more matches and are more precise, so the pooled
// precision (0.816) lies far above the mean of the sessions' precisions
// that the beta-binomial interval of few sessions is about
// (docs/statistics.md, "Informative session size, few sessions").
// sizeShift moves that interval toward the pooled ratio where the data
// show it. The goal (0.925) is asserted where it is met (10 and 20
// sessions at ICC 0.1–0.3, 20 at ICC 0.5, and ICC 0.1 throughout); with
// 3–5 sessions at ICC 0.3–0.5 and 10 at ICC 0.5 it is not (0.56–0.88: at
// 3–5 sessions no session rich in positives is drawn in many samples and
// nothing in the data tells they exist; at 10 and ICC 0.5 most samples
// that still miss are missed by the ratio's own interval too, which
// sizeShift reaches where δ's test or the size slope's (sizeSlope) shows
// rates rising with size): those settings
// are held to their measured floor, so that a change that loses coverage
// there shows. The smoke runs two
// settings at 200 replicates (20 sessions at ICC 0.5 covered 0.835
// before sizeShift: the smoke fails on it).
func TestIntervalInformativeSize(t *testing.T) {
	t.Parallel()
	reps, full := calibrationN()
	type setting struct {
		k         int
		icc, goal float64
	}
	settings := []setting{{20, 0.3, 0.925}, {20, 0.5, 0.925}}
	if full {
		settings = []setting{
			{3, 0.1, 0.925}, {3, 0.3, 0.73}, {3, 0.5, 0.54},
			{5, 0.1, 0.925}, {5, 0.3, 0.82}, {5, 0.5, 0.72},
			{10, 0.1, 0.925}, {10, 0.3, 0.925}, {10, 0.5, 0.87},
			{20, 0.1, 0.925}, {20, 0.3, 0.925}, {20, 0.5, 0.925},
		}
	} else {
		reps = 200
	}
	const truth = 0.08 / (0.08 + 0.02*0.9)
	var b strings.Builder
	fmt.Fprintf(&b, "\n| setting (%d replicates) | ClusteredInterval: coverage (below / above) | width | without sizeShift: coverage (below / above) | width |\n|---|---|---|---|---|\n", reps)
	for _, s := range settings {
		rng := rand.New(rand.NewPCG(uint64(s.k), uint64(s.icc*10)))
		var st, old gridStat
		for range reps {
			ys, ms := make([]int64, s.k), make([]int64, s.k)
			for i := range ys {
				tp, fp := infoSession(rng, 3000/s.k, s.icc)
				ys[i], ms[i] = int64(tp), int64(tp+fp)
			}
			l, h, _ := ClusteredInterval(ys, ms, 0.95)
			st.tally(truth, l, h)
			l, h = withoutSizeShift(ys, ms)
			old.tally(truth, l, h)
		}
		n := float64(reps)
		name := fmt.Sprintf("%d sessions × %d pairs, ICC %g", s.k, 3000/s.k, s.icc)
		fmt.Fprintf(&b, "| %s | %.3f (%.3f / %.3f) | %.4f | %.3f (%.3f / %.3f) | %.4f |\n", name, st.cov/n, st.below/n, st.above/n, st.width/n,
			old.cov/n, old.below/n, old.above/n, old.width/n)
		if c, slack := st.cov/n, gridSlack(s.goal, reps, full); c < s.goal-slack {
			t.Errorf("%s: ClusteredInterval covers the pooled precision %.3f over %d replicates, want ≥ %.3f (allowance %.3f)", name, c, reps, s.goal, slack)
		}
	}
	t.Log(b.String())
}

// withoutSizeShift is ClusteredInterval before sizeShift: the
// beta-binomial interval alone with few sessions.
func withoutSizeShift(ys, ms []int64) (float64, float64) {
	p := newBBPosterior(ys, ms, 1)
	if p == nil {
		return 0, 1
	}
	if f, ok := fitRatio(p.pairs); ok && !f.few() {
		l, h, _ := f.interval(0.95)
		return l, h
	}
	if p.wilson {
		return Wilson(p.Y, p.M, z95)
	}
	l, h, _ := p.bbInterval(0.95)
	return l, h
}

// TestIntervalGridOffGrid: ClusteredInterval where the grid does not look
// (docs/statistics.md, "Off the grid"): 2–10 sessions of 3–50 units at
// rates 0.3–0.9 and ICC 0.2–0.5, where its beta-binomial branch applies.
// With 3 sessions or more it covers 0.925 or more (at ICC 0.5 it covered
// only 0.870–0.922 before fewLevel raised the credible level with few
// sessions; the first eleven settings are the ones that level was chosen
// on, the rest were added to check it). With 2 sessions it is held to
// the measured floor, 0.90 (0.917–0.921 at ICC 0.5: fewLevel does not
// apply there), so that a change that narrows it shows what it costs; no
// verdict rests on 2 sessions (MinSessions).
// Both less the Monte Carlo allowance. The smoke runs one setting.
func TestIntervalGridOffGrid(t *testing.T) {
	t.Parallel()
	reps, full := calibrationN()
	type setting struct {
		k, m    int
		mu, icc float64
	}
	settings := []setting{{5, 10, 0.6, 0.3}}
	if full {
		settings = []setting{
			{2, 7, 0.65, 0.3}, {3, 10, 0.8, 0.3}, {5, 10, 0.6, 0.3}, {6, 10, 0.5, 0.3},
			{2, 50, 0.8, 0.5}, {4, 5, 0.7, 0.5}, {5, 10, 0.5, 0.5}, {5, 10, 0.6, 0.5},
			{5, 20, 0.7, 0.5}, {7, 10, 0.5, 0.5}, {8, 10, 0.6, 0.5},
			// Not used to choose fewLevel's degrees of freedom.
			{3, 10, 0.5, 0.5}, {3, 20, 0.7, 0.5}, {3, 15, 0.6, 0.4}, {4, 10, 0.3, 0.5},
			{6, 5, 0.9, 0.5}, {5, 30, 0.3, 0.4}, {8, 3, 0.7, 0.4}, {6, 10, 0.9, 0.2},
			{9, 10, 0.6, 0.5}, {10, 10, 0.5, 0.5}, {10, 10, 0.7, 0.4}, {2, 20, 0.5, 0.5},
		}
	} else {
		reps = 60
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n| setting (%d replicates) | ClusteredInterval: coverage (below / above) | width | the interval before fewLevel: coverage (below / above) | width |\n|---|---|---|---|---|\n", reps)
	for _, s := range settings {
		rng := rand.New(rand.NewPCG(uint64(s.k*100+s.m), 0x671d))
		var st, old gridStat
		for range reps {
			ys, ms := drawCounts(rng, sizes(s.k, s.m, 0), s.mu, s.icc)
			l, h, _ := ClusteredInterval(ys, ms, 0.95)
			st.tally(s.mu, l, h)
			l, h = beforeFewLevel(ys, ms)
			old.tally(s.mu, l, h)
		}
		n := float64(reps)
		name := fmt.Sprintf("%g, %d sessions × %d, ICC %g", s.mu, s.k, s.m, s.icc)
		fmt.Fprintf(&b, "| %s | %.3f (%.3f / %.3f) | %.4f | %.3f (%.3f / %.3f) | %.4f |\n", name, st.cov/n, st.below/n, st.above/n, st.width/n,
			old.cov/n, old.below/n, old.above/n, old.width/n)
		goal := 0.925
		if s.k < fewTMin {
			goal = offGridFloorTwo
		}
		if c, slack := st.cov/n, gridSlack(goal, reps, full); c < goal-slack {
			t.Errorf("%s: ClusteredInterval covers %.3f over %d replicates, want ≥ %.3f (allowance %.3f)", name, c, reps, goal, slack)
		}
	}
	t.Log(b.String())
}

// beforeFewLevel is ClusteredInterval as it was before fewLevel: the
// beta-binomial branch at 95 % whatever the number of sessions.
func beforeFewLevel(ys, ms []int64) (float64, float64) {
	p := newBBPosterior(ys, ms, 1)
	if p == nil {
		return 0, 1
	}
	if p.wilson {
		return Wilson(p.Y, p.M, z95)
	}
	if f, ok := fitRatio(p.pairs); ok && !f.few() {
		l, h, _ := f.interval(0.95)
		return l, h
	}
	l, h, _ := p.bbIntervalAt(0.95, 0.95)
	return l, h
}

// TestPairedFewSessionsPositivePhi: a paired difference over few sessions
// (fire-rate drift, the recall gain) does not narrow on a positive
// correlation of its two discordance rates estimated from those sessions:
// the square-and-add takes φ = 0 there (min(φ, 0)), while a negative φ and
// any φ with many sessions are kept. Both rates take fewLevel's level like
// any proportion.
func TestPairedFewSessionsPositivePhi(t *testing.T) {
	t.Parallel()
	// 4 sessions of 20: the discordances rise and fall together.
	few := []pairSess{{6, 5, 0, 20}, {1, 1, 0, 20}, {8, 6, 0, 20}, {2, 1, 0, 20}}
	pd := newPairDiff(few)
	if !(pd.phi > 0.5) {
		t.Fatalf("phi = %.3f, want the sessions' positive correlation", pd.phi)
	}
	if !pd.p1.fewAt(1) || !pd.p2.fewAt(1) {
		t.Fatal("4 sessions: the rates' intervals are not the beta-binomial's")
	}
	est, lo, hi := pd.interval(1, 0.95)
	// By hand: each rate at fewLevel (4 sessions: t on 10 df), combined
	// with φ = 0.
	l1, u1, _ := pd.p1.bbIntervalAt(0.95, fewLevel(0.95, 4))
	l2, u2, _ := pd.p2.bbIntervalAt(0.95, fewLevel(0.95, 4))
	p1, p2 := 17.0/80, 13.0/80
	wantLo := est - math.Sqrt((p1-l1)*(p1-l1)+(u2-p2)*(u2-p2))
	wantHi := est + math.Sqrt((p2-l2)*(p2-l2)+(u1-p1)*(u1-p1))
	if math.Abs(est-0.05) > 1e-12 || math.Abs(lo-wantLo) > 1e-12 || math.Abs(hi-wantHi) > 1e-12 {
		t.Errorf("4 sessions: %.4f [%.6f, %.6f], want 0.05 [%.6f, %.6f] (φ = 0)", est, lo, hi, wantLo, wantHi)
	}
	_, loPhi, hiPhi := mover(est, p1, p2, l1, u1, l2, u2, pd.phi)
	if !(lo < loPhi && hi > hiPhi) {
		t.Errorf("4 sessions: [%.4f, %.4f] not wider than with the sessions' φ %.2f [%.4f, %.4f]", lo, hi, pd.phi, loPhi, hiPhi)
	}
	// A negative correlation over the same few sessions is kept.
	neg := newPairDiff([]pairSess{{6, 1, 0, 20}, {1, 5, 0, 20}, {8, 1, 0, 20}, {2, 6, 0, 20}})
	if !(neg.phi < -0.5) {
		t.Fatalf("phi = %.3f, want negative", neg.phi)
	}
	e, l, h := neg.interval(1, 0.95)
	nl1, nu1, _ := neg.p1.bbIntervalAt(0.95, fewLevel(0.95, 4))
	nl2, nu2, _ := neg.p2.bbIntervalAt(0.95, fewLevel(0.95, 4))
	if _, wl, wh := mover(e, neg.p1.Y/neg.p1.M, neg.p2.Y/neg.p2.M, nl1, nu1, nl2, nu2, neg.phi); math.Abs(l-wl) > 1e-12 || math.Abs(h-wh) > 1e-12 {
		t.Errorf("negative φ over 4 sessions: [%.6f, %.6f], want [%.6f, %.6f] with φ %.3f", l, h, wl, wh, neg.phi)
	}
	// Many sessions (the ratio's interval on ≥ 10 df): the sessions' own φ.
	var many []pairSess
	for range 10 {
		many = append(many, few...)
	}
	pm := newPairDiff(many)
	if pm.p1.fewAt(1) || pm.p2.fewAt(1) {
		t.Fatal("40 sessions: the rates' intervals are still the beta-binomial's")
	}
	e, l, h = pm.interval(1, 0.95)
	ml1, mu1, _ := pm.p1.interval(0.95)
	ml2, mu2, _ := pm.p2.interval(0.95)
	if _, wl, wh := mover(e, p1, p2, ml1, mu1, ml2, mu2, pm.phi); math.Abs(l-wl) > 1e-12 || math.Abs(h-wh) > 1e-12 {
		t.Errorf("40 sessions: [%.6f, %.6f], want [%.6f, %.6f] with φ %.3f", l, h, wl, wh, pm.phi)
	}
}

// offGridFloorTwo is the coverage ClusteredInterval keeps at ICC 0.5 with
// 2 sessions (measured 0.917–0.921; fewLevel does not apply there):
// below the 0.925 goal, documented in docs/statistics.md, held so it does
// not fall further.
const offGridFloorTwo = 0.90

// TestFewLevel: the beta-binomial interval's credible level with few
// sessions is 95 % with 1 or 2 sessions and, from 3 on, the level whose
// normal quantile is Student's t quantile on 3(K − 1) degrees of freedom, at least 10
// (hand-computed from t tables: t₀.₉₇₅ on 10 df — the floor, for 3 and 4
// sessions — is 2.2281, on 12 df 2.1788, on 27 df 2.0518), falling to
// 95 % as sessions are added; and the
// interval with 5 sessions is the posterior's at that level, wider than
// at 95 %.
func TestFewLevel(t *testing.T) {
	t.Parallel()
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	for _, c := range []struct{ k, want float64 }{
		{1, 0.95}, {2, 0.95}, {3, 2*phi(2.228139) - 1}, {4, 2*phi(2.228139) - 1}, {5, 2*phi(2.178813) - 1}, {10, 2*phi(2.051831) - 1},
	} {
		if got := fewLevel(0.95, c.k); math.Abs(got-c.want) > 1e-5 {
			t.Errorf("fewLevel(0.95, %g) = %.6f, want %.6f", c.k, got, c.want)
		}
	}
	// A rare outcome, counted, takes the confidence itself (bbLevel): under
	// 3 % of the units and more than 33 units; not 20 units without a
	// failure (one would be 5 %), nor 9 events in 280 (3.2 %).
	for _, c := range []struct {
		y, k, m int64
		want    float64
	}{{0, 8, 35, 0.95}, {8, 8, 35, 0.95}, {9, 8, 35, fewLevel(0.95, 8)}, {20, 4, 5, fewLevel(0.95, 4)}, {0, 4, 5, fewLevel(0.95, 4)}, {280, 8, 35, 0.95}, {0, 3, 12, 0.95}, {0, 3, 11, fewLevel(0.95, 3)}} {
		ys, ms := make([]int64, c.k), make([]int64, c.k)
		left := c.y
		for i := range ms {
			ms[i] = c.m
			ys[i] = min(left, c.m)
			left -= ys[i]
		}
		if got := newBBPosterior(ys, ms, 1).bbLevel(0.95); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%d of %d × %d: level %.6f, want %.6f", c.y, c.k, c.m, got, c.want)
		}
	}
	// A paired difference's discordance rates keep fewLevel even when rare.
	if pd := newPairDiff([]pairSess{{1, 0, 0, 35}, {0, 1, 0, 35}, {0, 0, 0, 35}, {0, 0, 0, 35}}); !pd.p1.paired || pd.p1.bbLevel(0.95) != fewLevel(0.95, 4) {
		t.Errorf("a rare discordance rate's level %.6f, want fewLevel's %.6f", pd.p1.bbLevel(0.95), fewLevel(0.95, 4))
	}
	prev := 1.0
	for k := 3.0; k <= 1000; k *= 1.5 {
		l := fewLevel(0.95, k)
		if l >= prev || l <= 0.95 {
			t.Errorf("fewLevel(0.95, %g) = %.6f: want in (0.95, %.6f)", k, l, prev)
		}
		prev = l
	}
	ys, ms := []int64{10, 9, 2, 8, 0}, []int64{10, 10, 10, 10, 10}
	lo, hi, _ := ClusteredInterval(ys, ms, 0.95)
	l95, h95 := beforeFewLevel(ys, ms)
	if !(lo < l95 && hi > h95) {
		t.Errorf("5 sessions: [%.4f, %.4f], want wider than the 95 %% posterior's [%.4f, %.4f]", lo, hi, l95, h95)
	}
	p := newBBPosterior(ys, ms, 1)
	p.fit()
	a := alphaOf(fewLevel(0.95, 5))
	near(t, "5 sessions' lower bound", lo, p.quantile(a/2), 1e-9)
}
