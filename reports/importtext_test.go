package reports

import (
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets/importers"
	"github.com/apeval/apeval/replay/automode"
)

func TestWriteImportSummaryCountsAndGates(t *testing.T) {
	s := &importers.Summary{Format: "codex-rollout", Records: 12, Cases: 7, Sessions: 2, Errors: 1,
		Skipped: map[string]int{"reasoning": 3, "message": 2},
		Sources: []*importers.SourceSummary{{Source: "a.jsonl", Records: 12, Cases: 7, Sessions: 2, ErrCount: 1,
			Skipped: map[string]int{"reasoning": 3, "message": 2}, Notes: map[string]int{"auto-review: approved": 4, "auto-review: denied": 1, "other": 9},
			Warnings: []string{"odd"}}}}
	var b strings.Builder
	WriteImportSummary(&b, s)
	want := "a.jsonl: 12 records, 7 cases, 2 sessions, 1 unreadable; skipped 5 (message 2, reasoning 3)\n" +
		"a.jsonl: auto-review: approved 4, denied 1\n" +
		"a.jsonl: warning: odd\n" +
		"codex-rollout: 1 sources, 12 records, 7 cases, 2 sessions, 1 unreadable; skipped 5 (message 2, reasoning 3)\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestWriteCoverageTotalsAndNA(t *testing.T) {
	cv := &automode.Coverage{Total: automode.CoverageRow{Key: "total", Calls: 4, Reached: 1, NotReached: 3},
		ByTool:  []automode.CoverageRow{{Key: "Bash", Calls: 4, Reached: 1, NotReached: 3}, {Key: "None"}},
		Reasons: map[string]int{"read-only": 2, "allow rule": 1}, NotReachedListed: true,
		NotReached: []automode.NotReached{{CaseID: "c1", Tool: "Read", Category: "read", Reason: "read-only"}}}
	var b strings.Builder
	WriteCoverage(&b, cv, true)
	out := b.String()
	for _, want := range []string{"25.0 %", "N/A", "classifier coverage: 1 of 4 calls reached it (25.0 %); not reached: allow rule 1, read-only 2\n",
		"not reached: c1 Read (read): read-only\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "the first") {
		t.Errorf("a complete list says it is cut:\n%s", out)
	}
}

// TestWriteCoverageTables: the tool and category tables are the report's
// table form (a leading blank, keys left, numbers right), each with the
// total as its last row, a blank line between them.
func TestWriteCoverageTables(t *testing.T) {
	total := automode.CoverageRow{Key: "*", Calls: 12, Reached: 9, NotReached: 3, Blocked: 2, Ran: 10}
	cv := &automode.Coverage{Total: total, NotReachedListed: true,
		ByTool: []automode.CoverageRow{{Key: "Bash", Calls: 11, Reached: 9, NotReached: 2, Blocked: 2, Ran: 9},
			{Key: "WebFetch", Calls: 1, NotReached: 1, Ran: 1}},
		ByCat: []automode.CoverageRow{{Key: "command_execution", Calls: 12, Reached: 9, NotReached: 3, Blocked: 2, Ran: 10}}}
	var b strings.Builder
	WriteCoverage(&b, cv, false)
	want := ` tool      calls  reached  not reached  coverage  vendor blocked  ran  failed  reached, no recording  classifier on not reached
 Bash         11        9            2    81.8 %               2    9       0                      0                          0
 WebFetch      1        0            1     0.0 %               0    1       0                      0                          0
 *            12        9            3    75.0 %               2   10       0                      0                          0

 category           calls  reached  not reached  coverage  vendor blocked  ran  failed  reached, no recording  classifier on not reached
 command_execution     12        9            3    75.0 %               2   10       0                      0                          0
 *                     12        9            3    75.0 %               2   10       0                      0                          0

classifier coverage: 9 of 12 calls reached it (75.0 %); not reached: 
`
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if len(cv.ByTool) != 2 || len(cv.ByCat) != 1 {
		t.Errorf("WriteCoverage changed its input: %d tools, %d categories", len(cv.ByTool), len(cv.ByCat))
	}
}
