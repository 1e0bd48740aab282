// Package permimport reads the permission rules a team already runs in its
// agent — Claude Code settings, Codex execpolicy .rules files, OpenCode's
// permission config, Gemini CLI policy TOML — so replay can use them as the
// deterministic baseline of its permissions layer (`[permissions] import`,
// `--permissions-from`). Each source decides with its own tool's semantics
// and says allow, ask or deny, or nothing when none of its rules speaks to
// the call; replay combines the sources (docs/import.md).
//
// Not a stable Go API: apeval is a command, and this package serves it;
// its exported names change with the command, without a compatibility
// promise between versions.
package permimport

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Decisions a source gives; "" means no rule of the source matched.
const (
	Allow = "allow"
	Ask   = "ask"
	Deny  = "deny"
)

// Call is the tool call a source decides on.
type Call struct {
	Tool string
	Args map[string]any
	// Workspace is the directory the agent worked in (relative paths in
	// rules and arguments resolve against it).
	Workspace string
}

// Source is one imported rule file.
type Source interface {
	// Decide returns Allow, Ask, Deny or "" (no rule matched).
	Decide(c Call) string
	// String names the source as it was given ("claude-code:PATH").
	String() string
}

// Kinds lists the accepted source kinds.
var Kinds = []string{"claude-code", "codex", "opencode", "gemini"}

// Load reads a source given as KIND:PATH. A leading "~/" in PATH is the
// home directory; a relative PATH is relative to the current directory.
func Load(spec string) (Source, error) {
	kind, path, ok := strings.Cut(spec, ":")
	if !ok || path == "" {
		return nil, fmt.Errorf("%q: want KIND:PATH with KIND one of %s", spec, strings.Join(Kinds, ", "))
	}
	path = expandHome(path)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var src Source
	switch kind {
	case "claude-code":
		src, err = parseClaude(data, path)
	case "codex":
		src, err = parseCodex(data, path)
	case "opencode":
		src, err = parseOpenCode(data, path)
	case "gemini":
		src, err = parseGemini(data, path)
	default:
		return nil, fmt.Errorf("%q: unknown kind %q (want one of %s)", spec, kind, strings.Join(Kinds, ", "))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return src, nil
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, strings.TrimPrefix(p[1:], "/"))
		}
	}
	return p
}

// Strictest returns the strictest of the decisions (deny > ask > allow),
// ignoring "" (no opinion).
func Strictest(ds ...string) string {
	best := ""
	rank := map[string]int{"": 0, Allow: 1, Ask: 2, Deny: 3}
	for _, d := range ds {
		if rank[d] > rank[best] {
			best = d
		}
	}
	return best
}

// str returns a string argument.
func str(args map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := args[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// command returns a call's shell command: "command" as a string, or an
// argv list joined ("argv" as Codex records it), "cmd" for exec_command.
func command(args map[string]any) string {
	if s := str(args, "command", "cmd"); s != "" {
		return s
	}
	for _, k := range []string{"argv", "command"} {
		if list, ok := args[k].([]any); ok {
			parts := make([]string, 0, len(list))
			for _, a := range list {
				s, ok := a.(string)
				if !ok {
					return ""
				}
				parts = append(parts, shellQuote(s))
			}
			return strings.Join(parts, " ")
		}
	}
	return ""
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`|&;<>()*?[]{}!#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// subcommands splits a shell command at the operators that start another
// command (&&, ||, ;, |, &, newlines), outside quotes. A `bash -lc SCRIPT`
// wrapper is unwrapped first.
func subcommands(cmd string) []string {
	if w := words(cmd); len(w) == 3 && (w[1] == "-lc" || w[1] == "-c") && isShell(w[0]) {
		cmd = w[2]
	}
	var out []string
	var cur strings.Builder
	var quote byte
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			out = append(out, s)
		}
		cur.Reset()
	}
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' && i+1 < len(cmd) {
				cur.WriteByte(c)
				i++
				c = cmd[i]
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '\\' && i+1 < len(cmd):
			cur.WriteByte(c)
			i++
			c = cmd[i]
		case c == ';' || c == '\n' || c == '|' || c == '&':
			flush()
			if i+1 < len(cmd) && (cmd[i+1] == '|' || cmd[i+1] == '&') && c != ';' && c != '\n' {
				i++
			}
			continue
		}
		cur.WriteByte(c)
	}
	flush()
	return out
}

func isShell(s string) bool {
	switch filepath.Base(s) {
	case "bash", "sh", "zsh", "dash":
		return true
	}
	return false
}

// words splits a command into words like a POSIX shell (quotes and
// backslashes; no expansion).
func words(s string) []string {
	var out []string
	var cur strings.Builder
	in := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case quote == '"':
			switch {
			case c == '"':
				quote = 0
			case c == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0:
				i++
				cur.WriteByte(s[i])
			default:
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			in = true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// wildcard matches s against a pattern where * is any run of characters
// (slashes included) and ? is one character.
func wildcard(pattern, s string) bool {
	p, q := 0, 0
	star, mark := -1, 0
	for q < len(s) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == s[q]):
			p++
			q++
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, q
			p++
		case star >= 0:
			p = star + 1
			mark++
			q = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
