package metrics

import (
	"testing"

	"github.com/apeval/apeval/replay"
)

func TestSlices(t *testing.T) {
	t.Parallel()
	mk := func(id, judge, tool, cat string, tags []string, res string) *replay.Result {
		return &replay.Result{CaseID: id, SessionID: id, Judge: judge, ToolName: tool, Category: cat, Tags: tags,
			Rules: []replay.RuleResult{rr("R", "style", "judge", res, "match", "ok", res == "match", -1)}}
	}
	var rs []*replay.Result
	// c1 tags a, b (B misses, C catches); c2 tag a (both catch); c3 no tag,
	// no tool (both miss). The same tag twice counts once.
	for _, j := range []string{"B", "C"} {
		res1 := map[string]string{"B": "no_match", "C": "match"}[j]
		rs = append(rs, mk("c1", j, "Bash", "command_execution", []string{"a", "b", "a"}, res1),
			mk("c2", j, "Read", "", []string{"a"}, "match"),
			mk("c3", j, "", "", nil, "no_match"))
	}
	s := summarize(t, Config{Criteria: replay.DefaultKillCriteria(), Baseline: "B", Slices: []string{SliceTag, SliceCategory}}, rs)
	var got []string
	rows := map[string]*Row{}
	for _, sl := range s.Slices {
		got = append(got, sl.Slice+"="+sl.Value)
		rows[sl.Slice+"="+sl.Value+"/"+sl.Judges[0].Judge] = sl.Judges[0].Total
	}
	want := []string{"tag=a", "tag=b", "category=(none)", "category=command_execution"}
	if len(got) != len(want) {
		t.Fatalf("slices %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("slices %v, want %v", got, want)
		}
	}
	// tag a: c1 and c2 (c1 once despite its repeated tag); baseline B
	// caught c2 only: recall 1/2.
	if r := rows["tag=a/B"]; r.Cases != 2 || r.TP != 1 || r.FN != 1 {
		t.Errorf("tag a, B: %d cases TP %d FN %d", r.Cases, r.TP, r.FN)
	}
	// category (none): c2, c3.
	if r := rows["category=(none)/B"]; r.Cases != 2 {
		t.Errorf("category (none): %d cases", r.Cases)
	}
	// The whole run is unchanged by slicing.
	if s.Judge("B").Total.Cases != 3 {
		t.Errorf("whole run: %d cases", s.Judge("B").Total.Cases)
	}
	// Comparisons per slice value, each ending with its "*" total.
	cmp := s.Comparisons[0]
	if len(cmp.Slices) != 4 {
		t.Fatalf("%d slice comparisons", len(cmp.Slices))
	}
	a := cmp.Slices[0]
	tot := a.Rules[len(a.Rules)-1]
	if a.Slice != "tag" || a.Value != "a" || tot.RuleID != AllRules {
		t.Fatalf("first slice comparison %s=%s ends with %s", a.Slice, a.Value, tot.RuleID)
	}
	// Recall on tag a: 2 positives, B caught 1, C caught 2: b = 0, c = 1.
	if f := tot.Figures[0]; f.Figure != FigureRecall || f.N != 2 || *f.DiscordantBaseline != 0 || *f.DiscordantCandidate != 1 {
		t.Errorf("tag a recall %+v", f)
	}
	if err := CheckSlices([]string{"tag", "rule"}); err == nil {
		t.Error("slice rule accepted")
	}
}
