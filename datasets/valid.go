package datasets

import "unicode/utf8"

// maxNesting is encoding/json's limit on nested arrays and objects; a
// deeper document is not valid to json.Valid.
const maxNesting = 10000

// strPlain marks the bytes a JSON string may hold as they are: printable
// ASCII other than '"' and '\\'. Everything else needs a closer look.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// validJSONUTF8 reports whether line is one valid JSON value that is also
// valid UTF-8: exactly json.Valid(line) && utf8.Valid(line), in one pass
// and several times faster than encoding/json's byte-at-a-time state
// machine. It guards the goccy/go-json fast path of decodeWith; being
// stricter than the reference would only send more lines down the slow
// path, so FuzzValidJSONUTF8 checks that it agrees exactly.
func validJSONUTF8(b []byte) bool {
	// stack holds the open containers: '{' or '['.
	var stackBuf [32]byte
	stack := stackBuf[:0]
	i := 0
	n := len(b)
	for {
		// A value is expected at i.
		i = skipSpace(b, i)
		if i >= n {
			return false
		}
		switch c := b[i]; c {
		case '{', '[':
			if len(stack) >= maxNesting {
				return false
			}
			i = skipSpace(b, i+1)
			if i < n && (c == '{' && b[i] == '}' || c == '[' && b[i] == ']') {
				i++
				break
			}
			stack = append(stack, c)
			if c == '{' {
				var ok bool
				if i, ok = scanKey(b, i); !ok {
					return false
				}
			}
			continue
		case '"':
			var ok bool
			if i, ok = scanString(b, i); !ok {
				return false
			}
		case 't':
			if !hasLiteral(b, i, "true") {
				return false
			}
			i += 4
		case 'f':
			if !hasLiteral(b, i, "false") {
				return false
			}
			i += 5
		case 'n':
			if !hasLiteral(b, i, "null") {
				return false
			}
			i += 4
		default:
			var ok bool
			if i, ok = scanNumber(b, i); !ok {
				return false
			}
		}
		// After a value: close containers, or go on to the next element.
		for {
			i = skipSpace(b, i)
			if len(stack) == 0 {
				return i == n
			}
			if i >= n {
				return false
			}
			top := stack[len(stack)-1]
			c := b[i]
			if c == ',' {
				i++
				if top == '{' {
					var ok bool
					if i, ok = scanKey(b, i); !ok {
						return false
					}
				}
				break
			}
			if top == '{' && c != '}' || top == '[' && c != ']' {
				return false
			}
			stack = stack[:len(stack)-1]
			i++
		}
	}
}

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

// scanKey scans an object key and its colon, from (maybe) whitespace
// before the key; it returns the index after the colon.
func scanKey(b []byte, i int) (int, bool) {
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	i, ok := scanString(b, i)
	if !ok {
		return i, false
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return i, false
	}
	return i + 1, true
}

// scanString scans the string starting at the quote b[i]; it returns the
// index after the closing quote.
func scanString(b []byte, i int) (int, bool) {
	i++
	for i < len(b) {
		c := b[i]
		if strPlain[c] {
			i++
			continue
		}
		switch {
		case c == '"':
			return i + 1, true
		case c == '\\':
			if i+1 >= len(b) {
				return i, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return i, false
				}
				i += 6
			default:
				return i, false
			}
		case c < 0x20:
			return i, false
		default: // c >= 0x80
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return i, false
			}
			i += size
		}
	}
	return i, false
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
