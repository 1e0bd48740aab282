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
