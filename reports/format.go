package reports

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
	"golang.org/x/term"
)

// Format is how a terminal report is written.
type Format string

// Formats: an aligned table for people, TSV for pipes and spreadsheets,
// CSV (RFC 4180) for spreadsheets and tools that want quoting,
// GitHub-flavoured Markdown, JSON with full precision.
const (
	FormatTable    Format = "table"
	FormatTSV      Format = "tsv"
	FormatCSV      Format = "csv"
	FormatMarkdown Format = "markdown"
	FormatJSON     Format = "json"
)

// ParseFormat accepts table, tsv, csv, markdown (or md) and json.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(s)); f {
	case FormatTable, FormatTSV, FormatCSV, FormatMarkdown, FormatJSON:
		return f, nil
	case "md":
		return FormatMarkdown, nil
	}
	return "", fmt.Errorf("unknown format %q (want table, tsv, csv, markdown or json)", s)
}

// Machine reports whether f is a machine form of the tables (TSV, CSV):
// the same table, one header line, full precision and one column per
// figure, no notes (a report's notes go to "# " lines where they must be
// read). Both forms are written from the same grid.
func (f Format) Machine() bool { return f == FormatTSV || f == FormatCSV }

// IsTerminal reports whether w is a terminal, the only place colour and
// padded tables belong.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// DefaultFormat is a table on a terminal and TSV when piped.
func DefaultFormat(w io.Writer) Format {
	if IsTerminal(w) {
		return FormatTable
	}
	return FormatTSV
}

// grid is a rendered-to-strings table; reports build one and write it in
// the chosen format, so every format shows the same cells.
type grid struct {
	header []string
	right  []bool // right-align the column (numbers)
	rows   [][]string
	notes  []string // footnotes under the table (table and Markdown forms)
	// width, when > 0, is the terminal width the table form must fit, as
	// fit describes (fit.go).
	width int
	fit   fitOptions
	// weak: the figures rest on weak labels (weak.go); every format
	// marks them.
	weak bool
	// plain: the table form is the compact aligned one (aligned), as
	// the label verbs print: no leading blank, two spaces between
	// columns, every column left-aligned, the last one unpadded.
	plain bool
}

func (g *grid) add(cells ...string) { g.rows = append(g.rows, cells) }

func (g *grid) render(w io.Writer, f Format) error {
	if f.Machine() {
		g = g.weakTSV()
	} else {
		g = g.markWeak()
	}
	switch f {
	case FormatTSV:
		return g.tsv(w)
	case FormatCSV:
		return g.csv(w)
	case FormatMarkdown:
		return g.table(w, true)
	case FormatTable, "":
		if g.plain {
			return g.aligned(w)
		}
		if g.width > 0 {
			return g.renderFitted(w, g.width)
		}
		return g.table(w, false)
	}
	return fmt.Errorf("grid: format %q is not tabular", f)
}

func (g *grid) alignments() tw.CellAlignment {
	a := make([]tw.Align, len(g.header))
	for i := range a {
		a[i] = tw.AlignLeft
		if i < len(g.right) && g.right[i] {
			a[i] = tw.AlignRight
		}
	}
	return tw.CellAlignment{PerColumn: a}
}

