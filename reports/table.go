package reports

import "io"

// Table is the grid (reports' one table renderer) for the packages beside
// reports that print tables of their own (reports/diff): built a row at a
// time, written in any tabular Format, the same cells in each.
type Table struct{ g *grid }

// NewTable is a table with these column headers.
func NewTable(header ...string) *Table { return &Table{&grid{header: header}} }

// Plain makes the table form the compact aligned one (no leading blank,
// columns two spaces apart, every column left-aligned, the last one
// unpadded), as text/tabwriter printed it.
func (t *Table) Plain() *Table { t.g.plain = true; return t }

// Add appends a row.
func (t *Table) Add(cells ...string) { t.g.add(cells...) }

// Write writes the table in f.
func (t *Table) Write(w io.Writer, f Format) error { return t.g.render(w, f) }
