package metrics

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
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
	// Pilot names the pilot run directory in the first stage's command
	// (LabelFirst.Command); "RUN_DIR" when empty.
	Pilot string
	// PilotLabels are the labels files whose labels t carries as the
	// pilot's (plan --pilot-labels): the first stage's command counts
	// them too (label queue --labels).
	PilotLabels []string
	// linear, in tests, scans the grid from its smallest size instead of
	// bisecting it; noFresh prints the search's size unchecked.
	linear, noFresh bool
	// thinAt, in tests, replaces ThinLabels.
	thinAt int
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
// disagree below which a label plan says it rests on them and asks for
// a first stage (LabelFirst) that brings such strata to it. Measured over
// populations (TestCalibrationPlanLabelsOverPopulations, two-stage plans
// from 300-label pilots, 40 a model): a first stage to 10 labels left the
// re-plan's recall gain at 120 labels −0.16/−0.17 on average and its
// small plans +0.28/+0.49; to 20, −0.10/−0.17; to 30, −0.11/−0.08 (417
// labels added on average); to 40, every row within ±0.071 (635 added by
// a budget queue; 66 by --reach, every row within ±0.1).
// Pilots of 1,000 labels (15–29 a stratum) were planned −0.14 there.
const ThinLabels = 40

// thinPairs: a stratum with fewer unlabeled pairs than this weighs too
// little in a plan to call it thin.
const thinPairs = 10

