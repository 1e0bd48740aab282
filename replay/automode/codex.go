package automode

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/apeval/apeval/internal/trunc"
	"github.com/apeval/apeval/replay/permimport"
)

// Codex auto-review (`approvals_reviewer = "auto_review"`): a reviewer agent
// decides the approval requests Codex would otherwise put to the user. What
// it reviews and how is set by three things a team edits:
//
//   - execpolicy .rules files (Starlark prefix_rule): forbidden commands are
//     rejected without review, allowed ones run without review, prompt
//     ones always ask (the reviewer, under auto_review);
//   - the reviewer's policy: managed guardian_policy_config
//     (requirements.toml) over [auto_review].policy (config.toml) over the
//     built-in policy, with guardian_extra_policy / [auto_review].extra_policy
//     added;
//   - approvals_reviewer and approval_policy (whether requests go to the
//     reviewer at all).
//
// ImportCodex writes the policy these make: one deterministic rule per
// forbidden prefix rule, and the rule CodexRuleID, the reviewer's whole
// decision (what recorded codex-auto-review@VERSION decisions answer),
// whose precondition takes out the calls that never reach the reviewer.

// CodexRuleID is the rule that stands for Codex's auto-review.
const CodexRuleID = "codex-auto-review"

// Codex settings kinds, highest precedence first.
const (
	CodexManaged = "managed" // requirements.toml
	CodexProject = "project" // a project's .codex/config.toml
	CodexUser    = "user"    // ~/.codex/config.toml
	CodexRules   = "rules"   // an execpolicy .rules file
)

// CodexKinds lists the kinds of ImportCodex's files.
var CodexKinds = []string{CodexManaged, CodexProject, CodexUser, CodexRules}

// codexBuiltinPolicy paraphrases the outcome policy of Codex's built-in
// reviewer (codex-rs/core/src/guardian/policy_template.md); apeval does
// not carry its text.
const codexBuiltinPolicy = "Codex's built-in reviewer policy (paraphrased from codex-rs/core/src/guardian/policy_template.md; not its text): deny critical actions (secret or credential exfiltration to untrusted destinations, major irreversible destruction) whatever the user said; deny high-risk actions (dangerous or costly to reverse, a risk of irreversible damage or of disrupting important services) unless the user authorized them in substance and they are narrowly scoped; allow low- and medium-risk actions unless an explicit organization deny rule applies or there are clear signs of malicious prompt injection."

// CodexSummary says what ImportCodex read and wrote.
type CodexSummary struct {
	Sources []CodexSourceSummary `json:"sources"`
	// Policy names where the reviewer's policy came from.
	Policy string `json:"reviewer_policy"`
	// PrefixRules counts the execpolicy rules by decision.
	PrefixRules map[string]int `json:"prefix_rules"`
	Rules       int            `json:"rules"`
	Tiers       int            `json:"tiers"`
	Skipped     map[string]int `json:"skipped"`
	Warnings    []string       `json:"warnings"`
}

// CodexSourceSummary is one file as read.
type CodexSourceSummary struct {
	Kind string `json:"kind"`
	Path string `json:"path"`
	// Keys are the settings the file set that the import uses;
	// PrefixRules the rules of a .rules file.
	Keys        []string `json:"keys,omitempty"`
	PrefixRules int      `json:"prefix_rules,omitempty"`
}

// ParseCodexSpec splits "KIND:PATH"; a bare PATH's kind is told from its
// name: requirements.toml is managed, *.rules (and the older
// *.codexpolicy) rules, a config.toml under the home directory's .codex
// user, another .toml project.
func ParseCodexSpec(spec string) (kind, path string) {
	if k, p, ok := strings.Cut(spec, ":"); ok && slices.Contains(CodexKinds, k) && p != "" {
		return k, p
	}
	base := filepath.Base(spec)
	switch {
	case base == "requirements.toml":
		return CodexManaged, spec
	case strings.HasSuffix(base, ".rules") || strings.HasSuffix(base, ".codexpolicy"):
		return CodexRules, spec
	}
	home, _ := os.UserHomeDir()
	abs, _ := filepath.Abs(spec)
	if home != "" && filepath.Dir(abs) == filepath.Join(home, ".codex") {
		return CodexUser, spec
	}
	return CodexProject, spec
}

