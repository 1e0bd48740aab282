package datasets

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

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
	// Listed are the first MaxListedInvalid errors when not Skip; rest
	// counts the others by kind.
	Listed []error
	rest   KindTally
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
		} else {
			l.rest.Add(rec.Err)
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
		return &InvalidInput{Errs: l.Listed, Total: l.Count, Rest: l.rest.Counts()}
	}
	if l.Late != nil {
		return LateDuplicate(l.Late, done)
	}
	return nil
}

// InvalidInput is a dataset's bad lines (the first MaxListedInvalid of
// them, the others counted by kind) when they are not to be skipped.
type InvalidInput struct {
	Errs  []error
	Total int64
	Rest  []KindCount
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
		b.WriteByte('\n')
		rest := e.Rest
		if len(rest) == 0 { // built without the counts by kind
			rest = []KindCount{{Kind: "not counted by kind", Count: e.Total - int64(len(e.Errs))}}
		}
		WriteRest(&b, "  ", "apeval datasets validate --all lists them all", rest)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// LateDuplicate is the error for a duplicate id found only at the end of
// the input (see Record.Late) when invalid lines are to be skipped: the
// line's case was already done (replayed, counted) as a valid one, so it
// can no longer be left out.
func LateDuplicate(err error, done string) error {
	return fmt.Errorf("%v: found only at the end of the input, after that line's case was %s, so it cannot be skipped; remove the duplicate lines (apeval datasets validate --all lists them all)", err, done)
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

// formatKind is a message format with its values left out, the kind of
// the errors written from it: "unknown value %q (want one of %s)" →
// "unknown value … (want one of …)"; "" when the format is only values
// ("%v"), whose messages are then their own kind.
func formatKind(format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '%' || i+1 == len(format) {
			b.WriteByte(format[i])
			continue
		}
		if format[i+1] == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		for i++; i < len(format) && !unicode.IsLetter(rune(format[i])); i++ {
		}
		if !strings.HasSuffix(b.String(), "…") {
			b.WriteString("…")
		}
	}
	// A value appended with no space before it (a hint, "(got %s)%s") is
	// no part of the kind.
	k := b.String()
	if t, ok := strings.CutSuffix(k, "…"); ok && t != "" && !strings.HasSuffix(t, " ") {
		k = t
	}
	return strings.TrimRight(k, " :;,")
}

// indexRE matches a list index in a field path ("recorded[3]").
var indexRE = regexp.MustCompile(`\[\d+\]`)

// ErrorKind is what a dataset line's error says without the line's own
// values, to count errors by kind: the field (list indexes as [*]) and
// the message's format, "tool.category: unknown value … (want one of …)",
// "recorded[*].judge: required", "invalid JSON". Masked as
// MaskedLineText masks the line's message.
func ErrorKind(err error) string {
	var le *LineError
	var se *SeqError
	var ge *GroupedError
	switch {
	case errors.As(err, &le) && le.Error() == err.Error():
		k := le.kind
		if k == "" {
			k = le.Msg
		}
		k = mask.Lines(k)
		if le.Field == "" {
			return k
		}
		return mask.Lines(indexRE.ReplaceAllString(le.Field, "[*]")) + ": " + k
	case errors.As(err, &se):
		return "seq: goes back within its session (records of a session must be in seq order)"
	case errors.As(err, &ge):
		return "session_id: a session appears again after other sessions in a file that declares them grouped"
	}
	return mask.Lines(err.Error())
}

// KindCount is how many errors of one kind (ErrorKind) there are.
type KindCount struct {
	Kind  string `json:"kind"`
	Count int64  `json:"count"`
}

// KindTally counts errors by kind, in the order each kind is first seen.
type KindTally struct {
	index  map[string]int
	counts []KindCount
}

// Add counts err under its kind.
func (t *KindTally) Add(err error) { t.add(ErrorKind(err)) }

func (t *KindTally) add(k string) {
	if t.index == nil {
		t.index = map[string]int{}
	}
	i, ok := t.index[k]
	if !ok {
		i = len(t.counts)
		t.index[k] = i
		t.counts = append(t.counts, KindCount{Kind: k})
	}
	t.counts[i].Count++
}

// Counts are the kinds counted, most frequent first (ties in the order
// first seen).
func (t *KindTally) Counts() []KindCount {
	out := slices.Clone(t.counts)
	slices.SortStableFunc(out, func(a, b KindCount) int { return cmp.Compare(b.Count, a.Count) })
	return out
}

// WriteRest writes what follows the first listed errors: "… and N more
// (hint):" and one line per kind, "  count × kind", each line after
// indent. Nothing when the tally is empty.
func WriteRest(w io.Writer, indent, hint string, rest []KindCount) {
	var n int64
	for _, k := range rest {
		n += k.Count
	}
	if n == 0 {
		return
	}
	fmt.Fprintf(w, "%s… and %d more (%s):\n", indent, n, hint)
	width := len(strconv.FormatInt(rest[0].Count, 10))
	for _, k := range rest {
		fmt.Fprintf(w, "%s  %*d × %s\n", indent, width, k.Count, k.Kind)
	}
}
