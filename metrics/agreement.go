package metrics

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/apeval/apeval/datasets"
)

// Kappa is a chance-corrected agreement on binary labels (match or not)
// with an interval: for Cohen's κ the minimum-χ² profile interval (the
// κ values a Pearson goodness-of-fit test of the 2×2 table does not
// reject at the raters' best-fitting match shares), for Fleiss' κ the
// profile-likelihood interval of the ratings' intra-class correlation
// under a beta-binomial model. Both are deterministic: the same labels
// give the same interval.
type Kappa struct {
	// Method is "cohen" (two raters, every item rated by both) or
	// "fleiss" (several raters, two or more ratings per item).
	Method string `json:"method"`
	// Items is the number of items rated at least twice; Raters the
	// number of distinct raters.
	Items  int `json:"items"`
	Raters int `json:"raters"`
	// Observed is the raw agreement share; Kappa, Lo and Hi are nil when
	// chance agreement is 1 (every rating the same: κ is undefined).
	Observed float64  `json:"observed"`
	Kappa    *float64 `json:"kappa"`
	Lo       *float64 `json:"kappa_lo"`
	Hi       *float64 `json:"kappa_hi"`
	// IntervalNA says why Lo and Hi are nil although Kappa is not: fewer
	// than MinKappaItems items (one pair's bootstrap is [κ, κ], a width
	// that means nothing).
	IntervalNA string `json:"kappa_interval_na,omitempty"`
}

// MinKappaItems is the fewest items rated twice a kappa interval is given
// for; below it the interval is N/A.
const MinKappaItems = 10

// agreementResamples is the number of bootstrap resamples of a kappa
// interval.
const agreementResamples = 2000

// CohenKappa is Cohen's κ between two raters' labels on the same items
// (a[i] and b[i] rate item i): κ = (p_o − p_e)/(1 − p_e) with p_e from the
// raters' own match shares.
func CohenKappa(a, b []bool, conf float64) Kappa {
	k := Kappa{Method: "cohen", Items: len(a), Raters: 2}
	if len(a) == 0 {
		return k
	}
	kap, ok := k.estimate(cohenStat(a, b))
	if !ok {
		return k
	}
	var cell [4]float64 // both match, only a, only b, neither
	for i := range a {
		switch {
		case a[i] && b[i]:
			cell[0]++
		case a[i]:
			cell[1]++
		case b[i]:
			cell[2]++
		default:
			cell[3]++
		}
	}
	lo, hi := cohenProfileInterval(cell, kap, conf)
	k.Lo, k.Hi = ptr(lo), ptr(hi)
	return k
}

// estimate sets the raw agreement and κ of all k.Items items from stat;
// ok says an interval is to follow: false where κ is undefined (chance
// agreement 1) or the items are fewer than MinKappaItems (IntervalNA says
// so).
func (k *Kappa) estimate(stat func(idx []int) (po, kappa float64, ok bool)) (kap float64, ok bool) {
	idx := make([]int, k.Items)
	for i := range idx {
		idx[i] = i
	}
	po, kap, ok := stat(idx)
	k.Observed = po
	if !ok {
		return 0, false
	}
	k.Kappa = ptr(kap)
	if k.Items < MinKappaItems {
		k.IntervalNA = fmt.Sprintf("N/A: %d item(s) rated twice, fewer than %d: an interval over so few items means nothing", k.Items, MinKappaItems)
		return kap, false
	}
	return kap, true
}

// cohenStat is Cohen's κ (and the raw agreement) of a and b over the
// items idx; ok is false where chance agreement is 1.
func cohenStat(a, b []bool) func(idx []int) (po, kappa float64, ok bool) {
	return func(idx []int) (po, kappa float64, ok bool) {
		var agree, ma, mb float64
		for _, i := range idx {
			if a[i] == b[i] {
				agree++
			}
			ma += b2f(a[i])
			mb += b2f(b[i])
		}
		n := float64(len(idx))
		po = agree / n
		pa, pb := ma/n, mb/n
		pe := pa*pb + (1-pa)*(1-pb)
		if pe >= 1 {
			return po, 0, false
		}
		return po, (po - pe) / (1 - pe), true
	}
}

