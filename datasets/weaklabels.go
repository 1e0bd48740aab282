package datasets

import (
	"sort"
	"time"
)

// WeakLabel is one weak label of a dataset: a case's weak_labels entry for
// one rule (a user's override of the agent's own gate, a signal, not ground
// truth).
type WeakLabel struct {
	CaseID, RuleID string
	Label          Label
	// Time is the case's time, nil when the case has none.
	Time *time.Time
}

// WeakLabelsOf are c's weak labels, in rule ID order.
func WeakLabelsOf(c *Case) []WeakLabel {
	rules := make([]string, 0, len(c.WeakLabels))
	for rule := range c.WeakLabels {
		rules = append(rules, rule)
	}
	sort.Strings(rules)
	out := make([]WeakLabel, len(rules))
	for i, rule := range rules {
		out[i] = WeakLabel{CaseID: c.ID, RuleID: rule, Label: c.WeakLabels[rule], Time: c.Time}
	}
	return out
}

// ReadWeakLabels reads the weak labels of every case r delivers, in
// dataset order (each case's in rule ID order). An unreadable line is
// handed to bad and counted, and the reading goes on; err is the reader's
// own failure.
func ReadWeakLabels(r *Reader, bad func(error)) (weak []WeakLabel, unreadable int, err error) {
	for r.Scan() {
		rec := r.Record()
		if rec.Err != nil {
			bad(rec.Err)
			unreadable++
			continue
		}
		weak = append(weak, WeakLabelsOf(rec.Case)...)
	}
	return weak, unreadable, r.Err()
}

// WeakLabelMap is the weak labels by (case, rule) pair; a later label of a
// pair replaces an earlier one.
func WeakLabelMap(weak []WeakLabel) map[[2]string]Label {
	m := make(map[[2]string]Label, len(weak))
	for _, w := range weak {
		m[[2]string{w.CaseID, w.RuleID}] = w.Label
	}
	return m
}

// WeakSampleLabels are weak labels as apeval.labels/v1 lines marked weak
// (apeval label weak): labeler "weak", stratum "weak" sized by the rule's
// weak labels, order as given, and the case's time (the Unix epoch when it
// has none). rules is the number of rules they label.
func WeakSampleLabels(weak []WeakLabel) (lines []SampleLabel, rules int) {
	perRule := map[string]int64{}
	for _, w := range weak {
		perRule[w.RuleID]++
	}
	lines = make([]SampleLabel, len(weak))
	epoch := time.Unix(0, 0).UTC()
	for i, w := range weak {
		at := w.Time
		if at == nil {
			at = &epoch
		}
		lines[i] = SampleLabel{Schema: SampleLabelsSchema, CaseID: w.CaseID, RuleID: w.RuleID,
			Stratum: "weak", StratumSize: perRule[w.RuleID], Order: i + 1, Label: w.Label,
			Labeler: "weak", Time: at, LabelSource: LabelSourceWeak}
	}
	return lines, len(perRule)
}
