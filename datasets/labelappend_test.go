package datasets

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func testLabel(labeler, caseID string, order int) SampleLabel {
	now := time.Date(2026, 12, 1, 10, 0, order, 0, time.UTC)
	return SampleLabel{Schema: SampleLabelsSchema, CaseID: caseID, RuleID: "r", Stratum: "A:match", StratumSize: 30,
		Order: order, Label: LabelMatch, Labeler: labeler, Time: &now}
}

// Two appenders on one file (two `label serve` processes, two parts of one
// labeler's queue) writing at once lose no label and tear no line
// (issue 35 point 1).
func TestLabelAppendersShareAFile(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "labels.jsonl")
	const each = 40
	var wg sync.WaitGroup
	errs := make(chan error, 2*each)
	for w, who := range []string{"ana", "ben"} {
		a, err := OpenLabelAppender(p)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				errs <- a.Append(testLabel(who, fmt.Sprintf("%s-%02d", who, i), 2*i+w+1))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := ReadSampleLabels([]string{p}, false)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, l := range got {
		seen[l.CaseID] = true
	}
	if len(got) != 2*each || len(seen) != 2*each {
		t.Fatalf("%d lines, %d distinct labels; want %d", len(got), len(seen), 2*each)
	}
}

// shortWrite writes the first n bytes of a line and fails like a full disk.
func shortWrite(n int) func(f *os.File, b []byte) (int, error) {
	return func(f *os.File, b []byte) (int, error) {
		m, err := f.Write(b[:min(n, len(b))])
		if err != nil {
			return m, err
		}
		return m, syscall.ENOSPC
	}
}

// A write that fails part way (a full disk) leaves the file as it was:
// the next label is whole, and undo after the failure agrees with the file
// (issue 35 point 2).
func TestLabelAppenderShortWrite(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "labels.jsonl")
	a, err := OpenLabelAppender(p)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	first := testLabel("ana", "c1", 1)
	if err := a.Append(first); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(p)
	a.write = shortWrite(17)
	if err := a.Append(testLabel("ana", "c2", 2)); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("short write: %v, want ENOSPC", err)
	}
	if after, _ := os.ReadFile(p); !bytes.Equal(after, before) {
		t.Fatalf("a failed write left %q", after[len(before):])
	}
	a.write = nil
	third := testLabel("ana", "c3", 3)
	if err := a.Append(third); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSampleLabels([]string{p}, false)
	if err != nil || len(got) != 2 || got[1].CaseID != "c3" {
		t.Fatalf("after the failed write: %v %+v", err, got)
	}
	// The failed label was never written: undoing it is refused, the
	// others are removed.
	if err := a.Remove(testLabel("ana", "c2", 2)); !errors.Is(err, ErrLabelGone) {
		t.Fatalf("undo of the failed label: %v", err)
	}
	if err := a.Remove(third); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(p); !bytes.Equal(after, before) {
		t.Fatalf("after undo: %q, want %q", after, before)
	}
}

// Undo removes the labeler's own label, even when another labeler wrote
// after it, and never another's (issue 35 point 3).
func TestLabelAppenderUndoesOwnLabelOnly(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "labels.jsonl")
	a, _ := OpenLabelAppender(p)
	b, _ := OpenLabelAppender(p)
	defer a.Close()
	defer b.Close()
	la, lb := testLabel("ana", "c1", 1), testLabel("ben", "c2", 2)
	if err := a.Append(la); err != nil {
		t.Fatal(err)
	}
	if err := b.Append(lb); err != nil {
		t.Fatal(err)
	}
	if err := a.Remove(la); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSampleLabels([]string{p}, false)
	if err != nil || len(got) != 1 || got[0].Labeler != "ben" {
		t.Fatalf("after ana's undo: %v %+v", err, got)
	}
	if err := a.Remove(la); !errors.Is(err, ErrLabelGone) {
		t.Fatalf("second undo of one label: %v", err)
	}
	if err := b.Remove(lb); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(p); len(data) != 0 {
		t.Fatalf("after both undos: %q", data)
	}
}

