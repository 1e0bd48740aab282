package metrics

import (
	"fmt"
	"slices"
	"sort"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge/core"
	"github.com/apeval/apeval/replay"
)

// PairRow is one (case, rule) pair in scope across the judges of a run:
// what a labeling queue is drawn from and what labeled-sample figures are
// computed on.
type PairRow struct {
	CaseID, RuleID, Session string
	Class                   replay.Class
	// Label is the dataset's label ("" when unlabeled).
	Label datasets.Label
	// Results holds, per judge of the table, QueueMatch, QueueNoMatch or
	// QueueUndecided; "" when that judge did not have the pair.
	Results []string
	// Baseline is the rule's deterministic baseline result ("" when none).
	Baseline core.Result
}

// PairTable collects PairRows from a run's results (Add each
// replay.Result, as ReadRun gives them).
type PairTable struct {
	Judges []string
	jidx   map[string]int
	named  bool
	rules  map[string]bool
	by     map[[2]string]*PairRow
	order  []*PairRow
}

// NewPairTable collects the pairs of the given judges (identities; every
// judge seen when empty, in first-seen order) and rules (every rule when
// empty).
func NewPairTable(judges, rules []string) *PairTable {
	t := &PairTable{jidx: map[string]int{}, by: map[[2]string]*PairRow{}}
	t.named = len(judges) > 0
	for _, j := range judges {
		t.jidx[j] = len(t.Judges)
		t.Judges = append(t.Judges, j)
	}
	if len(rules) > 0 {
		t.rules = map[string]bool{}
		for _, r := range rules {
			t.rules[r] = true
		}
	}
	return t
}

// Add records one case × judge result.
func (t *PairTable) Add(r *replay.Result) {
	j, ok := t.jidx[r.Judge]
	if !ok {
		if t.named {
			return
		}
		j = len(t.Judges)
		t.jidx[r.Judge] = j
		t.Judges = append(t.Judges, r.Judge)
		for _, p := range t.order {
			p.Results = append(p.Results, "")
		}
	}
	for i := range r.Rules {
		rr := &r.Rules[i]
		if rr.Status == core.StatusMissing || (t.rules != nil && !t.rules[rr.RuleID]) {
			continue
		}
		k := [2]string{r.CaseID, rr.RuleID}
		p := t.by[k]
		if p == nil {
			p = &PairRow{CaseID: r.CaseID, RuleID: rr.RuleID, Session: r.SessionID, Class: rr.Class,
				Label: rr.Label, Results: make([]string, len(t.Judges)), Baseline: rr.BaselineResult}
			t.by[k] = p
			t.order = append(t.order, p)
		}
		p.Results[j] = resultClass(rr.Result)
	}
}

func resultClass(r core.Result) string {
	switch r {
	case core.Match:
		return QueueMatch
	case core.NoMatch:
		return QueueNoMatch
	}
	return QueueUndecided
}

// Rows returns the pairs in the order first seen.
func (t *PairTable) Rows() []*PairRow { return t.order }

// Row returns the pair, nil when the run did not have it in scope.
func (t *PairTable) Row(caseID, ruleID string) *PairRow { return t.by[[2]string{caseID, ruleID}] }

// QueuePairs returns the unlabeled pairs (a pair a judge lacks counts as
// undecided for it) and, per rule, how many pairs the dataset labels (the
// census, never queued).
func (t *PairTable) QueuePairs() (pairs []QueuePair, census map[string]int) {
	census = map[string]int{}
	for _, p := range t.order {
		if p.Label != "" {
			census[p.RuleID]++
			continue
		}
		res := slices.Clone(p.Results)
		for i, r := range res {
			if r == "" {
				res[i] = QueueUndecided
			}
		}
		pairs = append(pairs, QueuePair{CaseID: p.CaseID, RuleID: p.RuleID, Results: res})
	}
	return pairs, census
}

