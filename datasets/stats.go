package datasets

import (
	"slices"

	"github.com/apeval/apeval/internal/intern"
)

// Stats summarizes a dataset as it streams by (`apeval datasets stats`, and
// the CLI's search for recorded judge names). Add each case, then read the
// fields; maps are keyed by value and serialize with sorted keys.
type Stats struct {
	Cases            int                    `json:"cases"`
	Invalid          int                    `json:"invalid"` // records that were errors (AddRecord)
	Sessions         int                    `json:"sessions"`
	HookPoints       map[string]int         `json:"hook_points"`
	Categories       map[string]int         `json:"categories"`
	Tools            map[string]int         `json:"tools"`
	Tags             map[string]int         `json:"tags"`
	Labels           map[string]LabelCounts `json:"labels"` // rule ID → label counts
	LabeledCases     int                    `json:"labeled_cases"`
	ExpectedActions  map[string]int         `json:"expected_actions"`
	ApprovalOutcomes map[string]int         `json:"approval_outcomes"`
	InvalidArguments int                    `json:"invalid_arguments"` // tool.arguments_valid = false
	Judges           map[string]JudgeStats  `json:"judges"`            // recorded judge name → counts
	// Permissions counts what the policy's permissions layer (with the
	// agents' imported rules) would decide: allow, ask, deny. The caller
	// fills it (datasets knows no policy); absent without a layer.
	Permissions map[string]int `json:"permissions,omitempty"`

	sessions *intern.Table // session IDs seen (exact, see internal/intern)
}

// LabelCounts counts one rule's ground-truth labels.
type LabelCounts struct {
	Match   int `json:"match"`
	NoMatch int `json:"no_match"`
}

// JudgeStats counts one recorded judge's calls.
type JudgeStats struct {
	Cases     int            `json:"cases"`     // cases with at least one call
	Calls     int            `json:"calls"`     // recorded calls
	Decisions int            `json:"decisions"` // rule decisions inside them
	Statuses  map[string]int `json:"statuses"`  // call status → calls ("ok" when unset)
	Results   map[string]int `json:"results"`   // decision result → decisions
}

// NewStats returns empty statistics.
func NewStats() *Stats {
	return &Stats{
		HookPoints: map[string]int{}, Categories: map[string]int{}, Tools: map[string]int{},
		Tags: map[string]int{}, Labels: map[string]LabelCounts{}, ExpectedActions: map[string]int{},
		ApprovalOutcomes: map[string]int{}, Judges: map[string]JudgeStats{},
		sessions: intern.New(),
	}
}

// AddRecord adds a reader record: a case, or one more invalid line.
func (s *Stats) AddRecord(r Record) {
	if r.Err != nil {
		s.Invalid++
		return
	}
	s.Add(r.Case)
}

// Add counts one case.
func (s *Stats) Add(c *Case) {
	s.Cases++
	if _, added := s.sessions.Add(c.SessionID); added {
		s.Sessions++
	}
	s.HookPoints[c.HookPoint]++
	s.Categories[c.Tool.Category]++
	s.Tools[c.Tool.Name]++
	for _, t := range c.Tags {
		s.Tags[t]++
	}
	if len(c.Labels) > 0 {
		s.LabeledCases++
	}
	for rule, v := range c.Labels {
		lc := s.Labels[rule]
		if v == LabelMatch {
			lc.Match++
		} else {
			lc.NoMatch++
		}
		s.Labels[rule] = lc
	}
	if c.ExpectedAction != "" {
		s.ExpectedActions[string(c.ExpectedAction)]++
	}
	if c.ApprovalOutcome != "" {
		s.ApprovalOutcomes[string(c.ApprovalOutcome)]++
	}
	if !c.Tool.Valid() {
		s.InvalidArguments++
	}
	for i, rc := range c.Recorded {
		js := s.Judges[rc.Judge]
		if js.Statuses == nil {
			js.Statuses, js.Results = map[string]int{}, map[string]int{}
		}
		if !slices.ContainsFunc(c.Recorded[:i], func(p Recorded) bool { return p.Judge == rc.Judge }) {
			js.Cases++
		}
		js.Calls++
		status := rc.Status
		if status == "" {
			status = "ok"
		}
		js.Statuses[status]++
		js.Decisions += len(rc.Decisions)
		for _, d := range rc.Decisions {
			js.Results[d.Result]++
		}
		s.Judges[rc.Judge] = js
	}
}

// RecordedJudgeNames returns the distinct recorded judge names, sorted.
func (s *Stats) RecordedJudgeNames() []string {
	names := make([]string, 0, len(s.Judges))
	for n := range s.Judges {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
