package diff

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/reports/rundir"
)

// Options are a diff's settings.
type Options struct {
	// Top is how many loosened cases (and differing hook-rewritten ones)
	// the summary keeps: 0 the default, 10; negative, none.
	Top int
	// Out is the directory diff.parquet and diff.html are written to; ""
	// writes neither.
	Out string
	// PageMax bounds the cases diff.html lists (0 the default, 200,000;
	// negative, none): the
	// differing ones first met; the page says how many it leaves out.
	PageMax int
	// Cases, when not nil, gives a case of the runs' dataset by ID, so
	// diff.html shows each side's judge input as the judge saw it (built
	// by replay.BuildInput, masked); nil leaves the inputs out.
	Cases func(id string) (*datasets.Case, error)
	// AutoMode names the pair's judge that is auto mode's recorded
	// decisions ("" when neither is); HookRewritten says whether it judged
	// a case on an input a PreToolUse hook changed (marked in the summary;
	// nil marks none); HookNote says why they could not be found.
	AutoMode      string
	HookRewritten func(id string) bool
	HookNote      string
}

// Result is a finished diff.
type Result struct {
	Summary *Summary
	// PageCases is how many differing cases diff.html lists; PageOmitted
	// how many more differ.
	PageCases   int64
	PageOmitted int64
	// page holds diff.html's cases while the diff runs; Refirst is set
	// when the first-in-session flags of the page must be recomputed from
	// the summary (a session's calls came out of order).
	page    *pageSpill
	Refirst bool
	// InputsNote says why diff.html shows no judge inputs ("" when it
	// does, or when none were asked for).
	InputsNote string
	inputs     bool
}

// Diff reads in, classifies every case both sides hold and, with o.Out,
// writes diff.parquet and diff.html there. Either both files are written
// whole or neither is touched: runs with no case in common, a damaged
// decision file or a failed write leave nothing behind.
func Diff(in *Input, o Options) (*Result, error) {
	switch {
	case o.Top == 0:
		o.Top = 10
	case o.Top < 0:
		o.Top = 0
	}
	switch {
	case o.PageMax == 0:
		o.PageMax = 200_000
	case o.PageMax < 0:
		o.PageMax = 0
	}
	res := &Result{}
	var pq *parquetOut
	created := false // o.Out was made here: a failed diff removes it
	if o.Out != "" {
		if _, err := os.Stat(o.Out); os.IsNotExist(err) {
			created = true
		}
		if err := os.MkdirAll(o.Out, 0o755); err != nil {
			return nil, err
		}
		var err error
		if pq, err = newParquetOut(filepath.Join(o.Out, ParquetFile)); err != nil {
			return nil, err
		}
		pq.labelSource = in.labelSource()
	}
	discard := func() {
		if pq != nil {
			pq.discard()
		}
		if created {
			_ = os.Remove(o.Out)
		}
	}
	if pq != nil {
		var err error
		if res.page, err = newPageSpill(); err != nil {
			discard()
			return nil, err
		}
		defer res.page.close()
		res.page.hookSide = "head"
		if o.AutoMode == in.Base {
			res.page.hookSide = "base"
		}
	}
	var inputs *inputBuilder
	if pq != nil && o.Cases != nil {
		inputs = newInputBuilder(in, o.Cases)
		res.InputsNote = inputs.note
		res.inputs = inputs.note == ""
	}
	d := NewDiffer(o.Top, func(c *Case) error {
		if pq == nil {
			return nil
		}
		if c.Differs() {
			if res.PageCases < int64(o.PageMax) {
				res.PageCases++
				var bi, hi []byte
				if inputs != nil {
					var err error
					if bi, hi, err = inputs.build(c); err != nil {
						return err
					}
				}
				if err := res.page.add(c, bi, hi); err != nil {
					return err
				}
			} else {
				res.PageOmitted++
			}
		}
		return pq.add(c)
	})
	if inputs != nil && inputs.note == "" {
		d.TrackFires()
	}
	d.MarkHookRewritten(o.HookRewritten)
	if err := in.Run(d); err != nil {
		discard()
		return nil, err
	}
	s := in.Summary(d)
	s.AutoMode, s.HookNote = o.AutoMode, o.HookNote
	res.Summary = s
	if err := s.Overlap.Err(); err != nil {
		discard()
		return nil, &InputError{err}
	}
	if d.misordered > 0 {
		firsts := d.firstSeq()
		res.Refirst = true
		if pq != nil {
			if err := pq.finish(firsts); err != nil {
				discard()
				return nil, err
			}
		}
	} else if pq != nil {
		if err := pq.finish(nil); err != nil {
			discard()
			return nil, err
		}
	}
	if pq == nil {
		return res, nil
	}
	page, err := rundir.CreateTemp(filepath.Join(o.Out, HTMLFile))
	if err != nil {
		discard()
		return nil, err
	}
	bw := bufio.NewWriterSize(page, 64<<10)
	if err := errors.Join(WriteHTML(bw, res), bw.Flush()); err != nil {
		rundir.DiscardTemp(page)
		discard()
		return nil, err
	}
	if err := rundir.CommitTemp(pq.f, filepath.Join(o.Out, ParquetFile)); err != nil {
		rundir.DiscardTemp(page)
		if created {
			_ = os.Remove(o.Out)
		}
		return nil, err
	}
	return res, rundir.CommitTemp(page, filepath.Join(o.Out, HTMLFile))
}
