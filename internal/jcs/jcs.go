// Package jcs writes RFC 8785 (JCS) canonical JSON directly, without the
// parse-and-reserialize round trip of the reference library
// (github.com/gowebpki/jcs), which it falls back to for Go values it does
// not know. Two places need canonical JSON: judge keys its response cache
// with the canonical judge input, and replay hashes approval fingerprints
// (see docs/replay.md). Both write through this package so their bytes agree.
package jcs

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	refjcs "github.com/gowebpki/jcs"
)

// Writer appends canonical JSON. The zero value is ready; it keeps a
// scratch slice for object keys, so it is not safe for concurrent use.
type Writer struct {
	keys []string
}

// AppendValue appends the JCS form of a decoded JSON value (nil, bool,
// string, float64, json.Number, int, int64, map[string]any, []any; other
// values go through encoding/json and the reference JCS library).
func (c *Writer) AppendValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case string:
		return AppendString(b, v)
	case float64:
		return AppendNumber(b, v)
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return append(b, "null"...)
		}
		return AppendNumber(b, f)
	case int:
		return AppendNumber(b, float64(v))
	case int64:
		return AppendNumber(b, float64(v))
	case map[string]any:
		if len(v) == 1 {
			// One member (a tool call's usual arguments): no order to sort.
			for k, e := range v {
				b = append(b, '{')
				b = AppendString(b, k)
				b = append(b, ':')
				b = c.AppendValue(b, e)
			}
			return append(b, '}')
		}
		start := len(c.keys)
		for k := range v {
			c.keys = append(c.keys, k)
		}
		keys := c.keys[start:]
		slices.SortFunc(keys, compareUTF16)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, k)
			b = append(b, ':')
			b = c.AppendValue(b, v[k])
		}
		c.keys = c.keys[:start]
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = c.AppendValue(b, e)
		}
		return append(b, ']')
	}
	// Any other Go value: through encoding/json and the reference JCS.
	raw, err := json.Marshal(v)
	if err == nil {
		raw, err = refjcs.Transform(raw)
	}
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, raw...)
}

// AppendNumber formats like ECMAScript's Number.prototype.toString (RFC 8785 §3.2.2.3).
func AppendNumber(b []byte, f float64) []byte {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.AppendInt(b, int64(f), 10)
	}
	s, err := refjcs.NumberToJSON(f)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, s...)
}

const hexDigits = "0123456789abcdef"

// plain marks the bytes AppendString copies as they are: ASCII from space
// on, but for '"' and '\\'.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// AppendString quotes s as RFC 8785 requires: only ", \ and control
// characters are escaped (\b \t \n \f \r short forms, others \u00xx);
// invalid UTF-8 becomes U+FFFD as encoding/json does.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	// The usual string is plain ASCII throughout: one look-up per byte,
	// then one copy.
	i := 0
	for i < len(s) && plain[s[i]] {
		i++
	}
	if i == len(s) {
		b = append(b, s...)
		return append(b, '"')
	}
	start := 0
	for i < len(s) {
		c := s[i]
		if plain[c] {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, w := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && w == 1 {
				b = append(b, s[start:i]...)
				b = append(b, "\ufffd"...)
				i += w
				start = i
				continue
			}
			i += w
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// compareUTF16 orders strings by their UTF-16 code units (RFC 8785 §3.2.3).
func compareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, wa := utf8.DecodeRuneInString(a)
		rb, wb := utf8.DecodeRuneInString(b)
		if ra != rb {
			ka, kb := utf16Weight(ra), utf16Weight(rb)
			if ka < kb {
				return -1
			}
			return 1
		}
		a, b = a[wa:], b[wb:]
	}
	switch {
	case a == "" && b == "":
		return 0
	case a == "":
		return -1
	}
	return 1
}

// utf16Weight orders runes as their UTF-16 encodings compare: supplementary
// characters (surrogate pairs, 0xD800…) sort below BMP characters from 0xE000.
func utf16Weight(r rune) int64 {
	switch {
	case r < 0xD800:
		return int64(r)
	case r >= 0x10000:
		return 0xD800 + int64(r-0x10000)
	default:
		return int64(r) + 0x200000
	}
}
