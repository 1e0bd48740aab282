package permimport

import (
	"fmt"
	"os"
	"strings"
)

// Codex execpolicy .rules files (Starlark): prefix_rule(pattern = [...],
// decision = "allow" | "prompt" | "forbidden", justification = "...",
// match = [...], not_match = [...]). A pattern is a list of tokens matched
// from the start of the command's argv; a token that is itself a list
// lists alternatives. decision defaults to allow. When several rules match,
// the strictest wins (forbidden > prompt > allow). match / not_match are
// examples checked when the file is loaded, as Codex does.
//
// A shell call's command is split into its simple commands (a `bash -lc`
// script at &&, ||, ;, |); the call is denied or asked when any of them is,
// and allowed only when every one of them is allowed; a simple command no
// rule matches leaves the decision to Codex's approval policy, which apeval
// cannot see: no decision.
type codexSource struct {
	name  string
	rules []codexRule
}

type codexRule struct {
	pattern       [][]string // alternatives per position
	decision      string     // allow | ask | deny
	justification string
	line          int
}

// codexParams are the parameters of Codex's execpolicy builtins in order
// (codex-rs/execpolicy/src/parser.rs), for positional arguments.
var codexParams = map[string][]string{
	"prefix_rule":     {"pattern", "decision", "match", "not_match", "justification"},
	"network_rule":    {"host", "protocol", "decision", "justification"},
	"host_executable": {"name", "paths"},
}

func parseCodex(data []byte, file string) (Source, error) {
	p := &starParser{s: string(data), line: 1}
	src := &codexSource{name: "codex:" + file}
	for {
		p.ws()
		if p.i >= len(p.s) {
			return src, nil
		}
		line := p.line
		name := p.ident()
		if name == "" {
			return nil, fmt.Errorf("line %d: unexpected %q", p.line, p.s[p.i])
		}
		args, err := p.call(codexParams[name])
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if name != "prefix_rule" {
			continue // host_executable and other statements do not decide
		}
		r, err := codexRuleFrom(args)
		if err != nil {
			return nil, fmt.Errorf("line %d: prefix_rule: %w", line, err)
		}
		r.line = line
		src.rules = append(src.rules, r)
	}
}

// CodexRule is one prefix_rule of a Codex execpolicy file, as written.
type CodexRule struct {
	File string
	Line int
	// Pattern holds the alternatives at each position of the prefix.
	Pattern [][]string
	// Decision is Codex's word: allow, prompt or forbidden.
	Decision      string
	Justification string
}

// ReadCodexRules reads the prefix rules of a Codex execpolicy file in file
// order (their match / not_match examples checked, as Codex does at load);
// network_rule and host_executable statements are not prefix rules and
// are left out. Errors name the file and line.
func ReadCodexRules(path string) ([]CodexRule, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	src, err := parseCodex(data, path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	words := map[string]string{Allow: "allow", Ask: "prompt", Deny: "forbidden"}
	rules := src.(*codexSource).rules
	out := make([]CodexRule, len(rules))
	for i, r := range rules {
		out[i] = CodexRule{File: path, Line: r.line, Pattern: r.pattern, Decision: words[r.decision], Justification: r.justification}
	}
	return out, nil
}

func codexRuleFrom(args map[string]any) (codexRule, error) {
	var r codexRule
	pat, ok := args["pattern"].([]any)
	if !ok || len(pat) == 0 {
		return r, fmt.Errorf("pattern: want a non-empty list of tokens")
	}
	for i, tok := range pat {
		switch t := tok.(type) {
		case string:
			r.pattern = append(r.pattern, []string{t})
		case []any:
			var alts []string
			for _, a := range t {
				s, ok := a.(string)
				if !ok {
					return r, fmt.Errorf("pattern[%d]: alternatives must be strings", i)
				}
				alts = append(alts, s)
			}
			if len(alts) == 0 {
				return r, fmt.Errorf("pattern[%d]: empty alternatives", i)
			}
			r.pattern = append(r.pattern, alts)
		default:
			return r, fmt.Errorf("pattern[%d]: want a string or a list of strings", i)
		}
	}
	r.justification, _ = args["justification"].(string)
	switch d, _ := args["decision"].(string); d {
	case "", "allow":
		r.decision = Allow
	case "prompt":
		r.decision = Ask
	case "forbidden":
		r.decision = Deny
	default:
		return r, fmt.Errorf("decision %q: want allow, prompt or forbidden", d)
	}
	for _, key := range []string{"match", "not_match"} {
		ex, _ := args[key].([]any)
		for i, e := range ex {
			var argv []string
			switch v := e.(type) {
			case string:
				argv = words(v)
			case []any:
				for _, a := range v {
					s, _ := a.(string)
					argv = append(argv, s)
				}
			}
			if got := r.matches(argv); got != (key == "match") {
				return r, fmt.Errorf("%s[%d] %q: the pattern does not agree", key, i, strings.Join(argv, " "))
			}
		}
	}
	return r, nil
}

func (r codexRule) matches(argv []string) bool {
	if len(argv) < len(r.pattern) {
		return false
	}
	for i, alts := range r.pattern {
		if !contains(alts, argv[i]) {
			return false
		}
	}
	return true
}

func (s *codexSource) String() string { return s.name }

func (s *codexSource) Decide(c Call) string {
	cmd := command(c.Args)
	if cmd == "" {
		return ""
	}
	parts := subcommands(cmd)
	if len(parts) == 0 {
		return ""
	}
	var ds []string
	unmatched := false
	for _, p := range parts {
		argv := words(p)
		d := ""
		for _, r := range s.rules {
			if r.matches(argv) {
				d = Strictest(d, r.decision)
			}
		}
		if d == "" {
			unmatched = true
		}
		ds = append(ds, d)
	}
	d := Strictest(ds...)
	if d == Allow && unmatched {
		return "" // allowed only if every part is
	}
	return d
}

// starParser reads the Starlark subset .rules files use: calls with keyword
// arguments whose values are strings, lists, None, True/False and numbers;
// # comments.
type starParser struct {
	s    string
	i    int
	line int
}

func (p *starParser) ws() {
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == '\n':
			p.line++
			p.i++
		case c == ' ' || c == '\t' || c == '\r':
			p.i++
		case c == '#':
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		default:
			return
		}
	}
}

