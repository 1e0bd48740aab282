package metrics

import (
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
