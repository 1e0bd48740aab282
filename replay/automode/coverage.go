package automode

import (
	"cmp"
	"slices"
	"strings"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
)

// Coverage counts which calls reach the vendor's classifier, per tool and
// category: a call is not reached when the policy's permissions layer
// denies or asks before the classifier, or when the precondition of the
// rule AggregateRuleID (auto mode's tiering) or CodexRuleID (what never
// reaches Codex's reviewer) does not hold. Beside it, what the vendor
// recorded (the recorded judges named claude-auto-mode@… or
// codex-auto-review@…), so a
// recording on a call the tiering says is never reached shows where the
// model of the tiering is wrong.
type Coverage struct {
	Judge   string         `json:"judge"` // the policy's aggregate rule
	Total   CoverageRow    `json:"total"`
	ByTool  []CoverageRow  `json:"by_tool"`
	ByCat   []CoverageRow  `json:"by_category"`
	Reasons map[string]int `json:"not_reached_by_reason"`
	// NotReached lists the case ids not reached, with why (at most
	// MaxListed; NotReachedListed says when it was cut).
	NotReached       []NotReached `json:"not_reached"`
	NotReachedListed bool         `json:"not_reached_list_complete"`
	byTool, byCat    map[string]*CoverageRow
}

// MaxListed bounds the not-reached calls listed one by one.
const MaxListed = 1000

// CoverageRow counts one tool or category.
type CoverageRow struct {
	Key        string  `json:"key"`
	Calls      int     `json:"calls"`
	Reached    int     `json:"reached"`
	NotReached int     `json:"not_reached"`
	Coverage   float64 `json:"coverage"` // reached ÷ calls
	// Vendor decisions recorded: blocked (match), ran (no_match), failed
	// (a status other than ok); reached calls without a recording; and
	// calls the tiering says the classifier never saw on which it blocked
	// or failed all the same (a transcript records every call that ran in
	// auto mode as "ran", reached or not, so those are not counted).
	Blocked        int `json:"vendor_blocked"`
	Ran            int `json:"vendor_ran"`
	Failed         int `json:"vendor_failed"`
	NoRecording    int `json:"reached_without_recording"`
	RecordedUnseen int `json:"classifier_on_not_reached"`
}

// NotReached is one call the classifier never saw.
type NotReached struct {
	CaseID   string `json:"case_id"`
	Tool     string `json:"tool"`
	Category string `json:"category"`
	Reason   string `json:"reason"`
}

// NewCoverage starts counting for a policy that has the rule
// AggregateRuleID (written by Import) or CodexRuleID (ImportCodex), the
// first of them it has.
func NewCoverage(p *replay.Policy) (*Coverage, bool) {
	for _, id := range []string{AggregateRuleID, CodexRuleID} {
		if p.Rule(id) != nil {
			return &Coverage{Judge: id, Reasons: map[string]int{}, NotReachedListed: true,
				byTool: map[string]*CoverageRow{}, byCat: map[string]*CoverageRow{}}, true
		}
	}
	return nil, false
}

