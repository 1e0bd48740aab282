package datasets

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// SampleLabelsSchema is the schema of a labeling queue and of the labels
// file a person fills from it (see docs/labeling.md).
const SampleLabelsSchema = "apeval.labels/v1"

// LabelSourceWeak marks a label that comes from a signal, not a review.
const LabelSourceWeak = "weak"

// SampleSkip is the value of SampleLabel.Label for a pair the person
// skipped; the other values are LabelMatch and LabelNoMatch.
const SampleSkip Label = "skip"

// SampleLabel is one line of an apeval.labels/v1 file: a (case, rule) pair
// of a labeling queue, with the stratum the design put it in and, once a
// person labeled it, the label, who gave it and when. A queue line has no
// Label; a labels-file line has one.
type SampleLabel struct {
	Schema string `json:"schema"`
	CaseID string `json:"case_id"`
	RuleID string `json:"rule_id"`
	// Stratum names the judges' result vector the pair had when the queue
	// was built ("A:match B:no_match"); StratumSize is the number of
	// unlabeled pairs of the rule in it (N_h).
	Stratum     string `json:"stratum"`
	StratumSize int64  `json:"stratum_size"`
	// Order is the pair's 1-based position in the queue: any prefix of the
	// queue is a stratified random sample.
	Order int `json:"order"`
	// Overlap marks the share of the queue every labeler labels, for
	// agreement (apeval label agreement).
	Overlap bool       `json:"overlap,omitempty"`
	Label   Label      `json:"label,omitempty"`
	Labeler string     `json:"labeler,omitempty"`
	Time    *time.Time `json:"time,omitempty"`
	// LabelSource is "" (a person labeled the pair) or LabelSourceWeak (a
	// signal such as a user's override, exported by apeval label weak):
	// weak lines are never ground truth for figures; label agreement
	// compares them with people.
	LabelSource string `json:"label_source,omitempty"`
	// Dataset, DatasetCases and Judges say what the queue was drawn from
	// (label queue writes them; label serve copies them onto each label;
	// files written before carry none and read as before): the run's
	// dataset digest ("sha256:…", rundir.RunInfo.DatasetDigest), its
	// number of cases, and the judges whose results make the strata, by
	// letter ("A=recorded/ollama/qwen2.5:3b"). A run on another dataset
	// warns (the same case IDs may be other cases, and N_h may be stale).
	Dataset      string   `json:"dataset,omitempty"`
	DatasetCases int64    `json:"dataset_cases,omitempty"`
	Judges       []string `json:"judges,omitempty"`
	// Source is file:line, for messages; not written.
	Source string `json:"-"`
}

// Key is the (case, rule) pair the line is about.
func (l *SampleLabel) Key() [2]string { return [2]string{l.CaseID, l.RuleID} }

// ReadSampleLabels reads apeval.labels/v1 files, every line of every file
// in order. queue says whether the files are queues (no label) or labels
// files (every line labeled). All problems are reported together, each as
// "file:line: field: message". A torn last line (a labeler killed while
// writing) is an error too: labels are appended with a trailing newline
// and synced, so a line without one was never acknowledged.
func ReadSampleLabels(paths []string, queue bool) ([]SampleLabel, error) {
	var out []SampleLabel
	var errs []error
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		got, ferrs := readSampleLabels(f, p, queue)
		f.Close()
		out = append(out, got...)
		errs = append(errs, ferrs...)
	}
	if len(errs) > 0 {
		return nil, joinCapped(errs)
	}
	return out, nil
}

func readSampleLabels(r io.Reader, name string, queue bool) ([]SampleLabel, []error) {
	var out []SampleLabel
	var errs []error
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		src := fmt.Sprintf("%s:%d", name, n)
		var l SampleLabel
		if err := json.Unmarshal(line, &l); err != nil {
			var ute *json.UnmarshalTypeError
			if errors.As(err, &ute) && ute.Field != "" {
				err = fmt.Errorf("%s: wrong type (got %s)", ute.Field, ute.Value)
			}
			errs = append(errs, fmt.Errorf("%s: %w", src, err))
			continue
		}
		l.Source = src
		if err := l.check(queue); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", src, err))
			continue
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", name, err))
	}
	return out, errs
}

func (l *SampleLabel) check(queue bool) error {
	switch {
	case l.Schema != SampleLabelsSchema:
		return fmt.Errorf("schema: %q, want %q", l.Schema, SampleLabelsSchema)
	case l.CaseID == "":
		return errors.New("case_id: missing")
	case l.RuleID == "":
		return errors.New("rule_id: missing")
	case l.Stratum == "":
		return errors.New("stratum: missing")
	case l.StratumSize < 1:
		return fmt.Errorf("stratum_size: %d, want ≥ 1", l.StratumSize)
	case l.Order < 1:
		return fmt.Errorf("order: %d, want ≥ 1", l.Order)
	}
	if queue {
		return nil
	}
	switch l.Label {
	case LabelMatch, LabelNoMatch, SampleSkip:
	case "":
		return errors.New("label: missing (a queue line, not a labels line?)")
	default:
		return fmt.Errorf("label: %q, want match, no_match or skip", l.Label)
	}
	if l.Labeler == "" {
		return errors.New("labeler: missing")
	}
	if l.Time == nil {
		return errors.New("time: missing")
	}
	return nil
}

