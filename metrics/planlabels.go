package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
	"gonum.org/v1/gonum/stat/distuv"
)

// LabelGuess is what a team expects its labels to show when the pilot
// has none for a rule: the share of a judge's matches that are labeled
// match (precision) and the share of labeled positives it matches
// (recall).
type LabelGuess struct {
	Precision, Recall float64
}

// LabelPlanOptions set a plan of the label path.
type LabelPlanOptions struct {
	// Budget is the number of labels the team has (`label queue
	// --budget N`): the shares that PASS and FAIL are given at it.
	Budget int
	// Baseline is the judge not planned for (the run's baseline).
	Baseline string
	// Guess, when set, draws the labels of pairs the pilot does not label.
	Guess *LabelGuess
	Reps  int
	Seed  uint64
	// Progress, when set, is told the plans decided so far and the size
	// being simulated (each size takes Reps queues).
	Progress func(done int, what string)
}

// ThinStratum is a queue stratum of a rule where the judges disagree
// that a label plan draws mostly from few pilot labels: its judges'
// results ("C match, R no_match"), its pairs and the pilot's labels of
// them.
type ThinStratum struct {
	Results string `json:"results"`
	Pairs   int64  `json:"pairs"`
	Labels  int64  `json:"labels"`
}

// ThinLabels is the fewest pilot labels of a stratum where the judges
// disagree below which a label plan says it rests on them. Measured over
// populations (TestCalibrationPlanLabelsOverPopulations): pilots with 5–7
// labels in those strata were planned off by 0.1–0.2 on average, pilots
// with 16–24 within a few hundredths.
const ThinLabels = 10

