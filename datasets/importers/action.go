package importers

import (
	"encoding/json"
	"regexp"
	"strings"
)

// actionCall is one tool call read from an agent's action text.
type actionCall struct {
	Name string
	Args map[string]any
	// Form names the way the call was written (for provenance).
	Form string
}

// parseAction reads the tool calls in an action text as public agent
// benchmarks write them (R-Judge, ToolEmu, AgentMonitor, …):
//
//	Name{python or JSON dict}         TerminalExecute{'command': 'ls'}
//	Name: {json}                      GmailSendEmail: {"to": "a@b.c"}
//	Name({json}) / Name(k=v, k2='x')  search(query="x")
//	Action: Name / Action Input: {…}  ReAct
//	{"command": {"name": …, "args": {…}}, "thoughts": …}   AutoGPT
//	```bash … ```                     a shell code block (one call "bash")
//
// and several of them in one text, separated by commas, semicolons, "and"
// or new lines. A text with no call in any of these forms is a final
// answer (final = true). A text that starts with calls and then has
// something unreadable keeps the calls read (rest holds the text left).
func parseAction(text string) (calls []actionCall, final bool, rest string) {
	t := strings.TrimSpace(text)
	if t == "" {
		return nil, false, ""
	}
	if after, ok := cutPrefixFold(t, "final answer:"); ok {
		return nil, true, strings.TrimSpace(after)
	}
	if c, ok := autoGPT(t); ok {
		return c, false, ""
	}
	if c := codeBlocks(t); len(c) > 0 {
		return c, false, ""
	}
	if c, ok := react(t); ok {
		return c, false, ""
	}
	calls, rest = callSequence(t)
	if len(calls) == 0 {
		return nil, true, ""
	}
	return calls, false, rest
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// autoGPT reads {"command": {"name": …, "args": {…}}, …}.
func autoGPT(t string) ([]actionCall, bool) {
	if !strings.HasPrefix(t, "{") {
		return nil, false
	}
	m, err := jsonOrPyDict(t)
	if err != nil {
		return nil, false
	}
	cmd, ok := m["command"].(map[string]any)
	if !ok {
		return nil, false
	}
	name, _ := cmd["name"].(string)
	if name == "" {
		return nil, false
	}
	args, _ := cmd["args"].(map[string]any)
	return []actionCall{{Name: name, Args: args, Form: "autogpt"}}, true
}

var codeBlockRE = regexp.MustCompile("(?s)```(bash|sh|shell|console|zsh)?[ \t]*\n(.*?)```")

// codeBlocks reads shell code blocks: one "bash" call per block.
func codeBlocks(t string) []actionCall {
	var out []actionCall
	for _, m := range codeBlockRE.FindAllStringSubmatch(t, -1) {
		cmd := strings.TrimSpace(m[2])
		if cmd == "" {
			continue
		}
		out = append(out, actionCall{Name: "bash", Args: map[string]any{"command": cmd}, Form: "code block"})
	}
	return out
}

var reactRE = regexp.MustCompile(`(?m)^\s*Action\s*:\s*(\S[^\n]*?)\s*\n\s*Action Input\s*:\s*`)

// react reads "Action: Name\nAction Input: {…}" pairs.
func react(t string) ([]actionCall, bool) {
	locs := reactRE.FindAllStringSubmatchIndex(t, -1)
	if len(locs) == 0 {
		return nil, false
	}
	var out []actionCall
	for i, l := range locs {
		name := strings.TrimSpace(t[l[2]:l[3]])
		end := len(t)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		input := strings.TrimSpace(t[l[1]:end])
		if j := strings.Index(input, "\nObservation"); j >= 0 {
			input = strings.TrimSpace(input[:j])
		}
		args, err := jsonOrPyDict(input)
		if err != nil {
			if span, ok := balancedAt(input, 0); ok && strings.HasPrefix(input, "{") {
				args, err = jsonOrPyDict(input[:span])
			}
			if err != nil {
				args = map[string]any{"input": input}
			}
		}
		out = append(out, actionCall{Name: name, Args: args, Form: "react"})
	}
	return out, true
}

// callSequence reads Name{…}, Name: {…}, Name(…) calls one after another.
func callSequence(t string) ([]actionCall, string) {
	var out []actionCall
	i := 0
	for {
		i = skipSeparators(t, i)
		if i >= len(t) {
			return out, ""
		}
		c, next, ok := oneCall(t, i)
		if !ok {
			return out, strings.TrimSpace(t[i:])
		}
		out = append(out, c)
		i = next
	}
}

func skipSeparators(t string, i int) int {
	for i < len(t) {
		switch {
		case strings.IndexByte(" \t\r\n,;", t[i]) >= 0:
			i++
		case strings.HasPrefix(t[i:], "and ") || strings.HasPrefix(t[i:], "then "):
			i += strings.IndexByte(t[i:], ' ') + 1
		default:
			return i
		}
	}
	return i
}

// oneCall reads one call starting at i.
func oneCall(t string, i int) (actionCall, int, bool) {
	start := i
	for i < len(t) && (identChar(t[i]) || t[i] == '.') {
		i++
	}
	name := t[start:i]
	if name == "" || !(name[0] == '_' || name[0] >= 'A' && name[0] <= 'Z' || name[0] >= 'a' && name[0] <= 'z') {
		return actionCall{}, start, false
	}
	j := i
	for j < len(t) && (t[j] == ' ' || t[j] == '\t') {
		j++
	}
	form := "Name{dict}"
	if j < len(t) && t[j] == ':' {
		j++
		for j < len(t) && (t[j] == ' ' || t[j] == '\t') {
			j++
		}
		form = "Name: {json}"
		if j >= len(t) || t[j] != '{' {
			return actionCall{}, start, false
		}
	}
	if j >= len(t) {
		// A bare name as the whole action: a call without arguments.
		if start == 0 && strings.ContainsAny(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") {
			return actionCall{Name: name, Form: "Name"}, j, true
		}
		return actionCall{}, start, false
	}
	switch t[j] {
	case '{':
		span, ok := balancedAt(t, j)
		if !ok {
			return actionCall{}, start, false
		}
		args, err := jsonOrPyDict(t[j : j+span])
		if err != nil {
			return actionCall{}, start, false
		}
		return actionCall{Name: name, Args: args, Form: form}, j + span, true
	case '(':
		span, ok := balancedAt(t, j)
		if !ok {
			return actionCall{}, start, false
		}
		inner := strings.TrimSpace(t[j+1 : j+span-1])
		var args map[string]any
		var err error
		switch {
		case inner == "":
		case strings.HasPrefix(inner, "{"):
			args, err = jsonOrPyDict(inner)
		default:
			args, err = (&pyParser{s: inner}).kwargs()
			if err != nil {
				var v any
				if v, err = (&pyParser{s: inner}).value(0); err == nil {
					args = map[string]any{"input": v}
				}
			}
		}
		if err != nil {
			return actionCall{}, start, false
		}
		return actionCall{Name: name, Args: args, Form: "Name(args)"}, j + span, true
	}
	return actionCall{}, start, false
}

// balancedAt returns the length of the bracketed text starting at t[i]
// ({…} or (…)), skipping brackets inside quoted strings.
func balancedAt(t string, i int) (int, bool) {
	depth := 0
	var quote byte
	for j := i; j < len(t); j++ {
		c := t[j]
		switch {
		case quote != 0:
			if c == '\\' {
				j++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			// An apostrophe inside a word (don't) is not a quote.
			if c == '\'' && j > 0 && identChar(t[j-1]) && j+1 < len(t) && identChar(t[j+1]) {
				continue
			}
			quote = c
		case c == '{' || c == '(' || c == '[':
			depth++
		case c == '}' || c == ')' || c == ']':
			depth--
			if depth == 0 {
				return j - i + 1, true
			}
		}
	}
	return 0, false
}

// jsonOrPyDict parses a dict written as JSON or as a Python literal.
func jsonOrPyDict(s string) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err == nil && m != nil {
		return m, nil
	}
	return parsePyDict(s)
}
