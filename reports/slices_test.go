package reports

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
)

// slicedReport is the fixture run sliced by tool: even cases ran Bash, odd
// ones Read.
func slicedReport() *Report {
	acc := metrics.New(metrics.Config{Criteria: replay.DefaultKillCriteria(), Baseline: "recorded/judge-v1",
		Slices: []string{metrics.SliceTool}})
	for _, r := range summaryResults() {
		r.ToolName = "Read"
		if (r.CaseID[len(r.CaseID)-1]-'0')%2 == 0 {
			r.ToolName = "Bash"
		}
		acc.Add(r)
	}
	info := testInfo()
	info.RunID = "run-fixture"
	return &Report{Run: info, Summary: acc.Close(), Exit: 1} // the fixture is NO-GO: exit 1, as cmd maps it
}

func TestSlicedTables(t *testing.T) {
	t.Parallel()
	rep := slicedReport()
	var b bytes.Buffer
	if err := rep.WriteTables(&b, FormatTable); err != nil {
		t.Fatal(err)
	}
	golden(t, "tables-slices.txt", b.Bytes())
	// The whole run is what it is without slices.
	var plain bytes.Buffer
	if err := fixtureReport().WriteTables(&plain, FormatTable); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "by tool") || !strings.Contains(b.String(), " Bash ") {
		t.Error("no slice section")
	}

	var tsv bytes.Buffer
	if err := rep.WriteTables(&tsv, FormatTSV); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(tsv.String()), "\n")
	header := strings.Split(lines[0], "\t")
	si, vi := slices.Index(header, "slice"), slices.Index(header, "slice_value")
	if si < 0 || vi != si+1 {
		t.Fatalf("TSV header has no slice, slice_value: %q", lines[0])
	}
	bash := 0
	for _, l := range lines[1:] {
		if f := strings.Split(l, "\t"); f[si] == "tool" && f[vi] == "Bash" {
			bash++
		}
	}
	// Two judges × (total + 4 rules) for the Bash slice.
	if bash != 10 {
		t.Errorf("%d TSV rows for tool=Bash, want 10", bash)
	}

	c := rep.Summary.Comparisons[0]
	if len(c.Slices) != 2 || c.Slices[0].Value != "Bash" || c.Slices[1].Value != "Read" {
		t.Fatalf("comparison slices %+v", c.Slices)
	}
	var cb bytes.Buffer
	if err := rep.WriteComparison(&cb, c, FormatTable); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare-slices.txt", cb.Bytes())
}
