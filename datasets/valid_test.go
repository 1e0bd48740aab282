package datasets

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

var validSeeds = []string{
	``, ` `, `{}`, `[]`, ` {"a" : [1, -2.5e+3, true, false, null, "x"]} `, `{"a":{}}`, `[[],{}]`,
	`{"a":1,}`, `[1,]`, `{"a"}`, `{"a":}`, `{,}`, `{"a":1 "b":2}`, `[1 2]`, `{"a":1]`, `[1}`,
	`01`, `-`, `-0`, `1.`, `.5`, `1e`, `1e+`, `1E-7`, `+1`, `0x1`, `1.5e3.2`, `-01`,
	`tru`, `true`, `nul`, `nulls`, `falsey`, `"\u00e9\ud83d\ude00"`, `"\u00g0"`, `"\x"`, `"\`,
	"\"a\tb\"", "\"\x7f\"", "\"\xff\"", "\"\xed\xa0\x80\"", "\"\xef\xbf\xbd\"", "\"日本語\"",
	"{\"a\":1}\x00", "\xef\xbb\xbf{}", `"abc`, `{"a":"b"}}`, `{"a":"b"} {}`, "{\"a\"\n:\r\n1\t}",
}

// validJSONUTF8 must accept exactly what json.Valid and utf8.Valid accept
// together: accepting more would let goccy/go-json see a line that
// encoding/json rejects.
func TestValidJSONUTF8(t *testing.T) {
	nest := func(n int, open, body, close string) string {
		return strings.Repeat(open, n) + body + strings.Repeat(close, n)
	}
	cases := append([]string{}, validSeeds...)
	for _, n := range []int{maxNesting - 1, maxNesting, maxNesting + 1} {
		cases = append(cases, nest(n, "[", "", "]"), nest(n, "[", "1", "]"),
			nest(n, `{"a":`, "1", "}"), nest(n-1, "[", "{}", "]"), nest(n, "[", "", ""))
	}
	for _, c := range cases {
		want := json.Valid([]byte(c)) && utf8.ValidString(c)
		if got := validJSONUTF8([]byte(c)); got != want {
			t.Errorf("validJSONUTF8(%.60q) = %v, want %v", c, got, want)
		}
	}
}

func FuzzValidJSONUTF8(f *testing.F) {
	for _, s := range append(validSeeds, fuzzSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := json.Valid(b) && utf8.Valid(b)
		if got := validJSONUTF8(b); got != want {
			t.Fatalf("validJSONUTF8(%q) = %v, want %v", b, got, want)
		}
	})
}

func BenchmarkValidJSONUTF8(b *testing.B) {
	line := benchLines(1)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if !validJSONUTF8(line) {
			b.Fatal("bench line rejected")
		}
	}
}