// PlanLabels plans the label path from a pilot's pairs (t, every judge
// of the run as the queue's strata): for each candidate judge and rule,
// the labels from `label queue` that give an 80 % chance that
// precision_min (and, for a dangerous rule with a baseline,
// dangerous_recall_must_beat_baseline) is decided on `--labels`, and the
// shares that PASS and FAIL at o.Budget labels. Each simulated data set
// draws a queue of the budget over every pair as if none were labeled
// (BuildQueue, a seed per data set), labels it — with the dataset's label
// where the pilot has one, else drawn at the pair's queue stratum's share
// of match (the rule and every judge's result), itself drawn per data set
// from its posterior given the pilot's labels of the stratum (the prior
// one label at stratumPrior's share), or where the pilot labels
// none of that stratum from the rule's rates (the labeled pairs' share of
// match among the judge's matches and among the rest, or o.Guess) — and
// decides with the code `report --labels` uses
// (SampleFiguresOf), without Holm's adjustment across rules. The sizes
// searched are a geometric grid (×1.1) from the queue's minimum to every
// pair: "labels for 80 %" is the first grid size that reaches it.
func PlanLabels(t *PairTable, crit replay.KillCriteria, o LabelPlanOptions) ([]PlanResult, error) {
	if o.Reps <= 0 {
		o.Reps = 200
	}
	if o.Budget < 0 {
		return nil, fmt.Errorf("budget %d labels is below 1", o.Budget)
	}
	if o.Progress != nil {
		defer o.Progress(0, "")
	}
	if g := o.Guess; g != nil && (!(g.Precision >= 0 && g.Precision <= 1) || !(g.Recall > 0 && g.Recall <= 1)) {
		return nil, fmt.Errorf("label guesses precision %v, recall %v: want precision in [0, 1] and recall in (0, 1]", g.Precision, g.Recall)
	}
	// The plan's table: every pair unlabeled, the labels kept as truth.
	plan := &PairTable{Judges: t.Judges, jidx: t.jidx, by: map[[2]string]*PairRow{}}
	truth := map[*PairRow]datasets.Label{}
	for _, p := range t.order {
		c := *p
		c.Label = ""
		plan.by[[2]string{c.CaseID, c.RuleID}] = &c
		plan.order = append(plan.order, &c)
		truth[&c] = p.Label
	}
	if len(plan.order) == 0 {
		return nil, fmt.Errorf("the pilot has no pair in scope to label")
	}
	pairs, _ := plan.QueuePairs()
	if o.Budget > len(pairs) {
		// The queues are simulated over the pilot's pairs: a budget
		// beyond them is every pair labeled, not a plan of that budget.
		return nil, fmt.Errorf("--labels %d: the pilot has %d pairs to label (every rule's), the most a queue over it holds; plan at most --labels %d (every pair labeled)", o.Budget, len(pairs), len(pairs))
	}
	letters := make([]string, len(t.Judges))
	for i := range letters {
		letters[i] = string(rune('A' + i%26))
		if i >= 26 {
			letters[i] = fmt.Sprintf("J%d", i+1)
		}
	}
	type item struct {
		res  PlanResult
		j    int
		rule string
		// rates of match among the judge's matches and among the rest,
		// for pairs the pilot does not label
		pm, pn float64
		ok     bool
	}
	var items []*item
	// The pilot's labels within each queue stratum (the rule and every
	// judge's result): a queue labels its strata at different rates, so
	// the share of match among a judge's labeled matches (or the rest)
	// is not that of its unlabeled ones; an unlabeled pair takes its
	// stratum's share where the pilot labels some of it.
	strat := map[string]*[3]float64{} // match labels, labels, prior share
	stratumOf := func(p *PairRow) string { return p.RuleID + "\x00" + strings.Join(p.Results, "\x00") }
	for _, p := range plan.order {
		if l := truth[p]; l != "" {
			k := stratumOf(p)
			if strat[k] == nil {
				strat[k] = &[3]float64{0, 0, stratumPrior(queueResults(p.Results))}
			}
			strat[k][0] += b2f(l == datasets.LabelMatch)
			strat[k][1]++
		}
	}
	// Every stratum's pairs and pilot labels, for the thin strata.
	type stratCount struct {
		results        []string
		pairs, labeled int64
	}
	counts := map[string]*stratCount{}
	for _, p := range plan.order {
		k := stratumOf(p)
		if counts[k] == nil {
			counts[k] = &stratCount{results: p.Results}
		}
		counts[k].pairs++
		if truth[p] != "" {
			counts[k].labeled++
		}
	}
	rules := map[string][]*PairRow{}
	var ruleOrder []string
	for _, p := range plan.order {
		if rules[p.RuleID] == nil {
			ruleOrder = append(ruleOrder, p.RuleID)
		}
		rules[p.RuleID] = append(rules[p.RuleID], p)
	}
	for j, judge := range t.Judges {
		if judge == o.Baseline {
			continue
		}
		for _, rule := range ruleOrder {
			var lm, nm, ln, nn float64 // labeled match / all, among matches and the rest
			var class replay.Class
			hasBase := false
			for _, p := range rules[rule] {
				class = p.Class
				hasBase = hasBase || p.Baseline != ""
				l := truth[p]
				if l == "" {
					continue
				}
				if p.Results[j] == QueueMatch {
					nm++
					lm += b2f(l == datasets.LabelMatch)
				} else {
					nn++
					ln += b2f(l == datasets.LabelMatch)
				}
			}
			it := &item{j: j, rule: rule}
			switch {
			case nm+nn > 0:
				// Half a label of each kind more: a rate of exactly 0 or 1
				// from a few labels is not planned as certain.
				it.pm, it.pn, it.ok = (lm+0.5)/(nm+1), (ln+0.5)/(nn+1), true
			case o.Guess != nil:
				var matches, rest float64
				for _, p := range rules[rule] {
					if p.Results[j] == QueueMatch {
						matches++
					} else {
						rest++
					}
				}
				it.pm = o.Guess.Precision
				if rest > 0 {
					fn := o.Guess.Precision * matches * (1 - o.Guess.Recall) / o.Guess.Recall
					it.pn = min(1, fn/rest)
				}
				it.ok = true
			}
			base := PlanResult{Judge: judge, Rule: rule, Path: "labels"}
			// The stratum where the judges disagree that the plan draws
			// most pairs of from fewer than ThinLabels pilot labels (a
			// pilot with labels; its strata of fewer than ThinLabels
			// unlabeled pairs aside).
			thin := func(matchOnly bool) *ThinStratum {
				if nm+nn == 0 {
					return nil
				}
				var best *stratCount
				seen := map[*stratCount]bool{}
				for _, p := range rules[rule] {
					c := counts[stratumOf(p)]
					if seen[c] {
						continue
					}
					seen[c] = true
					if !disagree(queueResults(c.results)) || (matchOnly && c.results[j] != QueueMatch) ||
						c.labeled >= ThinLabels || c.pairs-c.labeled < ThinLabels {
						continue
					}
					if best == nil || c.pairs-c.labeled > best.pairs-best.labeled {
						best = c
					}
				}
				if best == nil {
					return nil
				}
				parts := make([]string, len(t.Judges))
				for i, r := range queueResults(best.results) {
					parts[i] = t.Judges[i] + " " + r
				}
				return &ThinStratum{Results: strings.Join(parts, ", "), Pairs: best.pairs, Labels: best.labeled}
			}
			reason := "the pilot labels no pair of the rule and no --rate precision=P --rate recall=R guesses the labels"
			add := func(name string, thr float64) {
				r := base
				r.Criterion, r.Threshold = name, thr
				r.Thin = thin(name == CriterionPrecisionMin)
				if !it.ok {
					r.Reason = reason
				}
				c := *it
				c.res = r
				items = append(items, &c)
			}
			add(CriterionPrecisionMin, crit.PrecisionMin)
			if crit.DangerousRecallMustBeatBaseline && class == replay.ClassDangerous && hasBase {
				add(CriterionDangerousRecall, 0)
			}
		}
	}
	// Grid of sizes: from the queue's minimum (5 a stratum) to every pair.
	q0, err := BuildQueue(pairs, QueueConfig{Budget: 1, Seed: o.Seed, Letters: letters})
	if err != nil {
		return nil, err
	}
	var grid []int
	for n := float64(max(q0.MinTotal, 10)); ; n *= 1.1 {
		g := min(int(math.Round(n)), len(pairs))
		if len(grid) == 0 || g > grid[len(grid)-1] {
			grid = append(grid, g)
		}
		if g >= len(pairs) {
			break
		}
	}
	// more[i] collects item i's hints in sessions (labels cannot decide)
	// at the last size simulated.
	more := make([][]float64, len(items))
	rates := func(budget int, seed uint64) ([]float64, []float64, error) {
		pass, fail := make([]float64, len(items)), make([]float64, len(items))
		for i := range more {
			more[i] = more[i][:0]
		}
		rng := rand.New(rand.NewPCG(seed, uint64(budget)))
		for range o.Reps {
			q, err := BuildQueue(pairs, QueueConfig{Budget: budget, Seed: rng.Uint64(), Letters: letters})
			if err != nil {
				return nil, nil, err
			}
			// One draw of the unlabeled pairs' truth per data set and
			// judge, from that judge's rates (its pilot labels or its
			// guess): each judge's plan is decided on its own, and one
			// draw shared across judges took the rates of whichever judge
			// drew a pair first (a second judge's matches the first did
			// not make got the first's rate for the rest, and its
			// precision was planned far below its guess).
			type draw struct {
				p *PairRow
				j int
			}
			drawn := map[draw]bool{}
			// Each stratum's share of match for this data set: drawn from
			// its posterior given the pilot's labels of it, the prior one
			// label at the share the queue assumes for the stratum
			// (stratumPrior: ≈ 0.95 where every judge says match, ≈ 0.05
			// where none does, ½ where they disagree), so that a share
			// resting on a few labels is planned with its uncertainty and
			// a stratum whose labels all agree with its judges mostly
			// agrees. Jeffreys' prior (½ a label of each kind) put about 5
			// errors among 117 pairs whose 12 labels all agreed with both
			// judges, and planned 0.71 where queues decide 0.93.
			sr := map[string]float64{}
			stratRate := func(k string) float64 {
				if r, ok := sr[k]; ok {
					return r
				}
				st := strat[k]
				r := distuv.Beta{Alpha: st[0] + st[2], Beta: st[1] - st[0] + 1 - st[2], Src: rng}.Rand()
				sr[k] = r
				return r
			}
			labelOf := func(p *PairRow, it *item) bool {
				if l := truth[p]; l != "" {
					return l == datasets.LabelMatch
				}
				if v, ok := drawn[draw{p, it.j}]; ok {
					return v
				}
				rate := it.pn
				if p.Results[it.j] == QueueMatch {
					rate = it.pm
				}
				if k := stratumOf(p); strat[k] != nil {
					rate = stratRate(k)
				}
				v := rng.Float64() < rate
				drawn[draw{p, it.j}] = v
				return v
			}
			byRule := map[string][]SampleLabel{}
			for _, qi := range q.Items {
				byRule[qi.RuleID] = append(byRule[qi.RuleID], SampleLabel{CaseID: qi.CaseID, RuleID: qi.RuleID, Stratum: qi.Stratum, StratumSize: qi.StratumSize})
			}
			for i, it := range items {
				if !it.ok {
					continue
				}
				ls := byRule[it.rule]
				for k := range ls {
					ls[k].Match = labelOf(plan.by[[2]string{ls[k].CaseID, ls[k].RuleID}], it)
				}
				f := SampleFiguresOf(plan, it.rule, it.j, ls, crit)
				c := f.PrecisionMin
				if it.res.Criterion == CriterionDangerousRecall {
					c = f.DangerousRecall
				}
				switch c.Status {
				case StatusPass:
					pass[i]++
				case StatusFail:
					fail[i]++
				}
				if c.MoreSessions != nil {
					more[i] = append(more[i], float64(*c.MoreSessions))
				}
			}
		}
		for i := range pass {
			pass[i] /= float64(o.Reps)
			fail[i] /= float64(o.Reps)
		}
		return pass, fail, nil
	}
	open := len(items)
	var last []int64 // median sessions hinted per item at every pair labeled
	for gi, g := range grid {
		if open == 0 {
			break
		}
		if o.Progress != nil {
			o.Progress(len(items)-open, fmt.Sprintf("label plans, simulating queues of %d labels (up to %d)", g, len(pairs)))
		}
		pass, fail, err := rates(g, o.Seed)
		if err != nil {
			return nil, err
		}
		for i, it := range items {
			if !it.ok || it.res.Labels != nil {
				continue
			}
			if pass[i]+fail[i] >= assurance {
				it.res.Labels, it.res.DecideRate = new(int64(g)), new(pass[i]+fail[i])
				open--
			}
		}
		if gi == len(grid)-1 {
			last = make([]int64, len(items))
			for i := range items {
				// Half the data sets or more say labels cannot decide.
				if 2*len(more[i]) >= o.Reps {
					last[i] = int64(math.Ceil(medianOf(more[i])))
				}
			}
		}
	}
	// The first grid size whose rate reaches 0.80 on the search's queues
	// overstates its rate (those queues chose it): each size found is
	// checked on fresh queues, as PlanProportion does, and steps up the
	// grid while the fresh rate falls short (short at every pair labeled,
	// the plan has no size).
	at := map[int64]int{}
	for gi, g := range grid {
		at[int64(g)] = gi
	}
	checked := make([]bool, len(items))
	for range len(grid) {
		need := map[int][]int{} // grid index → items to check there
		var order []int
		for i, it := range items {
			if it.ok && it.res.Labels != nil && !checked[i] {
				gi := at[*it.res.Labels]
				if need[gi] == nil {
					order = append(order, gi)
				}
				need[gi] = append(need[gi], i)
			}
		}
		if len(order) == 0 {
			break
		}
		slices.Sort(order)
		for _, gi := range order {
			if o.Progress != nil {
				o.Progress(len(items)-open, fmt.Sprintf("label plans, checking %d labels on fresh queues", grid[gi]))
			}
			pass, fail, err := rates(grid[gi], o.Seed^freshSeed)
			if err != nil {
				return nil, err
			}
			for _, i := range need[gi] {
				r := pass[i] + fail[i]
				switch {
				case r >= assurance:
					checked[i] = true
					items[i].res.DecideRate = new(r)
				case gi == len(grid)-1:
					// Every pair labeled falls short on fresh queues: no
					// number of labels is shown to decide.
					checked[i] = true
					items[i].res.Labels, items[i].res.DecideRate = nil, nil
				default:
					items[i].res.Labels = new(int64(grid[gi+1]))
				}
			}
		}
	}
	if o.Budget > 0 {
		if o.Progress != nil {
			o.Progress(len(items)-open, fmt.Sprintf("label plans, at the budget of %d labels", o.Budget))
		}
		pass, fail, err := rates(o.Budget, o.Seed^freshSeed)
		if err != nil {
			return nil, err
		}
		for i, it := range items {
			if it.ok {
				it.res.BudgetLabels, it.res.BudgetPass, it.res.BudgetFail = int64(o.Budget), new(pass[i]), new(fail[i])
			}
		}
	}
	out := make([]PlanResult, 0, len(items))
	for i, it := range items {
		r := it.res
		if it.ok && r.Labels == nil && last != nil && last[i] > 0 {
			r.MoreSessions = new(last[i])
		}
		if it.ok {
			switch {
			case r.Labels != nil:
				r.Reason = fmt.Sprintf("about %d labels from the queue decide %s with probability %.2f", *r.Labels, r.Criterion, *r.DecideRate)
			default:
				// The rule's own pairs: the queue of every pair (the grid's
				// last size) labels each of them, the other rules' too.
				r.Reason = fmt.Sprintf("labeling all %d pairs of the rule (the whole queue: %d labels over every rule) does not decide %s with probability %.2f", len(rules[it.rule]), len(pairs), r.Criterion, assurance)
				if r.MoreSessions != nil {
					r.Reason += fmt.Sprintf(" (the recorded sessions' own spread stays however many are labeled): about %s of traffic, labeled at the queue's rate, would", moreSessions(*r.MoreSessions))
				}
			}
			if th := r.Thin; th != nil {
				r.Reason += fmt.Sprintf(" (a guess: the pilot labels %d of the %d pairs where %s, and plans resting on under %d labels of a stratum where the judges disagree were off by 0.1–0.2 on average; label more of the queue first)", th.Labels, th.Pairs, th.Results, ThinLabels)
			}
			if r.BudgetPass != nil {
				r.Reason += fmt.Sprintf("; with %d labels: decided %.0f%% (PASS %.0f%%, FAIL %.0f%%)", o.Budget, 100*(*r.BudgetPass+*r.BudgetFail), 100**r.BudgetPass, 100**r.BudgetFail)
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// moreSessions is "1 more session" or "N more sessions".
func moreSessions(n int64) string {
	if n == 1 {
		return "1 more session"
	}
	return fmt.Sprintf("%d more sessions", n)
}

// medianOf is the median of v (0 when empty); v is reordered.
func medianOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// queueResults is a pair's results as the queue names them (undecided
// for a judge without a result).
func queueResults(rs []string) []string {
	out := slices.Clone(rs)
	for i, r := range out {
		if r == "" {
			out[i] = QueueUndecided
		}
	}
	return out
}