// FuzzLabelAppender drives two appenders on one file with the operations
// the input spells: appends, appends cut short by a full disk at any byte,
// undos of each appender's own last label, and a burst of appends from
// both at once. After every step the file must be valid and hold exactly
// the labels a model says were acknowledged and not undone.
func FuzzLabelAppender(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7}, uint8(3))
	f.Add([]byte{0, 0, 6, 1, 7, 3, 2}, uint8(0))
	f.Add([]byte{4, 12, 20, 28, 6, 7, 0, 1}, uint8(9))
	f.Fuzz(func(t *testing.T, ops []byte, burst uint8) {
		if len(ops) > 64 {
			ops = ops[:64]
		}
		p := filepath.Join(t.TempDir(), "labels.jsonl")
		apps := [2]*LabelAppender{}
		for i := range apps {
			a, err := OpenLabelAppender(p)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			apps[i] = a
		}
		var model []SampleLabel  // the file's labels, in order
		var own [2][]SampleLabel // each appender's acknowledged labels
		who := [2]string{"ana", "ben"}
		n := 0
		for _, op := range ops {
			w := int(op & 1)
			a := apps[w]
			switch (op >> 1) & 3 {
			case 0, 1:
				n++
				l := testLabel(who[w], fmt.Sprintf("c%d", n), n)
				if err := a.Append(l); err != nil {
					t.Fatal(err)
				}
				model = append(model, l)
				own[w] = append(own[w], l)
			case 2:
				n++
				a.write = shortWrite(int(op >> 3))
				err := a.Append(testLabel(who[w], fmt.Sprintf("c%d", n), n))
				a.write = nil
				if err == nil {
					t.Fatal("a failed write was acknowledged")
				}
			case 3:
				if len(own[w]) == 0 {
					if err := a.Remove(testLabel(who[w], "none", 1)); !errors.Is(err, ErrLabelGone) {
						t.Fatalf("undo with nothing written: %v", err)
					}
					continue
				}
				last := own[w][len(own[w])-1]
				if err := a.Remove(last); err != nil {
					t.Fatal(err)
				}
				own[w] = own[w][:len(own[w])-1]
				for i := len(model) - 1; i >= 0; i-- {
					if sameLabel(&model[i], &last) {
						model = append(model[:i], model[i+1:]...)
						break
					}
				}
			}
			got, err := ReadSampleLabels([]string{p}, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(model) {
				t.Fatalf("the file holds %d labels, the model %d", len(got), len(model))
			}
			for i := range got {
				if !sameLabel(&got[i], &model[i]) {
					t.Fatalf("line %d: %+v, want %+v", i+1, got[i], model[i])
				}
			}
		}
		// Both at once: every label arrives whole.
		k := int(burst % 16)
		var wg sync.WaitGroup
		for w := range apps {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < k; i++ {
					if err := apps[w].Append(testLabel(who[w], fmt.Sprintf("b%d-%d", w, i), 1000+i)); err != nil {
						t.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		got, err := ReadSampleLabels([]string{p}, false)
		if err != nil || len(got) != len(model)+2*k {
			t.Fatalf("after a burst of 2×%d: %d labels (model %d), %v", k, len(got), len(model), err)
		}
	})
}

// A .json file that holds a JSON array says so on its first line's error,
// naming datasets import (issue 35 point 15).
func TestJSONArrayFileHint(t *testing.T) {
	t.Parallel()
	_, err := decodeLineInto(nil, []byte(`[{"id":"a","tool":{"name":"Bash"}},`), "cases.json", 1, nil, false)
	if err == nil || !strings.Contains(err.Error(), "a JSON array, not JSON Lines") || !strings.Contains(err.Error(), "apeval datasets import") {
		t.Fatalf("first line of an array: %v", err)
	}
	if _, err := decodeLineInto(nil, []byte(`[1,2]`), "cases.json", 1, nil, false); err == nil || !strings.Contains(err.Error(), "datasets import") {
		t.Fatalf("a one-line array: %v", err)
	}
}
