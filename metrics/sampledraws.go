package metrics

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"

	"gonum.org/v1/gonum/stat/distuv"
)

// TrafficPair is one recorded pair of a labeled figure's queue strata: its
// stratum (as SampleUnit.Stratum), its session and the judge's result.
// The recorded pairs are what the queue was drawn from; the run knows all
// of them, labeled or not.
type TrafficPair struct {
	Stratum, Session string
	Match            bool
}

// drawDraws is how many draws drawnInterval takes: the 2.5 % point of
// 4,000 draws moves by about 0.25 % of its distance from the median
// between seeds.
const drawDraws = 4000

// drawJointMax is the most cells (stratum × the judge's result) whose
// sizes drawnInterval draws jointly with the shares; beyond, one linear
// normal term (the sessions' spread at the shares' posterior means).
const drawJointMax = 64

// drawExactMax is the most labels of a stratum where the judges did not
// agree whose share drawnInterval draws, when its labels all agree, from
// the exact (Clopper–Pearson) side alone — Beta(n, 1) for n of n, Beta(1,
// n) for 0 of n — rather than the mid-p mixture, whose other half is a
// point mass at the labels' own value: the queue's first two items of a
// stratum, where a long queue's short prefix leaves most strata. With the
// mixture the 3,000-label queue's first 40 labels missed the good
// candidate's recall above 0.036 (docs/statistics.md, "The labeled
// interval from stratified draws").
const drawExactMax = 2

// drawCell is one (stratum, judge's result) cell of drawnInterval: its
// recorded pairs and the figure's (y, x) for a pair of it labeled match
// (y1, x1) and no_match (y0, x0).
type drawCell struct {
	h              int
	m              bool
	n              float64
	y1, x1, y0, x0 float64
	zbar           float64 // mean z of its labeled pairs
	labeled        float64
}

// drawStratum is one stratum of drawnInterval with its labels.
type drawStratum struct {
	name   string
	size   float64 // N_h: recorded pairs
	n, k   float64 // labels, match labels
	agreed bool
	fixed  bool // the census: every pair known, its share fixed at k/n
	share  float64
	p0     float64 // the queue's prior (namePrior) where the judges agreed
}

