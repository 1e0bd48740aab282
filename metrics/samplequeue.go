package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/apeval/apeval/datasets"
)

// Results of a pair in a queue stratum name.
const (
	QueueMatch     = "match"
	QueueNoMatch   = "no_match"
	QueueUndecided = "undecided"
)

// QueuePair is one unlabeled (case, rule) pair in scope, with the chosen
// judges' results on it (QueueMatch, QueueNoMatch or QueueUndecided, in
// the order of QueueConfig.Letters).
type QueuePair struct {
	CaseID, RuleID string
	Results        []string
}

// QueueConfig says how a labeling queue is drawn.
type QueueConfig struct {
	// Budget is the number of pairs to queue (at least the minimums).
	Budget int
	// Min is the minimum per non-empty stratum, min(Min, size); 5 when 0.
	Min int
	// Seed seeds the random order.
	Seed uint64
	// Letters name the chosen judges in stratum names ("A", "B", …).
	Letters []string
	// Overlap is the share of the queue marked for every labeler.
	Overlap float64
	// Reach, when above 0, replaces Budget and Min: only the strata where
	// the judges disagree are queued, each up to Reach labels counting
	// the pairs the dataset already labels in it (Labeled), or all its
	// pairs; strata where every judge agrees get none (label queue
	// --reach, the first stage of a two-stage label plan).
	Reach int
	// Labeled counts, per {rule, stratum name}, the pairs of the stratum
	// already labeled (PairTable.LabeledStrata; with labels files,
	// PairTable.FileLabels adds theirs); read with Reach.
	Labeled map[[2]string]int
	// Exclude holds the {case, rule} pairs labels files label: they count
	// in their stratum's size (a labels file's stratum_size counts them)
	// but are never queued. Only with Reach or Matches.
	Exclude map[[2]string]bool
	// Matches, when set, is the letter of one judge: every unlabeled pair
	// it called match is queued (each stratum where that judge says
	// match, whatever the others say, whole) and no other, in place of a
	// Budget or a Reach (label queue --matches: the pairs the judge's
	// precision rests on, all labeled, as a hint in sessions asks).
	Matches string
}

// QueueItem is one pair of the queue, in labeling order.
type QueueItem struct {
	CaseID, RuleID string
	Stratum        string
	StratumSize    int64
	Order          int
	Overlap        bool
}

// QueueStratum describes one stratum of a queue.
type QueueStratum struct {
	RuleID    string
	Name      string
	Size      int64
	Allocated int
	// Prior is the share of match labels the allocation assumed.
	Prior float64
	// Labeled is the pairs of the stratum the dataset labels (census,
	// never queued), with QueueConfig.Reach.
	Labeled int
}

// Queue is a drawn labeling queue.
type Queue struct {
	Items  []QueueItem
	Strata []QueueStratum
	// MinTotal is the sum of the per-stratum minimums; Budget what was
	// asked.
	MinTotal, Budget int
	// Reach is QueueConfig.Reach (0: a budget queue).
	Reach int
	// Matches is QueueConfig.Matches ("": none).
	Matches string
}

// QueueLetters names n judges in stratum names, in order: "A", "B", …,
// then "J27", "J28", … past the alphabet (label queue's letters).
func QueueLetters(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = string(rune('A' + i))
		if i >= 26 {
			out[i] = fmt.Sprintf("J%d", i+1)
		}
	}
	return out
}

// StratumName is the stratum of a result vector: "A:match B:no_match".
func StratumName(letters, results []string) string {
	parts := make([]string, len(results))
	for i, r := range results {
		parts[i] = letters[i] + ":" + r
	}
	return strings.Join(parts, " ")
}

// stratumPrior is the share of match labels the allocation assumes for a
// result vector before any label is seen: the share of the judges that
// said match (undecided counts half), pulled toward ½ by 0.1 of a judge
// on each side, so that strata where every judge agrees get p ≈ 0.05 or
// 0.95 and disagreement strata p ≈ 0.5.
func stratumPrior(results []string) float64 {
	var m float64
	for _, r := range results {
		switch r {
		case QueueMatch:
			m++
		case QueueUndecided:
			m += 0.5
		}
	}
	return (m + 0.1) / (float64(len(results)) + 0.2)
}

// disagree says whether the judges gave different results.
func disagree(results []string) bool {
	for _, r := range results[1:] {
		if r != results[0] {
			return true
		}
	}
	return false
}

type qStratum struct {
	QueueStratum
	pairs    []int
	s        float64 // √(p(1−p))
	disagree bool
	min      int
	results  []string
}

