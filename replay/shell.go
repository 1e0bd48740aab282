package replay

import "strings"

// A command line is looked at as a list of simple commands, the way a shell
// would run them: "cd build && FOO=1 sudo -u ci rm -rf out | tee log" holds
// the simple commands "cd build", "rm -rf out" and "tee log". command_prefix
// and the network check test the start of every simple command, after
// variable assignments, wrappers (sudo, env, nohup, timeout, xargs, …) and
// shell keywords are skipped; `sh -c 'script'` is looked into.
// This is a lexer for matching, not a shell: no expansion, no here-docs.

// cmdSpan is one simple command: toks[start:end], toks[start] its name.
type cmdSpan struct{ start, end int32 }

// maxShellDepth bounds how deep `sh -c` scripts are opened.
const maxShellDepth = 2

// scanShell appends the tokens of s to toks (raw, quotes kept) and the
// simple commands found to cmds.
func scanShell(s string, toks []string, cmds []cmdSpan, depth int) ([]string, []cmdSpan) {
	n := len(s)
	cmdStart := len(toks)
	tokStart := -1
	endTok := func(j int) {
		if tokStart >= 0 {
			toks = append(toks, s[tokStart:j])
			tokStart = -1
		}
	}
	endCmd := func() {
		if len(toks) > cmdStart {
			start := cmdStart
			end := len(toks)
			cmdStart = end
			toks, cmds = addCommand(toks, cmds, start, end, depth)
			cmdStart = len(toks)
		}
	}
	for i := 0; i < n; i++ {
		c := s[i]
		switch c {
		case '\'':
			if tokStart < 0 {
				tokStart = i
			}
			if j := strings.IndexByte(s[i+1:], '\''); j < 0 {
				i = n - 1
			} else {
				i += j + 1
			}
		case '"':
			if tokStart < 0 {
				tokStart = i
			}
			for i++; i < n && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '\\':
			if tokStart < 0 {
				tokStart = i
			}
			i++
		case ' ', '\t', '\r':
			endTok(i)
		case '\n', ';', '|', '(', ')', '`':
			endTok(i)
			endCmd()
		case '&':
			// 2>&1 and &>file are redirections, not separators.
			if (i > 0 && (s[i-1] == '>' || s[i-1] == '<')) || (i+1 < n && s[i+1] == '>') {
				if tokStart < 0 {
					tokStart = i
				}
				continue
			}
			endTok(i)
			endCmd()
		case '$':
			if i+1 < n && s[i+1] == '(' {
				endTok(i)
				endCmd()
				i++
				continue
			}
			if tokStart < 0 {
				tokStart = i
			}
		case '#':
			if tokStart < 0 {
				if j := strings.IndexByte(s[i:], '\n'); j < 0 {
					i = n - 1
				} else {
					i += j - 1
				}
				continue
			}
		default:
			if tokStart < 0 {
				tokStart = i
			}
		}
	}
	endTok(n)
	endCmd()
	return toks, cmds
}

// addCommand records toks[start:end] as a simple command after skipping
// assignments and wrappers, and opens `sh -c` scripts.
func addCommand(toks []string, cmds []cmdSpan, start, end, depth int) ([]string, []cmdSpan) {
	i := skipWrappers(toks, start, end)
	if i >= end {
		return toks, cmds
	}
	cmds = append(cmds, cmdSpan{int32(i), int32(end)})
	if depth >= maxShellDepth {
		return toks, cmds
	}
	switch baseName(unquote(toks[i])) {
	case "sh", "bash", "zsh", "dash", "ksh":
		for j := i + 1; j < end; j++ {
			t := toks[j]
			if len(t) < 2 || t[0] != '-' || t[1] == '-' {
				break
			}
			if strings.IndexByte(t, 'c') > 0 && j+1 < end {
				toks, cmds = scanShell(unquote(toks[j+1]), toks, cmds, depth+1)
				break
			}
		}
	}
	return toks, cmds
}

// skipWrappers returns the index of the command name in toks[i:end].
func skipWrappers(toks []string, i, end int) int {
	for i < end {
		t := toks[i]
		if isAssignment(t) {
			i++
			continue
		}
		switch baseName(unquote(t)) {
		case "if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "command", "builtin", "exec", "nohup", "time":
			i++
			i = skipOptions(toks, i, end, "")
		case "sudo", "doas":
			i = skipOptions(toks, i+1, end, "ugCDhprtUT")
		case "env":
			i++
			for i < end {
				if isAssignment(toks[i]) {
					i++
					continue
				}
				if j := skipOptions(toks, i, end, "uCS"); j > i {
					i = j
					continue
				}
				break
			}
		case "nice":
			i = skipOptions(toks, i+1, end, "n")
		case "xargs":
			i = skipOptions(toks, i+1, end, "nILPdEsa")
		case "timeout":
			i = skipOptions(toks, i+1, end, "sk")
			if i < end {
				i++ // the duration
			}
		default:
			return i
		}
	}
	return i
}

// skipOptions skips tokens starting with "-"; a short option whose letter
// is in withArg (and nothing follows it in the token) also takes the next token.
func skipOptions(toks []string, i, end int, withArg string) int {
	for i < end {
		t := toks[i]
		if len(t) < 2 || t[0] != '-' {
			return i
		}
		i++
		if t == "--" {
			return i
		}
		if len(t) == 2 && t[1] != '-' && strings.IndexByte(withArg, t[1]) >= 0 {
			i++
		}
	}
	return i
}

func isAssignment(t string) bool {
	eq := strings.IndexByte(t, '=')
	if eq <= 0 {
		return false
	}
	for k := 0; k < eq; k++ {
		c := t[k]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || k > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func baseName(t string) string {
	if i := strings.LastIndexByte(t, '/'); i >= 0 && i < len(t)-1 {
		return t[i+1:]
	}
	return t
}

// unquote removes shell quoting from a token; it allocates only when the
// token has quotes or backslashes.
func unquote(t string) string {
	if !strings.ContainsAny(t, `'"\`) {
		return t
	}
	var b strings.Builder
	b.Grow(len(t))
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch c {
		case '\'':
			j := strings.IndexByte(t[i+1:], '\'')
			if j < 0 {
				b.WriteString(t[i+1:])
				return b.String()
			}
			b.WriteString(t[i+1 : i+1+j])
			i += j + 1
		case '"':
			for i++; i < len(t) && t[i] != '"'; i++ {
				if t[i] == '\\' && i+1 < len(t) && strings.IndexByte("\"\\$`", t[i+1]) >= 0 {
					i++
				}
				b.WriteByte(t[i])
			}
		case '\\':
			if i+1 < len(t) {
				i++
				b.WriteByte(t[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
