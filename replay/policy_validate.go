package replay

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/tomlfile"
)

type rawPolicy struct {
	Schema          string            `toml:"schema"`
	MaxRulesPerCall *int              `toml:"max_rules_per_call"`
	Permissions     *rawPermissions   `toml:"permissions"`
	Rules           []rawRule         `toml:"rule"`
	Categories      map[string]string `toml:"categories"`
	KillCriteria    *rawCriteria      `toml:"kill_criteria"`
}

type rawPermissions struct {
	DefaultAction *string       `toml:"default_action"`
	Rules         []rawPermRule `toml:"rule"`
	Import        []string      `toml:"import"` // see permissions_import.go
}

type rawPermRule struct {
	Tool    *string `toml:"tool"`
	Pattern *string `toml:"pattern"`
	Action  *string `toml:"action"`
}

type rawRule struct {
	ID          string          `toml:"id"`
	Name        string          `toml:"name"`
	Description string          `toml:"description"`
	Version     *int            `toml:"version"`
	Condition   string          `toml:"condition"`
	Action      datasets.Action `toml:"action"`
	Class       Class           `toml:"class"`
	Instruction string          `toml:"instruction"`
	HookPoints  strList         `toml:"hook_points"`
	Categories  strList         `toml:"categories"`
	Tools       strList         `toml:"tools"`
	Pieces      strList         `toml:"pieces"`
	Movements   strList         `toml:"movements"`
	MaxFires    *int            `toml:"max_fires"`
	When        *rawMatcher     `toml:"when"`
	Baseline    *rawMatcher     `toml:"baseline"`
	Boundary    *rawBoundary    `toml:"boundary"`
}

type rawBoundary struct {
	Kind     string `toml:"kind"`
	ReviewAt *int   `toml:"review_at"`
	PauseAt  *int   `toml:"pause_at"`
}

type rawMatcher struct {
	CommandPrefix        strList           `toml:"command_prefix"`
	CommandRegex         strList           `toml:"command_regex"`
	ArgGlob              map[string]string `toml:"arg_glob"`
	PathOutsideWorkspace *bool             `toml:"path_outside_workspace"`
	Network              *bool             `toml:"network"`
	Tool                 strList           `toml:"tool"`
	Category             strList           `toml:"category"`
	MinNonASCIIRatio     *float64          `toml:"min_non_ascii_ratio"`
	MaxNonASCIIRatio     *float64          `toml:"max_non_ascii_ratio"`
	ArgumentsValid       *bool             `toml:"arguments_valid"`
	ApprovalState        strList           `toml:"approval_state"`
	// Unless lists matchers none of which may hold ([[rule.when.unless]]).
	Unless []rawMatcher `toml:"unless"`
}

type rawCriteria struct {
	PrecisionMin                    *float64 `toml:"precision_min"`
	DangerousRecallMustBeatBaseline *bool    `toml:"dangerous_recall_must_beat_baseline"`
	JudgeP95Max                     *string  `toml:"judge_p95_max"`
	JudgeRequiredRateMax            *float64 `toml:"judge_required_rate_max"`
	UnknownRateMax                  *float64 `toml:"unknown_rate_max"`
	ApprovalRejectRateMax           *float64 `toml:"approval_reject_rate_max"`
	FireRateChangeMax               *float64 `toml:"fire_rate_change_max"`
	EffectiveRecallMin              *float64 `toml:"effective_recall_min"`
	Confidence                      *float64 `toml:"confidence"`
}

// strList accepts a string or an array of strings, so `tool = "Bash"` and
// `tool = ["Bash"]` both work.
type strList []string

func (s *strList) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case string:
		*s = strList{v}
	case []any:
		out := make(strList, 0, len(v))
		for _, e := range v {
			str, ok := e.(string)
			if !ok {
				return fmt.Errorf("want a string or an array of strings, found an element of type %T", e)
			}
			out = append(out, str)
		}
		*s = out
	default:
		return fmt.Errorf("want a string or an array of strings, got %T", v)
	}
	return nil
}

