package datasets

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// sessionsDataset is n sessions of two cases each; the second case of every
// third session is tagged "x".
func sessionsDataset(n int) string {
	var b strings.Builder
	for s := range n {
		for c := range 2 {
			tags := `[]`
			if c == 1 && s%3 == 0 {
				tags = `["x"]`
			}
			fmt.Fprintf(&b, `{"schema":"apeval.case/v1","id":"s%d-%d","session_id":"s%d","seq":%d,"event":"tool.before","tool":{"name":"Bash","arguments":{"command":"ls"}},"tags":%s}`+"\n", s, c, s, c, tags)
		}
	}
	return b.String()
}

func kept(t *testing.T, sel *Selection, n int) []string {
	t.Helper()
	var ids []string
	for s := range n {
		if id := fmt.Sprintf("s%d", s); sel.Keeps(id) {
			ids = append(ids, id)
		}
	}
	return ids
}

func TestSessionFilterSelect(t *testing.T) {
	data := sessionsDataset(10) + "not json\n"
	sel := func(f SessionFilter, owns func(string) bool) *Selection {
		t.Helper()
		s, err := f.Select(Open([]string{"-"}, strings.NewReader(data)), owns)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := sel(SessionFilter{Seed: 7}, nil); s != nil || !s.Keeps("anything") || !s.Reports(nil) {
		t.Fatalf("inactive filter: %+v, want nil keeping all", s)
	}
	s := sel(SessionFilter{Limit: 3}, nil)
	if got := kept(t, s, 10); !slices.Equal(got, []string{"s0", "s1", "s2"}) || s.Cases != 6 {
		t.Errorf("--limit 3 kept %v (%d cases), want the first three whole sessions", got, s.Cases)
	}
	s = sel(SessionFilter{Tags: []string{"x"}}, nil)
	if got := kept(t, s, 10); !slices.Equal(got, []string{"s0", "s3", "s6", "s9"}) || s.Cases != 8 {
		t.Errorf("--tag x kept %v (%d cases)", got, s.Cases)
	}
	if s.Reports(nil) || !s.Reports([]string{"y", "x"}) {
		t.Error("--tag x: an untagged case of a kept session is replayed, not reported")
	}
	s = sel(SessionFilter{Tags: []string{"x"}, Limit: 2}, nil)
	if got := kept(t, s, 10); !slices.Equal(got, []string{"s0", "s3"}) {
		t.Errorf("--tag x --limit 2 kept %v: the limit counts tagged sessions", got)
	}
	a, b := sel(SessionFilter{Sample: 4, Seed: 1}, nil), sel(SessionFilter{Sample: 4, Seed: 1}, nil)
	if ka := kept(t, a, 10); len(ka) != 4 || !slices.Equal(ka, kept(t, b, 10)) {
		t.Errorf("--sample 4: %v and %v, want the same 4 sessions for one seed", ka, kept(t, b, 10))
	}
	// The draw of a seed is part of the output: a change here changes which
	// sessions every seeded --sample run replays.
	if got := kept(t, a, 10); !slices.Equal(got, []string{"s0", "s2", "s3", "s6"}) {
		t.Errorf("--sample 4 --seed 1 drew %v; the PCG stream changed", got)
	}
	if c := sel(SessionFilter{Sample: 4, Seed: 2}, nil); slices.Equal(kept(t, c, 10), kept(t, a, 10)) {
		t.Error("another seed drew the same sessions")
	}
	even := func(id string) bool { return (id[1]-'0')%2 == 0 }
	s = sel(SessionFilter{Limit: 2}, even)
	if got := kept(t, s, 10); !slices.Equal(got, []string{"s0", "s2"}) {
		t.Errorf("--limit 2 in a shard kept %v, want the shard's first two", got)
	}
	s = sel(SessionFilter{Limit: 50}, nil)
	if got := kept(t, s, 10); len(got) != 10 {
		t.Errorf("--limit beyond the sessions kept %d", len(got))
	}
}

// TestSessionFilterUnknownTag: a tag no case carries is an error naming
// it and the dataset's tags (a mistyped --tag replayed nothing and the
// run said INCONCLUSIVE over no case); a tag some shard has is not, even
// where this shard holds none of its sessions.
func TestSessionFilterUnknownTag(t *testing.T) {
	data := sessionsDataset(4)
	_, err := SessionFilter{Tags: []string{"nope", "y"}}.Select(Open([]string{"-"}, strings.NewReader(data)), nil)
	if err == nil || err.Error() != "tag filter nope, y: no case of the dataset carries it, so nothing would be replayed (the dataset's tags: x)" {
		t.Errorf("unknown tags: %v", err)
	}
	// One of the tags exists: the filter replays its sessions.
	s, err := SessionFilter{Tags: []string{"nope", "x"}}.Select(Open([]string{"-"}, strings.NewReader(data)), nil)
	if err != nil || !slices.Equal(kept(t, s, 4), []string{"s0", "s3"}) {
		t.Errorf("--tag nope --tag x: kept %v, %v", kept(t, s, 4), err)
	}
	// x is in sessions 0 and 3 only; a shard owning 1 and 2 replays none.
	s, err = SessionFilter{Tags: []string{"x"}}.Select(Open([]string{"-"}, strings.NewReader(data)), func(id string) bool { return id == "s1" || id == "s2" })
	if err != nil || len(kept(t, s, 4)) != 0 {
		t.Errorf("a shard without the tag's sessions: kept %v, %v", kept(t, s, 4), err)
	}
	// A dataset without any tag says so.
	untagged := strings.ReplaceAll(data, `"tags":["x"]`, `"tags":[]`)
	if _, err := (SessionFilter{Tags: []string{"x"}}).Select(Open([]string{"-"}, strings.NewReader(untagged)), nil); err == nil || !strings.HasSuffix(err.Error(), "(the dataset's tags: none)") {
		t.Errorf("untagged dataset: %v", err)
	}
}

func TestSessionFilterReadError(t *testing.T) {
	_, err := SessionFilter{Limit: 1}.Select(Open([]string{"/nonexistent/cases.jsonl"}, nil), nil)
	if err == nil {
		t.Fatal("an unreadable file gave no error")
	}
}

func TestInvalidLinesPolicy(t *testing.T) {
	bad := func(i int, late bool) Record {
		return Record{Err: &LineError{File: "f", Line: i, Field: "id", Msg: "x"}, Late: late}
	}
	var fail InvalidLines
	for i := range MaxListedInvalid + 5 {
		fail.Add(bad(i+1, i == 3))
	}
	if !fail.Failing() || fail.Count != MaxListedInvalid+5 || len(fail.Listed) != MaxListedInvalid || fail.Late != nil {
		t.Errorf("without Skip: failing %v, count %d, listed %d, late %v", fail.Failing(), fail.Count, len(fail.Listed), fail.Late)
	}
	if fail.First.(*LineError).Line != 1 {
		t.Errorf("first %v", fail.First)
	}
	skip := InvalidLines{Skip: true}
	skip.Add(bad(1, false))
	if skip.Failing() || skip.Late != nil || len(skip.Listed) != 0 || skip.Count != 1 {
		t.Errorf("with Skip, an invalid line is counted and left out: %+v", skip)
	}
	skip.Add(bad(2, true))
	skip.Add(bad(3, true))
	if skip.Late == nil || skip.Late.(*LineError).Line != 2 {
		t.Errorf("with Skip, the first late duplicate is kept: %v", skip.Late)
	}
}
