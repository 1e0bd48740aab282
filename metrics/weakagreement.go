package metrics

import (
	"slices"
	"sort"

	"github.com/apeval/apeval/datasets"
)

// WeakAgreement compares weak labels with people's labels (apeval label
// agreement): per rule, Cohen's κ between the weak label and the people's
// first label by time (skips left out), on the pairs both labeled. Nil
// without weak labels.
func WeakAgreement(weak, people []datasets.SampleLabel) ([]RuleAgreement, error) {
	if len(weak) == 0 {
		return nil, nil
	}
	first := map[[2]string]datasets.SampleLabel{}
	for _, l := range people {
		if l.Label == datasets.SampleSkip {
			continue
		}
		if f, ok := first[l.Key()]; !ok || l.Time.Before(*f.Time) {
			first[l.Key()] = l
		}
	}
	lines := make([]datasets.SampleLabel, 0, len(weak)+len(first))
	for _, l := range weak {
		p, ok := first[l.Key()]
		if !ok {
			continue // no person labeled the pair: nothing to compare
		}
		// The pair as the people's queue placed it.
		l.Labeler, l.Stratum, l.StratumSize, l.Order = "weak labels", p.Stratum, p.StratumSize, p.Order
		lines = append(lines, l)
	}
	keys := make([][2]string, 0, len(first))
	for k := range first {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i][0] < keys[j][0] || keys[i][0] == keys[j][0] && keys[i][1] < keys[j][1]
	})
	for _, k := range keys {
		l := first[k]
		l.Labeler = "people"
		lines = append(lines, l)
	}
	rep, err := LabelAgreement(lines, nil, 0.95)
	if err != nil {
		return nil, err
	}
	return rep.Rules, nil
}

// LabelsAgreement is the agreement of labels files (apeval label
// agreement): between people and each judge and the people
// (AgreementReport), weak labels vs people (Weak), and each judge vs the
// weak labels (JudgesWeak, with a pair table and weak labels).
type LabelsAgreement struct {
	*AgreementReport
	Weak       []RuleAgreement `json:"weak_vs_people,omitempty"`
	JudgesWeak []RuleAgreement `json:"judges_vs_weak_labels,omitempty"`
}

// WeakLabeler names the weak labels where a labeler would be named.
const WeakLabeler = "weak labels"

// AgreementOf computes the agreement of labels-file lines at confidence
// conf. Weak lines (label_source weak) are never one of the people: they
// are compared with the people's labels, as a judge is, and, with t, each
// judge is compared with them too ("<judge> vs weak labels"): figures on
// weak labels, named so wherever they are shown.
func AgreementOf(all []datasets.SampleLabel, t *PairTable, conf float64) (*LabelsAgreement, error) {
	var people, weak []datasets.SampleLabel
	for _, l := range all {
		if l.LabelSource == datasets.LabelSourceWeak {
			weak = append(weak, l)
		} else {
			people = append(people, l)
		}
	}
	rep, err := LabelAgreement(people, t, conf)
	if err != nil {
		return nil, err
	}
	a := &LabelsAgreement{AgreementReport: rep}
	if a.Weak, err = WeakAgreement(weak, people); err != nil {
		return nil, err
	}
	if t == nil || len(weak) == 0 {
		return a, nil
	}
	wl := slices.Clone(weak)
	for i := range wl {
		wl[i].Labeler = WeakLabeler
	}
	jr, err := LabelAgreement(wl, t, conf)
	if err != nil {
		return nil, err
	}
	for _, r := range jr.Rules {
		for i := range r.Judges {
			r.Judges[i].Between += " vs " + WeakLabeler
		}
		a.JudgesWeak = append(a.JudgesWeak, RuleAgreement{RuleID: r.RuleID, Labelers: []string{WeakLabeler}, Judges: r.Judges})
	}
	return a, nil
}
