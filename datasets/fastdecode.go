package datasets

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// caseParser decodes a case line in one pass, without reflection (recorded
// calls and recent messages in fastdecode_lists.go). It is exact or it
// gives up: anything where encoding/json's result takes more than a plain
// reading — a key differing from a field name only in case, a repeated
// field, a null, a number out of range, invalid JSON or UTF-8, deep
// nesting — sends the line to encoding/json, whose results and errors are
// the reference. These are the only two decode paths (the measurement that
// chose them is in docs/internals.md). FuzzDecode,
// FuzzDecodeFast and TestDecodePathsAgreeOnMutations check the parser
// against encoding/json.
//
// Strings written without escapes are slices of one copy of the line, so a
// case costs one allocation for all its strings.
type caseParser struct {
	b   []byte
	src string // string(b), made once
	i   int
}

// maxFastDepth bounds the nesting the parser follows in arguments and in
// skipped values; deeper lines take the general path.
const maxFastDepth = 512

// decodeFast decodes line into c and reports whether it could.
func decodeFast(line []byte, c *Case) bool {
	p := caseParser{b: line}
	return p.decode(c)
}

func (p *caseParser) decode(c *Case) bool {
	ok := p.fields(caseFields[:], func(f int) bool {
		switch caseFields[f] {
		case "id":
			return p.str(&c.ID)
		case "session_id":
			return p.str(&c.SessionID)
		case "seq":
			c.seqSet = true
			return p.int64(&c.Seq)
		case "time":
			return p.time(&c.Time)
		case "hook_point":
			return p.str(&c.HookPoint)
		case "piece":
			return p.str(&c.Piece)
		case "movement":
			return p.str(&c.Movement)
		case "user_role":
			return p.str(&c.UserRole)
		case "workspace":
			return p.str(&c.Workspace)
		case "tool":
			return p.tool(&c.Tool)
		case "context":
			return p.context(&c.Context)
		case "labels":
			return p.labels(&c.Labels)
		case "weak_labels":
			return p.labels(&c.WeakLabels)
		case "expected_action":
			return p.str((*string)(&c.ExpectedAction))
		case "approval_outcome":
			return p.str((*string)(&c.ApprovalOutcome))
		case "tags":
			return p.strs(&c.Tags)
		case "provenance":
			p.ws()
			if !p.eat('{') {
				return false
			}
			m, ok := p.anyObject(1)
			c.Provenance = m
			return ok
		}
		return p.recorded(&c.Recorded)
	})
	if !ok {
		return false
	}
	p.ws()
	return p.i == len(p.b)
}

var (
	caseFields = [...]string{"id", "session_id", "seq", "time", "hook_point", "piece", "movement",
		"user_role", "workspace", "tool", "context", "labels", "expected_action", "approval_outcome",
		"tags", "recorded", "provenance", "weak_labels"}
	toolFields    = [...]string{"name", "category", "arguments", "arguments_valid"}
	contextFields = [...]string{"latest_user_message", "recent_messages", "approval_state", "approved_fingerprints"}
)

// fieldIndex finds key among a struct's JSON names: its index, -1 for an
// unknown key, -2 for a key that encoding/json might match without case
// (or through an escape or a non-ASCII folding), which the parser leaves to it.
func fieldIndex(key string, fields []string) int {
	for i, f := range fields {
		// Length and first byte first: most names differ there, and the
		// call to compare the bytes is skipped (no name is empty).
		if len(key) == len(f) && key[0] == f[0] && key == f {
			return i
		}
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; c >= utf8.RuneSelf || c == '\\' {
			return -2
		}
	}
	for _, f := range fields {
		if strings.EqualFold(key, f) {
			return -2
		}
	}
	return -1
}

// fields parses an object whose known keys are names: fn gets each known
// key's index, once; an unknown key's value is skipped; a key met twice, or
// one that differs from a known key only in case (encoding/json would match
// it), makes the fast path give up.
func (p *caseParser) fields(names []string, fn func(f int) bool) bool {
	p.ws()
	if !p.eat('{') {
		return false
	}
	var seen uint32
	return p.object(func(key string) bool {
		f := fieldIndex(key, names)
		if f < 0 {
			return f == -1 && p.skip(0)
		}
		if seen&(1<<f) != 0 {
			return false
		}
		seen |= 1 << f
		return fn(f)
	})
}

