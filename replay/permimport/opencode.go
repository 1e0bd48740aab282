package permimport

import (
	"encoding/json"
	"fmt"
	"strings"
)

// OpenCode's opencode.json "permission": a single action for every tool
// ("allow" | "ask" | "deny"), or an object keyed by permission (bash, edit,
// read, webfetch, …, and "*" for any), each an action or an object of
// pattern → action. Patterns are wildcards (* any text, ? one character)
// over the command (bash), the file path (read, edit) or the URL
// (webfetch). Permission names may be wildcards too ("web*"). Rules are
// read in declaration order and the last one that matches wins. edit
// covers every tool that changes files (edit, write, patch, multiedit).
type opencodeSource struct {
	name  string
	rules []ocRule
}

type ocRule struct {
	key, pattern, action string
}

func parseOpenCode(data []byte, file string) (Source, error) {
	var cfg struct {
		Permission json.RawMessage `json:"permission"`
	}
	if err := json.Unmarshal(stripJSONC(data), &cfg); err != nil {
		return nil, err
	}
	src := &opencodeSource{name: "opencode:" + file}
	if len(cfg.Permission) == 0 {
		return src, nil
	}
	var all string
	if json.Unmarshal(cfg.Permission, &all) == nil {
		if !validOC(all) {
			return nil, fmt.Errorf("permission: %q: want allow, ask or deny", all)
		}
		src.rules = append(src.rules, ocRule{"*", "*", all})
		return src, nil
	}
	// Keys in file order: decode with a token stream.
	dec := json.NewDecoder(strings.NewReader(string(cfg.Permission)))
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("permission: %w", err)
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := kt.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("permission.%s: %w", key, err)
		}
		rules, err := ocRules(key, raw)
		if err != nil {
			return nil, err
		}
		src.rules = append(src.rules, rules...)
	}
	return src, nil
}

func ocRules(key string, raw json.RawMessage) ([]ocRule, error) {
	var action string
	if json.Unmarshal(raw, &action) == nil {
		if !validOC(action) {
			return nil, fmt.Errorf("permission.%s: %q: want allow, ask or deny", key, action)
		}
		return []ocRule{{key, "*", action}}, nil
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("permission.%s: want an action or an object of pattern → action", key)
	}
	var out []ocRule
	for dec.More() {
		pt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var a string
		if err := dec.Decode(&a); err != nil || !validOC(a) {
			return nil, fmt.Errorf("permission.%s.%v: want allow, ask or deny", key, pt)
		}
		out = append(out, ocRule{key, pt.(string), a})
	}
	return out, nil
}

func validOC(a string) bool { return a == Allow || a == Ask || a == Deny }

// stripJSONC removes // and /* */ comments outside strings (opencode.json
// may be JSONC).
func stripJSONC(b []byte) []byte {
	var out []byte
	inStr := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inStr:
			out = append(out, c)
			if c == '\\' && i+1 < len(b) {
				i++
				out = append(out, b[i])
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
			out = append(out, c)
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
			out = append(out, '\n')
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			i += 2
			for i+1 < len(b) && !(b[i] == '*' && b[i+1] == '/') {
				i++
			}
			i++
		default:
			out = append(out, c)
		}
	}
	return out
}

func (s *opencodeSource) String() string { return s.name }

// ocKey maps a tool name to OpenCode's permission key.
func ocKey(tool string) string {
	t := strings.ToLower(tool)
	switch t {
	case "write", "patch", "multiedit", "apply_patch":
		return "edit"
	}
	return t
}

func (s *opencodeSource) Decide(c Call) string {
	key := ocKey(c.Tool)
	var subject string
	switch key {
	case "bash":
		subject = command(c.Args)
	case "webfetch":
		subject = str(c.Args, "url")
	default:
		subject = str(c.Args, "filePath", "file_path", "path", "pattern", "url", "command")
	}
	d := ""
	for _, r := range s.rules {
		if !wildcard(r.key, key) {
			continue
		}
		if r.pattern == "*" || ocMatch(r.pattern, subject) {
			d = r.action
		}
	}
	return d
}

// ocMatch is OpenCode's wildcard; "git *" also matches the bare "git".
func ocMatch(pattern, s string) bool {
	if prefix, ok := strings.CutSuffix(pattern, " *"); ok && s == prefix {
		return true
	}
	return wildcard(pattern, s)
}
