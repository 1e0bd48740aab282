package metrics

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
	"gonum.org/v1/gonum/stat/distuv"
)

// labelSim draws the simulated data sets of a label plan: per data set
// (a "rep", seeded by the plan's seed and its own index alone, so the
// figures do not depend on the cores or the order the reps run in), a
// random order of every queue stratum, each stratum's share of match and
// one uniform number per pair. A queue of any budget is then the first
// n_h of each stratum's order, n_h the allocation BuildQueue gives that
// budget, and a pair's truth for judge j is its uniform below the rate
// the plan draws it at: the same random numbers serve every budget
// (queues grow by adding labels), so a criterion's decided share rises
// smoothly with the budget and the search can bisect the grid.
type labelSim struct {
	rows  []*PairRow // the plan's pairs (no label), in the pilot's order
	truth []int8     // the pilot's label of each row: -1 none, 0 no_match, 1 match
	// strat is each row's queue stratum, strata the strata.
	strat  []int
	strata []labelStratum
	// ruleStrata are each rule's strata.
	ruleStrata map[string][]int
	// tables hold each rule's rows alone: SampleFiguresOf reads only the
	// rule's, and passes over them instead of every rule's.
	tables map[string]*PairTable
	// rates of match among judge j's matches and among the rest of a
	// rule, for pairs of a stratum the pilot labels none of.
	rates map[labelKey][2]float64
	pairs []QueuePair
	// letters name the judges in stratum names.
	letters []string
	// alloc is each budget's allocation over strata (from BuildQueue).
	mu    sync.Mutex
	alloc map[int][]int
}

// labelKey is a judge (index) and rule: one SampleFiguresOf call serves
// its precision and its recall gain.
type labelKey struct {
	j    int
	rule string
}

// labelStratum is a queue stratum (the rule and every judge's result):
// its rows, its name in a queue, and the pilot's labels of it.
type labelStratum struct {
	rule, name string
	rows       []int
	// m, n: the pilot's match labels and labels of the stratum; prior the
	// share the queue assumes (stratumPrior).
	m, n, prior float64
}

func newLabelSim(plan *PairTable, truth map[*PairRow]datasets.Label, pairs []QueuePair, letters []string) *labelSim {
	s := &labelSim{rows: plan.order, pairs: pairs, letters: letters,
		tables: map[string]*PairTable{}, ruleStrata: map[string][]int{}, rates: map[labelKey][2]float64{}, alloc: map[int][]int{}}
	s.truth = make([]int8, len(s.rows))
	s.strat = make([]int, len(s.rows))
	idx := map[[2]string]int{}
	for i, p := range s.rows {
		s.truth[i] = -1
		if l := truth[p]; l != "" {
			s.truth[i] = int8(b2i(l == datasets.LabelMatch))
		}
		rs := queueResults(p.Results)
		k := [2]string{p.RuleID, StratumName(letters, rs)}
		h, ok := idx[k]
		if !ok {
			h = len(s.strata)
			idx[k] = h
			s.strata = append(s.strata, labelStratum{rule: p.RuleID, name: k[1], prior: stratumPrior(rs)})
			s.ruleStrata[p.RuleID] = append(s.ruleStrata[p.RuleID], h)
		}
		st := &s.strata[h]
		st.rows = append(st.rows, i)
		if s.truth[i] >= 0 {
			st.n++
			st.m += float64(s.truth[i])
		}
		s.strat[i] = h
		tb := s.tables[p.RuleID]
		if tb == nil {
			tb = &PairTable{Judges: plan.Judges, jidx: plan.jidx, by: map[[2]string]*PairRow{}}
			s.tables[p.RuleID] = tb
		}
		tb.by[[2]string{p.CaseID, p.RuleID}] = p
		tb.order = append(tb.order, p)
	}
	return s
}

// allocation is the labels BuildQueue gives each stratum at budget b.
func (s *labelSim) allocation(b int) ([]int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.alloc[b]; ok {
		return a, nil
	}
	q, err := BuildQueue(s.pairs, QueueConfig{Budget: b, Letters: s.letters})
	if err != nil {
		return nil, err
	}
	by := map[[2]string]int{}
	for _, st := range q.Strata {
		by[[2]string{st.RuleID, st.Name}] = st.Allocated
	}
	a := make([]int, len(s.strata))
	for h, st := range s.strata {
		a[h] = by[[2]string{st.rule, st.name}]
	}
	s.alloc[b] = a
	return a, nil
}

// labelRep is one simulated data set's random numbers.
type labelRep struct {
	order [][]int   // per stratum, its rows in queue order
	share []float64 // per stratum, its share of match (NaN: no pilot label)
	u     []float64 // per row
}

// draw fills rep with data set r's random numbers (reusing its slices).
func (s *labelSim) draw(rep *labelRep, seed uint64, r int) {
	rng := rand.New(rand.NewPCG(seed, 0x6c61_6265_6c00+uint64(r)))
	if rep.order == nil {
		rep.order = make([][]int, len(s.strata))
		rep.share = make([]float64, len(s.strata))
		rep.u = make([]float64, len(s.rows))
	}
	for h := range s.strata {
		st := &s.strata[h]
		o := append(rep.order[h][:0], st.rows...)
		rng.Shuffle(len(o), func(a, b int) { o[a], o[b] = o[b], o[a] })
		rep.order[h] = o
		// The stratum's share of match for this data set: drawn from
		// its posterior given the pilot's labels of it, the prior one
		// label at the share the queue assumes for the stratum
		// (stratumPrior: ≈ 0.95 where every judge says match, ≈ 0.05
		// where none does, ½ where they disagree), so that a share
		// resting on a few labels is planned with its uncertainty and a
		// stratum whose labels all agree with its judges mostly agrees.
		// Jeffreys' prior (½ a label of each kind) put about 5 errors
		// among 117 pairs whose 12 labels all agreed with both judges,
		// and planned 0.71 where queues decide 0.93.
		rep.share[h] = math.NaN()
		if st.n > 0 {
			rep.share[h] = distuv.Beta{Alpha: st.m + st.prior, Beta: st.n - st.m + 1 - st.prior, Src: rng}.Rand()
		}
	}
	for i := range rep.u {
		rep.u[i] = rng.Float64()
	}
}

