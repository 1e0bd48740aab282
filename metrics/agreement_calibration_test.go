package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// TestCalibrationKappa: coverage of Cohen's κ by its 95 % interval on
// two raters with known truth (match shares p_a, p_b, κ; items
// independent), beside the percentile bootstrap over items the interval
// replaced. Plain `go test` runs calibrationSmoke replicates a setting;
// `make calibrate` (APEVAL_CALIBRATE) the full count and prints the table
// docs/statistics.md "Agreement" shows. Goal: coverage ≥ 0.925.
func TestCalibrationKappa(t *testing.T) {
	t.Parallel()
	reps, full := calibrationN()
	settings := []struct {
		n         int
		pa, pb, k float64
	}{
		{50, 0.05, 0.05, 0.6},
		{100, 0.05, 0.05, 0.6},
		{40, 0.10, 0.10, 0.4},
		{100, 0.10, 0.10, 0.8},
		{200, 0.03, 0.03, 0.5},
		{100, 0.30, 0.30, 0.6},
		{100, 0.20, 0.20, 0},
		{100, 0.10, 0.10, 0.95},
		{100, 0.05, 0.10, 0.5},
		{60, 0.10, 0.20, 0.6},
		{300, 0.02, 0.05, 0.4},
		{30, 0.20, 0.30, 0.5},
	}
	rng := rand.New(rand.NewPCG(42, 0x6b617070))
	var rows []string
	for _, s := range settings {
		p, ok := kappaCells(s.pa, s.pb, s.k)
		if !ok {
			t.Fatalf("setting %+v is not a table", s)
		}
		var tab, boot kappaTally
		for range reps {
			a, b := make([]bool, s.n), make([]bool, s.n)
			for i := range a {
				u := rng.Float64()
				switch {
				case u < p[0]:
					a[i], b[i] = true, true
				case u < p[0]+p[1]:
					a[i] = true
				case u < p[0]+p[1]+p[2]:
					b[i] = true
				}
			}
			got := CohenKappa(a, b, 0.95)
			tab.add(got, s.k)
			if full {
				boot.add(bootKappa(Kappa{}, s.n, 0.95, cohenStat(a, b)), s.k)
			}
		}
		name := fmt.Sprintf("%d items, match shares %.2f / %.2f, κ %.2f", s.n, s.pa, s.pb, s.k)
		rows = append(rows, checkKappaRow(t, name, &tab, &boot, 0.925, full))
	}
	logKappaTable(t, full, reps, "minimum χ²", rows)
}

// kappaReps is calibrationN with a larger smoke: a κ interval takes
// milliseconds, and at 60 replicates a calibrated interval's smoke falls
// below its slack on one of twenty settings about one seed in ten.
func kappaReps() (int, bool) {
	n, full := calibrationN()
	if !full {
		n = 150
	}
	return n, full
}

// bootKappa is the percentile bootstrap over items (2,000 resamples,
// seeded) that label agreement's intervals used before; kept here as the
// comparison the calibration table prints.
func bootKappa(k Kappa, n int, conf float64, stat func([]int) (float64, float64, bool)) Kappa {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	po, kap, ok := stat(idx)
	k.Observed = po
	if !ok {
		return k
	}
	k.Kappa = ptr(kap)
	if n < MinKappaItems {
		k.IntervalNA = fmt.Sprintf("N/A: %d item(s) rated twice, fewer than %d: an interval over so few items means nothing", n, MinKappaItems)
		return k
	}
	rng := rand.New(rand.NewPCG(1, 0x6b61707061))
	var boots []float64
	for range agreementResamples {
		for i := range idx {
			idx[i] = rng.IntN(n)
		}
		if _, v, ok := stat(idx); ok {
			boots = append(boots, v)
		} else {
			// A resample where everyone gave one label: perfect agreement.
			boots = append(boots, 1)
		}
	}
	sort.Float64s(boots)
	a := (1 - conf) / 2
	lo := boots[int(math.Floor(a*float64(len(boots)-1)))]
	hi := boots[int(math.Ceil((1-a)*float64(len(boots)-1)))]
	k.Lo, k.Hi = ptr(lo), ptr(hi)
	return k
}

