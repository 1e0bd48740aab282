package metrics

import (
	"fmt"

	"github.com/apeval/apeval/internal/spill"
)

// cursor walks a sorted spill list (K = case ordinal<<ordShift | flags)
// one record at a time.
type cursor struct {
	it  *spill.Iter
	buf []spill.Rec // the rest of the current chunk
	r   spill.Rec
	ok  bool
}

func newCursor(l *spill.List) *cursor {
	c := &cursor{it: l.Iter()}
	c.next()
	return c
}

// next moves to the next record.
func (c *cursor) next() {
	if len(c.buf) == 0 {
		if c.buf = c.it.Chunk(); len(c.buf) == 0 {
			c.ok = false
			return
		}
	}
	c.r, c.buf, c.ok = c.buf[0], c.buf[1:], true
}

// endOrd is past every case ordinal (ordinals fit in 48 bits).
const endOrd = 1<<48 - 1

// ord is the current record's case ordinal, endOrd at the end.
func (c *cursor) ord() uint64 {
	if !c.ok {
		return endOrd
	}
	return c.r.K >> ordShift
}

// skip moves past every record of the current case.
func (c *cursor) skip() {
	o := c.r.K >> ordShift
	for c.next(); c.ok && c.r.K>>ordShift == o; c.next() {
	}
}

// has reports whether the list holds case ord; successive calls must ask
// for ordinals that do not decrease.
func (c *cursor) has(ord uint64) bool {
	for c.ok && c.r.K>>ordShift < ord {
		c.next()
	}
	return c.ok && c.r.K>>ordShift == ord
}

// eachCase calls fn once per distinct case of a judge's case list, in case
// order, with its session and the union of the flags of its results; it
// returns the number of distinct cases.
func eachCase(l *spill.List, sm sessMap, t *caseTally, fn func(sess uint32, flags uint64)) int64 {
	var n int64
	c := newCursor(l)
	for c.ok {
		o, sess, f := c.r.K>>ordShift, sm.at(c.r.V), c.r.K
		t.count(f)
		for c.next(); c.ok && c.r.K>>ordShift == o; c.next() {
			f |= c.r.K
			t.count(c.r.K)
		}
		fn(sess, f&(1<<ordShift-1))
		n++
	}
	return n
}

// eachMerged calls fn with the records of the lists in case order, chunk
// by chunk: the lists merged by case ordinal (records of one case in any
// order), so that when the run's sessions are contiguous, so are they here.
func eachMerged(lists []*spill.List, fn func([]spill.Rec)) {
	if len(lists) == 1 {
		it := lists[0].Iter()
		for c := it.Chunk(); len(c) > 0; c = it.Chunk() {
			fn(c)
		}
		return
	}
	var h []*cursor
	for _, l := range lists {
		if c := newCursor(l); c.ok {
			h = append(h, c)
		}
	}
	less := func(i, j int) bool { return h[i].r.K>>ordShift < h[j].r.K>>ordShift }
	down := func(i int) {
		for {
			c := 2*i + 1
			if c >= len(h) {
				return
			}
			if c+1 < len(h) && less(c+1, c) {
				c++
			}
			if !less(c, i) {
				return
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	buf := make([]spill.Rec, 0, 1024)
	for len(h) > 0 {
		c := h[0]
		buf = append(buf, c.r)
		c.next()
		if !c.ok {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		down(0)
		if len(buf) == cap(buf) {
			fn(buf)
			buf = buf[:0]
		}
	}
	if len(buf) > 0 {
		fn(buf)
	}
}

// spillWarnings says when the per-case data could not be written to or
// read back from disk.
func spillWarnings(p *spill.Pool) []string {
	var out []string
	if err := p.WriteErr(); err != nil {
		out = append(out, fmt.Sprintf("per-case data could not be written to disk (%v); it was kept in memory", err))
	}
	if err := p.Err(); err != nil {
		out = append(out, fmt.Sprintf("per-case data could not be read back from disk (%v); intervals and comparisons are incomplete", err))
	}
	return out
}

// Release frees the temporary file holding the per-case data behind
// Compare (on most systems it has no name already, and goes when the
// process ends). Compare must not be called afterwards.
func (s *Summary) Release() error {
	if s.pool == nil {
		return nil
	}
	return s.pool.Close()
}

// Err returns the first error reading per-case data back from disk: what
// Close or Compare computed after it is incomplete.
func (s *Summary) Err() error {
	if s.pool == nil {
		return nil
	}
	return s.pool.Err()
}