// PlanLabels plans the label path from a pilot's pairs (t, every judge
// of the run as the queue's strata): for each candidate judge and rule,
// the labels from `label queue` that give an 80 % chance that
// precision_min (and, for a dangerous rule with a baseline,
// dangerous_recall_must_beat_baseline) is decided on `--labels`, and the
// shares that PASS and FAIL at o.Budget labels. Each simulated data set
// draws a queue of the budget over every pair as if none were labeled
// (BuildQueue's allocation over the strata, a random order within each,
// the same for every budget: labelSim), labels it — with the dataset's label
// where the pilot has one, else drawn at the pair's queue stratum's share
// of match (the rule and every judge's result), itself drawn per data set
// from its posterior given the pilot's labels of the stratum (the prior
// one label at stratumPrior's share), or where the pilot labels
// none of that stratum from the rule's rates (the labeled pairs' share of
// match among the judge's matches and among the rest, or o.Guess) — and
// decides with the code `report --labels` uses
// (SampleFiguresOf), without Holm's adjustment across rules. The sizes
// searched are a geometric grid (×1.1) from the queue's minimum to every
// pair: "labels for 80 %" is the first grid size that reaches it, found
// by bisection (the decided share rises with the size on the same random
// numbers) and checked on fresh ones.
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
	letters := QueueLetters(len(t.Judges))
	thinAt := int64(ThinLabels)
	if o.thinAt > 0 {
		thinAt = int64(o.thinAt)
	}
	var items []*labelItem
	stratumOf := func(p *PairRow) string { return p.RuleID + "\x00" + strings.Join(p.Results, "\x00") }
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
			it := &labelItem{j: j, rule: rule}
			switch {
			case nm+nn > 0:
				// Half a label of each kind more: a rate of exactly 0 or 1
				// from a few labels is not planned as certain.
				it.pm, it.pn, it.ok = (lm+0.5)/(nm+1), (ln+0.5)/(nn+1), true
				if nm == 0 {
					// No labeled match prediction: the judge's matches in
					// strata the pilot labels none of are drawn at ½, which
					// the plan's precision then rests on.
					for _, p := range rules[rule] {
						if p.Results[j] == QueueMatch {
							it.blind++
						}
					}
				}
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
			// pilot with labels; its strata of fewer than thinPairs
			// unlabeled pairs aside).
			// The first stage of a two-stage plan brings every stratum of
			// the rule where the judges disagree to thinAt (LabelFirst).
			thin := func(matchOnly bool) (*ThinStratum, *LabelFirst) {
				if nm+nn == 0 {
					return nil, nil
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
						c.labeled >= thinAt || c.pairs-c.labeled < thinPairs {
						continue
					}
					if best == nil || c.pairs-c.labeled > best.pairs-best.labeled {
						best = c
					}
				}
				if best == nil {
					return nil, nil
				}
				parts := make([]string, len(t.Judges))
				for i, r := range queueResults(best.results) {
					parts[i] = t.Judges[i] + " " + r
				}
				return &ThinStratum{Results: strings.Join(parts, ", "), Pairs: best.pairs, Labels: best.labeled},
					firstStage(t, rule, letters, thinAt, o.Pilot, o.PilotLabels)
			}
			reason := "the pilot labels no pair of the rule and no --rate precision=P --rate recall=R guesses the labels"
			add := func(name string, thr float64) {
				r := base
				r.Criterion, r.Threshold = name, thr
				r.Thin, r.First = thin(name == CriterionPrecisionMin)
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
	sim := newLabelSim(plan, truth, pairs, letters)
	for _, it := range items {
		if it.ok {
			sim.rates[labelKey{it.j, it.rule}] = [2]float64{it.pm, it.pn}
		}
	}
	done := 0 // items whose search has ended, for Progress
	// ask simulates the data sets of seed with each item at budget at[i]
	// labels (0: not asked) and returns each asked item's shares that
	// PASS and FAIL and the sessions its undecided data sets hint.
	ask := func(seed uint64, at []int, what string) (pass, fail []float64, more [][]float64, err error) {
		byBudget := map[int]int{}
		var asks []labelAsk
		for i, b := range at {
			if b <= 0 {
				continue
			}
			a, ok := byBudget[b]
			if !ok {
				a = len(asks)
				byBudget[b] = a
				asks = append(asks, labelAsk{budget: b})
			}
			asks[a].items = append(asks[a].items, i)
		}
		if o.Progress != nil {
			o.Progress(done, what)
		}
		c, err := sim.run(seed, o.Reps, asks, items, crit)
		if err != nil {
			return nil, nil, nil, err
		}
		pass, fail, more = make([]float64, len(items)), make([]float64, len(items)), make([][]float64, len(items))
		for a, ak := range asks {
			for k, i := range ak.items {
				pass[i] = float64(c.pass[a][k]) / float64(o.Reps)
				fail[i] = float64(c.fail[a][k]) / float64(o.Reps)
				more[i] = c.more[a][k]
			}
		}
		return pass, fail, more, nil
	}
	// budgets is at's grid indices as budgets (at[i] < 0: not asked).
	budgets := func(at []int) []int {
		out := make([]int, len(at))
		for i, gi := range at {
			if gi >= 0 {
				out[i] = grid[gi]
			}
		}
		return out
	}
	count := func(at []int) int {
		n := 0
		for _, gi := range at {
			if gi >= 0 {
				n++
			}
		}
		return n
	}
	// The search: with the same random numbers at every size the decided
	// share rises with the size, so each item's first grid size reaching
	// 0.80 is found by bisection — every pair labeled first (the most
	// labels can do), then halving the grid between the largest size
	// found short of 0.80 and the smallest found reaching it.
	top := len(grid) - 1
	lo, hi, at := make([]int, len(items)), make([]int, len(items)), make([]int, len(items))
	var last []int64 // median sessions hinted per item at every pair labeled
	for i, it := range items {
		lo[i], hi[i], at[i] = -1, top, -1
		if it.ok {
			at[i] = top
			if o.linear {
				at[i] = 0
			}
		}
	}
	// round simulates the data sets of seed with each item open in at (a
	// grid index; −1: closed) at that size, closes it and tells next its
	// decided share and the sessions its undecided data sets hint; next
	// may open it again at another size.
	round := func(seed uint64, what string, next func(i, gi int, r float64, more []float64)) error {
		pass, fail, more, err := ask(seed, budgets(at), what)
		if err != nil {
			return err
		}
		for i := range items {
			if gi := at[i]; gi >= 0 {
				at[i] = -1
				next(i, gi, pass[i]+fail[i], more[i])
			}
		}
		return nil
	}
	for step := 1; count(at) > 0; step++ {
		err := round(o.Seed, fmt.Sprintf("label plans, simulating queues of up to %d labels, search step %d: %d plans open", len(pairs), step, count(at)), func(i, gi int, r float64, more []float64) {
			switch {
			case r >= assurance:
				hi[i] = gi
				items[i].res.Labels, items[i].res.DecideRate = new(int64(grid[gi])), new(r)
			case gi == top:
				// Labeling every pair falls short: no size. Where half the
				// data sets or more say labels cannot decide, how many more
				// sessions of traffic would.
				hi[i] = -1
				if 2*len(more) >= o.Reps {
					if last == nil {
						last = make([]int64, len(items))
					}
					last[i] = int64(math.Ceil(medianOf(more)))
				}
			default:
				lo[i] = gi
			}
			switch {
			case o.linear && hi[i] >= 0 && hi[i] != gi:
				at[i] = gi + 1
			case !o.linear && hi[i] >= 0 && hi[i]-lo[i] > 1:
				at[i] = (lo[i] + hi[i]) / 2
			default:
				done++
			}
		})
		if err != nil {
			return nil, err
		}
	}
	// The size found overstates its rate (the search's data sets chose
	// it): each size is checked on fresh data sets, as PlanProportion
	// does, and steps up the grid while the fresh rate falls short (short
	// at every pair labeled, the plan has no size).
	for i := range items {
		at[i] = -1
		if items[i].res.Labels != nil && !o.noFresh {
			at[i] = hi[i]
		}
	}
	for count(at) > 0 {
		err := round(o.Seed^freshSeed, fmt.Sprintf("label plans, checking %d sizes on fresh queues", count(at)), func(i, gi int, r float64, _ []float64) {
			switch {
			case r >= assurance:
				items[i].res.Labels, items[i].res.DecideRate = new(int64(grid[gi])), new(r)
			case gi == top:
				// Every pair labeled falls short on fresh queues: no
				// number of labels is shown to decide.
				items[i].res.Labels, items[i].res.DecideRate = nil, nil
			default:
				at[i] = gi + 1
			}
		})
		if err != nil {
			return nil, err
		}
	}
	if o.Budget > 0 {
		b := make([]int, len(items))
		for i, it := range items {
			if it.ok {
				b[i] = o.Budget
			}
		}
		pass, fail, _, err := ask(o.Seed^freshSeed, b, fmt.Sprintf("label plans, at the budget of %d labels", o.Budget))
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
				r.Reason += fmt.Sprintf(" (a guess: the pilot labels %d of the %d pairs where %s, and plans resting on under %d labels of a stratum where the judges disagree were off by up to 0.3 on average", th.Labels, th.Pairs, th.Results, r.First.Reach)
				r.Reason += fmt.Sprintf("; label %d more first — `%s` queues them: each stratum of the rule where the judges disagree, to %d labels with the pilot's or all its pairs — add them to the pilot's labels and plan again)", r.First.Labels, r.First.Command, r.First.Reach)
			}
			if it.blind > 0 && r.Criterion == CriterionPrecisionMin {
				also := ""
				if r.Thin != nil {
					also = "also "
				}
				r.Reason += fmt.Sprintf(" (%sa guess: the pilot labels none of the judge's %d match predictions of the rule, so the plan takes their share of match as ½; label some first — any `label queue` over the rule labels at least 5 of each stratum — and plan again)", also, it.blind)
			}
			if r.BudgetPass != nil {
				r.Reason += fmt.Sprintf("; with %d labels: decided %.0f%% (PASS %.0f%%, FAIL %.0f%%)", o.Budget, 100*(*r.BudgetPass+*r.BudgetFail), 100**r.BudgetPass, 100**r.BudgetFail)
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// LabelFirst is the first stage of a two-stage label plan from a pilot
// with few labels where the judges disagree: label the Labels pairs of
// Command (`apeval label queue PILOT --rule Rule --reach Reach`), which
// queues, in every stratum of the rule where the judges disagree (every
// judge of the run as strata), the pilot's unlabeled pairs that bring it
// to Reach labels with the pilot's (or all its pairs), and none where
// they agree; add them to the pilot and plan again.
type LabelFirst struct {
	Rule    string `json:"rule"`
	Labels  int64  `json:"labels"`
	Reach   int64  `json:"reach"`
	Command string `json:"command"`
}

// firstStage is the first stage over t's pairs of rule: the queue of
// `label queue --rule rule --reach reach` (every judge as strata; with
// the labels files t's labels come from, --labels each), whose length it
// counts by drawing it as that command does (a pair a labels file labels
// is labeled in t: not drawn, counted toward its stratum's reach).
func firstStage(t *PairTable, rule string, letters []string, reach int64, pilot string, files []string) *LabelFirst {
	if pilot == "" {
		pilot = "RUN_DIR"
	}
	f := &LabelFirst{Rule: rule, Reach: reach,
		Command: fmt.Sprintf("apeval label queue %s --rule %s --reach %d", shellWord(pilot), shellWord(rule), reach)}
	for _, file := range files {
		f.Command += " --labels " + shellWord(file)
	}
	var pairs []QueuePair
	for _, p := range t.order {
		if p.RuleID == rule && p.Label == "" {
			pairs = append(pairs, QueuePair{CaseID: p.CaseID, RuleID: p.RuleID, Results: queueResults(p.Results)})
		}
	}
	if len(pairs) > 0 {
		q, err := BuildQueue(pairs, QueueConfig{Reach: int(reach), Labeled: t.LabeledStrata(letters), Letters: letters})
		if err == nil {
			f.Labels = int64(len(q.Items))
		}
	}
	return f
}

// shellWord quotes s for a POSIX shell when it holds anything but
// letters, digits and -_./:+=@%,.
func shellWord(s string) string {
	ok := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:+=@%,", r)) {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// labelItem is one criterion of a judge and rule that a label plan
// searches the labels for.
type labelItem struct {
	res  PlanResult
	j    int
	rule string
	// rates of match among the judge's matches and among the rest, for
	// pairs of a stratum the pilot labels none of
	pm, pn float64
	ok     bool
	// blind counts the judge's match predictions of the rule when the
	// pilot labels none of them (but labels other pairs of the rule).
	blind int
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
