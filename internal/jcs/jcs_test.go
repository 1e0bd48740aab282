package jcs

import (
	"encoding/json"
	"math"
	"testing"

	refjcs "github.com/gowebpki/jcs"
)

// reference is what the RFC 8785 reference library makes of v.
func reference(t testing.TB, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := refjcs.Transform(raw)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestAppendValueMatchesReference(t *testing.T) {
	for _, v := range []any{
		nil, true, "plain", "quote \" backslash \\ tab \t nl \n bell \a", "日本語 and é",
		0.0, math.Copysign(0, -1), 1.0, 1e21, 1.5e-7, 123456789012345678.0, 0.1 + 0.2, json.Number("12.50"),
		42, int64(-7),
		// Keys sort by UTF-16 code units: "\U0001F600" (a surrogate pair,
		// 0xD83D…) sorts before "\uFB33" (0xFB33) although its rune is larger.
		map[string]any{"b": 1.0, "a": []any{"x", 2.0, nil}, "\U0001F600": "emoji", "\uFB33": "hebrew", "": "empty"},
		[]any{map[string]any{"z": map[string]any{"y": false}}},
		// One member (its own path), and none.
		map[string]any{"com\"mand\u2028é": "rm -rf /tmp/x"}, map[string]any{},
		struct{ B, A int }{2, 1}, // any other Go value: through encoding/json
	} {
		var w Writer
		got := string(w.AppendValue(nil, v))
		if want := reference(t, v); got != want {
			t.Errorf("AppendValue(%#v) = %s, want %s", v, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a", "\x00\x1f\x7f", "\xff invalid", "\u2028\u2029", "<>&"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := string(AppendString(nil, s))
		if want := reference(t, s); got != want {
			t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
		}
	})
}

// benchArgs is a tool call's canonical object as replay fingerprints it: a
// shell command with a few arguments, the usual shape of a recorded case.
var benchArgs = map[string]any{
	"session_id": "s-000123", "piece": "deploy", "movement": "ship", "tool_name": "Bash", "rule_id": "nl-delete", "rule_version": 3.0,
	"arguments": map[string]any{"command": "git push --force origin main && rm -rf build/ dist/", "timeout": 120000.0,
		"description": "Push the release branch and clean the build outputs", "run_in_background": false},
}

// BenchmarkCanonical is the measurement behind this package (docs/internals.md):
// the same canonical bytes written directly, and through the reference
// library's round trip (json.Marshal, then jcs.Transform parses and
// re-serialises).
func BenchmarkCanonical(b *testing.B) {
	b.Run("direct", func(b *testing.B) {
		var w Writer
		var buf []byte
		b.ReportAllocs()
		for b.Loop() {
			buf = w.AppendValue(buf[:0], benchArgs)
		}
	})
	b.Run("reference", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			raw, err := json.Marshal(benchArgs)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := refjcs.Transform(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestBenchArgsAgree(t *testing.T) {
	t.Parallel()
	var w Writer
	if got, want := string(w.AppendValue(nil, benchArgs)), reference(t, benchArgs); got != want {
		t.Errorf("direct %s\nreference %s", got, want)
	}
}
