package reports

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Fitting tables to the terminal. A grid whose width is set (the terminal's
// columns; 0 = no limit) is laid out in the first of these forms whose every
// line fits:
//
//  1. as it is;
//  2. with judge names (a column, or the column headers of the judges
//     grid) replaced by short keys A, B, … explained under the table;
//  3. then leaving out columns one at a time in the grid's drop order (the
//     least telling first), named under the table;
//  4. a vertical layout: one block per row, one "column: value" line each.
//
// Notes under the table are wrapped to the width. --wide (width 0) prints
// everything.

// fitOptions say how a grid may be narrowed.
type fitOptions struct {
	judgeCol   int   // column of judge names plus one (0: none)
	judgeHeads int   // the header cells 1..judgeHeads are judge names (-1: all after the first)
	detail     []int // long text columns that may go on a line under their row
	drop       []int // columns to leave out, least telling first
	transpose  bool  // vertical layout is per column (judges grid)
}

// ansiEscape matches the colour escapes paint adds; they take no columns.
var ansiEscape = regexp.MustCompile("\x1b\\[[0-9;]*m")

func displayWidth(s string) int {
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = ansiEscape.ReplaceAllString(s, "")
	}
	return utf8.RuneCountInString(s)
}

func maxLineWidth(s string) int {
	m := 0
	for line := range strings.Lines(s) {
		if n := displayWidth(strings.TrimRight(line, "\n")); n > m {
			m = n
		}
	}
	return m
}