// BuildQueue draws a labeling queue from the unlabeled pairs in scope
// (see docs/statistics.md, "The labeling queue"):
//
//   - strata: per rule, the pairs grouped by the chosen judges' results;
//   - allocation: every stratum gets min(Min, size); the rest of the
//     budget is split evenly across rules (each rule's verdict needs its
//     own figures) and, within a rule, by Neyman allocation n_h ∝ N_h·S_h
//     with S_h = √(p_h(1−p_h)) at the prior p_h of stratumPrior, which
//     minimises the variance of the rule's estimated positive count (the
//     common part of precision and recall); a stratum never gets more
//     than its size, and what a full stratum or rule cannot take goes to
//     the others;
//   - order: a seeded random order inside each stratum; strata are
//     interleaved so that the first two items of every stratum come first
//     (disagreement strata first), then item k of stratum h at position
//     (k+½)/n_h of the way through: any prefix is a stratified random
//     sample whose strata are sampled in proportion to their allocation.
//
// With cfg.Reach the allocation is instead Reach less the dataset's
// labels of the stratum (cfg.Labeled), at most its size, for each
// stratum where the judges disagree, and none elsewhere; the strata,
// their sizes and the order are as above, so the queue is a stratified
// random sample of those strata that the estimator weighs as any queue.
// With cfg.Matches every unlabeled pair of each stratum where that judge
// says match is allocated, and none elsewhere: a census of the pairs its
// precision rests on.
func BuildQueue(pairs []QueuePair, cfg QueueConfig) (*Queue, error) {
	if cfg.Min <= 0 {
		cfg.Min = 5
	}
	matchOf := -1
	if cfg.Matches != "" {
		matchOf = slices.Index(cfg.Letters, cfg.Matches)
		switch {
		case matchOf < 0:
			return nil, fmt.Errorf("matches %q: no judge has that letter (letters %s)", cfg.Matches, strings.Join(cfg.Letters, ", "))
		case cfg.Budget != 0 || cfg.Reach != 0:
			return nil, fmt.Errorf("matches %q queues every pair the judge called match: give no budget (%d) or reach (%d) with it", cfg.Matches, cfg.Budget, cfg.Reach)
		}
	} else if cfg.Reach < 0 || (cfg.Reach == 0 && cfg.Budget < 1) {
		return nil, fmt.Errorf("budget %d, reach %d: want a budget of at least 1 or a reach of at least 1", cfg.Budget, cfg.Reach)
	}
	if len(cfg.Exclude) > 0 && cfg.Reach == 0 && matchOf < 0 {
		return nil, fmt.Errorf("pairs to leave out of a queue are read only with a reach or matches")
	}
	byKey := map[[2]string]*qStratum{}
	var strata []*qStratum
	rules := map[string][]*qStratum{}
	var ruleOrder []string
	for i, p := range pairs {
		if len(p.Results) != len(cfg.Letters) {
			return nil, fmt.Errorf("pair %s/%s has %d results, want %d", p.CaseID, p.RuleID, len(p.Results), len(cfg.Letters))
		}
		name := StratumName(cfg.Letters, p.Results)
		k := [2]string{p.RuleID, name}
		s := byKey[k]
		if s == nil {
			pr := stratumPrior(p.Results)
			s = &qStratum{QueueStratum: QueueStratum{RuleID: p.RuleID, Name: name, Prior: pr},
				s: math.Sqrt(pr * (1 - pr)), disagree: disagree(p.Results), results: p.Results}
			byKey[k] = s
			strata = append(strata, s)
			if rules[p.RuleID] == nil {
				ruleOrder = append(ruleOrder, p.RuleID)
			}
			rules[p.RuleID] = append(rules[p.RuleID], s)
		}
		if !cfg.Exclude[[2]string{p.CaseID, p.RuleID}] {
			s.pairs = append(s.pairs, i)
		}
		s.Size++
	}
	sort.Slice(strata, func(i, j int) bool {
		if strata[i].RuleID != strata[j].RuleID {
			return strata[i].RuleID < strata[j].RuleID
		}
		return strata[i].Name < strata[j].Name
	})
	sort.Strings(ruleOrder)
	q := &Queue{Budget: cfg.Budget, Reach: cfg.Reach, Matches: cfg.Matches}
	switch {
	case matchOf >= 0:
		// Every pair of the judge's match strata left unlabeled: the
		// stratum sizes stay the run's, so a stratum the dataset or a
		// labels file labels in part weighs its labels N_h/n_h as any.
		for _, s := range strata {
			s.Labeled = cfg.Labeled[[2]string{s.RuleID, s.Name}]
			if s.results[matchOf] == QueueMatch {
				s.Allocated = len(s.pairs)
			}
			q.Budget += s.Allocated
		}
	case cfg.Reach > 0:
		// The stratum sizes stay the run's (every unlabeled pair of the
		// stratum), so labels of this queue weigh N_h/n_h as any queue's.
		q.Budget = 0
		for _, s := range strata {
			s.Labeled = cfg.Labeled[[2]string{s.RuleID, s.Name}]
			if s.disagree {
				s.Allocated = min(max(cfg.Reach-s.Labeled, 0), len(s.pairs))
			}
			q.Budget += s.Allocated
		}
	default:
		for _, s := range strata {
			s.min = int(min(int64(cfg.Min), s.Size))
			s.Allocated = s.min
			q.MinTotal += s.min
		}
		allocate(ruleOrder, rules, cfg.Budget-q.MinTotal)
	}

	// Seeded order within each stratum (the pairs arrive in run order,
	// sorted here so the draw does not depend on it).
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6170657661))
	type slot struct {
		phase    int
		key      float64
		disagree bool
		s        int
		k        int
	}
	var slots []slot
	for si, s := range strata {
		sort.Slice(s.pairs, func(i, j int) bool { return pairs[s.pairs[i]].CaseID < pairs[s.pairs[j]].CaseID })
		rng.Shuffle(len(s.pairs), func(i, j int) { s.pairs[i], s.pairs[j] = s.pairs[j], s.pairs[i] })
		for k := 0; k < s.Allocated; k++ {
			sl := slot{phase: 1, key: (float64(k) + 0.5) / float64(s.Allocated), disagree: s.disagree, s: si, k: k}
			if k < 2 {
				sl.phase, sl.key = 0, float64(k)
			}
			slots = append(slots, sl)
		}
	}
	sort.SliceStable(slots, func(i, j int) bool {
		a, b := slots[i], slots[j]
		if a.phase != b.phase {
			return a.phase < b.phase
		}
		if a.key != b.key {
			return a.key < b.key
		}
		if a.disagree != b.disagree {
			return a.disagree
		}
		return a.s < b.s
	})
	for n, sl := range slots {
		s := strata[sl.s]
		p := pairs[s.pairs[sl.k]]
		q.Items = append(q.Items, QueueItem{CaseID: p.CaseID, RuleID: p.RuleID, Stratum: s.Name,
			StratumSize: s.Size, Order: n + 1, Overlap: cfg.Overlap > 0 && rng.Float64() < cfg.Overlap})
	}
	for _, s := range strata {
		q.Strata = append(q.Strata, s.QueueStratum)
	}
	return q, nil
}

