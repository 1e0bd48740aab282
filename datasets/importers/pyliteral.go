package importers

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// pyParser reads the Python literals agents write in their actions
// ({'command': 'ls', 'n': 3, 'ok': True}) and JSON alike: dicts, lists,
// tuples, strings in single or double quotes, numbers, True/False/None and
// true/false/null; and keyword argument lists (k=v, k2='x').
type pyParser struct {
	s string
	i int
}

func (p *pyParser) ws() {
	for p.i < len(p.s) && unicode.IsSpace(rune(p.s[p.i])) {
		p.i++
	}
}

func (p *pyParser) errorf(format string, args ...any) error {
	return fmt.Errorf("at offset %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *pyParser) value(depth int) (any, error) {
	if depth > 64 {
		return nil, p.errorf("nested too deep")
	}
	p.ws()
	if p.i >= len(p.s) {
		return nil, p.errorf("unexpected end")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.dict(depth)
	case c == '[':
		return p.list(depth, '[', ']')
	case c == '(':
		return p.list(depth, '(', ')')
	case c == '\'' || c == '"':
		return p.str()
	case c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9':
		return p.number()
	}
	for _, kw := range []struct {
		word string
		v    any
	}{{"True", true}, {"False", false}, {"None", nil}, {"true", true}, {"false", false}, {"null", nil}} {
		if strings.HasPrefix(p.s[p.i:], kw.word) && !identChar(p.at(p.i+len(kw.word))) {
			p.i += len(kw.word)
			return kw.v, nil
		}
	}
	return nil, p.errorf("unexpected %q", p.s[p.i])
}

func (p *pyParser) at(i int) byte {
	if i < len(p.s) {
		return p.s[i]
	}
	return 0
}

func identChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (p *pyParser) dict(depth int) (map[string]any, error) {
	p.i++ // {
	m := map[string]any{}
	for {
		p.ws()
		if p.at(p.i) == '}' {
			p.i++
			return m, nil
		}
		k, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.ws()
		if p.at(p.i) != ':' {
			return nil, p.errorf("want ':' after a dict key")
		}
		p.i++
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		m[fmt.Sprint(k)] = v
		p.ws()
		switch p.at(p.i) {
		case ',':
			p.i++
		case '}':
			p.i++
			return m, nil
		default:
			return nil, p.errorf("want ',' or '}' in a dict")
		}
	}
}

func (p *pyParser) list(depth int, open, close byte) ([]any, error) {
	p.i++
	out := []any{}
	for {
		p.ws()
		if p.at(p.i) == close {
			p.i++
			return out, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.ws()
		switch p.at(p.i) {
		case ',':
			p.i++
		case close:
			p.i++
			return out, nil
		default:
			return nil, p.errorf("want ',' or %q in a list", close)
		}
	}
}

func (p *pyParser) str() (string, error) {
	q := p.s[p.i]
	triple := strings.HasPrefix(p.s[p.i:], strings.Repeat(string(q), 3))
	if triple {
		p.i += 3
	} else {
		p.i++
	}
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
			case 'r':
				b.WriteByte('\r')
			case '\\', '\'', '"', '/':
				b.WriteByte(e)
			case 'u':
				if p.i+4 < len(p.s) {
					if r, err := strconv.ParseUint(p.s[p.i+1:p.i+5], 16, 32); err == nil {
						b.WriteRune(rune(r))
						p.i += 4
						break
					}
				}
				b.WriteString(`\u`)
			default:
				b.WriteByte('\\')
				b.WriteByte(e)
			}
			p.i++
		case c == q && (!triple || strings.HasPrefix(p.s[p.i:], strings.Repeat(string(q), 3))):
			if triple {
				p.i += 3
			} else {
				p.i++
			}
			return b.String(), nil
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return "", p.errorf("unterminated string")
}

func (p *pyParser) number() (any, error) {
	start := p.i
	for p.i < len(p.s) && strings.IndexByte("+-.0123456789eE_", p.s[p.i]) >= 0 {
		p.i++
	}
	t := strings.ReplaceAll(p.s[start:p.i], "_", "")
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return nil, p.errorf("bad number %q", t)
	}
	return f, nil
}

// kwargs reads "k=v, k2=v2" up to the end of the text.
func (p *pyParser) kwargs() (map[string]any, error) {
	m := map[string]any{}
	for {
		p.ws()
		if p.i >= len(p.s) {
			return m, nil
		}
		start := p.i
		for p.i < len(p.s) && identChar(p.s[p.i]) {
			p.i++
		}
		k := p.s[start:p.i]
		p.ws()
		if k == "" || p.at(p.i) != '=' {
			return nil, p.errorf("want name=value")
		}
		p.i++
		v, err := p.value(1)
		if err != nil {
			return nil, err
		}
		m[k] = v
		p.ws()
		if p.at(p.i) == ',' {
			p.i++
		} else if p.i < len(p.s) {
			return nil, p.errorf("want ',' between arguments")
		}
	}
}

// parsePyDict parses s (a whole dict literal) as JSON-like Python.
func parsePyDict(s string) (map[string]any, error) {
	p := &pyParser{s: s}
	p.ws()
	if p.at(p.i) != '{' {
		return nil, p.errorf("not a dict")
	}
	m, err := p.dict(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(p.s) {
		return nil, p.errorf("text after the dict")
	}
	return m, nil
}
