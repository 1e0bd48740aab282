package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/internal/objstore"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
)

// loadPolicy reads --policy, or the embedded sample policy when empty
// (replay.ReadPolicy).
func loadPolicy(path string) (*replay.Policy, *reports.FileRef, error) {
	p, name, sha, err := replay.ReadPolicy(path)
	if err != nil {
		return nil, nil, usageError{err}
	}
	return p, &reports.FileRef{Name: name, SHA256: sha}, nil
}

// source is the dataset input of a run: files, stdin or the embedded sample.
// Stdin is spooled to a temporary file so it can be read twice (the
// recorded-judge scan and the replay).
type source struct {
	paths  []string
	stdin  io.Reader
	sample bool
	temp   string
	open   []*os.File
	// done stops its Readers' waiting for input when the command is
	// interrupted (datasets.Reader.Done): a stdin that sends nothing must
	// not keep Ctrl-C from working.
	done <-chan struct{}
}

func openSource(paths []string, stdin io.Reader) (*source, error) {
	if len(paths) == 0 {
		return &source{stdin: stdin, sample: true}, nil
	}
	paths, err := expandDatasets(context.Background(), paths)
	if err != nil {
		return nil, err
	}
	s := &source{paths: paths, stdin: stdin}
	for _, p := range paths {
		if p == "-" || objstore.IsURL(p) {
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, usageError{err}
		}
		if st.IsDir() {
			return nil, usagef("--dataset %s is a directory; give the JSONL files", p)
		}
	}
	return s, nil
}

// spoolStdin copies stdin to a temporary file so the dataset can be read twice.
func (s *source) spoolStdin() error {
	if s.temp != "" || !contains(s.paths, "-") {
		return nil
	}
	f, err := os.CreateTemp("", "apeval-stdin-*.jsonl")
	if err != nil {
		return err
	}
	s.temp = f.Name()
	if _, err := io.Copy(f, s.stdin); err != nil {
		f.Close()
		return fmt.Errorf("reading stdin: %w", err)
	}
	return f.Close()
}

func (s *source) cleanup() {
	for _, f := range s.open {
		if f != nil {
			_ = f.Close()
		}
	}
	if s.temp != "" {
		_ = os.Remove(s.temp)
	}
}

// reader opens a fresh pass over the dataset, classifying tools with the
// policy's category overrides.
func (s *source) reader(p *replay.Policy) *datasets.Reader {
	var r *datasets.Reader
	switch {
	case s.sample:
		r = openDatasets([]string{"-"}, datasets.SampleCases())
		r.StdinName = datasets.SampleName
	case s.temp != "":
		f, err := os.Open(s.temp)
		if err != nil {
			f = nil // the Reader reports the failure on its first Scan
		}
		r = openDatasets(s.paths, f)
		s.open = append(s.open, f)
	default:
		r = openDatasets(s.paths, s.stdin)
	}
	if len(p.Categories) > 0 {
		r.Categories = datasets.CategoryMap(p.Categories)
	}
	r.MaxIDsInMemory = maxIDsInMemory
	r.Done = s.done
	return r
}

// maxIDsInMemory is the Readers' MaxIDsInMemory: 0, the datasets default,
// except in tests of duplicates found at the end of the input.
var maxIDsInMemory int

func (s *source) refs() []reports.FileRef {
	if s.sample {
		return []reports.FileRef{{Name: datasets.SampleName, SHA256: datasets.SampleSHA256()}}
	}
	var out []reports.FileRef
	for _, p := range s.paths {
		if p == "-" {
			out = append(out, reports.FileRef{Name: datasets.StdinName})
			continue
		}
		name := p
		if objstore.IsURL(p) {
			name = mask.Message(p)
		}
		out = append(out, reports.FileRef{Name: name, SHA256: fileSHA256(p)})
	}
	return out
}

