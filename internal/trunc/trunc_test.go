package trunc

import (
	"testing"
	"unicode/utf8"
)

func TestTrunc(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		f    func(string, int) string
		in   string
		n    int
		want string
	}{
		{"width fits", Width, "abcd", 4, "abcd"},
		{"width one over", Width, "abcde", 4, "abc…"},
		{"width runes", Width, "日本語です", 3, "日本…"},
		{"runes fits", Runes, "abcd", 4, "abcd"},
		{"runes one over", Runes, "abcde", 4, "abcd…"},
		{"runes multibyte fits", Runes, "日本語", 3, "日本語"},
		{"runes multibyte over", Runes, "日本語です", 3, "日本語…"},
		{"bytes fits", Bytes, "abcd", 4, "abcd"},
		{"bytes one over", Bytes, "abcde", 4, "abcd…"},
		// 日 is three bytes: a cut at 4 bytes backs off to the boundary at 3.
		{"bytes boundary", Bytes, "日本語", 4, "日…"},
		{"bytes inside the first", Bytes, "日本語", 2, "…"},
	}
	for _, tt := range tests {
		got := tt.f(tt.in, tt.n)
		if got != tt.want || !utf8.ValidString(got) {
			t.Errorf("%s: %q, %d = %q; want %q", tt.name, tt.in, tt.n, got, tt.want)
		}
	}
}

func TestList(t *testing.T) {
	for _, c := range []struct {
		items []string
		n     int
		want  string
	}{
		{nil, 3, ""},
		{[]string{"a", "b", "c"}, 3, "a, b, c"},
		{[]string{"a", "b", "c", "d"}, 3, "a, b, c and 1 more"},
		{[]string{"a", "b", "c", "d", "e"}, 2, "a, b and 3 more"},
	} {
		if got := List(c.items, c.n); got != c.want {
			t.Errorf("List(%q, %d) = %q, want %q", c.items, c.n, got, c.want)
		}
	}
}