// validator collects every problem of a document so one run shows them all.
type validator struct {
	name string
	loc  *tomlfile.Locator
	errs []error
}

func (v *validator) errf(key, format string, args ...any) {
	where := v.name
	if line := v.loc.Line(key); line > 0 {
		where += ":" + strconv.Itoa(line)
	}
	v.errs = append(v.errs, fmt.Errorf("%s: %s: %s", where, key, fmt.Sprintf(format, args...)))
}

func (v *validator) err() error { return errors.Join(v.errs...) }

func (v *validator) unknownKeys(keys []toml.Key) {
	for _, key := range v.loc.Unknown(keys) {
		v.errf(key, "unknown key")
	}
}

func (v *validator) oneOf(key, val string, allowed []string) bool {
	if slices.Contains(allowed, val) {
		return true
	}
	v.errf(key, "%q is not one of %s", val, strings.Join(allowed, ", "))
	return false
}

func (v *validator) permissions(raw *rawPermissions) *Permissions {
	perm := &Permissions{}
	v.permissionImports(raw.Import, perm)
	if raw.DefaultAction == nil && len(raw.Import) > 0 {
		perm.DefaultAction = PermissionAsk // imports alone: what no imported rule decides is asked
	} else if raw.DefaultAction == nil {
		v.errf("permissions", "default_action is required when [permissions] is present (allow, deny or ask)")
	} else if v.oneOf("permissions.default_action", *raw.DefaultAction, permissionActions) {
		perm.DefaultAction = *raw.DefaultAction
	}
	for i, r := range raw.Rules {
		key := fmt.Sprintf("permissions.rule[%d]", i)
		pr := PermissionRule{}
		if r.Tool == nil || *r.Tool == "" {
			v.errf(key, "tool is required (a tool name or \"*\")")
		} else {
			pr.Tool = *r.Tool
		}
		if r.Pattern == nil {
			v.errf(key, "pattern is required (a glob; \"*\" matches everything)")
		} else {
			pr.Pattern = *r.Pattern
			pr.glob = compileGlob(pr.Pattern)
		}
		if r.Action == nil {
			v.errf(key, "action is required (allow, deny or ask)")
		} else if v.oneOf(key+".action", *r.Action, permissionActions) {
			pr.Action = *r.Action
		}
		perm.Rules = append(perm.Rules, pr)
	}
	return perm
}

func (v *validator) criteria(prefix string, raw *rawCriteria) KillCriteria {
	kc := DefaultKillCriteria()
	rate := func(key string, src *float64, dst *float64, lo, hi float64, openLo bool) {
		if src == nil {
			return
		}
		x := *src
		if x < lo || x > hi || (openLo && x == lo) || x != x {
			v.errf(prefix+key, "%v is out of range [%v, %v]", x, lo, hi)
			return
		}
		*dst = x
	}
	rate("precision_min", raw.PrecisionMin, &kc.PrecisionMin, 0, 1, false)
	rate("judge_required_rate_max", raw.JudgeRequiredRateMax, &kc.JudgeRequiredRateMax, 0, 1, false)
	rate("unknown_rate_max", raw.UnknownRateMax, &kc.UnknownRateMax, 0, 1, false)
	rate("approval_reject_rate_max", raw.ApprovalRejectRateMax, &kc.ApprovalRejectRateMax, 0, 1, false)
	rate("fire_rate_change_max", raw.FireRateChangeMax, &kc.FireRateChangeMax, 0, 1, false)
	rate("effective_recall_min", raw.EffectiveRecallMin, &kc.EffectiveRecallMin, 0, 1, false)
	if raw.Confidence != nil {
		if c := *raw.Confidence; !(c > 0 && c < 1) {
			v.errf(prefix+"confidence", "%v must be strictly between 0 and 1", c)
		} else {
			kc.Confidence = c
		}
	}
	if raw.DangerousRecallMustBeatBaseline != nil {
		kc.DangerousRecallMustBeatBaseline = *raw.DangerousRecallMustBeatBaseline
	}
	if raw.JudgeP95Max != nil {
		d, err := time.ParseDuration(*raw.JudgeP95Max)
		switch {
		case err != nil:
			v.errf(prefix+"judge_p95_max", "%q is not a duration (write \"1s\" or \"800ms\")", *raw.JudgeP95Max)
		case d <= 0:
			v.errf(prefix+"judge_p95_max", "%q must be positive", *raw.JudgeP95Max)
		default:
			kc.JudgeP95Max = d
		}
	}
	return kc
}

