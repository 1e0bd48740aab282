// Package tomlfile holds what apeval's TOML files (the policy, the criteria
// file, apeval.toml) share for error messages: decoder errors as
// "name:line: message", and a locator from keys to the lines that write
// them, so validation errors name file:line and key.
package tomlfile

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Error renders a decoder error as "name:line: message".
func Error(name string, err error) error {
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

// Locator maps keys to the line where they are written, so validation
// errors can point into the file. It understands the subset of TOML apeval's
// files use: [table], [[array]], key = value, multi-line strings and arrays.
type Locator struct {
	lines   map[string]int    // indexed key ("rule[2].when.tool") → line
	firstOf map[string]string // plain key ("rule.when.tool") → first indexed key
}

// Locate indexes doc.
func Locate(doc string) *Locator {
	l := &Locator{lines: map[string]int{}, firstOf: map[string]string{}}
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
func (l *Locator) indexedPrefix(name string, counts map[string]int) string {
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

func (l *Locator) add(key string, line int) {
	if _, ok := l.lines[key]; !ok {
		l.lines[key] = line
	}
	plain := stripIndexes(key)
	if _, ok := l.firstOf[plain]; !ok {
		l.firstOf[plain] = key
	}
}

// Line finds the line of key, falling back to its closest written parent;
// 0 when neither is written.
func (l *Locator) Line(key string) int {
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

// Indexed maps a plain key (as toml reports undecoded keys) to the first
// indexed key that spells it.
func (l *Locator) Indexed(plain string) string {
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
