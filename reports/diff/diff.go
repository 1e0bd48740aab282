package diff

import (
	"sort"
	"strings"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge/core"
	"github.com/apeval/apeval/replay"
)

// Case classes (the diff.parquet class column).
const (
	ClassUnchanged = "unchanged"
	ClassLoosened  = "loosened"
	ClassTightened = "tightened"
	ClassChanged   = "changed"
)

// Label classes of a case: fixed when a labeled rule now agrees with its
// label and none stopped agreeing, broken the other way round, mixed when
// both happened, neutral when no labeled rule's result moved.
const (
	LabelFixed   = "fixed"
	LabelBroken  = "broken"
	LabelMixed   = "mixed"
	LabelNeutral = "neutral"
)

// Stability of a case's change under --repeat: "" when neither side has
// repeats for a moved rule.
const (
	Stable = "stable"
	Flaky  = "flaky"
)

// Rule is one rule of a case on one side; In is false when the rule was
// not in scope there.
type Rule struct {
	In         bool            `json:"in_scope"`
	Result     core.Result     `json:"result,omitempty"`
	Confidence *float64        `json:"confidence,omitempty"`
	Fired      bool            `json:"fired"`
	Action     datasets.Action `json:"action,omitempty"`
	Status     core.Status     `json:"status,omitempty"`
	Source     replay.Source   `json:"source,omitempty"`
	// Votes are the answers of the rule's repeats ("" for a failed one),
	// nil without --repeat.
	Votes []core.Result `json:"votes,omitempty"`
}

// RuleDiff is one rule of a diffed case, both sides.
type RuleDiff struct {
	ID      string         `json:"rule_id"`
	Version [2]int         `json:"version"`
	Class   replay.Class   `json:"rule_class"`
	Label   datasets.Label `json:"label,omitempty"`
	Base    Rule           `json:"base"`
	Head    Rule           `json:"head"`
	// Moved: the result went to or from match. Fixed/Broken: a labeled
	// moved rule now agrees / no longer agrees with its label. Flaky/Stable
	// under --repeat.
	Moved     bool   `json:"moved"`
	Fixed     bool   `json:"fixed"`
	Broken    bool   `json:"broken"`
	Stability string `json:"stability,omitempty"`
}

// Side is a case's outcome under one judge (and policy).
type Side struct {
	Judge      string          `json:"judge"`
	Gate       datasets.Action `json:"gate_action"`
	Permission string          `json:"permission"`
	Status     core.Status     `json:"status,omitempty"`
	Fired      []string        `json:"fired"`
}

// Case is one case both runs hold, diffed.
type Case struct {
	CaseID    string `json:"case_id"`
	SessionID string `json:"session_id"`
	Seq       int64  `json:"seq"`
	Tool      string `json:"tool"`
	Category  string `json:"category,omitempty"`
	Base      Side   `json:"base"`
	Head      Side   `json:"head"`
	// Class is loosened, tightened, changed or unchanged; Label fixed,
	// broken, mixed or neutral; Stability stable, flaky or "".
	Class     string `json:"class"`
	Label     string `json:"label_class"`
	Stability string `json:"stability,omitempty"`
	// Step is how many ranks the gate moved (head − base; negative when
	// loosened).
	Step           int        `json:"step"`
	FixedRules     int        `json:"fixed_rules"`
	BrokenRules    int        `json:"broken_rules"`
	AnswersChanged int        `json:"answers_changed"`
	Rules          []RuleDiff `json:"rules"`
	// First is set on the first diverging call (class ≠ unchanged) of its
	// session, in seq order.
	First bool `json:"first_in_session"`
	// HookRewritten: auto mode's side decided on the input a PreToolUse
	// hook changed (provenance.hook_updated_input), the other side on the
	// model's input, so a difference may come from the input alone.
	HookRewritten bool `json:"hook_rewritten,omitempty"`

	// asked is, per side, the rules that went to the judge with their
	// earlier fires in the session (kept only when judge inputs are built).
	asked [2][]asked
}

// asked is a rule sent to the judge and how often it fired earlier in its
// session on that side.
type asked struct {
	id    string
	fires int
}

// Differs reports whether anything about the case differs: its gate, a
// rule's answer, or a label's agreement. diff.html lists these cases.
func (c *Case) Differs() bool {
	return c.Class != ClassUnchanged || c.AnswersChanged > 0
}

// sideCase is one side of a case waiting for the other side.
type sideCase struct {
	caseID, session string
	seq             int64
	tool, category  string
	side            Side
	rules           []sideRule
	asked           []asked
}

type sideRule struct {
	id      string
	version int
	class   replay.Class
	label   datasets.Label
	rule    Rule
}

