package datasets

import (
	"errors"
	"fmt"
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
		!strings.Contains(msg, "\n  a.jsonl:1: id: missing\n") || !strings.HasSuffix(msg, "\n  … and 3 more (apeval datasets validate lists them all)") {
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
