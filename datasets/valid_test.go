package datasets

import (
	"math/rand/v2"
	"testing"
)

// scanStringBytewise is scanString one byte at a time, as it was before
// it learned to skip eight plain bytes at once: the reference it must
// agree with.
func scanStringBytewise(b []byte, i int) (end int, escaped, ok bool) {
	i++
	for i < len(b) {
		if strPlain[b[i]] {
			i++
			continue
		}
		var done bool
		if i, escaped, ok, done = scanSpecial(b, i, escaped); done {
			return i, escaped, ok
		}
	}
	return i, false, false
}

// Every byte value at every offset of an eight-byte word, after plain runs
// of every length, scans as the byte-at-a-time loop scans it.
func TestScanStringMatchesBytewise(t *testing.T) {
	t.Parallel()
	check := func(b []byte) {
		t.Helper()
		e1, x1, ok1 := scanString(b, 0)
		e2, x2, ok2 := scanStringBytewise(b, 0)
		if e1 != e2 || x1 != x2 || ok1 != ok2 {
			t.Fatalf("%q: got (%d, %v, %v), byte by byte (%d, %v, %v)", b, e1, x1, ok1, e2, x2, ok2)
		}
	}
	for run := 0; run < 20; run++ {
		for c := 0; c < 256; c++ {
			b := []byte{'"'}
			for k := 0; k < run; k++ {
				b = append(b, 'a'+byte(k%26))
			}
			b = append(b, byte(c))
			check(b)                                          // ends right after the byte
			check(append(append([]byte{}, b...), "xyz\""...)) // and with a tail
			check(append(append([]byte{}, b...), "0041\"tail ends here"...))
		}
	}
	// Random strings mixing plain bytes, quotes, escapes, controls and
	// UTF-8 (valid and broken).
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "bcdefghi", " ", "\"", "\\\"", "\\n", "\\u00e9", "\\u12", "\\x", "\x01", "\x7f",
		"é", "メモ", "🚀", "\xff", "\xc3", "\xe3\x83"}
	for n := 0; n < 20000; n++ {
		b := []byte{'"'}
		for k := rng.IntN(12); k >= 0; k-- {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		check(b)
		check(append(b, '"'))
	}
}

func TestSpecialBytesLowestFlagIsExact(t *testing.T) {
	t.Parallel()
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 8; pos++ {
			var w [8]byte
			for k := range w {
				w[k] = 'x'
			}
			w[pos] = byte(c)
			m := specialBytes(uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
				uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56)
			if strPlain[c] != (m == 0) {
				t.Errorf("byte %#x at %d: mask %#x, plain %v", c, pos, m, strPlain[c])
			}
			if m != 0 && m&-m != 0x80<<(8*pos) {
				t.Errorf("byte %#x at %d: lowest flag %#x", c, pos, m&-m)
			}
		}
	}
}