func (g *grid) table(w io.Writer, markdown bool) error {
	var r tw.Renderer
	if markdown {
		r = renderer.NewMarkdown()
	} else {
		r = renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenColumns: tw.Off, BetweenRows: tw.Off},
				Lines:      tw.Lines{ShowHeaderLine: tw.Off},
			},
		})
	}
	align := g.alignments()
	var buf strings.Builder
	t := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(r),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignmentConfig(align),
		tablewriter.WithRowAlignmentConfig(align),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithTrimSpace(tw.Off),
	)
	cell := func(s string) string {
		if markdown {
			return mdEscape(s)
		}
		return s
	}
	header := make([]any, len(g.header))
	for i, h := range g.header {
		header[i] = cell(h)
	}
	t.Header(header...)
	for _, row := range g.rows {
		cells := make([]any, len(row))
		for i, c := range row {
			cells[i] = cell(c)
		}
		if err := t.Append(cells...); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	// The renderer pads the last column; trailing blanks only make diffs noisy.
	var b strings.Builder
	for line := range strings.Lines(buf.String()) {
		b.WriteString(strings.TrimRight(line, " \n"))
		b.WriteByte('\n')
	}
	if len(g.notes) > 0 {
		b.WriteString("\n")
	}
	for _, n := range g.notes {
		if markdown {
			b.WriteString(mdEscape(n))
			b.WriteString("  \n")
		} else {
			b.WriteString(n)
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// tsv writes the header and rows tab-separated; tabs and newlines inside a
// cell become spaces so every record stays one line.
func (g *grid) tsv(w io.Writer) error {
	var b strings.Builder
	line := func(cells []string) {
		for i, c := range cells {
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(c))
		}
		b.WriteByte('\n')
	}
	line(g.header)
	for _, r := range g.rows {
		line(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// aligned writes the header and rows in columns two spaces apart, padded
// to the widest cell (in runes), the last cell of a line unpadded: what
// text/tabwriter writes with padding 2, so tables that were printed with it
// read the same from a grid. A row shorter than its neighbours ends the
// column blocks it lacks, as in tabwriter: a column is as wide as its
// widest cell over the adjacent lines in which it is not the last cell.
// No notes.
func (g *grid) aligned(w io.Writer) error {
	lines := append([][]string{g.header}, g.rows...)
	pad := make([][]int, len(lines)) // pad[l][i]: the width of cell i on line l
	for l, cells := range lines {
		pad[l] = make([]int, max(len(cells)-1, 0))
	}
	for col, more := 0, true; more; col++ {
		more = false
		for start := 0; start < len(lines); {
			if len(pad[start]) <= col {
				start++
				continue
			}
			end, width := start, 0
			for ; end < len(lines) && len(pad[end]) > col; end++ {
				width = max(width, utf8.RuneCountInString(lines[end][col]))
			}
			for l := start; l < end; l++ {
				pad[l][col] = width
			}
			start, more = end, true
		}
	}
	var b strings.Builder
	for l, cells := range lines {
		for i, c := range cells {
			b.WriteString(c)
			if i < len(pad[l]) {
				b.WriteString(strings.Repeat(" ", pad[l][i]-utf8.RuneCountInString(c)+2))
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// markdownLines is the grid as compact Markdown (cells unpadded), a line
// at a time: the header with its alignment row, then a line per row, every
// cell escaped. The pull-request comment uses it: its size counts, and its
// rows are cut from the end to fit.
func (g *grid) markdownLines() (head string, rows []string) {
	line := func(cells []string) string {
		var b strings.Builder
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + mdEscape(c) + " |")
		}
		return b.String() + "\n"
	}
	var sep strings.Builder
	sep.WriteString("|")
	for i := range g.header {
		if i < len(g.right) && g.right[i] {
			sep.WriteString("--:|")
		} else {
			sep.WriteString(":--|")
		}
	}
	head = line(g.header) + sep.String() + "\n"
	for _, r := range g.rows {
		rows = append(rows, line(r))
	}
	return head, rows
}

// csv writes the header and rows as CSV (RFC 4180: a cell with a comma,
// quote or line break is quoted, quotes doubled; lines end in \n).
func (g *grid) csv(w io.Writer) error {
	var b strings.Builder
	cw := csv.NewWriter(&b)
	if err := cw.Write(g.header); err != nil {
		return err
	}
	if err := cw.WriteAll(g.rows); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdEscape keeps a cell or a line from breaking a Markdown table or being
// read as markup: "|" and newlines would end the cell, "<" could open an
// HTML tag or autolink. ">" is markup only where a line starts (a block
// quote), so only a leading one is escaped (as "\>"); elsewhere it stays
// as written, so a cascade "A>B" reads the same in the raw Markdown as
// rendered.
func mdEscape(s string) string {
	s = strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;").Replace(s)
	if strings.HasPrefix(s, ">") {
		s = `\` + s
	}
	return s
}
