package automode

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode"

	"github.com/apeval/apeval/internal/trunc"
)

// AggregateRuleID is the rule that stands for the whole classifier: it
// matches when auto mode would block the call. The vendor's recorded
// decisions answer it (recorded/claude-auto-mode@VERSION).
const AggregateRuleID = "claude-auto-mode"

// Rule is one policy rule the set becomes.
type Rule struct {
	ID, Name, Condition, Action, Class string
	From                               []Entry // the entries it was made of
	Key                                string  // hard_deny, soft_deny or "" (aggregate)
}

// ReadOnlyTools are Claude Code's tools auto mode runs without its
// classifier (they need no permission).
var ReadOnlyTools = []string{"Read", "Glob", "Grep", "LS", "NotebookRead", "TodoWrite", "ExitPlanMode", "AskUserQuestion", "BashOutput", "KillShell"}

// EditTools edit files; inside the working directory auto mode allows
// them without its classifier.
var EditTools = []string{"Edit", "Write", "MultiEdit", "NotebookEdit"}

// readOnlyShell matches a shell command made of one read-only program and
// plain arguments (no operator, redirection or substitution): auto mode
// runs these without its classifier unless classifyAllShell is set.
const readOnlyShell = "^\\s*(ls|pwd|cat|head|tail|wc|grep|rg|which|echo|git (status|log|diff|show|branch))(\\s[^;&|<>$`()\\n]*)?\\s*$"

// Rules turns the set into policy rules: one per hard_deny and soft_deny
// entry, and the aggregate rule for the classifier as a whole.
func (s *Set) Rules() []Rule {
	env := s.Lists["environment"]
	allow := s.Lists["allow"]
	ids := map[string]int{}
	var out []Rule
	keys := []string{"hard_deny", "soft_deny"}
	if s.which == RulesClassifier {
		keys = nil
	}
	for _, key := range keys {
		for _, e := range s.Lists[key] {
			id := uniqueID(ids, strings.ReplaceAll(key, "_", "-")+"."+slug(e.Text))
			r := Rule{ID: id, Name: title(e.Text), Action: "deny_current_tool", Class: "dangerous", Key: key, From: []Entry{e}}
			var b strings.Builder
			b.WriteString(e.Text)
			if key == "hard_deny" {
				b.WriteString("\nThis rule holds whatever the user asked for.")
			} else {
				b.WriteString("\nThis rule does not hold when the user explicitly asked for this very action")
				if len(allow) > 0 {
					b.WriteString(", or when one of these exceptions applies:")
					for _, a := range allow {
						b.WriteString("\n- " + a.Text)
					}
					r.From = append(r.From, allow...)
				} else {
					b.WriteString(".")
				}
			}
			if len(env) > 0 {
				b.WriteString("\nTrusted environment:")
				for _, x := range env {
					b.WriteString("\n- " + x.Text)
				}
				r.From = append(r.From, env...)
			}
			r.Condition = b.String()
			out = append(out, r)
		}
	}
	agg := Rule{ID: AggregateRuleID, Name: "Claude Code auto mode classifier (the whole rule set)", Action: "deny_current_tool", Class: "dangerous"}
	var b strings.Builder
	b.WriteString("Claude Code's auto mode classifier would block this call: it matches a hard deny rule (whatever the user asked), or a soft deny rule that no allow exception and no explicit request of the user clears.")
	for _, sec := range []struct{ key, head string }{{"hard_deny", "Hard deny"}, {"soft_deny", "Soft deny"}, {"allow", "Allow (exceptions to soft deny)"}, {"environment", "Trusted environment"}} {
		list := s.Lists[sec.key]
		if len(list) == 0 {
			continue
		}
		b.WriteString("\n" + sec.head + ":")
		for _, e := range list {
			b.WriteString("\n- " + e.Text)
		}
		agg.From = append(agg.From, list...)
	}
	agg.Condition = b.String()
	if s.which == RulesEntries {
		return out
	}
	return append(out, agg)
}

// Unless is one call shape auto mode decides without its classifier.
type Unless struct {
	Why   string
	Tool  []string
	Regex string
	// Inside: path_outside_workspace = false.
	Inside bool
	// Prefix: command_prefix (Codex's forbidden commands).
	Prefix []string
	Glob   map[string]string
}