// allocate spreads rest labels over the rules evenly, then by Neyman
// inside each rule, capping every stratum at its size; what a capped rule
// cannot take is spread again over the others.
func allocate(rules []string, by map[string][]*qStratum, rest int) {
	open := append([]string(nil), rules...)
	for rest > 0 && len(open) > 0 {
		share := rest / len(open)
		extra := rest % len(open)
		var next []string
		given := 0
		for i, r := range open {
			want := share
			if i < extra {
				want++
			}
			got := neyman(by[r], want)
			given += got
			if got == want && room(by[r]) > 0 {
				next = append(next, r)
			}
		}
		rest -= given
		if given == 0 {
			break
		}
		open = next
	}
}

func room(ss []*qStratum) int64 {
	var n int64
	for _, s := range ss {
		n += s.Size - int64(s.Allocated)
	}
	return n
}

// neyman adds up to want labels to strata in proportion to N_h·S_h over
// the strata with room, largest remainders first; returns how many it
// added.
func neyman(ss []*qStratum, want int) int {
	given := 0
	for want > given {
		var open []*qStratum
		var tot float64
		for _, s := range ss {
			if int64(s.Allocated) < s.Size {
				open = append(open, s)
				tot += float64(s.Size) * s.s
			}
		}
		if len(open) == 0 {
			break
		}
		left := want - given
		type part struct {
			s    *qStratum
			frac float64
		}
		var parts []part
		round := 0
		for _, s := range open {
			ideal := float64(left) * float64(s.Size) * s.s / tot
			add := int(math.Floor(ideal))
			add = int(min(int64(add), s.Size-int64(s.Allocated)))
			s.Allocated += add
			round += add
			if int64(s.Allocated) < s.Size {
				parts = append(parts, part{s, ideal - math.Floor(ideal)})
			}
		}
		sort.SliceStable(parts, func(i, j int) bool { return parts[i].frac > parts[j].frac })
		for _, p := range parts {
			if round >= left {
				break
			}
			p.s.Allocated++
			round++
		}
		given += round
		if round == 0 {
			break
		}
	}
	return given
}

// AddWeakResults appends each pair's weak label as one more result (the
// letter WeakLetter): QueueMatch, QueueNoMatch, or QueueUndecided for a
// pair without one.
func AddWeakResults(pairs []QueuePair, weak map[[2]string]datasets.Label) {
	for i := range pairs {
		l := string(weak[[2]string{pairs[i].CaseID, pairs[i].RuleID}])
		if l == "" {
			l = QueueUndecided
		}
		pairs[i].Results = append(pairs[i].Results, l)
	}
}

// Lines are the queue's items as apeval.labels/v1 queue lines, in
// labeling order.
func (q *Queue) Lines() []datasets.SampleLabel {
	lines := make([]datasets.SampleLabel, len(q.Items))
	for i, it := range q.Items {
		lines[i] = datasets.SampleLabel{Schema: datasets.SampleLabelsSchema, CaseID: it.CaseID, RuleID: it.RuleID,
			Stratum: it.Stratum, StratumSize: it.StratumSize, Order: it.Order, Overlap: it.Overlap}
	}
	return lines
}
