package replay

import (
	"slices"
	"strings"
	"sync"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/internal/trunc"
	"github.com/apeval/apeval/judge/core"
)

const (
	// maxRecentMessages is the conversation window a judge sees (see docs/replay.md, What a judge sees).
	maxRecentMessages = 4
	// summaryRunes bounds arguments_summary.
	summaryRunes = 200
	// maxValueRunes bounds each string sent to a judge (a Write tool's file
	// content can be megabytes; the judge input is an external boundary).
	maxValueRunes = 2000
)

// BuildInput builds the judge input for rules of case c (see docs/replay.md) from
// an allow-list of fields: piece, movement, hook point, tool name and
// category, masked arguments and their one-line summary, the masked latest
// user message and last four messages, the session's earlier fire counts of
// the asked rules (sorted by rule id) and the approval state. Rule actions,
// instruction texts, labels, tags, workspace and recordings are never
// copied. fires maps rule id → fires earlier in the session.
func BuildInput(c *datasets.Case, rules []*Rule, fires map[string]int) core.Input {
	counts := make([]int, len(rules))
	for i, r := range rules {
		counts[i] = fires[r.ID]
	}
	return buildInput(c, effectiveCategory(c, nil), rules, counts)
}

// buildInput builds the input for rules; fires[i] is rules[i]'s fire count.
func buildInput(c *datasets.Case, category string, rules []*Rule, fires []int) core.Input {
	in := core.Input{Version: core.SchemaVersion}
	in.Rules = make([]core.Rule, len(rules))
	prev := make([]core.RuleFires, len(rules))
	for i, r := range rules {
		in.Rules[i] = core.Rule{ID: r.ID, Condition: maskCondition(r.Condition)}
		prev[i] = core.RuleFires{RuleID: r.ID, Count: fires[i]}
	}
	slices.SortFunc(prev, func(a, b core.RuleFires) int { return strings.Compare(a.RuleID, b.RuleID) })

	args, _ := mask.Value(c.Tool.Arguments).(map[string]any)
	if args == nil {
		args = map[string]any{}
	}
	// The summary comes from the masked arguments: a call whose only string
	// argument is a password has that password as its primary argument.
	masked := *c
	masked.Tool.Arguments = args
	var f facts
	f.reset(&masked, nil)
	prim, _ := f.primary()
	summary := oneLine(prim, summaryRunes)
	truncateValues(args)
	hook := c.HookPoint
	if hook == "" {
		hook = datasets.DefaultHookPoint
	}
	in.Current = core.Current{
		Piece: mask.String(c.Piece), Movement: mask.String(c.Movement), HookPoint: hook,
		Tool: core.Tool{
			Name: mask.String(c.Tool.Name), Category: category,
			ArgumentsSummary: summary,
			Arguments:        args,
		},
	}
	msgs := c.Context.RecentMessages
	if len(msgs) > maxRecentMessages {
		msgs = msgs[len(msgs)-maxRecentMessages:]
	}
	recent := make([]core.Message, len(msgs))
	for i, m := range msgs {
		recent[i] = core.Message{Role: mask.String(m.Role), Content: trunc.Runes(mask.String(m.Content), maxValueRunes)}
	}
	approval := c.Context.ApprovalState
	if approval == "" {
		approval = "none"
	}
	in.Context = core.InContext{
		LatestUserMessage: trunc.Runes(mask.String(c.Context.LatestUserMessage), maxValueRunes),
		RecentMessages:    recent,
		PreviousRuleFires: prev,
		ApprovalState:     approval,
	}
	return in
}

// truncateValues bounds every string of an (already copied) value in place.
func truncateValues(v any) any {
	switch v := v.(type) {
	case string:
		return trunc.Runes(v, maxValueRunes)
	case map[string]any:
		for k, e := range v {
			v[k] = truncateValues(e)
		}
	case []any:
		for i, e := range v {
			v[i] = truncateValues(e)
		}
	}
	return v
}

// oneLine collapses whitespace runs (newlines included) to single spaces
// and truncates to n runes.
func oneLine(s string, n int) string {
	return trunc.Runes(strings.Join(strings.Fields(s), " "), n)
}

// conditions memoizes masked rule conditions: a policy has a few, asked
// about on every judge call.
var conditions sync.Map // string → string

func maskCondition(c string) string {
	if v, ok := conditions.Load(c); ok {
		return v.(string)
	}
	m := mask.String(c)
	conditions.Store(c, m)
	return m
}
