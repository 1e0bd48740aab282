package metrics

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/apeval/apeval/datasets"
)

// Weak labels corrected from a human-labeled slice (issue 38 point 3;
// docs/statistics.md, "Weak labels corrected from a human slice").
//
// Weak labels (users' overrides of the agent's own gate) are known on
// many pairs but are a signal, not ground truth. A human slice drawn with
// `label queue --weak-labels` is a stratified random sample whose strata
// are (judges' results × weak label). In a stratum the weak label is one
// value w, so the stratum's human labels estimate the weak label's error
// rate there (P(human ≠ w)), and the corrected positive count of the
// stratum is N_h·(share of human match labels). Summed over strata, this
// measurement-error correction is the design-weighted estimator of
// figures from a labeled sample, and it is also what a prediction-powered
// (difference) estimator with the weak label as the prediction gives:
// Σ_U w_i + Σ_h N_h·mean_h(y − w) = Σ_h N_h·mean_h(y) when w is constant in
// every stratum. So the corrected figures are WeightedPrecision and
// WeightedRecall on the slice (sessions as clusters inside strata), and
// their intervals carry the uncertainty of the correction: the per-stratum
// error rates are estimated, never plugged in as known.

// WeakSide names a pair's weak label: QueueMatch, QueueNoMatch or
// QueueUndecided (no weak label), as in queue stratum names ("W:match").
type WeakSide = string

// WeakLetter is the letter of the weak label in a queue stratum name.
const WeakLetter = "W"

// ErrNoWeakStrata says some labels' strata carry the weak label and
// others do not: slices from different queues.
var ErrNoWeakStrata = errors.New("some labels' strata carry the weak label (W:) and this one does not: labels from different queues; correct with one slice at a time")

// WeakOf returns the weak label a queue stratum name carries ("… W:match")
// and whether it carries one.
func WeakOf(stratum string) (WeakSide, bool) {
	for _, f := range strings.Fields(stratum) {
		if v, ok := strings.CutPrefix(f, WeakLetter+":"); ok {
			return v, true
		}
	}
	return "", false
}

// WeakStratum is one stratum of the human slice with its weak label's
// error rate: the share of the stratum's human labels that disagree with
// its weak label (for W:undecided, the share of match labels), with a
// design interval (sessions as clusters).
type WeakStratum struct {
	RuleID  string   `json:"rule_id"`
	Stratum string   `json:"stratum"`
	Weak    WeakSide `json:"weak_label"`
	Size    int64    `json:"pairs"`
	Labeled int64    `json:"labeled"`
	// Disagree counts the human labels that differ from the weak label
	// (for W:undecided, the human match labels).
	Disagree int64 `json:"disagree"`
	// Rate is Disagree/Labeled with its interval (nil when unlabeled).
	Rate   *float64 `json:"error_rate"`
	RateLo *float64 `json:"error_rate_lo"`
	RateHi *float64 `json:"error_rate_hi"`
}

// WeakFigure is a figure on the weak labels as they are (run
// --weak-labels): a plain ratio over the pairs with a weak label, no
// interval (the labels are not ground truth, so no interval on them
// would mean what it says).
type WeakFigure struct {
	Num   int64    `json:"num"`
	Den   int64    `json:"den"`
	Value *float64 `json:"value"`
}

func weakFigure(num, den int64) WeakFigure {
	f := WeakFigure{Num: num, Den: den}
	if den > 0 {
		f.Value = ptr(float64(num) / float64(den))
	}
	return f
}