func (v *validator) rule(i int, raw *rawRule) *Rule {
	key := fmt.Sprintf("rule[%d]", i)
	nerr := len(v.errs)
	r := &Rule{
		ID: raw.ID, Name: raw.Name, Description: raw.Description, Version: 1,
		Condition: strings.TrimSpace(raw.Condition), Action: raw.Action, Class: raw.Class,
		Instruction: raw.Instruction,
		HookPoints:  raw.HookPoints, Categories: raw.Categories, Tools: raw.Tools,
		Pieces: raw.Pieces, Movements: raw.Movements,
	}
	if r.ID == "" {
		v.errf(key+".id", "required")
	}
	if raw.Version != nil {
		if *raw.Version < 1 {
			v.errf(key+".version", "must be at least 1, got %d", *raw.Version)
		}
		r.Version = *raw.Version
	}
	if raw.Class == "" {
		v.errf(key+".class", "required (one of %s)", strings.Join(ruleClasses, ", "))
	} else {
		v.oneOf(key+".class", string(raw.Class), ruleClasses)
	}
	for j, h := range r.HookPoints {
		v.oneOf(fmt.Sprintf("%s.hook_points[%d]", key, j), h, hookPoints)
	}
	for j, c := range r.Categories {
		v.oneOf(fmt.Sprintf("%s.categories[%d]", key, j), c, datasets.Categories)
	}
	if raw.MaxFires != nil {
		if *raw.MaxFires < 0 {
			v.errf(key+".max_fires", "must be 0 (unlimited) or more, got %d", *raw.MaxFires)
		}
		r.MaxFires = *raw.MaxFires
	}
	if raw.When != nil {
		r.When = v.matcher(key+".when", raw.When)
	}
	if raw.Baseline != nil {
		r.Baseline = v.matcher(key+".baseline", raw.Baseline)
	}
	if raw.Boundary != nil {
		r.Boundary = v.boundary(key+".boundary", raw.Boundary)
		if raw.Action != "" && raw.Action != datasets.ActionRequestApproval && raw.Action != datasets.ActionStopTask {
			v.errf(key+".action", "%q: a boundary rule fires request_approval at review_at and stop_task at pause_at; leave action out or write one of those", raw.Action)
		}
		if r.Condition != "" {
			v.errf(key+".condition", "a boundary rule is deterministic; it cannot have a condition")
		}
	} else if raw.Action == "" {
		v.errf(key+".action", "required (one of %s)", strings.Join(ruleActions, ", "))
	} else {
		v.oneOf(key+".action", string(raw.Action), ruleActions)
	}
	if raw.Class == ClassAlways && r.Condition != "" {
		v.errf(key+".condition", "an always rule never goes to the judge; remove condition or change class")
	}
	if r.Condition == "" && r.When == nil && r.Boundary == nil && raw.Class != ClassAlways && raw.Condition == "" {
		v.errf(key, "needs a condition (judge), a [rule.when] (deterministic), a [rule.boundary] (trajectory) or class = \"always\"")
	}
	if raw.Condition != "" && r.Condition == "" {
		v.errf(key+".condition", "is blank")
	}
	if len(v.errs) > nerr {
		return nil
	}
	return r
}

