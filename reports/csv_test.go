package reports

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"text/tabwriter"
)

// TestCSVIsTheTSVTable: every machine table written as CSV reads back
// (encoding/csv) as exactly the records of its TSV form: the per-rule
// table of report, compare's long form (on weak labels too: the
// label_source column), the gate summary and datasets stats' sections.
func TestCSVIsTheTSVTable(t *testing.T) {
	t.Parallel()
	rep := fixtureReport()
	c := rep.Summary.Compare("recorded/judge-v1", "recorded/judge-v2")
	if c == nil {
		t.Fatal("no comparison")
	}
	weak := fixtureReport()
	weak.Run.LabelSource = "weak"
	gates := NewGateSummary()
	for _, r := range fixtureResults() {
		gates.Add(r)
	}
	for name, write := range map[string]func(*bytes.Buffer, Format) error{
		"tables":       func(b *bytes.Buffer, f Format) error { return rep.WriteTables(b, f) },
		"comparison":   func(b *bytes.Buffer, f Format) error { return rep.WriteComparison(b, c, f) },
		"weak tables":  func(b *bytes.Buffer, f Format) error { return weak.WriteTables(b, f) },
		"gate summary": func(b *bytes.Buffer, f Format) error { return gates.Render(b, f) },
	} {
		var tsv, cs bytes.Buffer
		if err := write(&tsv, FormatTSV); err != nil {
			t.Fatal(name, err)
		}
		if err := write(&cs, FormatCSV); err != nil {
			t.Fatal(name, err)
		}
		recs, err := csv.NewReader(&cs).ReadAll()
		if err != nil {
			t.Fatalf("%s: the CSV does not parse: %v", name, err)
		}
		lines := strings.Split(strings.TrimSuffix(tsv.String(), "\n"), "\n")
		if len(recs) != len(lines) || len(recs) < 2 {
			t.Fatalf("%s: %d CSV records, %d TSV lines", name, len(recs), len(lines))
		}
		for i, l := range lines {
			if got, want := strings.Join(recs[i], "\t"), l; got != want {
				t.Errorf("%s line %d:\n csv %q\n tsv %q", name, i+1, got, want)
			}
		}
		if name == "weak tables" && recs[0][len(recs[0])-1] != "label_source" {
			t.Errorf("weak tables: last CSV column %q, want label_source", recs[0][len(recs[0])-1])
		}
	}
}

// TestCSVQuotes: a cell with a comma, a quote or a line break is quoted
// (RFC 4180), where TSV turns tabs and line breaks into spaces; the CSV
// keeps the cell exactly.
func TestCSVQuotes(t *testing.T) {
	t.Parallel()
	g := &grid{header: []string{"rule", "why"}}
	g.add("r1", `said "no", twice`)
	g.add("r,2", "two\nlines")
	g.add("r3", "plain")
	var b bytes.Buffer
	if err := g.render(&b, FormatCSV); err != nil {
		t.Fatal(err)
	}
	want := "rule,why\nr1,\"said \"\"no\"\", twice\"\n\"r,2\",\"two\nlines\"\nr3,plain\n"
	if b.String() != want {
		t.Errorf("CSV:\n%q\nwant\n%q", b.String(), want)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(recs) != 4 || recs[2][1] != "two\nlines" || recs[1][1] != `said "no", twice` {
		t.Errorf("read back: %q, %v", recs, err)
	}
	if !FormatCSV.Machine() || !FormatTSV.Machine() || FormatTable.Machine() || FormatMarkdown.Machine() {
		t.Error("Machine: TSV and CSV are the machine forms, and only they")
	}
}

// TestAlignedIsTabwriter: the plain table form writes exactly what
// text/tabwriter (padding 2, left-aligned) wrote for the same cells, so a
// table moved onto the grid prints the same bytes; on random grids of
// ASCII and multi-byte cells, empty ones included, and rows shorter than
// the header (tabwriter ends a column block at a line that lacks the
// column: plan's table has such rows).
func TestAlignedIsTabwriter(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	words := []string{"", "a", "rule-1", "N/A (n=3 < 10)", "—", "0.812 [0.700, 0.900]", "κ", "元に戻す", "weak labels vs people"}
	for trial := range 300 {
		cols := 1 + rng.IntN(6)
		g := &grid{plain: true}
		for range cols {
			g.header = append(g.header, words[rng.IntN(len(words))])
		}
		for range rng.IntN(6) {
			n := cols
			if trial%2 == 1 {
				n = 1 + rng.IntN(cols)
			}
			row := make([]string, n)
			for i := range row {
				row[i] = words[rng.IntN(len(words))]
			}
			g.add(row...)
		}
		var want, got bytes.Buffer
		tw := tabwriter.NewWriter(&want, 0, 0, 2, ' ', 0)
		for _, l := range append([][]string{g.header}, g.rows...) {
			fmt.Fprintln(tw, strings.Join(l, "\t"))
		}
		if err := tw.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := g.render(&got, FormatTable); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("trial %d:\ngrid\n%q\ntabwriter\n%q", trial, got.String(), want.String())
		}
	}
}
