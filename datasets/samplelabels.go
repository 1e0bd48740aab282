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
// time: when Append returns, the label is on disk.
type LabelAppender struct{ f *os.File }

// OpenLabelAppender opens (creating it if needed) a labels file for
// appending. A torn last line left by a crash is cut off first, so the
// file stays valid JSONL.
func OpenLabelAppender(path string) (*LabelAppender, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := cutTornLine(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &LabelAppender{f: f}, nil
}

// cutTornLine truncates f after its last newline.
func cutTornLine(f *os.File) error {
	b, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	keep := int64(bytes.LastIndexByte(b, '\n') + 1)
	if keep != int64(len(b)) {
		if err := f.Truncate(keep); err != nil {
			return err
		}
	}
	_, err = f.Seek(0, io.SeekEnd)
	return err
}

// Append writes one label line and syncs the file.
func (a *LabelAppender) Append(l SampleLabel) error {
	b, err := json.Marshal(&l)
	if err != nil {
		return err
	}
	if _, err := a.f.Write(append(b, '\n')); err != nil {
		return err
	}
	return a.f.Sync()
}

// Close closes the file.
func (a *LabelAppender) Close() error { return a.f.Close() }

// RemoveLast removes the file's last line (undo) and syncs; it reports
// whether there was one.
func (a *LabelAppender) RemoveLast() (bool, error) {
	if _, err := a.f.Seek(0, io.SeekStart); err != nil {
		return false, err
	}
	b, err := io.ReadAll(a.f)
	if err != nil {
		return false, err
	}
	b = bytes.TrimSuffix(b, []byte{'\n'})
	if len(b) == 0 {
		_, err := a.f.Seek(0, io.SeekEnd)
		return false, err
	}
	keep := int64(bytes.LastIndexByte(b, '\n') + 1)
	if err := a.f.Truncate(keep); err != nil {
		return false, err
	}
	if _, err := a.f.Seek(0, io.SeekEnd); err != nil {
		return false, err
	}
	return true, a.f.Sync()
}

// WithoutLabels returns a case line with its labels emptied ("labels":
// {}), every other byte kept: the embedded sample as a team's unlabeled
// recordings would look (apeval datasets sample --unlabeled).
func WithoutLabels(line []byte) ([]byte, error) {
	return SetMember(line, "labels", json.RawMessage(`{}`))
}