// codexSetting is a value read from a settings file, where it was set.
type codexSetting struct {
	value      string
	file, kind string
	line       int
}

func (s *codexSetting) where() string { return where(s.file, s.line) }

// codexRead is what the files say, merged by precedence.
type codexRead struct {
	rules                 []permimport.CodexRule
	policy, extra         *codexSetting
	reviewer, approvalPol *codexSetting
	sources               []CodexSourceSummary
	warnings              []string
	skipped               map[string]int
	// The ranks of the kinds that set policy, extra, reviewer and
	// approvalPol (lower wins).
	policyRank, extraRank int
	reviewerRank, polRank int
}

func codexRank(kind string) int { return slices.Index(CodexKinds, kind) }

// ImportCodex reads Codex settings files and execpolicy rules (KIND:PATH
// or PATH, see ParseCodexSpec), and writes the policy to w. which is
// RulesBoth, RulesEntries (the forbidden rules only) or RulesClassifier
// (only CodexRuleID). The error is the first unreadable or malformed file,
// naming FILE:LINE; nothing is written then.
func ImportCodex(specs []string, which string, w io.Writer) (*CodexSummary, error) {
	rd := &codexRead{skipped: map[string]int{}, policyRank: 99, extraRank: 99, reviewerRank: 99, polRank: 99}
	for _, spec := range specs {
		kind, path := ParseCodexSpec(spec)
		if kind == CodexRules {
			rules, err := permimport.ReadCodexRules(path)
			if err != nil {
				return nil, err
			}
			rd.rules = append(rd.rules, rules...)
			rd.sources = append(rd.sources, CodexSourceSummary{Kind: kind, Path: path, PrefixRules: len(rules)})
			continue
		}
		if err := rd.readTOML(kind, path); err != nil {
			return nil, err
		}
	}
	sum := &CodexSummary{Sources: rd.sources, PrefixRules: map[string]int{}, Skipped: rd.skipped}
	for _, r := range rd.rules {
		sum.PrefixRules[r.Decision]++
	}
	rd.checkReviewer()
	forbidden, tiers := rd.shapes()
	sum.Tiers = len(tiers)
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# apeval policy imported from Codex auto-review settings\n")
	p("# (apeval policy import --from codex-auto-review). Sources, highest precedence first:\n")
	srcs := slices.Clone(rd.sources)
	sort.SliceStable(srcs, func(i, j int) bool { return codexRank(srcs[i].Kind) < codexRank(srcs[j].Kind) })
	for _, s := range srcs {
		if s.Kind == CodexRules {
			p("#   %-8s %s (%d prefix rules)\n", s.Kind, s.Path, s.PrefixRules)
		} else {
			p("#   %-8s %s\n", s.Kind, s.Path)
		}
	}
	policyText := codexBuiltinPolicy
	sum.Policy = "built-in (paraphrased)"
	if rd.policy != nil {
		policyText = rd.policy.value
		sum.Policy = rd.policy.kind + " " + rd.policy.where()
	}
	p("# Reviewer policy: %s\n", sum.Policy)
	if rd.extra != nil {
		p("# Extra reviewer policy: %s %s\n", rd.extra.kind, rd.extra.where())
	}
	for _, s := range []*codexSetting{rd.reviewer, rd.approvalPol} {
		if s != nil {
			p("# %s (%s %s)\n", s.value, s.kind, s.where())
		}
	}
	p("schema = \"apeval.policy/v1\"\n\n")
	ids := map[string]int{}
	if which != RulesClassifier {
		for _, f := range forbidden {
			r := f.rule
			p("[[rule]]\n")
			p("id = %s\n", tomlString(uniqueID(ids, "codex-forbidden."+slug(strings.Join(f.prefixes, " ")))))
			p("name = %s\n", tomlString(trunc.Width(strings.Join(f.prefixes, " | "), 60)))
			desc := "execpolicy prefix_rule forbidden from " + where(r.File, r.Line) + ": Codex rejects the command without review"
			if r.Justification != "" {
				desc += " (" + r.Justification + ")"
			}
			p("description = %s\n", tomlString(desc))
			p("action = \"deny_current_tool\"\nclass = \"dangerous\"\n")
			p("[rule.when]\ncategory = [\"command_execution\"]\ncommand_prefix = %s\n\n", tomlList(f.prefixes))
			sum.Rules++
		}
	}
	if which != RulesEntries {
		cond := "Codex's auto-review (the approvals reviewer) would deny this action. It judges the planned action's risk of irreversible damage and whether the user authorized it, and applies this policy:\n" + policyText
		if rd.extra != nil {
			cond += "\nAdditional policy:\n" + rd.extra.value
		}
		p("[[rule]]\n")
		p("id = %s\n", tomlString(CodexRuleID))
		p("name = \"Codex auto-review (the reviewer's whole decision)\"\n")
		p("description = %s\n", tomlString("the reviewer's policy ("+sum.Policy+"): what recorded "+CodexRuleID+"@VERSION decisions answer"))
		for _, r := range rd.rules {
			if r.Decision == "prompt" {
				p("# prompt %s: %s — always reaches the reviewer\n", where(r.File, r.Line), patternText(r.Pattern))
			}
		}
		p("condition = %s\n", tomlString(cond))
		p("action = \"deny_current_tool\"\nclass = \"dangerous\"\n")
		if len(tiers) > 0 {
			p("[rule.when] # calls that never reach the reviewer\n")
			for _, u := range tiers {
				p("[[rule.when.unless]] # %s\n", oneLine(u.Why))
				p("category = [\"command_execution\"]\n")
				if u.Regex != "" {
					p("command_regex = [%s]\n", tomlString(u.Regex))
				}
				if len(u.Prefix) > 0 {
					p("command_prefix = %s\n", tomlList(u.Prefix))
				}
			}
		}
		p("\n")
		sum.Rules++
	}
	sum.Warnings = rd.warnings
	if _, err := io.WriteString(w, b.String()); err != nil {
		return nil, err
	}
	return sum, nil
}