// cohenProfileInterval is the minimum-χ² interval of Cohen's κ on a 2×2
// table (both match, only a, only b, neither): the κ₀ in [−1, 1] for
// which some pair of match shares (p_a, p_b) gives cell probabilities
// whose Pearson χ² against the table is at most χ²₁(conf). Given p_a, p_b
// and κ₀ the table is fixed: p_e = p_a·p_b + (1 − p_a)(1 − p_b), p_o =
// p_e + κ₀(1 − p_e), both-match = (p_o − 1 + p_a + p_b)/2. The percentile
// bootstrap it replaced under-covered with few positives (0.85–0.88 at
// 50–100 items, 5 % positive; docs/statistics.md "Agreement"): its
// resamples without a positive of one rater pile up at κ = 0.
func cohenProfileInterval(cell [4]float64, kap, conf float64) (lo, hi float64) {
	n := cell[0] + cell[1] + cell[2] + cell[3]
	z := distuv.UnitNormal.Quantile(1 - (1-conf)/2)
	crit := z * z
	// chi is the smallest Pearson χ² over the match shares at κ₀: a
	// coarse-to-fine grid over (p_a, p_b), which holds both diagonals
	// (where κ₀ near 1 and near −1 are feasible).
	chi := func(k0 float64) float64 {
		best := math.Inf(1)
		cx, cy, w := 0.5, 0.5, 0.5
		for range 7 {
			bx, by := cx, cy
			for i := -10; i <= 10; i++ {
				x := cx + w*float64(i)/10
				if x <= 0 || x >= 1 {
					continue
				}
				for j := -10; j <= 10; j++ {
					y := cy + w*float64(j)/10
					if y <= 0 || y >= 1 {
						continue
					}
					if v := kappaPearson(cell, n, x, y, k0); v < best {
						best, bx, by = v, x, y
					}
				}
			}
			cx, cy = bx, by
			w /= 4
		}
		return best
	}
	// The observed shares fit the table exactly at κ̂ (χ² = 0), and the
	// profile rises on each side: bisect each side for the crossing.
	cross := func(in, out float64) float64 {
		if chi(out) <= crit {
			return out
		}
		for range 40 {
			m := (in + out) / 2
			if chi(m) <= crit {
				in = m
			} else {
				out = m
			}
		}
		return in
	}
	return cross(kap, -1), cross(kap, 1)
}

// kappaPearson is Pearson's χ² of the table against the cell
// probabilities that match shares pa, pb and κ₀ imply; +Inf where those
// are not probabilities, or a cell with counts has probability 0.
func kappaPearson(cell [4]float64, n, pa, pb, k0 float64) float64 {
	pe := pa*pb + (1-pa)*(1-pb)
	p11 := (pe + k0*(1-pe) - 1 + pa + pb) / 2
	p := [4]float64{p11, pa - p11, pb - p11, 1 - pa - pb + p11}
	var s float64
	for i, q := range p {
		if q < -1e-12 {
			return math.Inf(1)
		}
		e := n * q
		if e <= 1e-12 {
			if cell[i] > 0 {
				return math.Inf(1)
			}
			continue
		}
		d := cell[i] - e
		s += d * d / e
	}
	return s
}

// FleissKappa is Fleiss' κ for items rated by varying numbers of raters
// (each item's ratings as match or not; items with fewer than two
// ratings are left out): P_i = Σ_j n_ij(n_ij−1)/(n_i(n_i−1)), P̄ their mean,
// p_j = Σ_i n_ij / Σ_i n_i, P_e = Σ_j p_j², κ = (P̄ − P_e)/(1 − P_e).
func FleissKappa(items [][]bool, raters int, conf float64) Kappa {
	var kept [][]bool
	for _, it := range items {
		if len(it) >= 2 {
			kept = append(kept, it)
		}
	}
	k := Kappa{Method: "fleiss", Items: len(kept), Raters: raters}
	if len(kept) == 0 {
		return k
	}
	kap, ok := k.estimate(fleissStat(kept))
	if !ok {
		return k
	}
	lo, hi := fleissProfileInterval(kept, kap, conf)
	k.Lo, k.Hi = ptr(lo), ptr(hi)
	return k
}

// fleissStat is Fleiss' κ (and the mean pairwise agreement P̄) of the
// items idx; ok is false where chance agreement is 1.
func fleissStat(kept [][]bool) func(idx []int) (po, kappa float64, ok bool) {
	return func(idx []int) (po, kappa float64, ok bool) {
		var sumP, match, total float64
		for _, i := range idx {
			it := kept[i]
			n := float64(len(it))
			var m float64
			for _, v := range it {
				m += b2f(v)
			}
			sumP += (m*(m-1) + (n-m)*(n-m-1)) / (n * (n - 1))
			match += m
			total += n
		}
		pbar := sumP / float64(len(idx))
		pm := match / total
		pe := pm*pm + (1-pm)*(1-pm)
		if pe >= 1 {
			return pbar, 0, false
		}
		return pbar, (pbar - pe) / (1 - pe), true
	}
}