// WeakCorrection is one judge × rule's figures on weak labels beside the
// same figures corrected from the human slice.
type WeakCorrection struct {
	Judge  string `json:"judge"`
	RuleID string `json:"rule_id"` // AllRules for the judge's total
	// WeakPrecision and WeakRecall are computed on the weak labels.
	WeakPrecision WeakFigure `json:"weak_precision"`
	WeakRecall    WeakFigure `json:"weak_recall"`
	// WeakMatchWrong is the design-weighted share of pairs with a weak
	// match label that people label no_match; WeakNoMatchWrong the share of
	// weak no_match labels people label match.
	WeakMatchWrong   WeightedRatio `json:"weak_match_wrong"`
	WeakNoMatchWrong WeightedRatio `json:"weak_no_match_wrong"`
	// Precision and Recall are the corrected figures (design-weighted on
	// the human labels); nil estimates when NA says why.
	Precision WeightedRatio `json:"precision"`
	Recall    WeightedRatio `json:"recall"`
	// NA says why the corrected figures are not given ("" when they are).
	NA string `json:"na,omitempty"`
	// Labels counts the human labels used (sampled and census); Dropped
	// the sampled ones of pairs this judge did not have or the dataset
	// already labels.
	Labels  int64 `json:"labels"`
	Dropped int   `json:"labels_dropped"`
}

// WeakReport is the correction of every judge and rule of a run.
type WeakReport struct {
	Confidence float64 `json:"confidence"`
	// PostStratified says the slice was drawn without the weak label in
	// its strata (label queue without --weak-labels): each queue stratum
	// was split by weak label after the fact, its cells weighted by their
	// sizes in the run (CorrectWeak).
	PostStratified bool             `json:"post_stratified,omitempty"`
	Rows           []WeakCorrection `json:"rows"`
	Strata         []WeakStratum    `json:"strata"`
}

// Method says how the corrected figures were computed: stratified on
// (judges' results × weak label), or post-stratified by weak label.
func (r *WeakReport) Method() string {
	if r.PostStratified {
		return "design-weighted on people's labels of a slice stratified on the judges' results, post-stratified by weak label (each cell weighted by its pairs in the run), sessions as clusters within cells (linearized, Wilson at the effective size)"
	}
	return "design-weighted on people's labels of a slice stratified on (judges' results × weak label), sessions as clusters within strata (linearized, Wilson at the effective size)"
}

// SliceLabels resolves the people's labels of a slice that corrects
// weak labels (each labeler's last label of a pair, ResolveSampleLabels);
// missing counts those naming a pair t lacks. A weak line is refused:
// weak labels cannot correct weak labels.
func (t *PairTable) SliceLabels(lines []datasets.SampleLabel) (labels []SampleLabel, missing int, err error) {
	for _, l := range lines {
		if l.LabelSource == datasets.LabelSourceWeak {
			return nil, 0, fmt.Errorf("%s: label_source: weak labels cannot correct weak labels; --labels takes people's labels of a slice drawn with apeval label queue --weak-labels", l.Source)
		}
	}
	if labels, err = ResolveSampleLabels(lines); err != nil {
		return nil, 0, err
	}
	for _, l := range labels {
		if t.Row(l.CaseID, l.RuleID) == nil {
			missing++
		}
	}
	return labels, missing, nil
}

// weakUnit is a labeled pair with its weak label.
type weakUnit struct {
	SampleUnit
	weak WeakSide
}