// Tiers are the call shapes that never reach the classifier.
func (s *Set) Tiers(warn func(string)) []Unless {
	out := []Unless{
		{Why: "read-only tools", Tool: ReadOnlyTools},
		{Why: "file edits inside the working directory", Tool: EditTools, Inside: true},
	}
	if !s.ClassifyAllShell {
		out = append(out, Unless{Why: "read-only shell commands (classifyAllShell is off)", Tool: []string{"Bash"}, Regex: readOnlyShell})
	}
	for _, e := range s.AllowRules {
		u, why := allowTier(e.Text)
		if why != "" {
			warn(fmt.Sprintf("%s: permissions.allow %q: %s", e.Where(), e.Text, why))
			continue
		}
		u.Why = "permissions.allow " + e.Text + " (" + e.Where() + ")"
		out = append(out, u)
	}
	return out
}

// interpreters are programs an allow rule on which auto mode drops (they
// run arbitrary code).
var interpreters = map[string]bool{"python": true, "python3": true, "node": true, "ruby": true, "perl": true, "bash": true, "sh": true, "zsh": true, "npx": true, "bunx": true, "uvx": true, "deno": true, "bun": true, "php": true, "eval": true, "exec": true, "sudo": true}

// allowTier translates one permissions.allow rule into the calls it lets
// through without the classifier, or says why it cannot (a broad rule
// auto mode drops, a path pattern apeval does not model).
func allowTier(rule string) (Unless, string) {
	open := strings.IndexByte(rule, '(')
	if open < 0 {
		switch rule {
		case "Bash", "Agent", "Task":
			return Unless{}, "auto mode drops this broad rule: such calls still reach the classifier"
		}
		return Unless{Tool: []string{rule}}, ""
	}
	if !strings.HasSuffix(rule, ")") || open == 0 {
		return Unless{}, "not Tool or Tool(specifier); not modeled"
	}
	tool, spec := rule[:open], rule[open+1:len(rule)-1]
	switch tool {
	case "Bash":
		spec = strings.TrimSpace(spec)
		prefix, wild := strings.CutSuffix(spec, ":*")
		if !wild {
			prefix, wild = strings.CutSuffix(spec, " *")
		}
		if prefix == "*" || prefix == "" || strings.ContainsAny(prefix, "*?") {
			return Unless{}, "auto mode drops this broad rule: such calls still reach the classifier"
		}
		words := strings.Fields(prefix)
		if interpreters[strings.TrimRight(words[0], "0123456789.")] || (len(words) >= 2 && words[1] == "run" && (words[0] == "npm" || words[0] == "yarn" || words[0] == "pnpm")) {
			return Unless{}, "auto mode drops allow rules on interpreters and package-manager run commands: such calls still reach the classifier"
		}
		re := "^\\s*" + regexp.QuoteMeta(prefix)
		if wild {
			re += "(\\s[^;&|<>$`()\\n]*)?"
		}
		return Unless{Tool: []string{"Bash"}, Regex: re + "\\s*$"}, ""
	case "WebFetch":
		if domain, ok := strings.CutPrefix(spec, "domain:"); ok && domain != "" && !strings.ContainsAny(domain, "*?/") {
			return Unless{Tool: []string{"WebFetch"}, Glob: map[string]string{"url": "http*://" + domain + "/*"}}, ""
		}
	case "Agent", "Task":
		return Unless{}, "auto mode drops allow rules on agents: such calls still reach the classifier"
	}
	if strings.HasPrefix(tool, "mcp__") && spec == "" {
		return Unless{Tool: []string{tool}}, ""
	}
	return Unless{}, "path and other specifiers are not modeled: such calls are counted as reaching the classifier"
}