// fleissProfileInterval is the profile-likelihood interval of the
// intra-class correlation ρ of binary ratings, which Fleiss' κ estimates:
// each item's matches are beta-binomial with mean μ and correlation ρ
// (P(x of m) ∝ Π_{j<x}(μ + jθ)·Π_{j<m−x}(1 − μ + jθ)/Π_{j<m}(1 + jθ),
// θ = ρ/(1 − ρ); ρ < 0 allowed where those factors stay positive), and
// the interval is every ρ whose likelihood, maximised over μ, is within
// χ²₁(conf)/2 of the maximum, hulled with κ̂ so the estimate shown lies
// inside. The percentile bootstrap it replaced covered 0.87–0.95
// (docs/statistics.md "Agreement").
func fleissProfileInterval(items [][]bool, kap, conf float64) (lo, hi float64) {
	// The likelihood depends on the items only through how many items
	// have x matches of m ratings.
	type mx struct{ m, x int }
	count := map[mx]float64{}
	mmax := 0
	for _, it := range items {
		x := 0
		for _, v := range it {
			if v {
				x++
			}
		}
		count[mx{len(it), x}]++
		mmax = max(mmax, len(it))
	}
	ll := func(mu, th float64) float64 {
		var s float64
		for c, w := range count {
			var t float64
			for j := 0; j < c.m; j++ {
				fj := float64(j)
				d := 1 + fj*th
				if d <= 0 {
					return math.Inf(-1)
				}
				t -= math.Log(d)
				if j < c.x {
					v := mu + fj*th
					if v <= 0 {
						return math.Inf(-1)
					}
					t += math.Log(v)
				}
				if j < c.m-c.x {
					v := 1 - mu + fj*th
					if v <= 0 {
						return math.Inf(-1)
					}
					t += math.Log(v)
				}
			}
			s += w * t
		}
		return s
	}
	profile := func(rho float64) float64 {
		th := rho / (1 - rho)
		_, v := goldenMax(func(mu float64) float64 { return ll(mu, th) }, 1e-9, 1-1e-9)
		return v
	}
	// ρ ≥ −1/(m − 1) for the largest m keeps 1 + (m − 1)θ > 0 possible.
	rmin, rmax := -1/float64(mmax-1)+1e-9, 1-1e-9
	rhat, best := goldenMax(profile, rmin, rmax)
	crit := distuv.UnitNormal.Quantile(1 - (1-conf)/2)
	crit = crit * crit / 2
	cross := func(in, out float64) float64 {
		if best-profile(out) <= crit {
			return out
		}
		for range 40 {
			m := (in + out) / 2
			if best-profile(m) <= crit {
				in = m
			} else {
				out = m
			}
		}
		return in
	}
	lo, hi = cross(rhat, rmin), cross(rhat, rmax)
	if hi > 1-1e-6 {
		hi = 1
	}
	return math.Min(lo, kap), math.Max(hi, kap)
}

// goldenMax is the golden-section maximum of a unimodal f on [a, b]: its
// argument and value (48 steps narrow [a, b] by 0.618⁴⁸ ≈ 10⁻¹⁰).
func goldenMax(f func(float64) float64, a, b float64) (x, fx float64) {
	g := (math.Sqrt(5) - 1) / 2
	x1, x2 := b-g*(b-a), a+g*(b-a)
	f1, f2 := f(x1), f(x2)
	for range 48 {
		if f1 > f2 {
			b, x2, f2 = x2, x1, f1
			x1 = b - g*(b-a)
			f1 = f(x1)
		} else {
			a, x1, f1 = x1, x2, f2
			x2 = a + g*(b-a)
			f2 = f(x2)
		}
	}
	if f1 > f2 {
		return x1, f1
	}
	return x2, f2
}

// NamedKappa is a Kappa between named parties ("people", or a judge
// identity against the people's labels).
type NamedKappa struct {
	Between string `json:"between"`
	Kappa
}