// objectSHA256 hashes an object as it streams by; "" when it cannot be read.
func objectSHA256(url string) string {
	r, err := objstore.OpenReader(context.Background(), url)
	if err != nil {
		return ""
	}
	defer r.Close()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// fileSHA256 hashes a local file or an object; "" when it cannot be read.
func fileSHA256(path string) string {
	if objstore.IsURL(path) {
		return objectSHA256(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// invalidInput lists a dataset's bad lines (exit code 2), from the
// invalid-line policy's count and list (datasets.InvalidLines).
type invalidInput struct {
	errs  []error
	total int64
}

func (e *invalidInput) Error() string { return e.text(func(err error) string { return err.Error() }) }

// maskedText is Error with each line error masked part by part
// (lineErrorText); exitCode prints it instead of masking the whole text.
func (e *invalidInput) maskedText() string { return e.text(lineErrorText) }

func (e *invalidInput) text(line func(error) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "the dataset has %d invalid line(s); fix them or pass --skip-invalid to replay the rest:", e.total)
	for _, err := range e.errs {
		fmt.Fprintf(&b, "\n  %s", line(err))
	}
	if e.total > int64(len(e.errs)) {
		fmt.Fprintf(&b, "\n  … and %d more (apeval datasets validate lists them all)", e.total-int64(len(e.errs)))
	}
	return b.String()
}

// lineErrorText is a dataset line's error as apeval prints it, masked part
// by part: the file name, the field and the message each go through the
// masker on their own. Masked whole, a field named like a secret
// ("labels.password: unknown value …") made the masker take the message's
// first word for the secret's value and print "[MASKED] value"; a secret
// the message quotes is still masked. Any other error is masked whole.
func lineErrorText(err error) string {
	var le *datasets.LineError
	if !errors.As(err, &le) || le.Error() != err.Error() {
		return maskLines(err.Error())
	}
	m := *le
	m.File, m.Field, m.Msg = maskLines(le.File), maskLines(le.Field), maskLines(le.Msg)
	return m.Error()
}

// scanStats reads the whole dataset once for its statistics (recorded judge
// names, case count); bad lines fail here unless skipInvalid.
func scanStats(s *source, p *replay.Policy, skipInvalid bool) (*datasets.Stats, error) {
	if err := s.spoolStdin(); err != nil {
		return nil, usageError{err}
	}
	r := s.reader(p)
	defer r.Close()
	st := datasets.NewStats()
	bad := datasets.InvalidLines{Skip: skipInvalid}
	for r.Scan() {
		rec := r.Record()
		if rec.Err != nil {
			bad.Add(rec)
			if bad.Late != nil {
				return nil, lateDuplicate(bad.Late, "counted in the statistics")
			}
			st.Invalid++ // with skipInvalid, the statistics say how many lines they skipped
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
		return nil, usageError{err}
	}
	if bad.Failing() {
		return nil, usageError{&invalidInput{errs: bad.Listed, total: bad.Count}}
	}
	return st, nil
}

// caseFeed hands valid cases of this shard to replay. Invalid lines go by
// the policy of datasets.InvalidLines: counted and left out
// (--skip-invalid), or collected: without --skip-invalid the feed stops
// handing out cases at the first one, reads on to list them all, and the
// run fails.
type caseFeed struct {
	r       *datasets.Reader
	invalid datasets.InvalidLines
	shard   replay.Shard
	sel     *datasets.Selection
	errOut  io.Writer
	// stop, when set, ends the input early: a budget stopped sending calls.
	stop *atomic.Bool
	// stray, when set, notes labels naming rules the policy lacks.
	stray *datasets.StrayLabels
	// weak, when set (run --weak-labels), makes each case's weak labels
	// its labels.
	weak *datasets.WeakSwap

	cases   int64
	valid   int64 // valid cases read, in any shard
	readErr error
}

func (f *caseFeed) next() (*datasets.Case, bool) {
	if f.stop != nil && f.stop.Load() {
		return nil, false
	}
	for f.r.Scan() {
		rec := f.r.Record()
		if rec.Err != nil {
			f.invalid.Add(rec)
			continue
		}
		if f.invalid.Failing() {
			continue // failing anyway: keep reading only to list every bad line
		}
		f.valid++
		if f.weak != nil {
			f.weak.Swap(rec.Case)
		}
		if f.stray != nil {
			f.stray.Check(rec.Case)
		}
		if !f.shard.Owns(rec.Case.SessionID) || !f.sel.Keeps(rec.Case.SessionID) {
			continue
		}
		f.cases++
		return rec.Case, true
	}
	f.readErr = f.r.Err()
	if errors.Is(f.readErr, datasets.ErrStopped) {
		// Interrupted while waiting for input: the run keeps what it
		// finished, like any interrupted run (the caller sees ctx done).
		f.readErr = nil
	}
	return nil, false
}

func (f *caseFeed) err() error {
	if f.readErr != nil {
		return usageError{f.readErr}
	}
	if f.invalid.Failing() {
		return usageError{&invalidInput{errs: f.invalid.Listed, total: f.invalid.Count}}
	}
	if f.invalid.Late != nil {
		// Its case was replayed already: it cannot be skipped.
		return lateDuplicate(f.invalid.Late, "replayed")
	}
	return nil
}

// lateDuplicate is the error for a duplicate id found only at the end of
// the input (see datasets.Record.Late) when invalid lines are to be
// skipped: the line's case was already done (replayed, counted) as a valid
// one, so it can no longer be left out.
func lateDuplicate(err error, done string) error {
	return usagef("%v: found only at the end of the input, after that line's case was %s, so it cannot be skipped; remove the duplicate lines (apeval datasets validate lists them all)", err, done)
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// approxCases counts the lines of the dataset files, for the progress
// display's total and ETA when no statistics pass was made; 0 when a
// dataset is stdin or cannot be read (no ETA then).
func (s *source) approxCases() int64 {
	if s.sample || contains(s.paths, "-") {
		return 0
	}
	for _, p := range s.paths {
		if objstore.IsURL(p) {
			return 0 // counting lines would read the objects once more
		}
	}
	var n int64
	buf := make([]byte, 1<<20)
	for _, p := range s.paths {
		f, err := os.Open(p)
		if err != nil {
			return 0
		}
		head := make([]byte, 4)
		k, _ := io.ReadFull(f, head)
		if datasets.Compression(head[:k]) != "" {
			_ = f.Close()
			return 0 // line count of a compressed file is unknown without decompressing
		}
		n += int64(bytes.Count(head[:k], []byte{'\n'}))
		for {
			k, err := f.Read(buf)
			n += int64(bytes.Count(buf[:k], []byte{'\n'}))
			if err != nil {
				break
			}
		}
		_ = f.Close()
	}
	return n
}
