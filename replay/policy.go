package replay

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/apeval/apeval/datasets"
)

// PolicySchema is the policy format version this package reads.
const PolicySchema = "apeval.policy/v1"

// DefaultMaxRulesPerCall bounds the rules sent in one judge call (seed 000 §6.2).
const DefaultMaxRulesPerCall = 10

// Rule classes (seed 000 §6.4).
const (
	ClassAlways    = "always"
	ClassStyle     = "style"
	ClassAudit     = "audit"
	ClassDangerous = "dangerous"
	ClassApproval  = "approval"
	ClassStop      = "stop"
)

// Boundary kinds of trajectory rules (seed 002).
const (
	BoundaryNetwork   = "network"
	BoundaryWorkspace = "workspace"
)

// Permission actions (seed 001) and the value of a case with no permissions table.
const (
	PermissionAllow = "allow"
	PermissionDeny  = "deny"
	PermissionAsk   = "ask"
	PermissionOff   = "off"
)

var (
	ruleActions = []string{ActionInjectInstruction, ActionDenyCurrentTool, ActionRequestApproval,
		ActionStopTask, ActionAuditOnly, ActionNotifyAdmin}
	ruleClasses       = []string{ClassAlways, ClassStyle, ClassAudit, ClassDangerous, ClassApproval, ClassStop}
	permissionActions = []string{PermissionAllow, PermissionDeny, PermissionAsk}
	boundaryKinds     = []string{BoundaryNetwork, BoundaryWorkspace}
	approvalStates    = []string{"none", "pending", "approved", "denied"}
	// HookPoints are the hook names of seed 000 §3 a rule may be scoped to.
	HookPoints = []string{"tool.before", "tool.after", "tool.denied", "completion.before_accept", "runtime.error"}
)

// Policy is a parsed, validated and compiled policy file (DESIGN §3).
// It is read-only after loading and safe for concurrent use.
type Policy struct {
	// Name is the file name used in messages.
	Name  string
	Rules []*Rule
	// Permissions is nil when the file has no [permissions] table (layer off).
	Permissions     *Permissions
	KillCriteria    KillCriteria
	MaxRulesPerCall int
	// Categories overrides the built-in tool-name → category map; keys are
	// lower-case tool names.
	Categories map[string]string
}

// Rule is one policy rule. Matchers are compiled at load time.
type Rule struct {
	ID          string
	Name        string
	Description string
	Version     int
	// Condition is the natural-language condition for the judge; "" for a
	// deterministic rule.
	Condition string
	Action    string
	Class     string
	// Instruction is the text an inject_instruction rule would add; it is
	// never sent to a judge.
	Instruction string
	HookPoints  []string
	Categories  []string
	Tools       []string
	Pieces      []string
	Movements   []string
	MaxFires    int
	When        *Matcher
	Baseline    *Matcher
	Boundary    *Boundary
}

// Boundary makes a rule a trajectory rule (seed 002): per session, the n-th
// unapproved crossing fires request_approval from ReviewAt on and stop_task
// from PauseAt on (0 disables a stage).
type Boundary struct {
	Kind     string
	ReviewAt int
	PauseAt  int
}

// NeedsJudge reports whether the rule's result can come from a judge.
func (r *Rule) NeedsJudge() bool { return r.Condition != "" }