// RuleAgreement is the agreement on one rule.
type RuleAgreement struct {
	RuleID   string   `json:"rule_id"`
	Labelers []string `json:"labelers"`
	// People is Cohen's κ (two labelers) or Fleiss' κ (more) on the pairs
	// at least two people labeled.
	People Kappa `json:"people"`
	// Judges compares each judge of the run with the first label by time.
	Judges []NamedKappa `json:"judges,omitempty"`
}

// AgreementReport is the agreement of labels files, per rule.
type AgreementReport struct {
	// Confidence is the level of every κ interval (the tables' "95% CI").
	Confidence float64         `json:"confidence"`
	Rules      []RuleAgreement `json:"rules"`
	Warnings   []string        `json:"warnings,omitempty"`
}

// LabelAgreement computes the agreement of labels-file lines: per rule,
// between people (each labeler's last non-skip label of a pair), and,
// when t is not nil, between each judge of t and the people. It warns
// when people agree less with each other than a judge agrees with them,
// on at least MinKappaItems pairs rated twice (on fewer the people's κ
// has no interval and says nothing either way).
func LabelAgreement(lines []datasets.SampleLabel, t *PairTable, conf float64) (*AgreementReport, error) {
	type key struct{ c, r, who string }
	last := map[key]*datasets.SampleLabel{}
	for i := range lines {
		l := &lines[i]
		last[key{l.CaseID, l.RuleID, l.Labeler}] = l
	}
	type pair struct {
		c, r string
		by   map[string]bool
	}
	pairs := map[[2]string]*pair{}
	labelers := map[string]map[string]bool{}
	for k, l := range last {
		if l.Label == datasets.SampleSkip {
			continue
		}
		pk := [2]string{k.c, k.r}
		p := pairs[pk]
		if p == nil {
			p = &pair{c: k.c, r: k.r, by: map[string]bool{}}
			pairs[pk] = p
		}
		p.by[k.who] = l.Label == datasets.LabelMatch
		if labelers[k.r] == nil {
			labelers[k.r] = map[string]bool{}
		}
		labelers[k.r][k.who] = true
	}
	first, err := ResolveSampleLabels(lines)
	if err != nil {
		return nil, err
	}
	rep := &AgreementReport{Confidence: conf}
	var rules []string
	for r := range labelers {
		rules = append(rules, r)
	}
	sort.Strings(rules)
	for _, rule := range rules {
		var names []string
		for n := range labelers[rule] {
			names = append(names, n)
		}
		sort.Strings(names)
		ra := RuleAgreement{RuleID: rule, Labelers: names}
		var keys [][2]string
		for k, p := range pairs {
			if p.r == rule && len(p.by) >= 2 {
				keys = append(keys, k)
			}
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i][0] < keys[j][0] })
		if len(names) == 2 {
			var a, b []bool
			for _, k := range keys {
				a = append(a, pairs[k].by[names[0]])
				b = append(b, pairs[k].by[names[1]])
			}
			ra.People = CohenKappa(a, b, conf)
		} else {
			var items [][]bool
			for _, k := range keys {
				var it []bool
				for _, n := range names {
					if v, ok := pairs[k].by[n]; ok {
						it = append(it, v)
					}
				}
				items = append(items, it)
			}
			ra.People = FleissKappa(items, len(names), conf)
			if len(names) < 2 {
				ra.People.Method = "none"
			}
		}
		if t != nil {
			for j, id := range t.Judges {
				var a, b []bool
				for _, l := range first {
					if l.RuleID != rule {
						continue
					}
					p := t.Row(l.CaseID, l.RuleID)
					if p == nil || p.Results[j] == "" {
						continue
					}
					a = append(a, p.Results[j] == QueueMatch)
					b = append(b, l.Match)
				}
				nk := NamedKappa{Between: id, Kappa: CohenKappa(a, b, conf)}
				ra.Judges = append(ra.Judges, nk)
				if ra.People.Kappa != nil && ra.People.Items >= MinKappaItems && nk.Kappa.Kappa != nil && *ra.People.Kappa < *nk.Kappa.Kappa {
					rep.Warnings = append(rep.Warnings, fmt.Sprintf(
						"%s: people agree less with each other (κ %.2f on %d pairs) than %s agrees with them (κ %.2f on %d pairs): the labels, not the judge, are the problem; clarify the rule's condition before trusting the figures",
						rule, *ra.People.Kappa, ra.People.Items, id, *nk.Kappa.Kappa, nk.Items))
				}
			}
		}
		rep.Rules = append(rep.Rules, ra)
	}
	return rep, nil
}