func (p *caseParser) tool(t *Tool) bool {
	return p.fields(toolFields[:], func(f int) bool {
		switch f {
		case 0:
			return p.str(&t.Name)
		case 1:
			return p.str(&t.Category)
		case 2:
			p.ws()
			if !p.eat('{') {
				return false
			}
			m, ok := p.anyObject(1)
			t.Arguments = m
			return ok
		default:
			p.ws()
			var v bool
			switch {
			case p.lit("true"):
				v = true
			case p.lit("false"):
			default:
				return false
			}
			t.ArgumentsValid = &v
			return true
		}
	})
}

func (p *caseParser) context(c *Context) bool {
	return p.fields(contextFields[:], func(f int) bool {
		switch f {
		case 0:
			return p.str(&c.LatestUserMessage)
		case 2:
			return p.str(&c.ApprovalState)
		case 3:
			return p.strs(&c.ApprovedFingerprints)
		}
		return p.messages(&c.RecentMessages)
	})
}

func (p *caseParser) labels(m *map[string]Label) bool {
	p.ws()
	if !p.eat('{') {
		return false
	}
	// The map is made for the first label: {} is left nil, as normalize
	// would make it anyway (half the cases of a typical dataset).
	return p.object(func(key string) bool {
		var v string
		if !p.str(&v) {
			return false
		}
		if *m == nil {
			*m = map[string]Label{}
		}
		(*m)[key] = Label(v)
		return true
	})
}

// object reads the members of an object whose '{' was eaten, calling
// member with each key (unescaped) to read the value.
func (p *caseParser) object(member func(key string) bool) bool {
	p.ws()
	if p.eat('}') {
		return true
	}
	for {
		p.ws()
		key, ok := p.string()
		if !ok {
			return false
		}
		p.ws()
		if !p.eat(':') || !member(key) {
			return false
		}
		p.ws()
		if p.eat('}') {
			return true
		}
		if !p.eat(',') {
			return false
		}
	}
}

func (p *caseParser) str(dst *string) bool {
	p.ws()
	s, ok := p.string()
	*dst = s
	return ok
}

func (p *caseParser) strs(dst *[]string) bool {
	p.ws()
	if !p.eat('[') {
		return false
	}
	out := []string{}
	p.ws()
	if !p.eat(']') {
		for {
			var s string
			if !p.str(&s) {
				return false
			}
			out = append(out, s)
			p.ws()
			if p.eat(']') {
				break
			}
			if !p.eat(',') {
				return false
			}
		}
	}
	*dst = out
	return true
}

// time reads a time as encoding/json does: the string token, quotes and
// escapes included, goes to time.Time's UnmarshalJSON.
func (p *caseParser) time(dst **time.Time) bool {
	p.ws()
	start := p.i
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return false
	}
	if _, ok := p.stringRange(); !ok {
		return false
	}
	t := new(time.Time)
	if t.UnmarshalJSON(p.b[start:p.i]) != nil {
		return false
	}
	*dst = t
	return true
}

func (p *caseParser) int64(dst *int64) bool {
	p.ws()
	start := p.i
	if !p.number() {
		return false
	}
	if v, ok := smallInt(p.b[start:p.i]); ok {
		*dst = v
		return true
	}
	v, err := strconv.ParseInt(string(p.b[start:p.i]), 10, 64)
	if err != nil {
		return false // a fraction, an exponent or out of range
	}
	*dst = v
	return true
}

// smallInt reads a number of at most 18 digits, with an optional minus
// sign, without the string ParseInt needs (and allocates, as its error
// may keep it); anything else is left to ParseInt.
func smallInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// anyObject reads an object (its '{' eaten) as encoding/json decodes it
// into an interface value.
func (p *caseParser) anyObject(depth int) (map[string]any, bool) {
	m := map[string]any{}
	ok := p.object(func(key string) bool {
		v, ok := p.anyValue(depth)
		m[key] = v
		return ok
	})
	return m, ok
}

