package datasets

import (
	"fmt"
	"strings"
	"testing"
)

const vline = `{"id":"%s","session_id":"%s","seq":%d,"hook_point":"tool.before","tool":{"name":"Bash","arguments":{"command":"ls"}},"labels":{"%s":"match"}}`

func vcase(id, sess string, seq int, rule string) string {
	return fmt.Sprintf(vline, id, sess, seq, rule)
}

func TestValidateCountsWhatRunRefuses(t *testing.T) {
	in := strings.Join([]string{
		vcase("c1", "s", 1, "rm"),
		vcase("c2", "s", 3, "rm"),
		vcase("c3", "s", 2, "typo"), // out of seq order
		"{oops",
		vcase("c1", "t", 1, "rm"), // duplicate id, found late
	}, "\n") + "\n"
	r := Open([]string{"-"}, strings.NewReader(in))
	defer r.Close()
	stray := NewStrayLabels([]string{"rm"})
	var seen []string
	v, err := Validate(r, stray, func(msg string) { seen = append(seen, msg) })
	if err != nil {
		t.Fatal(err)
	}
	if v.Invalid != 3 || v.Valid != 2 || len(v.Errors) != 3 || strings.Join(seen, "|") != strings.Join(v.Errors, "|") {
		t.Fatalf("valid %d invalid %d errors %q (seen %q); want 2 valid (c1, c2), 3 invalid", v.Valid, v.Invalid, v.Errors, seen)
	}
	for _, want := range []string{"stdin:3", "stdin:4", "stdin:5"} {
		if !strings.Contains(strings.Join(v.Errors, "\n"), want) {
			t.Errorf("no error naming %s: %q", want, v.Errors)
		}
	}
	if ids := stray.IDs(); len(ids) != 0 {
		t.Errorf("stray labels %v: c3's typo is on an invalid line", ids)
	}
}

func TestToolsOfAndUnlabeled(t *testing.T) {
	in := vcase("c1", "s", 1, "rm") + "\n" + vcase("c2", "s", 2, "rm") + "\n\n"
	r := Open([]string{"-"}, strings.NewReader(in))
	defer r.Close()
	rows, err := ToolsOf(r, nil)
	if err != nil || len(rows) != 1 || rows[0].Tool != "Bash" || rows[0].Cases != 2 {
		t.Fatalf("rows %+v, %v", rows, err)
	}
	out, err := Unlabeled([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(out), "\n") != 2 || strings.Contains(string(out), `"rm"`) || !strings.Contains(string(out), `"labels":{}`) {
		t.Errorf("unlabeled:\n%s", out)
	}
}

// TestValidationJSON: --json's shape: errors [] when none, the stray
// rules only with a policy check, keys in order.
func TestValidationJSON(t *testing.T) {
	var b strings.Builder
	if err := (Validation{Valid: 2}).WriteJSON(&b, nil); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"errors\": [],\n  \"invalid\": 0,\n  \"valid\": 2\n}\n"; b.String() != want {
		t.Errorf("no errors:\n%s\nwant\n%s", b.String(), want)
	}
	stray := NewStrayLabels([]string{"rm"})
	r := Open([]string{"-"}, strings.NewReader(vcase("c1", "s", 1, "typo")+"\n"))
	defer r.Close()
	v, err := Validate(r, stray, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := (Validation{Valid: v.Valid, Invalid: 1, Errors: []string{"x:1: id: missing"}}).WriteJSON(&b, stray); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"errors\": [\n    \"x:1: id: missing\"\n  ],\n  \"invalid\": 1,\n  \"unknown_label_rules\": [\n    \"typo\"\n  ],\n  \"valid\": 1\n}\n"; b.String() != want {
		t.Errorf("with stray rules:\n%s\nwant\n%s", b.String(), want)
	}
}