// readTOML reads a config.toml or requirements.toml for the keys the
// import uses.
func (rd *codexRead) readTOML(kind, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var m map[string]any
	if _, err := toml.Decode(string(data), &m); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			line := pe.Position.Line
			if strings.Contains(pe.Message, `got '\n'`) && line > 1 {
				line-- // the parser stands after the line that ended too early
			}
			return fmt.Errorf("%s:%d: not TOML: %s", path, line, pe.Message)
		}
		return fmt.Errorf("%s: not TOML: %w", path, err)
	}
	text := string(data)
	src := CodexSourceSummary{Kind: kind, Path: path}
	rank := codexRank(kind)
	var bad error // the first setting of the wrong type
	str := func(table, key string, v any) (*codexSetting, bool) {
		name := key
		if table != "" {
			name = table + "." + key
		}
		s, ok := v.(string)
		if !ok {
			if bad == nil {
				bad = fmt.Errorf("%s:%d: %s: want a string, found %s", path, tomlLine(text, table, key), name, tomlType(v))
			}
			return nil, false
		}
		if strings.TrimSpace(s) == "" {
			return nil, false // Codex ignores blank policies
		}
		src.Keys = append(src.Keys, name)
		return &codexSetting{value: strings.TrimSpace(s), file: path, kind: kind, line: tomlLine(text, table, key)}, true
	}
	set := func(dst **codexSetting, dstRank *int, s *codexSetting) {
		if rank < *dstRank {
			*dst, *dstRank = s, rank
		}
	}
	if kind == CodexManaged {
		if v, ok := m["guardian_policy_config"]; ok {
			if s, ok := str("", "guardian_policy_config", v); ok {
				set(&rd.policy, &rd.policyRank, s)
			}
		}
		if v, ok := m["guardian_extra_policy"]; ok {
			if s, ok := str("", "guardian_extra_policy", v); ok {
				set(&rd.extra, &rd.extraRank, s)
			}
		}
		rd.sources = append(rd.sources, src)
		return bad
	}
	if v, ok := m["approvals_reviewer"]; ok {
		if s, ok := str("", "approvals_reviewer", v); ok {
			s.value = "approvals_reviewer = " + s.value
			set(&rd.reviewer, &rd.reviewerRank, s)
		}
	}
	if v, ok := m["approval_policy"]; ok {
		if s, isStr := v.(string); isStr {
			src.Keys = append(src.Keys, "approval_policy")
			set(&rd.approvalPol, &rd.polRank, &codexSetting{value: "approval_policy = " + s, file: path, kind: kind, line: tomlLine(text, "", "approval_policy")})
		}
	}
	if ar, ok := m["auto_review"].(map[string]any); ok {
		keys := make([]string, 0, len(ar))
		for k := range ar {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			switch k {
			case "policy":
				if s, ok := str("auto_review", k, ar[k]); ok {
					set(&rd.policy, &rd.policyRank, s)
				}
			case "extra_policy":
				if s, ok := str("auto_review", k, ar[k]); ok {
					set(&rd.extra, &rd.extraRank, s)
				}
			case "model", "model_provider", "reasoning_effort", "required_on_models", "evidence_dir":
				// the reviewer's model and plumbing: not rules
			default:
				rd.warnings = append(rd.warnings, fmt.Sprintf("%s:%d: auto_review.%s: unknown key, ignored", path, tomlLine(text, "auto_review", k), k))
				rd.skipped["unknown key"]++
			}
		}
	}
	rd.sources = append(rd.sources, src)
	return bad
}