func (p *caseParser) anyValue(depth int) (any, bool) {
	if depth >= maxFastDepth {
		return nil, false
	}
	p.ws()
	if p.i >= len(p.b) {
		return nil, false
	}
	switch c := p.b[p.i]; c {
	case '"':
		return p.string()
	case '{':
		p.i++
		return p.anyObject(depth + 1)
	case '[':
		p.i++
		out := []any{}
		p.ws()
		if p.eat(']') {
			return out, true
		}
		for {
			v, ok := p.anyValue(depth + 1)
			if !ok {
				return nil, false
			}
			out = append(out, v)
			p.ws()
			if p.eat(']') {
				return out, true
			}
			if !p.eat(',') {
				return nil, false
			}
		}
	case 't':
		return true, p.lit("true")
	case 'f':
		return false, p.lit("false")
	case 'n':
		return nil, p.lit("null")
	}
	start := p.i
	if !p.number() {
		return nil, false
	}
	f, err := strconv.ParseFloat(string(p.b[start:p.i]), 64)
	return f, err == nil
}

// skip reads over one value of an unknown key, checking its syntax.
func (p *caseParser) skip(depth int) bool {
	if depth >= maxFastDepth {
		return false
	}
	p.ws()
	if p.i >= len(p.b) {
		return false
	}
	switch p.b[p.i] {
	case '"':
		_, ok := p.stringRange()
		return ok
	case '{':
		p.i++
		p.ws()
		if p.eat('}') {
			return true
		}
		for {
			p.ws()
			if p.i >= len(p.b) || p.b[p.i] != '"' {
				return false
			}
			if _, ok := p.stringRange(); !ok {
				return false
			}
			p.ws()
			if !p.eat(':') || !p.skip(depth+1) {
				return false
			}
			p.ws()
			if p.eat('}') {
				return true
			}
			if !p.eat(',') {
				return false
			}
		}
	case '[':
		p.i++
		p.ws()
		if p.eat(']') {
			return true
		}
		for {
			if !p.skip(depth + 1) {
				return false
			}
			p.ws()
			if p.eat(']') {
				return true
			}
			if !p.eat(',') {
				return false
			}
		}
	case 't':
		return p.lit("true")
	case 'f':
		return p.lit("false")
	case 'n':
		return p.lit("null")
	}
	return p.number()
}

func (p *caseParser) ws() {
	p.i = skipSpace(p.b, p.i)
}

func (p *caseParser) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *caseParser) lit(s string) bool {
	if !hasLiteral(p.b, p.i, s) {
		return false
	}
	p.i += len(s)
	return true
}

func (p *caseParser) number() bool {
	if p.i >= len(p.b) {
		return false
	}
	end, ok := scanNumber(p.b, p.i)
	p.i = end
	return ok
}

// stringRange scans a string at p.i (which must be '"'), checking JSON
// syntax and UTF-8, and returns whether it holds escapes.
func (p *caseParser) stringRange() (escaped bool, ok bool) {
	end, escaped, ok := scanString(p.b, p.i)
	if !ok {
		return false, false
	}
	p.i = end
	return escaped, true
}

// string reads a string value as encoding/json unquotes it.
func (p *caseParser) string() (string, bool) {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return "", false
	}
	start := p.i
	escaped, ok := p.stringRange()
	if !ok {
		return "", false
	}
	raw := p.b[start+1 : p.i-1]
	if escaped {
		return unescape(raw), true
	}
	if p.src == "" {
		p.src = string(p.b)
	}
	return p.src[start+1 : p.i-1], true
}

// unescape decodes the escapes of a string already checked by scanString,
// like encoding/json: a lone or broken surrogate becomes U+FFFD.
func unescape(s []byte) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			b = append(b, c)
			i++
			continue
		}
		switch s[i+1] {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r := hex4(s[i+2:])
			i += 6
			if utf16.IsSurrogate(r) {
				if len(s)-i >= 6 && s[i] == '\\' && s[i+1] == 'u' {
					if dec := utf16.DecodeRune(r, hex4(s[i+2:])); dec != utf8.RuneError {
						b = utf8.AppendRune(b, dec)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			b = utf8.AppendRune(b, r)
			continue
		default: // '"', '\\', '/'
			b = append(b, s[i+1])
		}
		i += 2
	}
	return string(b)
}

func hex4(s []byte) rune {
	var r rune
	for _, c := range s[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
