package datasets

import (
	"fmt"
	"slices"
	"strings"
)

// StrayLabels finds labels that name a rule the policy lacks: a typo in a
// rule ID (or a renamed rule) quietly drops those labels from every figure,
// so `datasets validate --policy` and `run` say so.
type StrayLabels struct {
	rules map[string]bool
	seen  map[string]*strayLabel
}

type strayLabel struct {
	cases int64
	first string // the first case ID carrying it
}

// NewStrayLabels checks labels against the policy's rule IDs (give them
// before any --rule filter: a filtered-out rule is not a typo).
func NewStrayLabels(ruleIDs []string) *StrayLabels {
	s := &StrayLabels{rules: map[string]bool{}, seen: map[string]*strayLabel{}}
	for _, id := range ruleIDs {
		s.rules[id] = true
	}
	return s
}

// Check notes the case's labels that name no rule of the policy.
func (s *StrayLabels) Check(c *Case) {
	for id := range c.Labels {
		if s.rules[id] {
			continue
		}
		l := s.seen[id]
		if l == nil {
			l = &strayLabel{first: c.ID}
			s.seen[id] = l
		}
		l.cases++
	}
}

// IDs are the stray rule IDs, sorted.
func (s *StrayLabels) IDs() []string {
	var out []string
	for id := range s.seen {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// Message says which labels are dropped and why; "" when none are, or on
// a nil StrayLabels.
func (s *StrayLabels) Message() string {
	if s == nil {
		return ""
	}
	ids := s.IDs()
	if len(ids) == 0 {
		return ""
	}
	var parts []string
	for _, id := range ids {
		l := s.seen[id]
		parts = append(parts, fmt.Sprintf("%q (%d case(s), first %s)", id, l.cases, l.first))
	}
	var known []string
	for id := range s.rules {
		known = append(known, id)
	}
	slices.Sort(known)
	return fmt.Sprintf("labels name rules the policy does not have, so they count nowhere (a typo?): %s; the policy's rules are: %s",
		strings.Join(parts, ", "), strings.Join(known, ", "))
}

// WeakSwap makes each case's weak labels its labels (run --weak-labels)
// and counts what it set aside: the dataset's own labels are never mixed
// with weak ones.
type WeakSwap struct {
	cases, weak, human int64
}

// Swap replaces c's labels by its weak labels.
func (w *WeakSwap) Swap(c *Case) {
	w.cases++
	if len(c.WeakLabels) > 0 {
		w.weak++
	}
	if len(c.Labels) > 0 {
		w.human++
	}
	c.Labels, c.WeakLabels = c.WeakLabels, nil
}

// Message says what the figures rest on.
func (w *WeakSwap) Message() string {
	m := fmt.Sprintf("--weak-labels: precision and recall are computed on weak labels (%d of %d cases carry one); they are a signal, not ground truth", w.weak, w.cases)
	if w.human > 0 {
		m += fmt.Sprintf("; the dataset's own labels of %d cases are set aside, not mixed in", w.human)
	}
	return m
}