// CorrectWeak computes, for every judge of the table and every rule (then
// the judge's total over rules), the figures on the weak labels (weak,
// keyed by case and rule; pairs absent have none) and the same figures
// corrected from the human labels (labels: a slice drawn with `label
// queue --weak-labels`, resolved; the dataset's own labels in the table
// join as the census). It returns ErrNoWeakStrata (wrapped, naming a
// label) when a label's stratum does not carry the weak label, and an
// error when a stratum's weak label is not the pair's (the slice was drawn
// on other weak labels). A rule whose slice leaves some pairs in no
// labeled stratum, or whose strata hold fewer than MinWeakStratum labels,
// gets its corrected figures N/A with the reason.
func (t *PairTable) CorrectWeak(weak map[[2]string]datasets.Label, labels []SampleLabel, conf float64) (*WeakReport, error) {
	rep := &WeakReport{Confidence: conf}
	withW := 0
	for _, l := range labels {
		if _, ok := WeakOf(l.Stratum); ok {
			withW++
		}
	}
	if withW == 0 && len(labels) > 0 {
		post, err := t.postStratify(weak, labels)
		if err != nil {
			return nil, err
		}
		labels, rep.PostStratified = post, true
	}
	for _, l := range labels {
		w, ok := WeakOf(l.Stratum)
		if !ok {
			return nil, fmt.Errorf("case %s rule %s, stratum %q: %w", l.CaseID, l.RuleID, l.Stratum, ErrNoWeakStrata)
		}
		if got := weakSide(weak, l.CaseID, l.RuleID); got != w {
			return nil, fmt.Errorf("case %s rule %s: the label's stratum says W:%s but the weak labels given say %s: the slice was drawn on other weak labels", l.CaseID, l.RuleID, w, got)
		}
	}
	rules := t.ruleIDs()
	for j, judge := range t.Judges {
		var all []weakUnit
		var total WeakCorrection
		var wtp, wfp, wfn int64
		totalNA := ""
		for _, rule := range rules {
			c, units := t.correctRule(j, rule, weak, labels, conf)
			c.Judge = judge
			rep.Rows = append(rep.Rows, c)
			if c.NA != "" && totalNA == "" {
				totalNA = "rule " + rule + ": " + c.NA
			}
			wtp += c.WeakPrecision.Num
			wfp += c.WeakPrecision.Den - c.WeakPrecision.Num
			wfn += c.WeakRecall.Den - c.WeakRecall.Num
			total.Labels += c.Labels
			total.Dropped += c.Dropped
			for _, u := range units {
				if u.Stratum != CensusStratum {
					u.Stratum = rule + "\x00" + u.Stratum
				}
				all = append(all, u)
			}
		}
		total.Judge, total.RuleID = judge, AllRules
		total.WeakPrecision, total.WeakRecall = weakFigure(wtp, wtp+wfp), weakFigure(wtp, wtp+wfn)
		total.NA = totalNA
		corrected(&total, all, conf)
		rep.Rows = append(rep.Rows, total)
	}
	rep.Strata = t.weakStrata(labels, conf)
	return rep, nil
}

// postStratify splits the queue strata of a slice drawn without the weak
// label by the weak label of each pair: the cell (h, w) weighs N_hw/n_hw,
// N_hw its pairs in the run. Each pair's queue stratum is recomputed from
// the table's judges (QueueLetters over t.Judges, as label queue names
// them); a label whose stratum does not match is an error (the slice was
// drawn from other judges: give label correct the queue's --judge list).
// Post-stratification conditions on the cell sizes; a cell nobody labeled
// leaves the rule N/A (correctRule's coverage check).
func (t *PairTable) postStratify(weak map[[2]string]datasets.Label, labels []SampleLabel) ([]SampleLabel, error) {
	letters := QueueLetters(len(t.Judges))
	stratum := func(p *PairRow) string {
		res := make([]string, len(p.Results))
		for i, r := range p.Results {
			res[i] = r
			if r == "" {
				res[i] = QueueUndecided
			}
		}
		return StratumName(letters, res)
	}
	type cell struct{ rule, name string }
	size := map[cell]int64{}
	for _, p := range t.order {
		if p.Label != "" {
			continue
		}
		size[cell{p.RuleID, stratum(p) + " " + WeakLetter + ":" + weakSide(weak, p.CaseID, p.RuleID)}]++
	}
	out := make([]SampleLabel, len(labels))
	for i, l := range labels {
		out[i] = l
		p := t.by[[2]string{l.CaseID, l.RuleID}]
		if p == nil || p.Label != "" {
			continue // left out and counted by correctRule
		}
		h := stratum(p)
		if h != l.Stratum {
			return nil, fmt.Errorf("case %s rule %s: the label's stratum %q is not %q, the pair's stratum over this run's judges (%s): the slice was drawn on other judges; give label correct the queue's --judge list", l.CaseID, l.RuleID, l.Stratum, h, strings.Join(t.Judges, ", "))
		}
		c := cell{l.RuleID, h + " " + WeakLetter + ":" + weakSide(weak, l.CaseID, l.RuleID)}
		out[i].Stratum, out[i].StratumSize = c.name, size[c]
	}
	return out, nil
}

