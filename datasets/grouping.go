package datasets

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
)

// Grouping watches a stream of cases as it is written and tells whether
// each session's cases came out together: then the file can be marked
// grouped (SessionsField, docs/cases.md "Grouped sessions").
type Grouping struct {
	n     int
	cur   string
	ended map[string]struct{}
	mixed bool
}

// Add notes the next case written.
func (g *Grouping) Add(c *Case) {
	sid := cmp.Or(c.SessionID, c.ID)
	if g.n > 0 && sid != g.cur && !g.mixed {
		if g.ended == nil {
			g.ended = map[string]struct{}{}
		}
		g.ended[g.cur] = struct{}{}
		if _, again := g.ended[sid]; again {
			g.mixed, g.ended = true, nil
		}
	}
	g.cur, g.n = sid, g.n+1
}

// Grouped reports whether cases were written and every session's cases
// came out together.
func (g *Grouping) Grouped() bool { return g.n > 0 && !g.mixed }

// MarkGrouped copies a cases file from src to dst with the grouping
// marker (SessionsField: SessionsGrouped) as the first field of its first
// line. A file whose first line is no JSON object is copied as it is.
func MarkGrouped(dst io.Writer, src io.Reader) error {
	br := bufio.NewReaderSize(src, 1<<20)
	first, err := br.ReadBytes('\n')
	if err != nil && err != io.EOF {
		return err
	}
	if len(first) > 0 && first[0] == '{' {
		if _, err := fmt.Fprintf(dst, "{%q:%q,", SessionsField, SessionsGrouped); err != nil {
			return err
		}
		first = first[1:]
	}
	if _, err := dst.Write(first); err != nil {
		return err
	}
	_, err = io.Copy(dst, br)
	return err
}
