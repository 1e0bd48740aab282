package replay

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/tomlfile"
)

// PolicySchema is the policy format version this package reads.
const PolicySchema = "apeval.policy/v1"

// DefaultMaxRulesPerCall bounds the rules sent in one judge call (see docs/policy.md).
const DefaultMaxRulesPerCall = 10

// Class is a rule's class (see docs/policy.md and docs/replay.md): which
// kill criteria and figures the rule counts in.
type Class string

// Rule classes, in the order docs/policy.md lists them.
const (
	ClassAlways    Class = "always"
	ClassStyle     Class = "style"
	ClassAudit     Class = "audit"
	ClassDangerous Class = "dangerous"
	ClassApproval  Class = "approval"
	ClassStop      Class = "stop"
)

// Classes are the rule classes, in the order docs/policy.md lists them.
var Classes = []Class{ClassAlways, ClassStyle, ClassAudit, ClassDangerous, ClassApproval, ClassStop}

// ParseClass returns s as one of Classes, or an error naming them.
func ParseClass(s string) (Class, error) {
	if c := Class(s); slices.Contains(Classes, c) {
		return c, nil
	}
	return "", fmt.Errorf("unknown rule class %q (want one of %s)", s, strings.Join(names(Classes), ", "))
}

// Boundary kinds of trajectory rules (docs/replay.md).
const (
	BoundaryNetwork   = "network"
	BoundaryWorkspace = "workspace"
)

// Permission actions (docs/policy.md) and the value of a case with no permissions table.
const (
	PermissionAllow = "allow"
	PermissionDeny  = "deny"
	PermissionAsk   = "ask"
	PermissionOff   = "off"
)

var (
	ruleActions       = names(datasets.RuleActions)
	ruleClasses       = names(Classes)
	permissionActions = []string{PermissionAllow, PermissionDeny, PermissionAsk}
	boundaryKinds     = []string{BoundaryNetwork, BoundaryWorkspace}
	approvalStates    = datasets.ApprovalStates
	hookPoints        = datasets.HookPoints
)

// Policy is a parsed, validated and compiled policy file (see docs/policy.md).
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
	Action    datasets.Action
	Class     Class
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

// Boundary makes a rule a trajectory rule (docs/replay.md): per session, the n-th
// unapproved crossing fires request_approval from ReviewAt on and stop_task
// from PauseAt on (0 disables a stage).
type Boundary struct {
	Kind     string `json:"kind"`
	ReviewAt int    `json:"review_at"`
	PauseAt  int    `json:"pause_at"`
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

// Only is the policy with only the rules ids names (--rule), in the order
// given, each once; an unknown ID is an error listing the policy's rules.
func (p *Policy) Only(ids []string) (*Policy, error) {
	if len(ids) == 0 {
		return p, nil
	}
	q := *p
	q.Rules = nil
	for _, id := range ids {
		r := p.Rule(id)
		if r == nil {
			return nil, fmt.Errorf("--rule %s: the policy %s has no such rule; its rules are: %s", id, p.Name, strings.Join(p.RuleIDs(), ", "))
		}
		if !slices.Contains(q.Rules, r) {
			q.Rules = append(q.Rules, r)
		}
	}
	return &q, nil
}

// RuleIDs are the IDs of the policy's rules, in the file's order.
func (p *Policy) RuleIDs() []string {
	ids := make([]string, 0, len(p.Rules))
	for _, r := range p.Rules {
		ids = append(ids, r.ID)
	}
	return ids
}

// LoadPolicy reads and parses a policy file.
func LoadPolicy(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParsePolicy(data, filepath.Base(path))
}

// SamplePolicyName names the embedded sample's policy in messages and run.json.
const SamplePolicyName = "sample:policy.toml"

// ReadPolicy reads the policy file at path, named by the path as given in
// messages, or the embedded sample's policy (SamplePolicyName) when path is
// "". sha256 is the file's hex SHA-256, for run.json.
func ReadPolicy(path string) (p *Policy, name, sha string, err error) {
	var data []byte
	name = path
	if path == "" {
		data, name = datasets.SamplePolicy(), SamplePolicyName
	} else if data, err = os.ReadFile(path); err != nil {
		return nil, "", "", err
	}
	if p, err = ParsePolicy(data, name); err != nil {
		return nil, "", "", err
	}
	sum := sha256.Sum256(data)
	return p, name, hex.EncodeToString(sum[:]), nil
}

// ParsePolicy parses a policy document. name is used in error messages,
// which read "name:line: key: message".
func ParsePolicy(data []byte, name string) (*Policy, error) {
	var raw rawPolicy
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		return nil, tomlfile.Error(name, string(data), err)
	}
	v := &validator{name: name, loc: tomlfile.Locate(string(data))}
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

// ReadCriteria reads and parses the --criteria file at path (ParseCriteria),
// named by the path as given in messages.
func ReadCriteria(path string) (KillCriteria, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return KillCriteria{}, err
	}
	return ParseCriteria(data, path)
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
		return KillCriteria{}, tomlfile.Error(name, string(data), err)
	}
	v := &validator{name: name, loc: tomlfile.Locate(string(data))}
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

// names is the values of a typed enumeration as strings, for messages and
// the validator's lists.
func names[S ~string](vs []S) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}