// MinWeakStratum is the fewest human labels a stratum of the slice needs
// for the corrected figures: below it one label stands for the stratum's
// whole error rate (the queue's order gives every stratum two labels
// first, so a prefix of 2 × strata labels reaches it).
const MinWeakStratum = 2

func weakSide(weak map[[2]string]datasets.Label, caseID, ruleID string) WeakSide {
	switch weak[[2]string{caseID, ruleID}] {
	case datasets.LabelMatch:
		return QueueMatch
	case datasets.LabelNoMatch:
		return QueueNoMatch
	}
	return QueueUndecided
}

func (t *PairTable) ruleIDs() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range t.order {
		if !seen[p.RuleID] {
			seen[p.RuleID] = true
			out = append(out, p.RuleID)
		}
	}
	sort.Strings(out)
	return out
}

// correctRule is one judge × rule's correction and its labeled units.
func (t *PairTable) correctRule(j int, rule string, weak map[[2]string]datasets.Label, labels []SampleLabel, conf float64) (WeakCorrection, []weakUnit) {
	c := WeakCorrection{RuleID: rule}
	var units []weakUnit
	var wtp, wfp, wfn int64
	// Pairs outside the census, per weak label: what the slice's strata
	// must cover.
	open := map[WeakSide]int64{}
	for _, p := range t.order {
		if p.RuleID != rule || p.Results[j] == "" {
			continue
		}
		w := weakSide(weak, p.CaseID, p.RuleID)
		match := p.Results[j] == QueueMatch
		switch {
		case w == QueueMatch && match:
			wtp++
		case w == QueueMatch:
			wfn++
		case w == QueueNoMatch && match:
			wfp++
		}
		if p.Label != "" {
			units = append(units, weakUnit{t.unit(p, j, -1, CensusStratum, 0, p.Label == datasets.LabelMatch), w})
			continue
		}
		open[w]++
	}
	c.WeakPrecision, c.WeakRecall = weakFigure(wtp, wtp+wfp), weakFigure(wtp, wtp+wfn)
	covered := map[WeakSide]int64{}
	size := map[string]int64{}
	n := map[string]int64{}
	for _, l := range labels {
		if l.RuleID != rule {
			continue
		}
		p := t.by[[2]string{l.CaseID, l.RuleID}]
		if p == nil || p.Label != "" {
			c.Dropped++
			continue
		}
		// A stratum's labels count toward its error rate whether or not
		// this judge had the pair (the strata are the queue's, over every
		// judge); the judge's figures use the pairs it had.
		w, _ := WeakOf(l.Stratum)
		if l.StratumSize > size[l.Stratum] {
			covered[w] += l.StratumSize - size[l.Stratum]
			size[l.Stratum] = l.StratumSize
		}
		n[l.Stratum]++
		if p.Results[j] == "" {
			c.Dropped++
			continue
		}
		units = append(units, weakUnit{t.unit(p, j, -1, l.Stratum, l.StratumSize, l.Match), w})
	}
	for _, w := range []WeakSide{QueueMatch, QueueNoMatch, QueueUndecided} {
		if miss := open[w] - covered[w]; miss > 0 && c.NA == "" {
			c.NA = fmt.Sprintf("%d of the %s with weak label %s lie in strata no human label reached (label further down the queue)", miss, counted(float64(open[w]), "unlabeled pair", "unlabeled pairs"), w)
		}
	}
	if c.NA == "" {
		var thin []string
		for s, k := range n {
			if k < MinWeakStratum && size[s] > k {
				thin = append(thin, s)
			}
		}
		sort.Strings(thin)
		if len(thin) > 0 {
			c.NA = fmt.Sprintf("stratum %q has fewer than %d human labels (its weak labels' error rate rests on one label)", thin[0], MinWeakStratum)
			if len(thin) > 1 {
				c.NA += fmt.Sprintf(", and %d more strata", len(thin)-1)
			}
		}
	}
	corrected(&c, units, conf)
	return c, units
}