// drawnInterval is a labeled proportion's interval from the strata's
// shares drawn given their labels (docs/statistics.md, "The labeled
// interval from stratified draws"): each draw takes every queue stratum's
// share of match labels — where the judges agreed from two pseudo-labels
// at the queue's prior, Beta(k + 2·p₀, n − k + 2(1 − p₀)); where they did
// not from the mid-p confidence distribution, ½ Beta(k, n − k + 1) + ½
// Beta(k + 1, n − k), a point mass at 0 for 0 of n and at 1 for n of n
// (on at most drawExactMax labels that all agree, the exact side alone:
// Beta(n, 1) or Beta(1, n)); uniform with no label — and recomputes the figure at the strata's
// recorded sizes; the census keeps its own labels. Beside the shares, the
// recorded sessions are a sample of the traffic (phase 1): each draw
// takes the figure's numerator and denominator jointly normal about the
// drawn shares' totals, with the covariance the sessions' spread of the
// cells' sizes gives (known exactly from traffic, every recorded pair;
// beyond drawJointMax cells, one linear normal term at the shares'
// posterior means instead), and adds a normal term for the clustering of
// the labels within strata that the shares do not carry (the
// Horvitz–Thompson estimate of the cross products of two labeled pairs
// of one session, each less its cell's mean; 0 when negative). The interval is the draws' (1 − conf)/2 and
// (1 + conf)/2 points, clipped to [0, 1] and holding the estimate R. The
// draws' seed comes from the labels and the traffic: the same labels
// always give the same interval. ok is false when a labeled unit's
// stratum is not in traffic or no draw has a denominator.
func drawnInterval(units []SampleUnit, traffic []TrafficPair, f ratioFn, R, conf float64) (lo, hi float64, ok bool) {
	var strata []*drawStratum
	sidx := map[string]int{}
	type ckey struct {
		h int
		m bool
	}
	var cells []*drawCell
	cidx := map[ckey]int{}
	perSess := map[string]map[int]float64{}
	stratumOf := func(name string, fixed bool) int {
		if h, ok := sidx[name]; ok {
			return h
		}
		sidx[name] = len(strata)
		strata = append(strata, &drawStratum{name: name, agreed: nameAgreed(name), fixed: fixed})
		return len(strata) - 1
	}
	cellOf := func(h int, m bool) int {
		k := ckey{h, m}
		if c, ok := cidx[k]; ok {
			return c
		}
		u := SampleUnit{Match: m}
		y1, x1 := f(&u, true)
		y0, x0 := f(&u, false)
		cidx[k] = len(cells)
		cells = append(cells, &drawCell{h: h, m: m, y1: y1, x1: x1, y0: y0, x0: x0})
		return len(cells) - 1
	}
	count := func(session string, c int) {
		if perSess[session] == nil {
			perSess[session] = map[int]float64{}
		}
		perSess[session][c]++
		cells[c].n++
		strata[cells[c].h].size++
	}
	for _, p := range traffic {
		count(p.Session, cellOf(stratumOf(p.Stratum, false), p.Match))
	}
	// The seed: a sum of each label's hash and the strata's sizes, so
	// that neither the labels' order nor the traffic's moves it.
	var seed uint64
	hash := func(parts ...string) uint64 {
		h := fnv.New64a()
		for _, p := range parts {
			h.Write([]byte(p))
			h.Write([]byte{0})
		}
		return h.Sum64()
	}
	for i := range units {
		u := &units[i]
		if u.Stratum == CensusStratum {
			// A census pair is known: its own stratum of one label value.
			name := "\x01census:" + res(u.Label)
			h := stratumOf(name, true)
			count(u.Session, cellOf(h, u.Match))
		}
	}
	for i := range units {
		u := &units[i]
		name := u.Stratum
		if name == CensusStratum {
			name = "\x01census:" + res(u.Label)
		}
		h, ok := sidx[name]
		if !ok {
			return 0, 0, false
		}
		s := strata[h]
		s.n++
		if u.Label {
			s.k++
		}
		c := cidx[ckey{h, u.Match}]
		cells[c].labeled++
		seed += hash(u.Stratum, u.Session, res(u.Label), res(u.Match))
	}
	for _, s := range strata {
		switch {
		case s.fixed:
			s.share = s.k / s.n
		case s.n == 0:
			s.share = 0.5
		case s.agreed:
			s.p0 = namePrior(s.name)
			s.share = (s.k + 2*s.p0) / (s.n + 2)
		default:
			s.share = (s.k + 0.5) / (s.n + 1)
		}
		seed += hash(s.name, strconv.FormatFloat(s.size, 'g', -1, 64))
	}
	// X at the shares' posterior means, and each cell's mean z there.
	var X float64
	for _, c := range cells {
		p := strata[c.h].share
		X += c.n * (p*c.x1 + (1-p)*c.x0)
	}
	if !(X > 0) {
		return 0, 0, false
	}
	for _, c := range cells {
		p := strata[c.h].share
		c.zbar = (p*(c.y1-R*c.x1) + (1-p)*(c.y0-R*c.x0)) / X
	}
	// Phase 1, the strata's sizes: the sessions' spread of Σ_cell
	// n_c,cell·z̄_cell.
	// Strata, cells and sessions in name order: the draws and sums do
	// not depend on the traffic's order.
	rank := make([]int, len(strata))
	order := make([]int, len(strata))
	for h := range order {
		order[h] = h
	}
	sort.Slice(order, func(a, b int) bool { return strata[order[a]].name < strata[order[b]].name })
	for r, h := range order {
		rank[h] = r
	}
	sort.SliceStable(cells, func(a, b int) bool {
		ca, cb := cells[a], cells[b]
		if rank[ca.h] != rank[cb.h] {
			return rank[ca.h] < rank[cb.h]
		}
		return ca.x1+ca.y1 < cb.x1+cb.y1
	})
	remap := make([]int, len(cells))
	for i, c := range cells {
		remap[cidx[ckey{c.h, c.m}]] = i
	}
	for k, c := range cidx {
		cidx[k] = remap[c]
	}
	sessNames := make([]string, 0, len(perSess))
	for k := range perSess {
		sessNames = append(sessNames, k)
	}
	sort.Strings(sessNames)
	K := float64(len(sessNames))
	var vSize, tsum, t2 float64
	// S, the sessions' covariance of the cells' sizes (K/(K − 1)·Σ_c
	// (n_c − n̄)(n_c − n̄)ᵀ), for the joint draw of (Y, X) below; nil
	// beyond drawJointMax cells, where the linear term vSize stands in.
	var S []float64
	C := len(cells)
	if C <= drawJointMax && K > 1 {
		S = make([]float64, C*C)
		mean := make([]float64, C)
		for i, c := range cells {
			mean[i] = c.n / K
		}
		row := make([]float64, C)
		for _, name := range sessNames {
			for i := range row {
				row[i] = -mean[i]
			}
			for c, n := range perSess[name] {
				row[remap[c]] += n
			}
			for i := range C {
				if row[i] == 0 {
					continue
				}
				for j := range C {
					S[i*C+j] += row[i] * row[j]
				}
			}
		}
		// The sessions with none of the cells' pairs are not in perSess;
		// K counts only those that have some, as the bootstrap would.
		for i := range S {
			S[i] *= K / (K - 1)
		}
	}
	for _, name := range sessNames {
		m := perSess[name]
		cs := make([]int, 0, len(m))
		for c := range m {
			cs = append(cs, c)
		}
		sort.Ints(cs)
		var t float64
		for _, c := range cs {
			t += m[c] * cells[remap[c]].zbar
		}
		tsum += t
		t2 += t * t
	}
	if K > 1 {
		vSize = (t2 - tsum*tsum/K) * K / (K - 1)
	}
	// Phase 1, the labels' clustering within strata: Σ_c Σ_{i≠j∈c}
	// e_i·e_j/π_ij over labeled pairs, e the pair's z less its cell's
	// labeled mean.
	zl := make([]float64, len(units))
	cmean := make([]float64, len(cells))
	for i := range units {
		u := &units[i]
		y, x := f(u, u.Label)
		zl[i] = (y - R*x) / X
		h := sidx[stratumName(u)]
		c := cidx[ckey{h, u.Match}]
		cmean[c] += zl[i] / cells[c].labeled
	}
	type member struct {
		h int
		e float64
	}
	bySess := map[string][]member{}
	for i := range units {
		u := &units[i]
		h := sidx[stratumName(u)]
		if strata[h].fixed {
			continue
		}
		c := cidx[ckey{h, u.Match}]
		bySess[u.Session] = append(bySess[u.Session], member{h, zl[i] - cmean[c]})
	}
	keys := make([]string, 0, len(bySess))
	for k := range bySess {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var vClust float64
	for _, k := range keys {
		ms := bySess[k]
		for a := range ms {
			for b := a + 1; b < len(ms); b++ {
				sa, sb := strata[ms[a].h], strata[ms[b].h]
				pij := sa.n / sa.size * sb.n / sb.size
				if ms[a].h == ms[b].h {
					if sa.n < 2 || sa.size < 2 {
						continue
					}
					pij = sa.n * (sa.n - 1) / (sa.size * (sa.size - 1))
				}
				vClust += 2 * ms[a].e * ms[b].e / pij
			}
		}
	}
	if K > 1 {
		vClust *= K / (K - 1)
	}

	sd := math.Sqrt(max(0, vSize) + max(0, vClust))
	if S != nil {
		sd = math.Sqrt(max(0, vClust))
	}
	vy, vx := make([]float64, C), make([]float64, C)
	quad := func(a, b []float64) float64 {
		var q float64
		for i := range C {
			if a[i] == 0 {
				continue
			}
			for j := range C {
				q += a[i] * S[i*C+j] * b[j]
			}
		}
		return q
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	draw := func(s *drawStratum) float64 {
		k, n := s.k, s.n
		switch {
		case s.fixed:
			return s.share
		case n == 0:
			return rng.Float64()
		case s.agreed:
			return distuv.Beta{Alpha: k + 2*s.p0, Beta: n - k + 2*(1-s.p0), Src: rng}.Rand()
		case n <= drawExactMax && k == n:
			// The queue's first labels of a stratum, all alike: the
			// exact (Clopper–Pearson) side in full, not mid-p's half.
			return distuv.Beta{Alpha: k, Beta: 1, Src: rng}.Rand()
		case n <= drawExactMax && k == 0:
			return distuv.Beta{Alpha: 1, Beta: n, Src: rng}.Rand()
		case rng.IntN(2) == 0:
			if k == 0 {
				return 0
			}
			return distuv.Beta{Alpha: k, Beta: n - k + 1, Src: rng}.Rand()
		default:
			if k == n {
				return 1
			}
			return distuv.Beta{Alpha: k + 1, Beta: n - k, Src: rng}.Rand()
		}
	}
	rs := make([]float64, 0, drawDraws)
	p := make([]float64, len(strata))
	for range drawDraws {
		for _, h := range order {
			p[h] = draw(strata[h])
		}
		var y, x float64
		for i, c := range cells {
			vy[i] = p[c.h]*c.y1 + (1-p[c.h])*c.y0
			vx[i] = p[c.h]*c.x1 + (1-p[c.h])*c.x0
			y += c.n * vy[i]
			x += c.n * vx[i]
		}
		if S != nil {
			// The strata's sizes as the sessions would resample them:
			// (Y, X) jointly normal about the drawn shares' totals.
			syy, sxx, sxy := quad(vy, vy), quad(vx, vx), quad(vy, vx)
			z1, z2 := rng.NormFloat64(), rng.NormFloat64()
			if syy > 0 {
				y += math.Sqrt(syy) * z1
				x += sxy/math.Sqrt(syy)*z1 + math.Sqrt(max(0, sxx-sxy*sxy/syy))*z2
			} else if sxx > 0 {
				x += math.Sqrt(sxx) * z2
			}
		}
		if !(x > 0) {
			continue
		}
		r := y / x
		if sd > 0 {
			r += sd * rng.NormFloat64()
		}
		rs = append(rs, r)
	}
	if len(rs) == 0 {
		return 0, 0, false
	}
	sort.Float64s(rs)
	n := float64(len(rs))
	a := (1 - conf) / 2
	lo = rs[int(math.Floor(a*n))]
	hi = rs[max(0, int(math.Ceil((1-a)*n))-1)]
	lo, hi = max(0, min(lo, R)), min(1, max(hi, R))
	return lo, hi, true
}

// stratumName is the stratum drawnInterval files a unit under.
func stratumName(u *SampleUnit) string {
	if u.Stratum == CensusStratum {
		return "\x01census:" + res(u.Label)
	}
	return u.Stratum
}

// res is a label or result as the queue writes it.
func res(b bool) string {
	if b {
		return QueueMatch
	}
	return QueueNoMatch
}
