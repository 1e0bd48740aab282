package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
)

// strayLabels finds labels that name a rule the policy lacks: a typo in a
// rule ID (or a renamed rule) quietly drops those labels from every figure,
// so `datasets validate --policy` and `run` say so.
type strayLabels struct {
	rules map[string]bool
	seen  map[string]*strayLabel
}

type strayLabel struct {
	cases int64
	first string // the first case ID carrying it
}

// newStrayLabels checks labels against the policy's rules (before any
// --rule filter: a filtered-out rule is not a typo).
func newStrayLabels(pol *replay.Policy) *strayLabels {
	s := &strayLabels{rules: map[string]bool{}, seen: map[string]*strayLabel{}}
	for _, r := range pol.Rules {
		s.rules[r.ID] = true
	}
	return s
}

func (s *strayLabels) check(c *datasets.Case) {
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

// ids are the stray rule IDs, sorted.
func (s *strayLabels) ids() []string {
	var out []string
	for id := range s.seen {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// message says which labels are dropped and why; "" when none are.
func (s *strayLabels) message() string {
	ids := s.ids()
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

// messageOrEmpty is message on a nil checker too ("").
func (s *strayLabels) messageOrEmpty() string {
	if s == nil {
		return ""
	}
	return s.message()
}
