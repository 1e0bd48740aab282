package datasets

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestInvalidLinesErr(t *testing.T) {
	bad := func(n int) Record {
		return Record{Err: &LineError{File: "a.jsonl", Line: n, Field: "id", Msg: "missing"}}
	}
	fail := InvalidLines{}
	for i := range MaxListedInvalid + 3 {
		fail.Add(bad(i + 1))
	}
	err := fail.Err("replayed")
	var in *InvalidInput
	if !errors.As(err, &in) || in.Total != int64(MaxListedInvalid+3) || len(in.Errs) != MaxListedInvalid {
		t.Fatalf("without Skip: %v", err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "the dataset has 23 invalid line(s); fix them or pass --skip-invalid") ||
		!strings.Contains(msg, "\n  a.jsonl:1: id: missing\n") || !strings.HasSuffix(msg, "\n  … and 3 more (apeval datasets validate --all lists them all):\n    3 × id: missing") {
		t.Errorf("message:\n%s", msg)
	}
	skip := InvalidLines{Skip: true}
	skip.Add(bad(1))
	if err := skip.Err("replayed"); err != nil {
		t.Errorf("skipped lines: %v", err)
	}
	late := bad(9)
	late.Late = true
	skip.Add(late)
	if err := skip.Err("replayed"); err == nil || !strings.Contains(err.Error(), "a.jsonl:9: id: missing: found only at the end of the input, after that line's case was replayed") {
		t.Errorf("a late duplicate with Skip: %v", err)
	}
}

func TestMaskedLineTextMasksPartByPart(t *testing.T) {
	key := "sk-proj-EXAMPLEa1b2c3d4e5f6g7h8i9j0"
	got := MaskedLineText(&LineError{File: "a.jsonl", Line: 2, Field: "labels.password", Msg: "unknown value " + key})
	if strings.Contains(got, key) || !strings.HasPrefix(got, "a.jsonl:2: labels.password: unknown value ") {
		t.Errorf("%q: want the field and the message's words kept, the key masked", got)
	}
	if got := MaskedLineText(fmt.Errorf("reading: token %s", key)); strings.Contains(got, key) {
		t.Errorf("another error: %q", got)
	}
}

// TestErrorKind: a line error's kind leaves out the line's own values, so
// lines that fail the same way count together; list indexes become [*].
func TestErrorKind(t *testing.T) {
	for _, tc := range []struct {
		line string
		want string
	}{
		{`{"id":"a","tool":{"name":"B","category":"weird1"}}`, "tool.category: unknown value … (want one of …)"},
		{`{"id":"a","tool":{"name":"B"},"time":"yesterday"}`, "time: want an RFC 3339 time string, got …"},
		{`{"id":"a","tool":{"name":"B"},"recorded":[{"judge":"j"},{"latency_ms":3}]}`, "recorded[*].judge: required"},
		{`{"id":"a","tool":{"name":"B"},"seq":"x"}`, "seq: expected integer, got string"},
		{`[1, 2]`, "not a JSON object (got …)"},
		{`{"id":"a","tool":{"name":"B","category":"git"},"labels":{"r1":"yes"}}`, "labels.r1: unknown value … (want match or no_match)"},
	} {
		_, err := Decode([]byte(tc.line), "f.jsonl", 7, nil)
		if err == nil {
			t.Fatalf("%s: decoded", tc.line)
		}
		if got := ErrorKind(err); got != tc.want {
			t.Errorf("%s: kind %q (error %q), want %q", tc.line, got, err, tc.want)
		}
	}
	if got := ErrorKind(&SeqError{Source: "f:3", SessionID: "s", Seq: 1, Prev: 4}); !strings.HasPrefix(got, "seq: goes back") {
		t.Errorf("seq order: kind %q", got)
	}
}

// TestValidationKindsAfter: the lines validate does not list are counted
// by kind, most frequent first, and only those after the first n.
func TestValidationKindsAfter(t *testing.T) {
	var lines []string
	for i := range 30 {
		switch {
		case i < 22:
			lines = append(lines, fmt.Sprintf(`{"id":"a%d","tool":{"name":"B","category":"w%d"}}`, i, i))
		case i < 25:
			lines = append(lines, fmt.Sprintf(`{"id":"b%d","tool":{"name":""}}`, i))
		default:
			lines = append(lines, fmt.Sprintf(`{"id":"c%d","tool":{"name":"B"}}`, i))
		}
	}
	r := Open([]string{"-"}, strings.NewReader(strings.Join(lines, "\n")+"\n"))
	defer r.Close()
	v, err := Validate(r, nil, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	if v.Valid != 5 || v.Invalid != 25 || len(v.Errors) != 25 {
		t.Fatalf("valid %d invalid %d errors %d", v.Valid, v.Invalid, len(v.Errors))
	}
	got := v.KindsAfter(20)
	want := []KindCount{{"tool.name: required", 3}, {"tool.category: unknown value … (want one of …)", 2}}
	if !slices.Equal(got, want) {
		t.Errorf("after 20: %v, want %v", got, want)
	}
	if got := v.KindsAfter(100); len(got) != 0 {
		t.Errorf("after all: %v", got)
	}
	var b strings.Builder
	WriteRest(&b, "", "--all lists every line", got)
	if b.String() != "… and 5 more (--all lists every line):\n  3 × tool.name: required\n  2 × tool.category: unknown value … (want one of …)\n" {
		t.Errorf("WriteRest:\n%s", b.String())
	}
}