// renderFitted writes g as a table no wider than width.
func (g *grid) renderFitted(w io.Writer, width int) error {
	body := func(h *grid) string {
		var b strings.Builder
		c := *h
		c.notes, c.width = nil, 0
		_ = c.table(&b, false)
		return b.String()
	}
	var notes []string
	cur := g
	out := body(cur)
	if maxLineWidth(out) > width && (g.fit.judgeCol > 0 || g.fit.judgeHeads != 0) {
		var legend []string
		cur, legend = g.abbreviateJudges()
		notes = append(notes, legend...)
		out = body(cur)
	}
	var dropped []string
	keep := make([]bool, len(cur.header))
	for i := range keep {
		keep[i] = true
	}
	detailed := false
	if maxLineWidth(out) > width && len(g.fit.detail) > 0 {
		for _, c := range g.fit.detail {
			keep[c] = false
		}
		detailed = true
		out = cur.withDetails(keep, body(cur.only(keep)))
	}
	if maxLineWidth(out) > width {
		for _, c := range g.fit.drop {
			if c >= len(keep) {
				continue
			}
			keep[c] = false
			dropped = append(dropped, cur.header[c])
			out = body(cur.only(keep))
			if detailed {
				out = cur.withDetails(keep, out)
			}
			if maxLineWidth(out) <= width {
				break
			}
		}
		if maxLineWidth(out) > width {
			// Vertical: every column comes back, one per line.
			dropped = nil
			out = cur.vertical(width)
		}
	}
	if len(dropped) > 0 {
		notes = append(notes, fmt.Sprintf("Left out to fit %d columns: %s (--wide shows every column).", width, strings.Join(dropped, ", ")))
	}
	notes = append(notes, g.notes...)
	var b strings.Builder
	b.WriteString(out)
	if len(notes) > 0 {
		b.WriteString("\n")
	}
	for _, n := range notes {
		for _, line := range wrap(n, width) {
			b.WriteString(line)
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// withDetails puts the columns not kept (the detail columns) on an
// indented line under each row of body, a table of the kept columns whose
// first line is the header.
func (g *grid) withDetails(keep []bool, body string) string {
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	if len(lines) != len(g.rows)+1 {
		return body // not one line per row: leave it
	}
	var b strings.Builder
	b.WriteString(lines[0] + "\n")
	for i, r := range g.rows {
		b.WriteString(lines[i+1] + "\n")
		var parts []string
		for _, c := range g.fit.detail {
			if c < len(r) && !keep[c] && r[c] != na && r[c] != "" {
				parts = append(parts, g.header[c]+": "+r[c])
			}
		}
		if len(parts) > 0 {
			b.WriteString("     " + strings.Join(parts, "; ") + "\n")
		}
	}
	return b.String()
}

// abbreviateJudges replaces judge names by A, B, … and returns the legend.
func (g *grid) abbreviateJudges() (*grid, []string) {
	c := *g
	c.header = append([]string(nil), g.header...)
	c.rows = make([][]string, len(g.rows))
	keys := map[string]string{}
	var legend []string
	key := func(name string) string {
		if k, ok := keys[name]; ok {
			return k
		}
		k := judgeKey(len(keys))
		keys[name] = k
		legend = append(legend, k+" = "+name)
		return k
	}
	if n := g.fit.judgeHeads; n != 0 {
		if n < 0 || n >= len(c.header) {
			n = len(c.header) - 1
		}
		for i := 1; i <= n; i++ {
			c.header[i] = key(c.header[i])
		}
	}
	for i, r := range g.rows {
		c.rows[i] = append([]string(nil), r...)
		if j := g.fit.judgeCol - 1; j >= 0 && j < len(r) {
			c.rows[i][j] = key(r[j])
		}
	}
	return &c, legend
}

func judgeKey(i int) string {
	s := ""
	for {
		s = string(rune('A'+i%26)) + s
		i = i/26 - 1
		if i < 0 {
			return s
		}
	}
}

// only keeps the columns marked true.
func (g *grid) only(keep []bool) *grid {
	c := *g
	pick := func(cells []string) []string {
		var out []string
		for i, v := range cells {
			if i < len(keep) && keep[i] {
				out = append(out, v)
			}
		}
		return out
	}
	c.header = pick(g.header)
	var right []bool
	for i, r := range g.right {
		if i < len(keep) && keep[i] {
			right = append(right, r)
		}
	}
	c.right = right
	c.rows = make([][]string, len(g.rows))
	for i, r := range g.rows {
		c.rows[i] = pick(r)
	}
	return &c
}

// vertical lays each row out as a block: its first cell, then one
// "column  value" line per other column; lines are cut to width.
func (g *grid) vertical(width int) string {
	header, rows := g.header, g.rows
	if g.fit.transpose {
		// The judges grid: one block per judge.
		header = []string{""}
		for _, r := range g.rows {
			header = append(header, r[0])
		}
		rows = nil
		for c := 1; c < len(g.header); c++ {
			row := []string{g.header[c]}
			for _, r := range g.rows {
				row = append(row, r[c])
			}
			rows = append(rows, row)
		}
	}
	lw := 0
	for _, h := range header[1:] {
		lw = max(lw, displayWidth(h))
	}
	var b strings.Builder
	for i, r := range rows {
		if i > 0 {
			b.WriteString("\n")
		}
		first := r[0]
		jc := g.fit.judgeCol - 1
		if jc > 0 && jc < len(r) && !g.fit.transpose {
			first += "  " + r[jc]
		}
		b.WriteString(cut(first, width) + "\n")
		for c := 1; c < len(r) && c < len(header); c++ {
			if c == jc && !g.fit.transpose {
				continue
			}
			h := header[c]
			prefix := "  " + h + strings.Repeat(" ", lw-displayWidth(h)) + "  "
			avail := width - displayWidth(prefix)
			if avail < 12 {
				b.WriteString(cut(prefix+r[c], width) + "\n")
				continue
			}
			// A long value wraps under itself rather than losing its end.
			for k, part := range wrap(r[c], avail) {
				if k > 0 {
					prefix = strings.Repeat(" ", displayWidth(prefix))
					part = strings.TrimLeft(part, " ")
				}
				b.WriteString(cut(prefix+part, width) + "\n")
			}
		}
	}
	return b.String()
}

// cut shortens s to width display columns, ending in "…".
func cut(s string, width int) string {
	if width <= 0 || displayWidth(s) <= width {
		return s
	}
	r := []rune(s)
	return string(r[:width-1]) + "…"
}

// wrap breaks a note into lines of at most width columns at spaces.
func wrap(s string, width int) []string {
	if width <= 0 || displayWidth(s) <= width {
		return []string{s}
	}
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case displayWidth(line)+1+displayWidth(word) <= width:
			line += " " + word
		default:
			lines = append(lines, cut(line, width))
			line = "  " + word
		}
	}
	if line != "" {
		lines = append(lines, cut(line, width))
	}
	return lines
}

// columnsNamed are the indexes of the named header cells, in that order.
func columnsNamed(header []string, names ...string) []int {
	var out []int
	for _, n := range names {
		for i, h := range header {
			if h == n {
				out = append(out, i)
			}
		}
	}
	return out
}