// Add counts one case.
func (cv *Coverage) Add(p *replay.Policy, c *datasets.Case) {
	cat := c.Tool.Category
	if cat == "" {
		cat = datasets.CategoryMap(p.Categories).Of(c.Tool.Name)
	}
	reason := ""
	switch p.Permission(c) {
	case replay.PermissionDeny:
		reason = "denied by a permission rule"
	case replay.PermissionAsk:
		reason = "asked by a permission rule"
	}
	if reason == "" {
		if w := p.Rule(cv.Judge).When; w != nil && !w.Match(c) {
			reason = tierReason(c, w, cv.Judge)
		}
	}
	rows := []*CoverageRow{&cv.Total, row(cv.byTool, c.Tool.Name), row(cv.byCat, cat)}
	var rec *datasets.Recorded
	for i := range c.Recorded {
		if strings.HasPrefix(c.Recorded[i].Judge, cv.Judge+"@") {
			rec = &c.Recorded[i]
			break
		}
	}
	for _, r := range rows {
		r.Calls++
		if reason != "" {
			r.NotReached++
			if rec != nil && (hasResult(rec, cv.Judge, "match") || rec.Status != "" && rec.Status != "ok") {
				r.RecordedUnseen++
			}
		} else {
			r.Reached++
			if rec == nil {
				r.NoRecording++
			}
		}
		if rec != nil {
			switch {
			case rec.Status != "" && rec.Status != "ok":
				r.Failed++
			case hasResult(rec, cv.Judge, "match"):
				r.Blocked++
			case hasResult(rec, cv.Judge, "no_match"):
				r.Ran++
			}
		}
	}
	if reason != "" {
		cv.Reasons[reason]++
		if len(cv.NotReached) < MaxListed {
			cv.NotReached = append(cv.NotReached, NotReached{CaseID: c.ID, Tool: c.Tool.Name, Category: cat, Reason: reason})
		} else {
			cv.NotReachedListed = false
		}
	}
}

func hasResult(r *datasets.Recorded, rule, result string) bool {
	for _, d := range r.Decisions {
		if d.RuleID == rule && d.Result == result {
			return true
		}
	}
	return false
}

// tierReason says which tier kept a call from the classifier (rule: the
// aggregate rule's ID).
func tierReason(c *datasets.Case, w *replay.Matcher, rule string) string {
	for _, u := range w.Unless {
		if u.Match(c) {
			switch {
			case rule == CodexRuleID && len(u.CommandPrefix) > 0:
				return "execpolicy forbidden (rejected without review)"
			case rule == CodexRuleID:
				return "execpolicy allow (runs without review)"
			case slices.Equal(u.Tool, ReadOnlyTools):
				return "read-only tool"
			case slices.Equal(u.Tool, EditTools):
				return "edit inside the working directory"
			case len(u.CommandRegex) == 1 && u.CommandRegex[0] == readOnlyShell:
				return "read-only shell command"
			}
			return "permissions.allow rule"
		}
	}
	return "outside the rule's precondition"
}

func row(m map[string]*CoverageRow, key string) *CoverageRow {
	r := m[key]
	if r == nil {
		r = &CoverageRow{Key: key}
		m[key] = r
	}
	return r
}

// Count adds every case r delivers and closes the counts (Close). An
// unreadable line is handed to bad and counted in unreadable, and the
// reading goes on, so the counts leave it out; err is the reader's own
// failure.
func (cv *Coverage) Count(p *replay.Policy, r *datasets.Reader, bad func(error)) (unreadable int, err error) {
	for r.Scan() {
		rec := r.Record()
		if rec.Err != nil {
			bad(rec.Err)
			unreadable++
			continue
		}
		cv.Add(p, rec.Case)
	}
	if err := r.Err(); err != nil {
		return unreadable, err
	}
	cv.Close()
	return unreadable, nil
}

// Close computes the shares and orders the rows (most calls first).
func (cv *Coverage) Close() {
	cv.Total.Key = "*"
	for _, pair := range []struct {
		m   map[string]*CoverageRow
		out *[]CoverageRow
	}{{cv.byTool, &cv.ByTool}, {cv.byCat, &cv.ByCat}} {
		*pair.out = (*pair.out)[:0]
		for _, r := range pair.m {
			*pair.out = append(*pair.out, *r)
		}
		slices.SortFunc(*pair.out, func(a, b CoverageRow) int {
			return cmp.Or(cmp.Compare(b.Calls, a.Calls), strings.Compare(a.Key, b.Key))
		})
	}
	share := func(r *CoverageRow) {
		if r.Calls > 0 {
			r.Coverage = float64(r.Reached) / float64(r.Calls)
		}
	}
	share(&cv.Total)
	for i := range cv.ByTool {
		share(&cv.ByTool[i])
	}
	for i := range cv.ByCat {
		share(&cv.ByCat[i])
	}
}
