package metrics

import (
	"fmt"
	"strings"

	"github.com/apeval/apeval/datasets"
)

// maxStrataJudges bounds the judges CheckLabelStrata tries as a queue's
// --judge choice (ordered choices of up to this many run judges).
const maxStrataJudges = 8

// CheckLabelStrata refuses labels-file lines drawn from another run, or
// from a queue stratified by other judges (label queue --judge), than the
// results in t: each line's stratum ("A:match B:no_match") must be the
// pair's own result vector under the judges the queue was stratified by —
// the run's judges in order, or (a queue of fewer judges) some ordered
// choice of them that fits every line naming as many. Otherwise its
// weight N_h/n_h is another stratum's, and the figures are weighted by a
// design that is not theirs. Lines whose pair t lacks, or the dataset
// labels (the census), are left to the figures' own accounting (they are
// left out and a warning counts them); a weak-label letter (W, label
// queue --weak-labels) is not checked, t holding no weak labels. The
// error names the file:line, the stratum and the pair's results under
// the run's judges.
func (t *PairTable) CheckLabelStrata(lines []datasets.SampleLabel) error {
	by := map[int][]strataCheck{}
	var sizes []int
	for i := range lines {
		l := &lines[i]
		p := t.Row(l.CaseID, l.RuleID)
		if p == nil || p.Label != "" {
			continue
		}
		var want []string
		for j, f := range strings.Fields(l.Stratum) {
			letter, res, ok := strings.Cut(f, ":")
			if !ok {
				return fmt.Errorf("%s: stratum: %q is not a queue stratum (\"A:match B:no_match\")", l.Source, l.Stratum)
			}
			if letter == WeakLetter && j == len(strings.Fields(l.Stratum))-1 && j > 0 {
				break
			}
			want = append(want, res)
		}
		if len(want) == 0 {
			return fmt.Errorf("%s: stratum: %q names no judge's result", l.Source, l.Stratum)
		}
		if _, ok := by[len(want)]; !ok {
			sizes = append(sizes, len(want))
		}
		by[len(want)] = append(by[len(want)], strataCheck{l, want, queueResults(p.Results)})
	}
	n := len(t.Judges)
	for _, m := range sizes {
		cs := by[m]
		fits := func(sel []int) bool {
			for _, c := range cs {
				for i, j := range sel {
					if c.want[i] != c.got[j] {
						return false
					}
				}
			}
			return true
		}
		if m <= n && n <= maxStrataJudges && anyChoice(n, m, fits) {
			continue
		}
		if m <= n && n > maxStrataJudges && fits(identity(m)) {
			continue
		}
		return t.strataMismatch(m, cs)
	}
	return nil
}

// strataCheck is one labels-file line against the pair in the results.
type strataCheck struct {
	line *datasets.SampleLabel
	want []string // the line's results, in letter order
	got  []string // the pair's results under every run judge
}

// strataMismatch is CheckLabelStrata's error for the lines cs naming m
// judges: the first line the pair's results under the run's first m
// judges contradict (m more than the run's judges: the first line).
func (t *PairTable) strataMismatch(m int, cs []strataCheck) error {
	letters := QueueLetters(len(t.Judges))
	var judges []string
	for i, id := range t.Judges {
		judges = append(judges, letters[i]+" = "+id)
	}
	runJudges := strings.Join(judges, ", ")
	c := cs[0]
	if m > len(t.Judges) {
		return fmt.Errorf("%s: stratum: %q names %d judges; these results have %d (%s): the labels are another run's — label this run's queue (apeval label queue RUN)", c.line.Source, c.line.Stratum, m, len(t.Judges), runJudges)
	}
find:
	for _, x := range cs {
		for i := range m {
			if x.want[i] != x.got[i] {
				c = x
				break find
			}
		}
	}
	return fmt.Errorf("%s: stratum: %q is not the pair's (case %s, rule %s) in these results, whose judges answered %s (%s): the labels are another run's, or from a queue stratified by other judges (--judge), and their weights N_h/n_h another design's — label this run's queue (apeval label queue RUN)",
		c.line.Source, c.line.Stratum, c.line.CaseID, c.line.RuleID, StratumName(letters, c.got), runJudges)
}

// identity is 0, 1, …, m−1.
func identity(m int) []int {
	out := make([]int, m)
	for i := range out {
		out[i] = i
	}
	return out
}

// anyChoice reports whether fits accepts some ordered choice of m of n
// indices (the run's own order first).
func anyChoice(n, m int, fits func([]int) bool) bool {
	if fits(identity(m)) {
		return true
	}
	sel := make([]int, 0, m)
	used := make([]bool, n)
	var rec func() bool
	rec = func() bool {
		if len(sel) == m {
			return fits(sel)
		}
		for j := range n {
			if used[j] {
				continue
			}
			used[j] = true
			sel = append(sel, j)
			if rec() {
				return true
			}
			sel = sel[:len(sel)-1]
			used[j] = false
		}
		return false
	}
	return rec()
}