// TestCalibrationFleissKappa: coverage of Fleiss' κ by its 95 % interval
// on several raters with known truth: each item's own match rate drawn
// Beta with mean p and intra-class correlation ρ (the κ Fleiss'
// estimates), its m raters independent given it; beside the percentile
// bootstrap the interval replaced. Goal 0.925, except where the rarer
// label is seen a handful of times (floor: the row's own measured level,
// less its Monte Carlo error, so a change that narrows it shows here).
func TestCalibrationFleissKappa(t *testing.T) {
	t.Parallel()
	reps, full := kappaReps()
	settings := []struct {
		n, mlo, mhi int
		p, rho      float64
		goal        float64
	}{
		{50, 3, 3, 0.05, 0.6, 0.88},
		{100, 3, 3, 0.05, 0.6, 0.925},
		{100, 3, 3, 0.10, 0.8, 0.925},
		{60, 4, 4, 0.10, 0.5, 0.925},
		{100, 3, 3, 0.30, 0.6, 0.925},
		{40, 3, 3, 0.20, 0.4, 0.925},
		{80, 2, 4, 0.15, 0.5, 0.925},
		{100, 3, 3, 0.20, 0, 0.925},
	}
	rng := rand.New(rand.NewPCG(43, 0x666c6569))
	var rows []string
	for _, s := range settings {
		var tab, boot kappaTally
		for range reps {
			items := make([][]bool, s.n)
			for i := range items {
				q := sessionRate(rng, s.p, s.rho)
				for range s.mlo + rng.IntN(s.mhi-s.mlo+1) {
					items[i] = append(items[i], rng.Float64() < q)
				}
			}
			got := FleissKappa(items, s.mhi, 0.95)
			tab.add(got, s.rho)
			if full && got.Kappa != nil {
				boot.add(bootKappa(Kappa{}, len(items), 0.95, fleissStat(items)), s.rho)
			}
		}
		raters := fmt.Sprint(s.mlo)
		if s.mhi > s.mlo {
			raters = fmt.Sprintf("%d–%d", s.mlo, s.mhi)
		}
		name := fmt.Sprintf("%d items × %s raters, match share %.2f, κ %.2f", s.n, raters, s.p, s.rho)
		rows = append(rows, checkKappaRow(t, name, &tab, &boot, s.goal, full))
	}
	logKappaTable(t, full, reps, "profile likelihood", rows)
}

// checkKappaRow asserts a setting's coverage against its goal (less the
// smoke's slack; a goal below 0.925 is a measured floor, less two Monte
// Carlo errors in a full run too) and that no interval leaves [−1, 1];
// it returns the setting's table row.
func checkKappaRow(t *testing.T, name string, tab, boot *kappaTally, goal float64, full bool) string {
	t.Helper()
	if tab.n == 0 {
		t.Errorf("%s: no replicate had an interval", name)
		return fmt.Sprintf("| %s | – | – |", name)
	}
	if !full {
		goal -= smokeSlack(0.95, tab.n)
	} else if goal < 0.925 {
		goal -= 2 * math.Sqrt(0.1/float64(tab.n))
	}
	if c := tab.coverage(); c < goal {
		t.Errorf("%s: coverage %.3f < %.3f", name, c, goal)
	}
	if lo, hi := tab.bounds(); lo < -1 || hi > 1 {
		t.Errorf("%s: an interval outside [−1, 1]: [%v, %v]", name, lo, hi)
	}
	return fmt.Sprintf("| %s | %s | %s |", name, tab.cell(), boot.cell())
}

// logKappaTable prints a full run's table, the rows docs/statistics.md
// "Agreement" shows.
func logKappaTable(t *testing.T, full bool, reps int, method string, rows []string) {
	if !full {
		return
	}
	t.Logf("| setting (%d replicates) | %s: coverage (truth below / above), width | percentile bootstrap: coverage (below / above), width |", reps, method)
	t.Log("|---|---|---|")
	for _, r := range rows {
		t.Log(r)
	}
}

// kappaCells is the 2×2 table (both match, only a, only b, neither) of
// match shares pa, pb and Cohen's κ.
func kappaCells(pa, pb, k float64) ([4]float64, bool) {
	pe := pa*pb + (1-pa)*(1-pb)
	p11 := (pe + k*(1-pe) - 1 + pa + pb) / 2
	p := [4]float64{p11, pa - p11, pb - p11, 1 - pa - pb + p11}
	for _, q := range p {
		if q < 0 {
			return p, false
		}
	}
	return p, true
}

type kappaTally struct {
	n, cover, below, above int
	width, minLo, maxHi    float64
}

func (t *kappaTally) add(k Kappa, truth float64) {
	if k.Lo == nil || k.Hi == nil {
		return
	}
	lo, hi := *k.Lo, *k.Hi
	if t.n == 0 || lo < t.minLo {
		t.minLo = lo
	}
	if t.n == 0 || hi > t.maxHi {
		t.maxHi = hi
	}
	t.n++
	t.width += hi - lo
	switch {
	case truth < lo:
		t.below++
	case truth > hi:
		t.above++
	default:
		t.cover++
	}
}

func (t *kappaTally) coverage() float64          { return float64(t.cover) / float64(t.n) }
func (t *kappaTally) bounds() (float64, float64) { return t.minLo, t.maxHi }

func (t *kappaTally) cell() string {
	if t.n == 0 {
		return "–"
	}
	n := float64(t.n)
	return fmt.Sprintf("%.3f (%.3f / %.3f), %.3f", t.coverage(), float64(t.below)/n, float64(t.above)/n, t.width/n)
}
