package datasets

import (
	"strings"
	"testing"
)

func TestGroupingSeesASessionComeBack(t *testing.T) {
	feed := func(sessions ...string) bool {
		var g Grouping
		for i, s := range sessions {
			g.Add(&Case{ID: "c" + string(rune('0'+i)), SessionID: s})
		}
		return g.Grouped()
	}
	if !feed("a", "a", "b", "b", "c") {
		t.Error("a a b b c: not grouped")
	}
	if feed("a", "b", "a") {
		t.Error("a b a: grouped")
	}
	if feed() {
		t.Error("no case: grouped")
	}
	if !feed("", "") { // no session: each case its own (ID)
		t.Error("cases without sessions: not grouped")
	}
}

func TestMarkGroupedLeadsTheFirstLine(t *testing.T) {
	var b strings.Builder
	if err := MarkGrouped(&b, strings.NewReader("{\"id\":\"c1\"}\n{\"id\":\"c2\"}\n")); err != nil {
		t.Fatal(err)
	}
	if want := "{\"apeval_sessions\":\"grouped\",\"id\":\"c1\"}\n{\"id\":\"c2\"}\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	if err := MarkGrouped(&b, strings.NewReader("not json\n")); err != nil || b.String() != "not json\n" {
		t.Errorf("no object: %q, %v", b.String(), err)
	}
}
