package metrics

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/apeval/apeval/replay"
)

// TestFewSessionsDocExcerpt: docs/statistics.md's example reason for a
// figure on two sessions ("2 sessions of 120 judged calls, 20 and 45 of
// them unknown") is the reason apeval gives on exactly those data, word for
// word and figure for figure.
func TestFewSessionsDocExcerpt(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../docs/statistics.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	const lead = "them unknown):\n\n```\n"
	at := strings.Index(doc, lead)
	if at < 0 {
		t.Fatal("docs/statistics.md has no few-sessions excerpt after \"them unknown):\"")
	}
	want := doc[at+len(lead):]
	want = strings.TrimSpace(want[:strings.Index(want, "```")])
	var rs []*replay.Result
	for s, unknown := range []int{20, 45} {
		for i := range 120 {
			result := "no_match"
			if i < unknown {
				result = "unknown"
			}
			rs = append(rs, &replay.Result{CaseID: fmt.Sprintf("s%d-%d", s, i), SessionID: fmt.Sprintf("s%d", s), Judge: "J",
				Rules: []replay.RuleResult{rr("R1", "style", "judge", result, "no_match", "ok", false, -1)}})
		}
	}
	c, ok := statusesOf(closeAll(rs, ""))["R1 "+CriterionUnknownRateMax]
	if !ok {
		t.Fatal("no unknown_rate_max on R1")
	}
	if c.Status != StatusInconclusive || c.Reason != want {
		t.Errorf("unknown_rate_max over 2 sessions: %s\n%s\ndocs/statistics.md shows\n%s", c.Status, c.Reason, want)
	}
}