// LabeledStrata counts, per {rule, queue stratum} (the table's judges'
// results, named by letters as QueuePairs' pairs are), the pairs the
// dataset labels: the census of each stratum, for label queue --reach.
func (t *PairTable) LabeledStrata(letters []string) map[[2]string]int {
	out := map[[2]string]int{}
	for _, p := range t.order {
		if p.Label != "" {
			out[[2]string{p.RuleID, StratumName(letters, queueResults(p.Results))}]++
		}
	}
	return out
}

// FileLabels adds to labeled, per {rule, queue stratum} as LabeledStrata
// names them, the pairs that labels (resolved labels-file labels) label
// and the dataset does not, and returns those pairs (a queue's Exclude)
// and how many labels name a pair the table lacks.
func (t *PairTable) FileLabels(letters []string, labels []SampleLabel, labeled map[[2]string]int) (exclude map[[2]string]bool, missing int) {
	exclude = map[[2]string]bool{}
	for _, l := range labels {
		p := t.Row(l.CaseID, l.RuleID)
		switch {
		case p == nil:
			missing++
		case p.Label == "" && !exclude[[2]string{l.CaseID, l.RuleID}]:
			exclude[[2]string{l.CaseID, l.RuleID}] = true
			labeled[[2]string{p.RuleID, StratumName(letters, queueResults(p.Results))}]++
		}
	}
	return exclude, missing
}

// SetFileLabels sets the label of every pair the dataset does not label
// that labels (resolved labels-file labels) label, as if the dataset
// did (a pilot's labels kept in labels files, for plan --labels), and
// returns how many it set and how many labels name a pair the table
// lacks.
func (t *PairTable) SetFileLabels(labels []SampleLabel) (set, missing int) {
	for _, l := range labels {
		p := t.Row(l.CaseID, l.RuleID)
		switch {
		case p == nil:
			missing++
		case p.Label == "":
			p.Label = datasets.LabelNoMatch
			if l.Match {
				p.Label = datasets.LabelMatch
			}
			set++
		}
	}
	return set, missing
}

// SampleLabel is one resolved sampled label: the pair's first non-skip
// label by time (the one the figures count), from ResolveSampleLabels.
type SampleLabel struct {
	CaseID, RuleID string
	Stratum        string
	StratumSize    int64
	Match          bool
	// Judges are the queue's judges by letter ("A=recorded/…"), as its
	// labels file names them (datasets.SampleLabel.Judges); nil in files
	// written before label queue recorded them. The labeled interval's
	// stratified draws need them (queueTraffic).
	Judges []string
}

// ResolveSampleLabels turns labels-file lines into the labels the
// figures count: per labeler, the last line for a pair replaces earlier
// ones (a person relabeling after moving back); a "skip" counts as not
// labeled; across labelers the first label by time counts (the others
// feed agreement only). Lines for one pair that disagree on its stratum
// are an error naming both lines.
func ResolveSampleLabels(lines []datasets.SampleLabel) ([]SampleLabel, error) {
	type key struct{ c, r, who string }
	last := map[key]*datasets.SampleLabel{}
	var keys []key
	strat := map[[2]string]*datasets.SampleLabel{}
	for i := range lines {
		l := &lines[i]
		pk := [2]string{l.CaseID, l.RuleID}
		if s := strat[pk]; s != nil && (s.Stratum != l.Stratum || s.StratumSize != l.StratumSize) {
			return nil, fmt.Errorf("%s: stratum %q (size %d), but %s says %q (size %d) for case %s rule %s: labels from different queues",
				l.Source, l.Stratum, l.StratumSize, s.Source, s.Stratum, s.StratumSize, l.CaseID, l.RuleID)
		}
		strat[pk] = l
		k := key{l.CaseID, l.RuleID, l.Labeler}
		if _, ok := last[k]; !ok {
			keys = append(keys, k)
		}
		last[k] = l
	}
	first := map[[2]string]*datasets.SampleLabel{}
	var order [][2]string
	for _, k := range keys {
		l := last[k]
		if l.Label == datasets.SampleSkip {
			continue
		}
		pk := [2]string{k.c, k.r}
		f := first[pk]
		if f == nil {
			order = append(order, pk)
		}
		if f == nil || l.Time.Before(*f.Time) {
			first[pk] = l
		}
	}
	sort.Slice(order, func(i, j int) bool { return first[order[i]].Order < first[order[j]].Order })
	out := make([]SampleLabel, 0, len(order))
	for _, pk := range order {
		l := first[pk]
		out = append(out, SampleLabel{CaseID: l.CaseID, RuleID: l.RuleID, Stratum: l.Stratum, StratumSize: l.StratumSize, Match: l.Label == datasets.LabelMatch, Judges: l.Judges})
	}
	return out, nil
}