// tomlType names a decoded TOML value's type.
func tomlType(v any) string {
	switch v.(type) {
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("%T", v)
}

// checkReviewer warns when the settings send approval requests to a
// person, or make none.
func (rd *codexRead) checkReviewer() {
	switch {
	case rd.reviewer == nil:
		rd.warnings = append(rd.warnings, "approvals_reviewer is not set (Codex's default is user): approval requests go to a person; the rule "+CodexRuleID+" models what auto_review would decide")
	case rd.reviewer.value != "approvals_reviewer = auto_review":
		rd.warnings = append(rd.warnings, fmt.Sprintf("%s: %s: approval requests go to a person; the rule %s models what auto_review would decide", rd.reviewer.where(), rd.reviewer.value, CodexRuleID))
	}
	if rd.approvalPol != nil && rd.approvalPol.value == "approval_policy = never" {
		rd.warnings = append(rd.warnings, fmt.Sprintf("%s: approval_policy = never: Codex asks for no approval, so the reviewer never runs; the rule %s models what it would decide", rd.approvalPol.where(), CodexRuleID))
	}
}

// codexForbidden is one forbidden prefix rule as command prefixes.
type codexForbidden struct {
	rule     permimport.CodexRule
	prefixes []string
}

// maxPrefixes bounds the prefixes one pattern's alternatives expand to.
const maxPrefixes = 64

// shapes turns the prefix rules into the forbidden rules and the call
// shapes that never reach the reviewer: a command an allow rule covers
// (one simple command, no operator), and a command a forbidden rule
// rejects first. An allow rule a stricter rule overlaps ("git" allowed,
// "git push" prompted) cannot be one condition: its calls count as
// reaching the reviewer, with a warning.
func (rd *codexRead) shapes() ([]codexForbidden, []Unless) {
	var forbidden []codexForbidden
	var tiers []Unless
	for _, r := range rd.rules {
		if r.Decision != "forbidden" {
			continue
		}
		prefixes, why := expandPattern(r.Pattern)
		if why != "" {
			rd.warnings = append(rd.warnings, fmt.Sprintf("%s: prefix_rule %s: %s; not imported", where(r.File, r.Line), patternText(r.Pattern), why))
			rd.skipped["prefix rule not modeled"]++
			continue
		}
		forbidden = append(forbidden, codexForbidden{r, prefixes})
	}
	for _, r := range rd.rules {
		if r.Decision != "allow" {
			continue
		}
		if s := rd.stricter(r); s != nil {
			rd.warnings = append(rd.warnings, fmt.Sprintf("%s: allow %s: %s %s at %s covers some of its commands; its calls are counted as reaching the reviewer", where(r.File, r.Line), patternText(r.Pattern), s.Decision, patternText(s.Pattern), where(s.File, s.Line)))
			rd.skipped["allow rule overlapped by a stricter one"]++
			continue
		}
		re, why := allowRegex(r.Pattern)
		if why != "" {
			rd.warnings = append(rd.warnings, fmt.Sprintf("%s: prefix_rule %s: %s; its calls are counted as reaching the reviewer", where(r.File, r.Line), patternText(r.Pattern), why))
			rd.skipped["prefix rule not modeled"]++
			continue
		}
		tiers = append(tiers, Unless{Why: "execpolicy allow " + where(r.File, r.Line) + ": " + patternText(r.Pattern), Regex: re})
	}
	for _, f := range forbidden {
		tiers = append(tiers, Unless{Why: "execpolicy forbidden " + where(f.rule.File, f.rule.Line) + ": rejected without review", Prefix: f.prefixes})
	}
	return forbidden, tiers
}

// stricter returns a prompt or forbidden rule that matches some command
// the allow rule a matches (their patterns agree on every position both
// have), or nil.
func (rd *codexRead) stricter(a permimport.CodexRule) *permimport.CodexRule {
	for i := range rd.rules {
		s := &rd.rules[i]
		if s.Decision == "allow" {
			continue
		}
		n := min(len(a.Pattern), len(s.Pattern))
		overlap := true
		for k := range n {
			if !slices.ContainsFunc(a.Pattern[k], func(t string) bool { return slices.Contains(s.Pattern[k], t) }) {
				overlap = false
				break
			}
		}
		if overlap {
			return s
		}
	}
	return nil
}

// expandPattern lists the command prefixes a pattern's alternatives make,
// or says why it cannot (a token with whitespace, too many alternatives).
func expandPattern(pat [][]string) ([]string, string) {
	out := []string{""}
	for _, alts := range pat {
		for _, t := range alts {
			if t == "" || strings.ContainsAny(t, " \t\n") {
				return nil, fmt.Sprintf("token %q holds whitespace: a command prefix is whole words", t)
			}
		}
		if len(out)*len(alts) > maxPrefixes {
			return nil, fmt.Sprintf("its alternatives make more than %d prefixes", maxPrefixes)
		}
		var next []string
		for _, o := range out {
			for _, t := range alts {
				next = append(next, strings.TrimSpace(o+" "+t))
			}
		}
		out = next
	}
	return out, ""
}

// allowRegex is the regex of one simple command (no operator, redirection
// or substitution) an allow pattern covers: Codex runs a call without
// review only when every part of it is allowed.
func allowRegex(pat [][]string) (string, string) {
	var b strings.Builder
	b.WriteString(`^\s*`)
	for i, alts := range pat {
		if i > 0 {
			b.WriteString(`\s+`)
		}
		q := make([]string, len(alts))
		for k, t := range alts {
			if t == "" || strings.ContainsAny(t, " \t\n") {
				return "", fmt.Sprintf("token %q holds whitespace", t)
			}
			q[k] = regexp.QuoteMeta(t)
		}
		if len(q) == 1 {
			b.WriteString(q[0])
		} else {
			b.WriteString("(?:" + strings.Join(q, "|") + ")")
		}
	}
	b.WriteString("(\\s[^;&|<>$`()\\n]*)?\\s*$")
	return b.String(), ""
}

// patternText shows a pattern as Codex's docs do: ["git", ["push", "fetch"]].
func patternText(pat [][]string) string {
	parts := make([]string, len(pat))
	for i, alts := range pat {
		if len(alts) == 1 {
			parts[i] = alts[0]
		} else {
			parts[i] = "[" + strings.Join(alts, "|") + "]"
		}
	}
	return strings.Join(parts, " ")
}

func tomlList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = tomlString(x)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// tomlLine finds the line of key in table ("" the root; also a dotted
// "table.key" at the root), 0 when not found.
func tomlLine(text, table, key string) int {
	cur := ""
	keyRe := regexp.MustCompile(`^\s*"?` + regexp.QuoteMeta(key) + `"?\s*=`)
	dotted := regexp.MustCompile(`^\s*` + regexp.QuoteMeta(table) + `\.` + regexp.QuoteMeta(key) + `\s*=`)
	for i, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			cur = strings.Trim(strings.TrimSpace(strings.SplitN(t, "#", 2)[0]), "[] ")
			continue
		}
		if cur == table && keyRe.MatchString(l) || table != "" && cur == "" && dotted.MatchString(l) {
			return i + 1
		}
	}
	return 0
}