func (p *starParser) ident() string {
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || p.i > start && c >= '0' && c <= '9' {
			p.i++
			continue
		}
		break
	}
	return p.s[start:p.i]
}

func (p *starParser) expect(c byte) error {
	p.ws()
	if p.i >= len(p.s) || p.s[p.i] != c {
		return fmt.Errorf("line %d: want %q", p.line, c)
	}
	p.i++
	return nil
}

// call reads a call's arguments: keyword arguments by name, positional
// ones in order (Starlark allows both; Codex's builtins take their
// parameters in the order of params, e.g. prefix_rule(pattern, decision,
// match, not_match, justification)). A positional argument after a keyword
// one, one too many, or one given both ways is an error.
func (p *starParser) call(params []string) (map[string]any, error) {
	if err := p.expect('('); err != nil {
		return nil, err
	}
	args := map[string]any{}
	pos := 0
	named := false
	for {
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ')' {
			p.i++
			return args, nil
		}
		start, line := p.i, p.line
		key := p.ident()
		p.ws()
		if key == "" || p.i >= len(p.s) || p.s[p.i] != '=' || strings.HasPrefix(p.s[p.i:], "==") {
			// A positional argument: read it again as a value.
			p.i, p.line = start, line
			if named {
				return nil, fmt.Errorf("line %d: a positional argument after a keyword argument", p.line)
			}
			if pos >= len(params) {
				return nil, fmt.Errorf("line %d: too many positional arguments (takes %s)", p.line, strings.Join(params, ", "))
			}
			key = params[pos]
			pos++
		} else {
			p.i++
			named = true
		}
		if _, dup := args[key]; dup {
			return nil, fmt.Errorf("line %d: argument %s given twice", p.line, key)
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		args[key] = v
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
		}
	}
}

func (p *starParser) value() (any, error) {
	p.ws()
	if p.i >= len(p.s) {
		return nil, fmt.Errorf("unexpected end of file")
	}
	switch c := p.s[p.i]; {
	case c == '"' || c == '\'':
		return p.str()
	case c == '[' || c == '(':
		closer := byte(']')
		if c == '(' {
			closer = ')'
		}
		p.i++
		var out []any
		for {
			p.ws()
			if p.i < len(p.s) && p.s[p.i] == closer {
				p.i++
				return out, nil
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			p.ws()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
			}
		}
	default:
		w := p.ident()
		switch w {
		case "None":
			return nil, nil
		case "True":
			return true, nil
		case "False":
			return false, nil
		}
		start := p.i
		for p.i < len(p.s) && strings.IndexByte("0123456789.-", p.s[p.i]) >= 0 {
			p.i++
		}
		if p.i > start {
			return p.s[start:p.i], nil
		}
		return nil, fmt.Errorf("line %d: unexpected %q", p.line, c)
	}
}

func (p *starParser) str() (string, error) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '\\' && p.i+1 < len(p.s):
			p.i++
			switch e := p.s[p.i]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(e)
			}
		case c == q:
			p.i++
			return b.String(), nil
		case c == '\n':
			return "", fmt.Errorf("line %d: unterminated string", p.line)
		default:
			b.WriteByte(c)
		}
		p.i++
	}
	return "", fmt.Errorf("line %d: unterminated string", p.line)
}