// corrected fills the corrected figures and the weak labels' error rates
// from the labeled units; the corrected figures stay nil when c.NA is set.
func corrected(c *WeakCorrection, units []weakUnit, conf float64) {
	su := make([]SampleUnit, len(units))
	for i, u := range units {
		su[i] = u.SampleUnit
	}
	c.Labels = int64(len(units))
	// The error rates need each unit's weak label; weightedRatio hands
	// the estimator pointers into su.
	idx := map[*SampleUnit]WeakSide{}
	for i := range su {
		idx[&su[i]] = units[i].weak
	}
	c.WeakMatchWrong = weightedRatio(su, conf, func(u *SampleUnit, l bool) (float64, float64) {
		if idx[u] != QueueMatch {
			return 0, 0
		}
		return b2f(!l), 1
	}, true)
	c.WeakNoMatchWrong = weightedRatio(su, conf, func(u *SampleUnit, l bool) (float64, float64) {
		if idx[u] != QueueNoMatch {
			return 0, 0
		}
		return b2f(l), 1
	}, true)
	if c.NA != "" {
		return
	}
	c.Precision = WeightedPrecision(su, conf)
	c.Recall = WeightedRecall(su, conf)
}

// weakStrata is every stratum of the slice with its weak label's error
// rate (the labels of the stratum only, sessions as clusters).
func (t *PairTable) weakStrata(labels []SampleLabel, conf float64) []WeakStratum {
	type key struct{ rule, stratum string }
	by := map[key][]SampleUnit{}
	var keys []key
	for _, l := range labels {
		p := t.by[[2]string{l.CaseID, l.RuleID}]
		if p == nil || p.Label != "" {
			continue
		}
		k := key{l.RuleID, l.Stratum}
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
		}
		by[k] = append(by[k], SampleUnit{Stratum: l.Stratum, StratumSize: l.StratumSize, Session: p.sessionKey(), Label: l.Match})
	}
	sort.Slice(keys, func(a, b int) bool {
		if keys[a].rule != keys[b].rule {
			return keys[a].rule < keys[b].rule
		}
		return keys[a].stratum < keys[b].stratum
	})
	out := make([]WeakStratum, 0, len(keys))
	for _, k := range keys {
		us := by[k]
		w, _ := WeakOf(k.stratum)
		s := WeakStratum{RuleID: k.rule, Stratum: k.stratum, Weak: w, Labeled: int64(len(us))}
		for _, u := range us {
			s.Size = max(s.Size, u.StratumSize)
			if (w == QueueMatch) != u.Label {
				s.Disagree++
			}
		}
		r := weightedRatio(us, conf, func(u *SampleUnit, l bool) (float64, float64) {
			return b2f((w == QueueMatch) != l), 1
		}, true)
		s.Rate, s.RateLo, s.RateHi = r.Estimate, r.Lo, r.Hi
		out = append(out, s)
	}
	return out
}

// TakeWeakLabels moves the table's labels into a weak-label map (case,
// rule) and clears them: on a run on weak labels (run --weak-labels) the
// labels are the weak ones, never a census of people's labels.
func (t *PairTable) TakeWeakLabels() map[[2]string]datasets.Label {
	out := map[[2]string]datasets.Label{}
	for _, p := range t.order {
		if p.Label != "" {
			out[[2]string{p.CaseID, p.RuleID}] = p.Label
			p.Label = ""
		}
	}
	return out
}
