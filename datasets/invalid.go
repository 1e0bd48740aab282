package datasets

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
