package replay

import (
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/apeval/apeval/datasets"
)

// Matcher is a deterministic precondition ([rule.when], [rule.baseline]):
// every key given must hold; a key with a list holds when any element does.
// Regular expressions and globs are compiled when the policy is loaded.
// Its JSON (the policy diff's text) uses the policy file's keys.
type Matcher struct {
	// CommandPrefix holds when a simple command of the primary argument
	// starts with one of these token sequences ("rm", "git push").
	CommandPrefix []string `json:"command_prefix,omitempty"`
	// CommandRegex holds when one of these (Go RE2) expressions matches the
	// primary argument anywhere.
	CommandRegex []string `json:"command_regex,omitempty"`
	// ArgGlob maps an argument key to a glob its value must match; a missing
	// or non-scalar argument does not match.
	ArgGlob              map[string]string `json:"arg_glob,omitempty"`
	PathOutsideWorkspace *bool             `json:"path_outside_workspace,omitempty"`
	Network              *bool             `json:"network,omitempty"`
	// Tool lists tool names, compared case-insensitively.
	Tool     []string `json:"tool,omitempty"`
	Category []string `json:"category,omitempty"`
	// Min/MaxNonASCIIRatio bound the share of non-ASCII characters among the
	// non-space characters of all string argument values.
	MinNonASCIIRatio *float64 `json:"min_non_ascii_ratio,omitempty"`
	MaxNonASCIIRatio *float64 `json:"max_non_ascii_ratio,omitempty"`
	ArgumentsValid   *bool    `json:"arguments_valid,omitempty"`
	ApprovalState    []string `json:"approval_state,omitempty"`
	// Unless lists matchers none of which may hold: the call is excluded
	// when any of them matches it (an imported vendor gate's calls that
	// never reach its classifier, say).
	Unless []*Matcher `json:"unless,omitempty"`

	prefixes [][]string
	regexes  []*regexp.Regexp
	globs    []argGlob
}

type argGlob struct {
	key  string
	glob glob
}

func (m *Matcher) empty() bool {
	return len(m.CommandPrefix) == 0 && len(m.CommandRegex) == 0 && len(m.ArgGlob) == 0 &&
		m.PathOutsideWorkspace == nil && m.Network == nil && len(m.Tool) == 0 && len(m.Category) == 0 &&
		m.MinNonASCIIRatio == nil && m.MaxNonASCIIRatio == nil && m.ArgumentsValid == nil &&
		len(m.ApprovalState) == 0 && len(m.Unless) == 0
}

// Match evaluates the matcher on a case, with the case's category (or the
// built-in one when the case has none).
func (m *Matcher) Match(c *datasets.Case) bool {
	var f facts
	f.reset(c, nil)
	return m.match(&f)
}