// Write writes the policy: a header naming the sources and the defaults,
// [permissions] importing the sources' permission rules, and the rules,
// each with the FILE:LINE of every entry it was made of.
func (s *Set) Write(w io.Writer, tiers []Unless) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# apeval policy imported from Claude Code auto-mode settings\n")
	p("# (apeval policy import --from claude-auto-mode). Sources, highest precedence first:\n")
	for _, src := range s.Sources {
		note := ""
		if src.Kind == KindProject {
			note = " (autoMode not read from shared project settings; permissions kept)"
		}
		p("#   %-8s %s%s\n", src.Kind, src.Path, note)
	}
	d := s.Defaults
	p("# $defaults: %s %s built-in lists from %s\n", d.Agent, d.Version, d.File)
	p("#   source: %s\n", d.Source)
	for _, k := range Keys {
		p("#   %-11s %-8s (%d entries)\n", k, s.DefaultsUsed[k], len(s.Lists[k]))
	}
	p("schema = \"apeval.policy/v1\"\n\n")
	var imports []string
	for _, src := range s.Sources {
		if src.HasPermissions {
			imports = append(imports, "claude-code:"+src.Path)
		}
	}
	if len(imports) > 0 {
		p("# The sources' permissions.allow/ask/deny rules decide before the classifier.\n")
		p("[permissions]\n")
		p("default_action = \"allow\" # no permission rule: the classifier decides, nobody is asked\n")
		p("import = [")
		for i, im := range imports {
			if i > 0 {
				p(", ")
			}
			p("%s", tomlString(im))
		}
		p("]\n\n")
	}
	for _, r := range s.Rules() {
		p("[[rule]]\n")
		p("id = %s\n", tomlString(r.ID))
		p("name = %s\n", tomlString(r.Name))
		if r.Key != "" {
			p("description = %s\n", tomlString("autoMode."+r.Key+" entry from "+r.From[0].Kind+" "+r.From[0].Where()))
		} else {
			p("description = %s\n", tomlString("every hard_deny and soft_deny entry with the allow exceptions and the environment: the classifier's whole decision"))
		}
		if r.Key != "" {
			e := r.From[0]
			p("# %s %s: %s\n", e.Key, e.Where(), trunc.Width(oneLine(e.Text), 70))
			if n := len(r.From) - 1; n > 0 {
				p("# with %d allow/environment entries, listed under rule %s\n", n, AggregateRuleID)
			}
		} else {
			for _, e := range r.From {
				p("# %s %s: %s\n", e.Key, e.Where(), trunc.Width(oneLine(e.Text), 70))
			}
		}
		p("condition = %s\n", tomlString(r.Condition))
		p("action = %s\n", tomlString(r.Action))
		p("class = %s\n", tomlString(r.Class))
		p("[rule.when] # auto mode's tiering: these calls never reach the classifier\n")
		for _, u := range tiers {
			p("[[rule.when.unless]] # %s\n", oneLine(u.Why))
			p("tool = [")
			for i, t := range u.Tool {
				if i > 0 {
					p(", ")
				}
				p("%s", tomlString(t))
			}
			p("]\n")
			if u.Regex != "" {
				p("command_regex = [%s]\n", tomlString(u.Regex))
			}
			if u.Inside {
				p("path_outside_workspace = false\n")
			}
			for k, g := range u.Glob {
				p("arg_glob = { %s = %s }\n", tomlString(k), tomlString(g))
			}
		}
		p("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// title is an entry's title: the text before a colon when it is short
// ("Git Destructive: force pushing…"), else its first words.
func title(text string) string {
	if t, _, ok := strings.Cut(text, ":"); ok && len([]rune(t)) <= 40 && strings.TrimSpace(t) != "" {
		return strings.TrimSpace(t)
	}
	return trunc.Width(oneLine(text), 60)
}

// slug makes an ID part of an entry: its title lower-cased, words joined
// by "-", at most six words.
func slug(text string) string {
	t := title(text)
	var words []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	for _, r := range strings.ToLower(t) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			cur.WriteRune(r)
		} else {
			flush()
		}
	}
	flush()
	if len(words) > 6 {
		words = words[:6]
	}
	if len(words) == 0 {
		return "rule"
	}
	return strings.Join(words, "-")
}

// Slug is the ID part an entry's title gives (what a vendor's denial
// reason naming the rule maps to).
func Slug(text string) string { return slug(text) }

func uniqueID(seen map[string]int, id string) string {
	seen[id]++
	if n := seen[id]; n > 1 {
		return fmt.Sprintf("%s-%d", id, n)
	}
	return id
}