func (v *validator) boundary(key string, raw *rawBoundary) *Boundary {
	b := &Boundary{Kind: raw.Kind}
	if raw.Kind == "" {
		v.errf(key+".kind", "required (network or workspace)")
	} else {
		v.oneOf(key+".kind", raw.Kind, boundaryKinds)
	}
	if raw.ReviewAt != nil {
		b.ReviewAt = *raw.ReviewAt
	}
	if raw.PauseAt != nil {
		b.PauseAt = *raw.PauseAt
	}
	if raw.ReviewAt == nil && raw.PauseAt == nil {
		// The defaults: network reviews at the first crossing and pauses at the
		// second; leaving the workspace pauses at once.
		if raw.Kind == BoundaryWorkspace {
			b.PauseAt = 1
		} else {
			b.ReviewAt, b.PauseAt = 1, 2
		}
	}
	if b.ReviewAt < 0 {
		v.errf(key+".review_at", "must be 0 (off) or more, got %d", b.ReviewAt)
	}
	if b.PauseAt < 0 {
		v.errf(key+".pause_at", "must be 0 (off) or more, got %d", b.PauseAt)
	}
	if b.ReviewAt == 0 && b.PauseAt == 0 {
		v.errf(key, "review_at and pause_at are both 0: the rule can never fire")
	}
	if b.ReviewAt > 0 && b.PauseAt > 0 && b.ReviewAt >= b.PauseAt {
		v.errf(key+".review_at", "%d must be below pause_at (%d)", b.ReviewAt, b.PauseAt)
	}
	return b
}

func (v *validator) matcher(key string, raw *rawMatcher) *Matcher {
	m := &Matcher{
		CommandPrefix: raw.CommandPrefix, CommandRegex: raw.CommandRegex, ArgGlob: raw.ArgGlob,
		PathOutsideWorkspace: raw.PathOutsideWorkspace, Network: raw.Network,
		Tool: raw.Tool, Category: raw.Category,
		MinNonASCIIRatio: raw.MinNonASCIIRatio, MaxNonASCIIRatio: raw.MaxNonASCIIRatio,
		ArgumentsValid: raw.ArgumentsValid, ApprovalState: raw.ApprovalState,
	}
	for j := range raw.Unless {
		m.Unless = append(m.Unless, v.matcher(fmt.Sprintf("%s.unless[%d]", key, j), &raw.Unless[j]))
	}
	for j, p := range m.CommandPrefix {
		toks := strings.Fields(p)
		if len(toks) == 0 {
			v.errf(fmt.Sprintf("%s.command_prefix[%d]", key, j), "is blank")
			continue
		}
		m.prefixes = append(m.prefixes, toks)
	}
	for j, expr := range m.CommandRegex {
		re, err := regexp.Compile(expr)
		if err != nil {
			v.errf(fmt.Sprintf("%s.command_regex[%d]", key, j), "%v", err)
			continue
		}
		m.regexes = append(m.regexes, re)
	}
	if len(m.ArgGlob) > 0 {
		names := make([]string, 0, len(m.ArgGlob))
		for k := range m.ArgGlob {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			m.globs = append(m.globs, argGlob{key: k, glob: compileGlob(m.ArgGlob[k])})
		}
	}
	for j, c := range m.Category {
		v.oneOf(fmt.Sprintf("%s.category[%d]", key, j), c, datasets.Categories)
	}
	for j, s := range m.ApprovalState {
		v.oneOf(fmt.Sprintf("%s.approval_state[%d]", key, j), s, approvalStates)
	}
	for _, r := range []struct {
		k string
		p *float64
	}{{"min_non_ascii_ratio", m.MinNonASCIIRatio}, {"max_non_ascii_ratio", m.MaxNonASCIIRatio}} {
		if r.p != nil && !(*r.p >= 0 && *r.p <= 1) {
			v.errf(key+"."+r.k, "%v is out of range [0, 1]", *r.p)
		}
	}
	if m.MinNonASCIIRatio != nil && m.MaxNonASCIIRatio != nil && *m.MinNonASCIIRatio > *m.MaxNonASCIIRatio {
		v.errf(key+".min_non_ascii_ratio", "%v is above max_non_ascii_ratio %v", *m.MinNonASCIIRatio, *m.MaxNonASCIIRatio)
	}
	if m.empty() {
		v.errf(key, "has no keys (an empty table always holds; remove it instead)")
	}
	return m
}
