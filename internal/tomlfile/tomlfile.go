// Package tomlfile holds what apeval's TOML files (the policy, the criteria
// file, apeval.toml) share for error messages: decoder errors as
// "name:line: message", and a locator from keys to the lines that write
// them, so validation errors name file:line and key.
package tomlfile

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Error renders a decoder error on doc as "name:line: message". A value of
// the wrong type is named by its key and element ("rule[1].when.tool") at
// its own line: the decoder reports the line of the key's last occurrence,
// which in an array of tables is another element's.
func Error(name, doc string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		msg := pe.Message
		if pe.LastKey != "" {
			msg = pe.LastKey + ": " + msg
		}
		return fmt.Errorf("%s:%d: %s", name, pe.Position.Line, msg)
	}
	msg := strings.TrimPrefix(err.Error(), "toml: ")
	if m := typeError.FindStringSubmatch(msg); m != nil {
		if key, line := mistyped(doc, m[2], m[4]); line > 0 {
			return fmt.Errorf("%s:%d: %s: %s", name, line, key, m[3])
		}
	}
	if strings.HasPrefix(msg, "line ") {
		return fmt.Errorf("%s:%s", name, strings.TrimPrefix(msg, "line "))
	}
	return fmt.Errorf("%s: %s", name, msg)
}

// typeError is the decoder's message for a value of the wrong type:
// line, last key, the message and the value's type.
var typeError = regexp.MustCompile(`^line (\d+) \(last key "([^"]+)"\): (incompatible types: TOML value has type (\S+); destination has type .*)$`)

// mistyped finds the first value at the plain key path (as the decoder names
// it: "permissions.rule.pattern") whose type prints as typ, and returns its
// indexed key and line; 0 when doc does not parse or no value fits.
func mistyped(doc, path, typ string) (string, int) {
	var tree map[string]any
	if _, err := toml.Decode(doc, &tree); err != nil {
		return "", 0
	}
	var found string
	var walk func(v any, parts []string, at string) bool
	walk = func(v any, parts []string, at string) bool {
		if len(parts) == 0 {
			if strings.ReplaceAll(fmt.Sprintf("%T", v), "interface {}", "any") == typ {
				found = at
				return true
			}
			return false
		}
		switch t := v.(type) {
		case map[string]any:
			child, ok := t[parts[0]]
			return ok && walk(child, parts[1:], join(at, parts[0]))
		case []map[string]any:
			for i, e := range t {
				if walk(e, parts, at+"["+strconv.Itoa(i)+"]") {
					return true
				}
			}
		}
		return false
	}
	if !walk(tree, strings.Split(path, "."), "") {
		return "", 0
	}
	return found, Locate(doc).Line(found)
}

// Locator maps keys to the line where they are written, so validation
// errors can point into the file. It understands the subset of TOML apeval's
// files use: [table], [[array]], key = value, multi-line strings and arrays.
type Locator struct {
	lines   map[string]int      // indexed key ("rule[2].when.tool") → line
	firstOf map[string]string   // plain key ("rule.when.tool") → first indexed key
	all     map[string][]string // plain key → every indexed key, in the file's order
}

// Locate indexes doc.
func Locate(doc string) *Locator {
	l := &Locator{lines: map[string]int{}, firstOf: map[string]string{}, all: map[string][]string{}}
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
	} else {
		return
	}
	plain := stripIndexes(key)
	l.all[plain] = append(l.all[plain], key)
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

// Unknown maps the decoder's undecoded keys (plain: "rule.acton" once per
// element that writes it, in the file's order) to indexed keys, one per
// occurrence: "rule[0].acton", "rule[4].acton". A key under one already
// returned (the keys of an unknown table) is left out.
func (l *Locator) Unknown(keys []toml.Key) []string {
	seen := map[string]int{}
	var out []string
	reported := map[string]bool{}
	for _, k := range keys {
		plain := k.String()
		n := seen[plain]
		seen[plain]++
		key := l.Indexed(plain)
		if all := l.all[plain]; n < len(all) {
			key = all[n]
		}
		under := false
		for p := key; !under; {
			i := strings.LastIndexAny(p, ".[")
			if i <= 0 {
				break
			}
			p = p[:i]
			under = reported[p]
		}
		if under || reported[key] {
			continue
		}
		reported[key] = true
		out = append(out, key)
	}
	return out
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