// SampleUnits builds the units of one rule for judge index j (and, when
// other ≥ 0, a second judge's result as Other; other = -1 puts the rule's
// deterministic baseline there): the dataset-labeled pairs as the census,
// the sampled labels with their strata. Sampled labels of pairs the run
// does not have, or that the dataset labels, are left out and counted.
func (t *PairTable) SampleUnits(rule string, j, other int, labels []SampleLabel) (units []SampleUnit, dropped int) {
	for _, p := range t.order {
		if p.RuleID != rule || p.Label == "" || p.Results[j] == "" {
			continue
		}
		units = append(units, t.unit(p, j, other, CensusStratum, 0, p.Label == datasets.LabelMatch))
	}
	for _, l := range labels {
		if l.RuleID != rule {
			continue
		}
		p := t.by[[2]string{l.CaseID, l.RuleID}]
		if p == nil || p.Label != "" || p.Results[j] == "" {
			dropped++
			continue
		}
		units = append(units, t.unit(p, j, other, l.Stratum, l.StratumSize, l.Match))
	}
	return units, dropped
}

func (t *PairTable) unit(p *PairRow, j, other int, stratum string, size int64, label bool) SampleUnit {
	u := SampleUnit{Stratum: stratum, StratumSize: size, Session: p.sessionKey(), Label: label,
		Match: p.Results[j] == QueueMatch, Undecided: p.Results[j] == QueueUndecided}
	if other >= 0 {
		u.Other = p.Results[other] == QueueMatch
		u.OtherUndecided = p.Results[other] == QueueUndecided
		u.OtherAbsent = p.Results[other] == ""
	} else {
		u.Other = p.Baseline == core.Match
		u.OtherUndecided = p.Baseline != "" && p.Baseline != core.Match && p.Baseline != core.NoMatch
		u.OtherAbsent = p.Baseline == ""
	}
	return u
}

// SampleWeights returns each labeled pair's weight for decisions.parquet:
// 1 for a dataset label (label ≠ ""), N_h/n_h for a resolved queue label
// (n_h counting the resolved labels of its rule and stratum), 0 for an
// unlabeled pair; and the queue label itself ("" for the others).
func SampleWeights(labels []SampleLabel) func(caseID, ruleID, label string) (string, float64) {
	type sk struct{ rule, stratum string }
	n := map[sk]int{}
	size := map[sk]int64{}
	for _, l := range labels {
		k := sk{l.RuleID, l.Stratum}
		n[k]++
		size[k] = max(size[k], l.StratumSize)
	}
	by := map[[2]string]SampleLabel{}
	for _, l := range labels {
		by[[2]string{l.CaseID, l.RuleID}] = l
	}
	return func(caseID, ruleID, label string) (string, float64) {
		if label != "" {
			return "", 1
		}
		l, ok := by[[2]string{caseID, ruleID}]
		if !ok {
			return "", 0
		}
		k := sk{l.RuleID, l.Stratum}
		v := datasets.LabelNoMatch
		if l.Match {
			v = datasets.LabelMatch
		}
		return string(v), float64(max(size[k], int64(n[k]))) / float64(n[k])
	}
}

// sessionKey is the session a pair's labeled unit counts in: its session
// ID, or for a case without one a session of its own (keyed by the case
// ID), as the unweighted path counts it (Accumulator.sessionOf) — not
// one session holding every case without an ID.
func (p *PairRow) sessionKey() string {
	if p.Session == "" {
		return "\x00case " + p.CaseID
	}
	return p.Session
}