// Rule returns the rule with the given id, or nil.
func (p *Policy) Rule(id string) *Rule {
	for _, r := range p.Rules {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// LoadPolicy reads and parses a policy file.
func LoadPolicy(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParsePolicy(data, filepath.Base(path))
}

// ParsePolicy parses a policy document. name is used in error messages,
// which read "name:line: key: message".
func ParsePolicy(data []byte, name string) (*Policy, error) {
	var raw rawPolicy
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		return nil, tomlError(name, err)
	}
	v := &validator{name: name, loc: locate(string(data))}
	v.unknownKeys(md.Undecoded())
	p := &Policy{Name: name, KillCriteria: DefaultKillCriteria(), MaxRulesPerCall: DefaultMaxRulesPerCall}
	switch {
	case !md.IsDefined("schema"):
		v.errf("schema", "required: schema = %q", PolicySchema)
	case raw.Schema != PolicySchema:
		v.errf("schema", "%q is not supported (want %q)", raw.Schema, PolicySchema)
	}
	if raw.MaxRulesPerCall != nil {
		if *raw.MaxRulesPerCall < 1 {
			v.errf("max_rules_per_call", "must be at least 1, got %d", *raw.MaxRulesPerCall)
		} else {
			p.MaxRulesPerCall = *raw.MaxRulesPerCall
		}
	}
	if len(raw.Categories) > 0 {
		p.Categories = make(map[string]string, len(raw.Categories))
		for tool, cat := range raw.Categories {
			if !slices.Contains(datasets.Categories, cat) {
				v.errf("categories."+tool, "%q is not one of %s", cat, strings.Join(datasets.Categories, ", "))
			}
			p.Categories[strings.ToLower(tool)] = cat
		}
	}
	if raw.Permissions != nil {
		p.Permissions = v.permissions(raw.Permissions)
	}
	if raw.KillCriteria != nil {
		p.KillCriteria = v.criteria("kill_criteria.", raw.KillCriteria)
	}
	seen := make(map[string]string, len(raw.Rules))
	for i := range raw.Rules {
		r := v.rule(i, &raw.Rules[i])
		if r == nil {
			continue
		}
		if prev, dup := seen[r.ID]; dup {
			v.errf(fmt.Sprintf("rule[%d].id", i), "duplicate id %q (first used by %s)", r.ID, prev)
		}
		seen[r.ID] = fmt.Sprintf("rule[%d]", i)
		p.Rules = append(p.Rules, r)
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	return p, nil
}

// ParseCriteria parses a --criteria file: either a [kill_criteria] table
// (so a policy file works too) or the same keys at the top level. Missing
// keys keep DefaultKillCriteria's values.
func ParseCriteria(data []byte, name string) (KillCriteria, error) {
	var raw struct {
		Schema       string       `toml:"schema"`
		KillCriteria *rawCriteria `toml:"kill_criteria"`
		rawCriteria
	}
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		return KillCriteria{}, tomlError(name, err)
	}
	v := &validator{name: name, loc: locate(string(data))}
	if raw.Schema == PolicySchema {
		// A whole policy file: take its criteria, after validating it all.
		p, err := ParsePolicy(data, name)
		if err != nil {
			return KillCriteria{}, err
		}
		return p.KillCriteria, nil
	}
	v.unknownKeys(md.Undecoded())
	top := raw.rawCriteria != (rawCriteria{})
	var kc KillCriteria
	switch {
	case raw.KillCriteria != nil && top:
		v.errf("kill_criteria", "give the criteria either in [kill_criteria] or at the top level, not both")
	case raw.KillCriteria != nil:
		kc = v.criteria("kill_criteria.", raw.KillCriteria)
	default:
		kc = v.criteria("", &raw.rawCriteria)
	}
	if raw.Schema != "" {
		v.errf("schema", "%q is not supported in a criteria file (want %q or none)", raw.Schema, PolicySchema)
	}
	if err := v.err(); err != nil {
		return KillCriteria{}, err
	}
	return kc, nil
}

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
	ID          string       `toml:"id"`
	Name        string       `toml:"name"`
	Description string       `toml:"description"`
	Version     *int         `toml:"version"`
	Condition   string       `toml:"condition"`
	Action      string       `toml:"action"`
	Class       string       `toml:"class"`
	Instruction string       `toml:"instruction"`
	HookPoints  strList      `toml:"hook_points"`
	Categories  strList      `toml:"categories"`
	Tools       strList      `toml:"tools"`
	Pieces      strList      `toml:"pieces"`
	Movements   strList      `toml:"movements"`
	MaxFires    *int         `toml:"max_fires"`
	When        *rawMatcher  `toml:"when"`
	Baseline    *rawMatcher  `toml:"baseline"`
	Boundary    *rawBoundary `toml:"boundary"`
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
}

type rawCriteria struct {
	PrecisionMin                    *float64 `toml:"precision_min"`
	DangerousRecallMustBeatBaseline *bool    `toml:"dangerous_recall_must_beat_baseline"`
	JudgeP95Max                     *string  `toml:"judge_p95_max"`
	JudgeRequiredRateMax            *float64 `toml:"judge_required_rate_max"`
	UnknownRateMax                  *float64 `toml:"unknown_rate_max"`
	ApprovalRejectRateMax           *float64 `toml:"approval_reject_rate_max"`
	FireRateChangeMax               *float64 `toml:"fire_rate_change_max"`
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

// tomlError renders a decoder error as "name:line: message".
func tomlError(name string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		msg := pe.Message
		if pe.LastKey != "" {
			msg = pe.LastKey + ": " + msg
		}
		return fmt.Errorf("%s:%d: %s", name, pe.Position.Line, msg)
	}
	msg := strings.TrimPrefix(err.Error(), "toml: ")
	if strings.HasPrefix(msg, "line ") {
		return fmt.Errorf("%s:%s", name, strings.TrimPrefix(msg, "line "))
	}
	return fmt.Errorf("%s: %s", name, msg)
}

// validator collects every problem of a document so one run shows them all.
type validator struct {
	name string
	loc  *locator
	errs []error
}

func (v *validator) errf(key, format string, args ...any) {
	where := v.name
	if line := v.loc.line(key); line > 0 {
		where += ":" + strconv.Itoa(line)
	}
	v.errs = append(v.errs, fmt.Errorf("%s: %s: %s", where, key, fmt.Sprintf(format, args...)))
}

func (v *validator) err() error { return errors.Join(v.errs...) }