// match is row i's label in the data set for judge j: the pilot's where
// it has one, else drawn at its stratum's share where the pilot labels
// some of the stratum, else at judge j's rate for the rule (among its
// matches or the rest). Each judge's plan is decided on its own rates:
// one truth shared across judges took the rates of whichever judge drew
// a pair first (a second judge's matches the first did not make got the
// first's rate for the rest, and its precision was planned far below its
// guess).
func (s *labelSim) match(rep *labelRep, i, j int) bool {
	if t := s.truth[i]; t >= 0 {
		return t == 1
	}
	rate := rep.share[s.strat[i]]
	if math.IsNaN(rate) {
		r := s.rates[labelKey{j, s.rows[i].RuleID}]
		rate = r[1]
		if s.rows[i].Results[j] == QueueMatch {
			rate = r[0]
		}
	}
	return rep.u[i] < rate
}

// labelAsk asks for the statuses of some items at a budget: items that
// share a judge and rule share one SampleFiguresOf call.
type labelAsk struct {
	budget int
	items  []int
}

// labelCounts is what a batch of asks gave: per ask and item, the data
// sets that PASS and FAIL and the sessions hinted by those whose labels
// cannot decide (MoreSessions), in rep order.
type labelCounts struct {
	pass, fail [][]int
	more       [][][]float64
}

// run simulates o.Reps data sets from seed and decides every ask's items
// on each (on every core; the counts do not depend on how many).
func (s *labelSim) run(seed uint64, reps int, asks []labelAsk, items []*labelItem, crit replay.KillCriteria) (labelCounts, error) {
	allocs := make([][]int, len(asks))
	for a, ask := range asks {
		al, err := s.allocation(ask.budget)
		if err != nil {
			return labelCounts{}, err
		}
		allocs[a] = al
	}
	// Per ask, the calls it takes: the items grouped by judge and rule.
	type call struct {
		key   labelKey
		items []int // positions in ask.items
	}
	calls := make([][]call, len(asks))
	for a, ask := range asks {
		at := map[labelKey]int{}
		for k, i := range ask.items {
			key := labelKey{items[i].j, items[i].rule}
			c, ok := at[key]
			if !ok {
				c = len(calls[a])
				at[key] = c
				calls[a] = append(calls[a], call{key: key})
			}
			calls[a][c].items = append(calls[a][c].items, k)
		}
	}
	// status[a][k][r]: ask a's item k on data set r (0 inconclusive, 1
	// PASS, 2 FAIL); moreAt likewise the hinted sessions (NaN: none).
	status := make([][][]int8, len(asks))
	moreAt := make([][][]float64, len(asks))
	for a, ask := range asks {
		status[a] = make([][]int8, len(ask.items))
		moreAt[a] = make([][]float64, len(ask.items))
		for k := range ask.items {
			status[a][k] = make([]int8, reps)
			moreAt[a][k] = make([]float64, reps)
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), reps)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var rep labelRep
			var ls []SampleLabel
			for {
				r := int(next.Add(1) - 1)
				if r >= reps {
					return
				}
				s.draw(&rep, seed, r)
				for a := range asks {
					for _, c := range calls[a] {
						ls = ls[:0]
						for _, h := range s.ruleStrata[c.key.rule] {
							st := &s.strata[h]
							size := int64(len(st.rows))
							for _, i := range rep.order[h][:min(allocs[a][h], len(st.rows))] {
								p := s.rows[i]
								ls = append(ls, SampleLabel{CaseID: p.CaseID, RuleID: p.RuleID, Stratum: st.name, StratumSize: size, Match: s.match(&rep, i, c.key.j)})
							}
						}
						f := SampleFiguresOf(s.tables[c.key.rule], c.key.rule, c.key.j, ls, crit)
						for _, k := range c.items {
							cr := f.PrecisionMin
							if items[asks[a].items[k]].res.Criterion == CriterionDangerousRecall {
								cr = f.DangerousRecall
							}
							switch cr.Status {
							case StatusPass:
								status[a][k][r] = 1
							case StatusFail:
								status[a][k][r] = 2
							}
							moreAt[a][k][r] = math.NaN()
							if cr.MoreSessions != nil {
								moreAt[a][k][r] = float64(*cr.MoreSessions)
							}
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	out := labelCounts{pass: make([][]int, len(asks)), fail: make([][]int, len(asks)), more: make([][][]float64, len(asks))}
	for a, ask := range asks {
		out.pass[a] = make([]int, len(ask.items))
		out.fail[a] = make([]int, len(ask.items))
		out.more[a] = make([][]float64, len(ask.items))
		for k := range ask.items {
			for r := range reps {
				switch status[a][k][r] {
				case 1:
					out.pass[a][k]++
				case 2:
					out.fail[a][k]++
				}
				if v := moreAt[a][k][r]; !math.IsNaN(v) {
					out.more[a][k] = append(out.more[a][k], v)
				}
			}
		}
	}
	return out, nil
}
