package datasets

import (
	"fmt"

	"github.com/apeval/apeval/internal/intern"
)

// SeqError reports a session whose records are not in seq order: within a
// session, records must come in non-decreasing seq order (see docs/replay.md).
type SeqError struct {
	Source    string
	SessionID string
	Seq, Prev int64
}

func (e *SeqError) Error() string {
	src := e.Source
	if src == "" {
		src = "input"
	}
	return fmt.Sprintf("%s: session %q: seq %d comes after seq %d; records of a session must be in seq order", src, e.SessionID, e.Seq, e.Prev)
}

// CheckSeq is the one seq-order check, used by replay and by
// SeqOrder (datasets validate): a case of a session seen before (seen)
// whose seq is below the session's last seq (prev) is a *SeqError.
func CheckSeq(c *Case, sessionID string, prev int64, seen bool) error {
	if seen && c.Seq < prev {
		return &SeqError{Source: c.Source, SessionID: sessionID, Seq: c.Seq, Prev: prev}
	}
	return nil
}

// SeqOrder checks a stream of cases the way replay does, so that a dataset
// validate accepts is one run accepts. It keeps each session's id and last
// seq (exact identity through intern.Table).
type SeqOrder struct {
	ids  *intern.Table
	last []int64
}

// Check records c and returns a *SeqError when c goes back in its session.
func (o *SeqOrder) Check(c *Case) error {
	if o.ids == nil {
		o.ids = intern.New()
	}
	sid := c.SessionID
	if sid == "" {
		sid = c.ID
	}
	i, added := o.ids.Add(sid)
	if added {
		o.last = append(o.last, c.Seq)
		return nil
	}
	if err := CheckSeq(c, sid, o.last[i], true); err != nil {
		return err
	}
	o.last[i] = c.Seq
	return nil
}

// GroupedError reports a session that appears again after other sessions
// although the file it came from declares its sessions grouped
// (SessionsField): its state was released when the next session began, so
// the run cannot go on. Source is the case where it appears again; Late
// says it was found only at the end of the input (the two places are
// further apart than the sessions the check keeps in memory), without a
// line.
type GroupedError struct {
	Source, SessionID string
	Late              bool
}

func (e *GroupedError) Error() string {
	where := e.Source + ": "
	if e.Late {
		where = "at the end of the input: "
	}
	return fmt.Sprintf("%ssession %q appears again after other sessions, but its file declares its sessions grouped (%q: %q on its first line): "+
		"its state was already released. Put each session's cases together, or remove the marker", where, e.SessionID, SessionsField, SessionsGrouped)
}
