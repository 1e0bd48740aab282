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
	in, _ := buildInput(c, effectiveCategory(c, nil), rules, counts)
	return in
}

// buildInput builds the input for rules; fires[i] is rules[i]'s fire count.
// altered lists the call's top-level argument keys whose value the input
// does not carry as the call had it: masked (in part or whole, the key
// included) or cut to maxValueRunes.
func buildInput(c *datasets.Case, category string, rules []*Rule, fires []int) (in core.Input, altered []string) {
	in = core.Input{Version: core.SchemaVersion}
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
	for k, v := range c.Tool.Arguments {
		if sent, ok := args[k]; !ok || mask.HasToken(k) || changed(v, sent) {
			altered = append(altered, k)
		}
	}
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
		recent[i] = core.Message{Role: mask.String(m.Role), Content: trunc.Runes(mask.Turn(m.Content), maxValueRunes)}
	}
	approval := c.Context.ApprovalState
	if approval == "" {
		approval = "none"
	}
	in.Context = core.InContext{
		LatestUserMessage: trunc.Runes(mask.Turn(c.Context.LatestUserMessage), maxValueRunes),
		RecentMessages:    recent,
		PreviousRuleFires: prev,
		ApprovalState:     approval,
	}
	return in, altered
}

// changed reports whether the value sent to the judge is not what the
// agent wrote: a string masked (now, or by the importer: it holds a
// masking token) or cut, a key masked, a secret-named key's whole value
// replaced.
func changed(orig, sent any) bool {
	switch o := orig.(type) {
	case string:
		// A token in the text sent is masking too: done here, or by the
		// importer that wrote the case.
		s, ok := sent.(string)
		return !ok || s != o || mask.HasToken(s)
	case map[string]any:
		s, ok := sent.(map[string]any)
		if !ok || len(s) != len(o) {
			return true
		}
		for k, v := range o {
			if e, ok := s[k]; !ok || changed(v, e) {
				return true
			}
		}
	case []any:
		s, ok := sent.([]any)
		if !ok || len(s) != len(o) {
			return true
		}
		for i := range o {
			if changed(o[i], s[i]) {
				return true
			}
		}
	case []string:
		s, ok := sent.([]any)
		if !ok || len(s) != len(o) {
			return true
		}
		for i := range o {
			if changed(o[i], s[i]) {
				return true
			}
		}
	case map[string]string:
		s, ok := sent.(map[string]any)
		if !ok || len(s) != len(o) {
			return true
		}
		for k, v := range o {
			if e, ok := s[k]; !ok || changed(v, e) {
				return true
			}
		}
	default:
		_, isStr := sent.(string)
		return isStr && orig != nil // a secret-named key's number or bool, masked whole
	}
	return false
}

// evidenceAltered reports whether the judge input changed text rule r's
// condition refers to. The arguments a rule refers to are those its
// `when` globs and its condition name (a key such as file_path also
// written "file path"); a rule that names none of the call's arguments
// is about the whole call, so it refers to all of them. altered comes
// from buildInput.
func evidenceAltered(r *Rule, args map[string]any, altered []string) bool {
	if len(altered) == 0 {
		return false
	}
	cond := strings.ToLower(r.Condition)
	named := false
	for k := range args {
		if refersTo(r, cond, k) {
			named = true
			break
		}
	}
	if !named {
		return true
	}
	for _, k := range altered {
		if refersTo(r, cond, k) {
			return true
		}
	}
	return false
}

// refersTo reports whether rule r (its condition lower-cased in cond)
// names argument key k: a `when` glob on it, or the key as a word of the
// condition.
func refersTo(r *Rule, cond, k string) bool {
	if r.When != nil {
		if _, ok := r.When.ArgGlob[k]; ok {
			return true
		}
	}
	k = strings.ToLower(k)
	return k != "" && (hasWord(cond, k) || strings.ContainsAny(k, "_-") && hasWord(cond, strings.NewReplacer("_", " ", "-", " ").Replace(k)))
}

// hasWord reports whether w occurs in s with no letter, digit or '_' on
// either side.
func hasWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(w)
		if (j == 0 || !wordByte(s[j-1])) && (end == len(s) || !wordByte(s[end])) {
			return true
		}
		i = j + 1
	}
}

func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
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