// WriteSampleLabels writes lines as JSONL.
func WriteSampleLabels(w io.Writer, lines []SampleLabel) error {
	bw := bufio.NewWriter(w)
	for i := range lines {
		b, err := json.Marshal(&lines[i])
		if err != nil {
			return err
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// LabelAppender appends labels to a labels file, one synced line at a
// time: when Append returns, the label is on disk. Several appenders, in
// one process or several (two `label serve` on one file), may share a
// file: the file is opened O_APPEND and every change is made under an
// exclusive advisory lock (flock), so lines never interleave or overwrite
// each other.
type LabelAppender struct {
	f    *os.File
	path string
	// write is f.Write; a test makes it fail part way (a full disk).
	write func(f *os.File, b []byte) (int, error)
}

// ErrLabelGone is Remove's error when the label is not in the file (it
// was never written, or was removed already).
var ErrLabelGone = errors.New("the label is not in the labels file")

// OpenLabelAppender opens (creating it if needed) a labels file for
// appending. A torn last line left by a crash is cut off first, so the
// file stays valid JSONL.
func OpenLabelAppender(path string) (*LabelAppender, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	a := &LabelAppender{f: f, path: path}
	if err := a.locked(func() error { _, err := a.completeSize(); return err }); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// locked runs fn holding the file's exclusive lock.
func (a *LabelAppender) locked(fn func() error) error {
	if err := lockExclusive(a.f); err != nil {
		return err
	}
	defer unlock(a.f)
	return fn()
}

// completeSize cuts a torn last line (a crash mid-write: every write is
// made under the lock, so nobody is writing it) and returns the file's size.
func (a *LabelAppender) completeSize() (int64, error) {
	st, err := a.f.Stat()
	if err != nil {
		return 0, err
	}
	size := st.Size()
	if size == 0 {
		return 0, nil
	}
	var last [1]byte
	if _, err := a.f.ReadAt(last[:], size-1); err != nil {
		return 0, err
	}
	if last[0] == '\n' {
		return size, nil
	}
	b, err := a.readAll()
	if err != nil {
		return 0, err
	}
	keep := int64(bytes.LastIndexByte(b, '\n') + 1)
	if err := a.f.Truncate(keep); err != nil {
		return 0, err
	}
	return keep, nil
}

func (a *LabelAppender) readAll() ([]byte, error) {
	st, err := a.f.Stat()
	if err != nil {
		return nil, err
	}
	b := make([]byte, st.Size())
	n, err := a.f.ReadAt(b, 0)
	if err != nil && err != io.EOF {
		return nil, err
	}
	return b[:n], nil
}

// Append writes one label line and syncs the file. A write that fails part
// way (a full disk) is cut back, so the file holds no partial line and the
// label is not in it.
func (a *LabelAppender) Append(l SampleLabel) error {
	b, err := json.Marshal(&l)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	return a.locked(func() error {
		size, err := a.completeSize()
		if err != nil {
			return err
		}
		write := a.write
		if write == nil {
			write = (*os.File).Write
		}
		if _, werr := write(a.f, b); werr != nil {
			if terr := a.f.Truncate(size); terr != nil {
				return fmt.Errorf("%w (and cutting the partial line back failed: %v)", werr, terr)
			}
			return werr
		}
		if err := a.f.Sync(); err != nil {
			// Not known to be on disk: take it back.
			_ = a.f.Truncate(size)
			return err
		}
		return nil
	})
}

// Close closes the file.
func (a *LabelAppender) Close() error { return a.f.Close() }

// Remove removes label l (undo): the last line of the file that holds this
// exact label (case, rule, labeler, label and time), wherever it is, so a
// labeler's undo never takes another labeler's line. It is ErrLabelGone
// when the file holds no such line.
func (a *LabelAppender) Remove(l SampleLabel) error {
	return a.locked(func() error {
		if _, err := a.completeSize(); err != nil {
			return err
		}
		b, err := a.readAll()
		if err != nil {
			return err
		}
		start, end := -1, -1
		for e := len(b); e > 0; {
			s := bytes.LastIndexByte(b[:e-1], '\n') + 1
			var got SampleLabel
			if json.Unmarshal(b[s:e], &got) == nil && sameLabel(&got, &l) {
				start, end = s, e
				break
			}
			e = s
		}
		if start < 0 {
			return ErrLabelGone
		}
		if end < len(b) {
			// Later lines move up over it: written through a second
			// descriptor, since an O_APPEND one writes only at the end.
			w, err := os.OpenFile(a.path, os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			_, werr := w.WriteAt(b[end:], int64(start))
			if cerr := w.Close(); werr == nil {
				werr = cerr
			}
			if werr != nil {
				return werr
			}
		}
		if err := a.f.Truncate(int64(len(b) - (end - start))); err != nil {
			return err
		}
		return a.f.Sync()
	})
}

// sameLabel reports whether two label lines are the same label given by
// the same person at the same time.
func sameLabel(x, y *SampleLabel) bool {
	return x.CaseID == y.CaseID && x.RuleID == y.RuleID && x.Labeler == y.Labeler && x.Label == y.Label &&
		x.Order == y.Order && x.Time != nil && y.Time != nil && x.Time.Equal(*y.Time)
}

// WithoutLabels returns a case line with its labels emptied ("labels":
// {}), every other byte kept: the embedded sample as a team's unlabeled
// recordings would look (apeval datasets sample --unlabeled).
func WithoutLabels(line []byte) ([]byte, error) {
	return SetMember(line, "labels", json.RawMessage(`{}`))
}

// Unlabeled is a JSONL dataset with every case's labels emptied
// (WithoutLabels), blank lines left out: the dataset as unlabeled
// recordings look (apeval datasets sample --unlabeled).
func Unlabeled(jsonl []byte) ([]byte, error) {
	var out []byte
	for _, line := range bytes.SplitAfter(jsonl, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		l, err := WithoutLabels(bytes.TrimSpace(line))
		if err != nil {
			return nil, err
		}
		out = append(append(out, l...), '\n')
	}
	return out, nil
}
