package replay

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"hash"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// Fingerprint is the approval fingerprint of seed 000 §7.3: the lowercase
// hex SHA-256 of the RFC 8785 (JCS) canonical JSON of
// {session_id, piece, movement, tool_name, arguments, rule_id, rule_version}.
// Absent arguments hash as {}; strings are hashed as given (not masked).
func Fingerprint(sessionID, piece, movement, toolName string, arguments map[string]any, ruleID string, ruleVersion int) string {
	var fp fingerprinter
	fp.setCall(sessionID, piece, movement, toolName, arguments)
	return fp.sum(ruleID, ruleVersion)
}

// CanonicalJSON returns the JCS canonical form of the fingerprinted object;
// Fingerprint is the SHA-256 of these bytes.
func CanonicalJSON(sessionID, piece, movement, toolName string, arguments map[string]any, ruleID string, ruleVersion int) []byte {
	var fp fingerprinter
	fp.setCall(sessionID, piece, movement, toolName, arguments)
	return slices.Clone(fp.object(ruleID, ruleVersion))
}

// fingerprinter computes the fingerprints of one call for many rules: the
// call's canonical part is encoded once, only the rule fields change.
type fingerprinter struct {
	head []byte // {"arguments":…,"movement":…,"piece":…,"rule_id":
	tail []byte // ,"session_id":…,"tool_name":…}
	buf  []byte
	keys []string
	// When the head spans SHA-256 blocks (long arguments, a file's content),
	// it is hashed once and each rule resumes from that midstate.
	h     hash.Hash
	state []byte
	mid   bool
	sum32 []byte
}

// midstateMin is the head length from which resuming a saved SHA-256 state
// beats rehashing the head for every rule.
const midstateMin = 128

func (fp *fingerprinter) setCall(sessionID, piece, movement, toolName string, arguments map[string]any) {
	b := append(fp.head[:0], `{"arguments":`...)
	if arguments == nil {
		b = append(b, "{}"...)
	} else {
		b = fp.appendValue(b, arguments)
	}
	b = append(b, `,"movement":`...)
	b = appendJCSString(b, movement)
	b = append(b, `,"piece":`...)
	b = appendJCSString(b, piece)
	b = append(b, `,"rule_id":`...)
	fp.head = b
	t := append(fp.tail[:0], `,"session_id":`...)
	t = appendJCSString(t, sessionID)
	t = append(t, `,"tool_name":`...)
	t = appendJCSString(t, toolName)
	fp.tail = append(t, '}')
	fp.mid = len(fp.head) >= midstateMin
	if fp.mid {
		if fp.h == nil {
			fp.h = sha256.New()
		}
		fp.h.Reset()
		fp.h.Write(fp.head)
		var err error
		fp.state, err = fp.h.(encoding.BinaryAppender).AppendBinary(fp.state[:0])
		fp.mid = err == nil
	}
}

// digest returns the SHA-256 of the canonical object for one rule.
func (fp *fingerprinter) digest(ruleID string, ruleVersion int) [32]byte {
	if !fp.mid {
		return sha256.Sum256(fp.object(ruleID, ruleVersion))
	}
	if err := fp.h.(encoding.BinaryUnmarshaler).UnmarshalBinary(fp.state); err != nil {
		return sha256.Sum256(fp.object(ruleID, ruleVersion))
	}
	b := appendJCSString(fp.buf[:0], ruleID)
	b = append(b, `,"rule_version":`...)
	b = strconv.AppendInt(b, int64(ruleVersion), 10)
	b = append(b, fp.tail...)
	fp.buf = b
	fp.h.Write(b)
	fp.sum32 = fp.h.Sum(fp.sum32[:0])
	return [32]byte(fp.sum32)
}

func (fp *fingerprinter) object(ruleID string, ruleVersion int) []byte {
	b := append(fp.buf[:0], fp.head...)
	b = appendJCSString(b, ruleID)
	b = append(b, `,"rule_version":`...)
	b = strconv.AppendInt(b, int64(ruleVersion), 10)
	b = append(b, fp.tail...)
	fp.buf = b
	return b
}

func (fp *fingerprinter) sum(ruleID string, ruleVersion int) string {
	h := fp.digest(ruleID, ruleVersion)
	return hex.EncodeToString(h[:])
}

// appendValue appends the JCS form of a decoded JSON value.
func (fp *fingerprinter) appendValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case string:
		return appendJCSString(b, v)
	case float64:
		return appendJCSNumber(b, v)
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return append(b, "null"...)
		}
		return appendJCSNumber(b, f)
	case int:
		return appendJCSNumber(b, float64(v))
	case int64:
		return appendJCSNumber(b, float64(v))
	case map[string]any:
		start := len(fp.keys)
		for k := range v {
			fp.keys = append(fp.keys, k)
		}
		keys := fp.keys[start:]
		slices.SortFunc(keys, compareUTF16)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJCSString(b, k)
			b = append(b, ':')
			b = fp.appendValue(b, v[k])
		}
		fp.keys = fp.keys[:start]
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = fp.appendValue(b, e)
		}
		return append(b, ']')
	}
	// Any other Go value: through encoding/json and the reference JCS.
	raw, err := json.Marshal(v)
	if err == nil {
		raw, err = jcs.Transform(raw)
	}
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, raw...)
}

// appendJCSNumber formats like ECMAScript's Number.prototype.toString (RFC 8785 §3.2.2.3).
func appendJCSNumber(b []byte, f float64) []byte {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.AppendInt(b, int64(f), 10)
	}
	s, err := jcs.NumberToJSON(f)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, s...)
}

const hexDigits = "0123456789abcdef"

// appendJCSString quotes s as RFC 8785 requires: only ", \ and control
// characters are escaped (\b \t \n \f \r short forms, others \u00xx);
// invalid UTF-8 becomes U+FFFD as encoding/json does.
func appendJCSString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
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