// capture copies what the diff needs of r (readers may reuse r's memory).
func capture(r *replay.Result) *sideCase {
	s := &sideCase{caseID: strings.Clone(r.CaseID), session: strings.Clone(r.SessionID), seq: r.Seq,
		tool: strings.Clone(r.ToolName), category: strings.Clone(r.Category)}
	s.side = Side{Judge: r.Judge, Gate: r.GateAction, Permission: r.Permission, Status: r.Status}
	if s.side.Gate == "" {
		s.side.Gate = datasets.ActionAllow
	}
	s.rules = make([]sideRule, len(r.Rules))
	for i := range r.Rules {
		rr := &r.Rules[i]
		sr := sideRule{id: strings.Clone(rr.RuleID), version: rr.RuleVersion, class: rr.Class, label: rr.Label,
			rule: Rule{In: true, Result: rr.Result, Fired: rr.Fired, Action: rr.Action, Status: rr.Status, Source: rr.Source}}
		if rr.Confidence != nil {
			c := *rr.Confidence
			sr.rule.Confidence = &c
		}
		for _, v := range rr.Repeats {
			sr.rule.Votes = append(sr.rule.Votes, v.Result)
		}
		if rr.Fired {
			s.side.Fired = append(s.side.Fired, sr.id)
		}
		s.rules[i] = sr
	}
	sort.Strings(s.side.Fired)
	return s
}

// compareCases diffs the two sides of one case.
func compareCases(b, h *sideCase) *Case {
	c := &Case{CaseID: h.caseID, SessionID: h.session, Seq: h.seq, Tool: h.tool, Category: h.category, Base: b.side, Head: h.side,
		asked: [2][]asked{b.asked, h.asked}}
	if c.Tool == "" {
		c.Tool = b.tool
	}
	idx := map[string]int{}
	for _, r := range b.rules {
		idx[r.id] = len(c.Rules)
		c.Rules = append(c.Rules, RuleDiff{ID: r.id, Version: [2]int{r.version, 0}, Class: r.class, Label: r.label, Base: r.rule})
	}
	for _, r := range h.rules {
		i, ok := idx[r.id]
		if !ok {
			i = len(c.Rules)
			c.Rules = append(c.Rules, RuleDiff{ID: r.id, Class: r.class})
		}
		rd := &c.Rules[i]
		rd.Version[1], rd.Head = r.version, r.rule
		if r.label != "" {
			rd.Label = r.label
		}
		if r.class != "" {
			rd.Class = r.class
		}
	}
	sort.Slice(c.Rules, func(i, j int) bool { return c.Rules[i].ID < c.Rules[j].ID })
	var moved, stable, flaky int
	for i := range c.Rules {
		rd := &c.Rules[i]
		bm, hm := rd.Base.Result == core.Match, rd.Head.Result == core.Match
		rd.Moved = bm != hm
		if answerOf(rd.Base) != answerOf(rd.Head) || rd.Base.Fired != rd.Head.Fired {
			c.AnswersChanged++
		}
		if rd.Moved && rd.Label != "" && rd.Base.In && rd.Head.In {
			if hm == (rd.Label == datasets.LabelMatch) {
				rd.Fixed = true
				c.FixedRules++
			} else {
				rd.Broken = true
				c.BrokenRules++
			}
		}
		if rd.Moved || rd.Base.Fired != rd.Head.Fired {
			moved++
			if rd.Stability = stability(rd.Base.Votes, rd.Head.Votes); rd.Stability == Flaky {
				flaky++
			} else if rd.Stability == Stable {
				stable++
			}
		}
	}
	switch {
	case flaky > 0:
		c.Stability = Flaky
	case stable > 0:
		c.Stability = Stable
	}
	switch {
	case c.FixedRules > 0 && c.BrokenRules > 0:
		c.Label = LabelMixed
	case c.FixedRules > 0:
		c.Label = LabelFixed
	case c.BrokenRules > 0:
		c.Label = LabelBroken
	default:
		c.Label = LabelNeutral
	}
	rb, rh := replay.ActionRank(c.Base.Gate), replay.ActionRank(c.Head.Gate)
	c.Step = rh - rb
	switch {
	case rh < rb:
		c.Class = ClassLoosened
	case rh > rb:
		c.Class = ClassTightened
	case c.Base.Gate != c.Head.Gate || !slicesEqual(c.Base.Fired, c.Head.Fired):
		c.Class = ClassChanged
	default:
		c.Class = ClassUnchanged
	}
	return c
}

// answerOf is a rule's result, no_match when it was not in scope: a rule
// that one policy adds and that does not match changes nothing.
func answerOf(r Rule) core.Result {
	if !r.In {
		return core.NoMatch
	}
	return r.Result
}

// stability is flaky when some repeat of each side gave the same answer
// (the change is not there in every draw), stable when the sides' answers
// never meet, "" without repeats (fewer than two votes on both sides).
func stability(b, h []core.Result) string {
	answered := func(vs []core.Result) map[core.Result]bool {
		m := map[core.Result]bool{}
		for _, v := range vs {
			if v != "" {
				m[v] = true
			}
		}
		return m
	}
	if len(b) < 2 && len(h) < 2 {
		return ""
	}
	mb, mh := answered(b), answered(h)
	if len(mb) == 0 || len(mh) == 0 {
		return ""
	}
	for v := range mb {
		if mh[v] {
			return Flaky
		}
	}
	return Stable
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