func (v *validator) unknownKeys(keys []toml.Key) {
	reported := map[string]bool{}
	for _, k := range keys {
		s := k.String()
		parent := false
		for i := 1; i < len(k); i++ {
			if reported[toml.Key(k[:i]).String()] {
				parent = true
				break
			}
		}
		if parent {
			continue
		}
		reported[s] = true
		key := v.loc.indexed(s)
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
		v.oneOf(key+".class", raw.Class, ruleClasses)
	}
	for j, h := range r.HookPoints {
		v.oneOf(fmt.Sprintf("%s.hook_points[%d]", key, j), h, HookPoints)
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
		if raw.Action != "" && raw.Action != ActionRequestApproval && raw.Action != ActionStopTask {
			v.errf(key+".action", "%q: a boundary rule fires request_approval at review_at and stop_task at pause_at; leave action out or write one of those", raw.Action)
		}
		if r.Condition != "" {
			v.errf(key+".condition", "a boundary rule is deterministic; it cannot have a condition")
		}
	} else if raw.Action == "" {
		v.errf(key+".action", "required (one of %s)", strings.Join(ruleActions, ", "))
	} else {
		v.oneOf(key+".action", raw.Action, ruleActions)
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
		// Seed 002: network reviews at the first crossing and pauses at the
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

// locator maps keys to the line where they are written, so validation
// errors can point into the file. It understands the subset of TOML a
// policy uses: [table], [[array]], key = value, multi-line strings and arrays.
type locator struct {
	lines   map[string]int    // indexed key ("rule[2].when.tool") → line
	firstOf map[string]string // plain key ("rule.when.tool") → first indexed key
}

func locate(doc string) *locator {
	l := &locator{lines: map[string]int{}, firstOf: map[string]string{}}
	counts := map[string]int{}
	var table string // indexed path of the current table
	inMulti := ""
	for n, line := range strings.Split(doc, "\n") {
		s := strings.TrimSpace(line)
		if inMulti != "" {
			if strings.Contains(s, inMulti) {
				inMulti = ""
			}
			continue
		}
		if s == "" || s[0] == '#' {
			continue
		}
		switch {
		case strings.HasPrefix(s, "[["):
			name := tableName(strings.TrimPrefix(s, "[["), "]]")
			parentPlain, last := splitLast(name)
			parent := ""
			if parentPlain != "" {
				parent = l.indexedPrefix(parentPlain, counts)
			}
			idx := counts[name]
			counts[name]++
			table = join(parent, last+"["+strconv.Itoa(idx)+"]")
			l.add(table, n+1)
		case s[0] == '[':
			name := tableName(strings.TrimPrefix(s, "["), "]")
			table = l.indexedPrefix(name, counts)
			l.add(table, n+1)
		default:
			eq := strings.IndexByte(s, '=')
			if eq <= 0 {
				continue
			}
			k := strings.Trim(strings.TrimSpace(s[:eq]), `"'`)
			l.add(join(table, k), n+1)
			rest := s[eq+1:]
			for _, q := range []string{`"""`, `'''`} {
				if strings.Count(rest, q)%2 == 1 {
					inMulti = q
				}
			}
		}
	}
	return l
}

// indexedPrefix turns "rule.when" into "rule[3].when" using the current
// element of every array of tables on the path.
func (l *locator) indexedPrefix(name string, counts map[string]int) string {
	parts := strings.Split(name, ".")
	out := make([]string, 0, len(parts))
	for i, p := range parts {
		plain := strings.Join(parts[:i+1], ".")
		if c := counts[plain]; c > 0 {
			p += "[" + strconv.Itoa(c-1) + "]"
		}
		out = append(out, p)
	}
	return strings.Join(out, ".")
}

func (l *locator) add(key string, line int) {
	if _, ok := l.lines[key]; !ok {
		l.lines[key] = line
	}
	plain := stripIndexes(key)
	if _, ok := l.firstOf[plain]; !ok {
		l.firstOf[plain] = key
	}
}

// line finds the line of key, falling back to its closest written parent.
func (l *locator) line(key string) int {
	if l == nil {
		return 0
	}
	for key != "" {
		if n, ok := l.lines[key]; ok {
			return n
		}
		if i := strings.LastIndexAny(key, ".["); i > 0 {
			key = key[:i]
		} else {
			break
		}
	}
	return 0
}

// indexed maps a plain key (as toml reports undecoded keys) to the first
// indexed key that spells it.
func (l *locator) indexed(plain string) string {
	if k, ok := l.firstOf[plain]; ok {
		return k
	}
	return plain
}

func tableName(s, closer string) string {
	if i := strings.Index(s, closer); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}

func splitLast(s string) (string, string) {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		return s[:i], s[i+1:]
	}
	return "", s
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

func stripIndexes(s string) string {
	var b strings.Builder
	skip := false
	for _, r := range s {
		switch {
		case r == '[':
			skip = true
		case r == ']':
			skip = false
		case !skip:
			b.WriteRune(r)
		}
	}
	return b.String()
}