func (m *Matcher) match(f *facts) bool {
	if len(m.Tool) > 0 && !containsFold(m.Tool, f.c.Tool.Name) {
		return false
	}
	if len(m.Category) > 0 && !contains(m.Category, f.category) {
		return false
	}
	if len(m.ApprovalState) > 0 && !contains(m.ApprovalState, f.approval) {
		return false
	}
	if m.ArgumentsValid != nil && *m.ArgumentsValid != f.c.Tool.Valid() {
		return false
	}
	if m.Network != nil && *m.Network != f.isNetwork() {
		return false
	}
	if m.PathOutsideWorkspace != nil && *m.PathOutsideWorkspace != f.outsideWorkspace() {
		return false
	}
	if len(m.prefixes) > 0 && !f.hasPrefix(m.prefixes) {
		return false
	}
	if len(m.regexes) > 0 {
		prim, _ := f.primary()
		ok := false
		for _, re := range m.regexes {
			if re.MatchString(prim) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	for i := range m.globs {
		g := &m.globs[i]
		s, ok := scalarString(f.c.Tool.Arguments[g.key])
		if !ok || !g.glob.match(s) {
			return false
		}
	}
	if m.MinNonASCIIRatio != nil || m.MaxNonASCIIRatio != nil {
		r := f.nonASCIIRatio()
		if m.MinNonASCIIRatio != nil && r < *m.MinNonASCIIRatio {
			return false
		}
		if m.MaxNonASCIIRatio != nil && r > *m.MaxNonASCIIRatio {
			return false
		}
	}
	for _, u := range m.Unless {
		if u.match(f) {
			return false
		}
	}
	return true
}

// facts are the derived properties of one tool call, computed lazily and at
// most once per case. A worker reuses one facts value, so the token buffers
// are not reallocated per case.
type facts struct {
	c        *datasets.Case
	category string
	approval string

	primDone bool
	prim     string
	hasPrim  bool

	cmdDone bool
	toks    []string
	cmds    []cmdSpan

	pathDone bool
	outside  bool

	netDone bool
	network bool

	ratioDone bool
	ratio     float64
}

// reset prepares f for case c; categories is the policy's override map.
func (f *facts) reset(c *datasets.Case, categories map[string]string) {
	toks, cmds := f.toks[:0], f.cmds[:0]
	*f = facts{c: c, toks: toks, cmds: cmds}
	f.category = effectiveCategory(c, categories)
	f.approval = c.Context.ApprovalState
	if f.approval == "" {
		f.approval = "none"
	}
}

// effectiveCategory is the case's category, with the policy's [categories]
// override applied when the case's category is missing or is only the
// built-in default for its tool name (the reader fills that default, so an
// override must be able to replace it).
func effectiveCategory(c *datasets.Case, overrides map[string]string) string {
	cat := c.Tool.Category
	if len(overrides) > 0 {
		if o, ok := lookupFold(overrides, c.Tool.Name); ok && (cat == "" || cat == builtinCategory(c.Tool.Name)) {
			return o
		}
	}
	if cat == "" {
		cat = builtinCategory(c.Tool.Name)
	}
	return cat
}

func lookupFold(m map[string]string, name string) (string, bool) {
	if v, ok := m[name]; ok {
		return v, true
	}
	for k, v := range m {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

// primaryKeys are the argument keys that name a call's primary argument, in
// order of preference (see docs/replay.md).
var primaryKeys = [...]string{"command", "file_path", "path", "url", "query"}

// primary returns the call's primary argument: its command, else file_path,
// path, url, query, else the string argument with the smallest key (a Go
// map has no order; the smallest key makes "first" deterministic).
// A command given as an array of strings (Codex-style exec) is joined with
// shell quoting.
func (f *facts) primary() (string, bool) {
	if f.primDone {
		return f.prim, f.hasPrim
	}
	f.primDone = true
	// One pass over the (small) map beats a lookup per preferred key.
	best := len(primaryKeys) + 1
	first := ""
	for k, v := range f.c.Tool.Arguments {
		rank := primaryRank(k)
		if rank > best {
			continue
		}
		if rank < len(primaryKeys) {
			if s, ok := commandString(v); ok && rank < best {
				best, f.prim, f.hasPrim = rank, s, true
			}
			continue
		}
		if s, ok := v.(string); ok && (best > rank || k < first) {
			best, first, f.prim, f.hasPrim = rank, k, s, true
		}
	}
	return f.prim, f.hasPrim
}

// primaryRank is a key's place in primaryKeys, len(primaryKeys) for others.
func primaryRank(k string) int {
	switch k {
	case "command":
		return 0
	case "file_path":
		return 1
	case "path":
		return 2
	case "url":
		return 3
	case "query":
		return 4
	}
	return len(primaryKeys)
}

func commandString(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case []any:
		parts := make([]string, 0, len(v))
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return "", false
			}
			if s == "" || strings.ContainsAny(s, " \t\n'\"\\;&|$`()<>*?") {
				s = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, " "), len(parts) > 0
	}
	return "", false
}

func (f *facts) commands() {
	if f.cmdDone {
		return
	}
	f.cmdDone = true
	if prim, ok := f.primary(); ok {
		f.toks, f.cmds = scanShell(prim, f.toks, f.cmds, 0)
	}
}

// hasPrefix reports whether a simple command of the primary argument starts
// with one of the token sequences. The first token is compared with the
// command's base name, so "rm" matches "/bin/rm" (unless the prefix itself
// has a slash).
func (f *facts) hasPrefix(prefixes [][]string) bool {
	f.commands()
	for _, cmd := range f.cmds {
		toks := f.toks[cmd.start:cmd.end]
		for _, p := range prefixes {
			if len(p) > len(toks) {
				continue
			}
			name := unquote(toks[0])
			if !strings.Contains(p[0], "/") {
				name = baseName(name)
			}
			if name != p[0] {
				continue
			}
			ok := true
			for i := 1; i < len(p); i++ {
				if unquote(toks[i]) != p[i] {
					ok = false
					break
				}
			}
			if ok {
				return true
			}
		}
	}
	return false
}

var networkCommands = [...]string{"curl", "wget", "ssh", "scp", "nc"}

// isNetwork: category web_search or external_send, a url argument, or a
// command (the `command` argument) one of whose simple commands is curl,
// wget, ssh, scp or nc (see docs/replay.md).
func (f *facts) isNetwork() bool {
	if f.netDone {
		return f.network
	}
	f.netDone = true
	f.network = f.computeNetwork()
	return f.network
}

func (f *facts) computeNetwork() bool {
	if f.category == "web_search" || f.category == "external_send" {
		return true
	}
	args := f.c.Tool.Arguments
	if u, ok := args["url"].(string); ok && u != "" {
		return true
	}
	if _, ok := args["command"]; !ok {
		return false
	}
	f.commands()
	for _, cmd := range f.cmds {
		name := baseName(unquote(f.toks[cmd.start]))
		for _, n := range networkCommands {
			if name == n {
				return true
			}
		}
	}
	return false
}

var pathKeys = [...]string{"file_path", "path", "cwd", "target"}

// callPath returns the call's path (file_path, path, cwd or target)
// resolved against the workspace, cleaned; "" when there is none.
func callPath(c *datasets.Case) string {
	for _, k := range pathKeys {
		p, ok := c.Tool.Arguments[k].(string)
		if !ok || p == "" {
			continue
		}
		if !path.IsAbs(p) {
			if c.Workspace == "" {
				return ""
			}
			p = path.Join(c.Workspace, p)
		}
		return path.Clean(p)
	}
	return ""
}

// outsideWorkspace: the call has a path and a workspace and the path does
// not resolve inside it. Without a workspace or a path nothing is outside.
// Resolution is lexical ("..", "."), symlinks are not followed.
func (f *facts) outsideWorkspace() bool {
	if f.pathDone {
		return f.outside
	}
	f.pathDone = true
	ws := f.c.Workspace
	if ws == "" {
		return false
	}
	p := callPath(f.c)
	if p == "" {
		return false
	}
	ws = path.Clean(ws)
	f.outside = !(p == ws || ws == "/" || strings.HasPrefix(p, ws) && p[len(ws)] == '/')
	return f.outside
}

// nonASCIIRatio is the share of non-ASCII runes among the non-space runes
// of every string argument value (nested ones included); 0 when there are
// none.
func (f *facts) nonASCIIRatio() float64 {
	if f.ratioDone {
		return f.ratio
	}
	f.ratioDone = true
	var non, all int
	countRunes(f.c.Tool.Arguments, &non, &all)
	if all > 0 {
		f.ratio = float64(non) / float64(all)
	}
	return f.ratio
}

func countRunes(v any, non, all *int) {
	switch v := v.(type) {
	case string:
		for i := 0; i < len(v); {
			c := v[i]
			if c < utf8.RuneSelf {
				i++
				if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
					*all++
				}
				continue
			}
			r, w := utf8.DecodeRuneInString(v[i:])
			i += w
			if !unicode.IsSpace(r) {
				*all++
				*non++
			}
		}
	case map[string]any:
		for _, e := range v {
			countRunes(e, non, all)
		}
	case []any:
		for _, e := range v {
			countRunes(e, non, all)
		}
	}
}

// scalarString renders a scalar argument for glob matching.
func scalarString(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case bool:
		return strconv.FormatBool(v), true
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), true
	}
	return "", false
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func containsFold(list []string, s string) bool {
	for _, e := range list {
		if e == "*" || strings.EqualFold(e, s) {
			return true
		}
	}
	return false
}
