package datasets

import (
	"errors"
	"fmt"
	"strings"

	"github.com/apeval/apeval/internal/mask"
)

// MaxListedInvalid bounds how many invalid lines InvalidLines keeps to list.
const MaxListedInvalid = 20

// InvalidLines is the invalid-line policy of one pass over a dataset (the
// statistics scan or the replay). Without Skip, one invalid line fails the
// pass: the pass hands out no case after it (Failing) but reads on, so
// that the error lists every bad line, not only the first. With Skip
// (apeval's --skip-invalid) invalid lines are counted and left out — except
// a Late one (see Record.Late): its case was already used as a valid one,
// so it can no longer be skipped and the pass fails on it (Late).
type InvalidLines struct {
	Skip bool
	// Count is the number of invalid lines seen; First the first of them.
	Count int64
	First error
	// Listed are the first MaxListedInvalid errors when not Skip.
	Listed []error
	// Late is the first late duplicate met with Skip.
	Late error
}

// Add notes a record whose Err is set.
func (l *InvalidLines) Add(rec Record) {
	l.Count++
	if l.First == nil {
		l.First = rec.Err
	}
	switch {
	case !l.Skip:
		if len(l.Listed) < MaxListedInvalid {
			l.Listed = append(l.Listed, rec.Err)
		}
	case rec.Late && l.Late == nil:
		l.Late = rec.Err
	}
}

// Failing reports whether the pass fails whatever comes next: an invalid
// line was met without Skip. Such a pass hands out no more cases.
func (l *InvalidLines) Failing() bool { return !l.Skip && l.Count > 0 }

// Err is the pass's error once it ended: without Skip, the invalid input
// listing the bad lines; with Skip, a late duplicate, which can no longer
// be skipped (done says what was done with its case: "replayed",
// "counted in the statistics"); nil otherwise.
func (l *InvalidLines) Err(done string) error {
	if l.Failing() {
		return &InvalidInput{Errs: l.Listed, Total: l.Count}
	}
	if l.Late != nil {
		return LateDuplicate(l.Late, done)
	}
	return nil
}

// InvalidInput is a dataset's bad lines (the first MaxListedInvalid of
// them) when they are not to be skipped.
type InvalidInput struct {
	Errs  []error
	Total int64
}

func (e *InvalidInput) Error() string { return e.Text(func(err error) string { return err.Error() }) }

// Text is Error with each line error written by line (MaskedLineText masks
// one part by part).
func (e *InvalidInput) Text(line func(error) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "the dataset has %d invalid line(s); fix them or pass --skip-invalid to replay the rest:", e.Total)
	for _, err := range e.Errs {
		fmt.Fprintf(&b, "\n  %s", line(err))
	}
	if e.Total > int64(len(e.Errs)) {
		fmt.Fprintf(&b, "\n  … and %d more (apeval datasets validate lists them all)", e.Total-int64(len(e.Errs)))
	}
	return b.String()
}

// LateDuplicate is the error for a duplicate id found only at the end of
// the input (see Record.Late) when invalid lines are to be skipped: the
// line's case was already done (replayed, counted) as a valid one, so it
// can no longer be left out.
func LateDuplicate(err error, done string) error {
	return fmt.Errorf("%v: found only at the end of the input, after that line's case was %s, so it cannot be skipped; remove the duplicate lines (apeval datasets validate lists them all)", err, done)
}

// MaskedLineText is a dataset line's error as apeval prints it, masked
// part by part: the file name, the field and the message each go through
// the masker on their own. Masked whole, a field named like a secret
// ("labels.password: unknown value …") made the masker take the message's
// first word for the secret's value and print "[MASKED] value"; a secret
// the message quotes is still masked. Any other error is masked whole
// (mask.Lines).
func MaskedLineText(err error) string {
	var le *LineError
	if !errors.As(err, &le) || le.Error() != err.Error() {
		return mask.Lines(err.Error())
	}
	m := *le
	m.File, m.Field, m.Msg = mask.Lines(le.File), mask.Lines(le.Field), mask.Lines(le.Msg)
	return m.Error()
}
