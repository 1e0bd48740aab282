package datasets

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// The JSON scanning primitives of caseParser (fastdecode.go): each accepts
// exactly what encoding/json's scanner accepts, so the parser gives up
// where encoding/json would fail and the reference error is reported.

// strPlain marks the bytes a JSON string may hold as they are: printable
// ASCII other than '"' and '\\'. Everything else needs a closer look.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func hasLiteral(b []byte, i int, lit string) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit
}

// scanString scans the string starting at the quote b[i]; it returns the
// index after the closing quote and whether the string holds escapes.
func scanString(b []byte, i int) (end int, escaped, ok bool) {
	i++
	for i < len(b) {
		// Eight bytes at a time while they are all plain: most of a case
		// line is string content, and this loop was a tenth of decoding.
		for i+8 <= len(b) {
			if m := specialBytes(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		if i >= len(b) {
			break
		}
		switch c := b[i]; {
		case strPlain[c]: // within the last eight bytes
			i++
			continue
		case c == '"': // the usual end, without a call
			return i + 1, escaped, true
		}
		var done bool
		if i, escaped, ok, done = scanSpecial(b, i, escaped); done {
			return i, escaped, ok
		}
	}
	return i, false, false
}

// scanSpecial scans the byte b[i] of a string that is not plain: the
// closing quote (done, ok), an escape or a UTF-8 sequence (the index after
// it), or an error (done, not ok).
func scanSpecial(b []byte, i int, escaped bool) (next int, esc, ok, done bool) {
	switch c := b[i]; {
	case c == '"':
		return i + 1, escaped, true, true
	case c == '\\':
		if i+1 >= len(b) {
			return i, false, false, true
		}
		switch b[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			return i + 2, true, true, false
		case 'u':
			if len(b)-i < 6 || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
				return i, false, false, true
			}
			return i + 6, true, true, false
		}
		return i, false, false, true
	case c < 0x20:
		return i, false, false, true
	}
	// c >= 0x80
	r, size := utf8.DecodeRune(b[i:])
	if r == utf8.RuneError && size == 1 {
		return i, false, false, true
	}
	return i + size, escaped, true, false
}

const (
	lsb = 0x0101010101010101 // the low bit of each byte
	msb = 0x8080808080808080 // the high bit of each byte
)

// specialBytes flags the bytes of w (eight bytes, the first in the low
// byte) that are not plain in a string: '"', '\\', a control character or a
// byte of a multi-byte UTF-8 sequence. Each test may also flag bytes above
// a flagged one (a borrow runs upward), never below, so the lowest flag is
// exact: the caller looks only at that one.
func specialBytes(w uint64) uint64 {
	quote := w ^ (lsb * '"')
	slash := w ^ (lsb * '\\')
	return ((quote-lsb)&^quote | (slash-lsb)&^slash | (w-lsb*0x20)&^w | w) & msb
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// scanNumber scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? at b[i].
func scanNumber(b []byte, i int) (int, bool) {
	n := len(b)
	if b[i] == '-' {
		i++
	}
	switch {
	case i < n && b[i] == '0':
		i++
	case i < n && '1' <= b[i] && b[i] <= '9':
		for i++; i < n && isDigit(b[i]); i++ {
		}
	default:
		return i, false
	}
	if i < n && b[i] == '.' {
		i++
		if i >= n || !isDigit(b[i]) {
			return i, false
		}
		for i++; i < n && isDigit(b[i]); i++ {
		}
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < n && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= n || !isDigit(b[i]) {
			return i, false
		}
		for i++; i < n && isDigit(b[i]); i++ {
		}
	}
	return i, true
}
