package replay

import (
	"errors"
	"sync/atomic"

	"github.com/apeval/apeval/datasets"
)

// Feed hands Run the valid cases of a dataset this run replays: those of
// its Shard that the Selection keeps. Invalid lines go by the policy of
// Invalid (datasets.InvalidLines): counted and left out (Skip), or
// collected: without Skip the feed stops handing out cases at the first
// one, reads on to list them all, and Err fails the run.
type Feed struct {
	Reader    *datasets.Reader
	Invalid   datasets.InvalidLines
	Shard     Shard
	Selection *datasets.Selection // nil keeps every session
	// Stop, when set, ends the input early: a budget stopped sending calls.
	Stop *atomic.Bool
	// Stray, when set, notes labels naming rules the policy lacks.
	Stray *datasets.StrayLabels
	// Weak, when set (run --weak-labels), makes each case's weak labels
	// its labels.
	Weak *datasets.WeakSwap

	// Cases counts the cases handed out; Valid the valid cases read, in
	// any shard.
	Cases, Valid int64
	readErr      error
}

// Next is Run's next: the next case to replay, false at the end.
func (f *Feed) Next() (*datasets.Case, bool) {
	if f.Stop != nil && f.Stop.Load() {
		return nil, false
	}
	for f.Reader.Scan() {
		rec := f.Reader.Record()
		if rec.Err != nil {
			f.Invalid.Add(rec)
			continue
		}
		if f.Invalid.Failing() {
			continue // failing anyway: keep reading only to list every bad line
		}
		f.Valid++
		if f.Weak != nil {
			f.Weak.Swap(rec.Case)
		}
		if f.Stray != nil {
			f.Stray.Check(rec.Case)
		}
		if !f.Shard.Owns(rec.Case.SessionID) || !f.Selection.Keeps(rec.Case.SessionID) {
			continue
		}
		f.Cases++
		return rec.Case, true
	}
	f.readErr = f.Reader.Err()
	if errors.Is(f.readErr, datasets.ErrStopped) {
		// Interrupted while waiting for input: the run keeps what it
		// finished, like any interrupted run (the caller sees ctx done).
		f.readErr = nil
	}
	return nil, false
}

// Err is the input's error once Next said the end: the dataset could not
// be read, had invalid lines not to be skipped (*datasets.InvalidInput), or
// a late duplicate whose case was replayed already.
func (f *Feed) Err() error {
	if f.readErr != nil {
		return f.readErr
	}
	return f.Invalid.Err("replayed")
}

// ScanStats reads a whole dataset once for its statistics (recorded judge
// names, case count, the permissions layer's answers under p); bad lines
// fail here unless skipInvalid, when the statistics count them.
func ScanStats(r *datasets.Reader, p *Policy, skipInvalid bool) (*datasets.Stats, error) {
	st := datasets.NewStats()
	bad := datasets.InvalidLines{Skip: skipInvalid}
	for r.Scan() {
		rec := r.Record()
		if rec.Err != nil {
			bad.Add(rec)
			if bad.Late != nil {
				return nil, datasets.LateDuplicate(bad.Late, "counted in the statistics")
			}
			st.Invalid++
			continue
		}
		st.Add(rec.Case)
		if p.Permissions != nil {
			if st.Permissions == nil {
				st.Permissions = map[string]int{}
			}
			st.Permissions[p.Permission(rec.Case)]++
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if bad.Failing() {
		return nil, bad.Err("")
	}
	return st, nil
}
