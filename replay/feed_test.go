package replay

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apeval/apeval/datasets"
)

const feedInput = `{"id":"c1","session_id":"s1","tool":{"name":"Bash"},"labels":{"rm-fr":"match"},"weak_labels":{"R":"match"}}
{"id":"c2","session_id":"s2","tool":{"name":"Bash"}}
not json
{"id":"c3","session_id":"s3","tool":{"name":"Bash"}}
`

func feedOf(in string) *Feed {
	return &Feed{Reader: datasets.Open([]string{"-"}, strings.NewReader(in))}
}

func drain(f *Feed) []string {
	var ids []string
	for c, ok := f.Next(); ok; c, ok = f.Next() {
		ids = append(ids, c.ID)
	}
	return ids
}

func TestFeedStopsHandingOutCasesAtAnInvalidLine(t *testing.T) {
	t.Parallel()
	f := feedOf(feedInput)
	defer f.Reader.Close()
	if got := strings.Join(drain(f), ","); got != "c1,c2" {
		t.Errorf("handed out %s, want c1,c2 (nothing after the bad line)", got)
	}
	var in *datasets.InvalidInput
	if err := f.Err(); !errors.As(err, &in) || in.Total != 1 || !strings.Contains(err.Error(), "stdin:3:") {
		t.Errorf("Err = %v, want the bad line listed", err)
	}
	if f.Valid != 2 || f.Cases != 2 {
		t.Errorf("valid %d, cases %d; want 2 and 2 (c3 is not even counted valid once failing)", f.Valid, f.Cases)
	}
}

func TestFeedSkipsWithSkipAndAppliesItsHooks(t *testing.T) {
	t.Parallel()
	f := feedOf(feedInput)
	defer f.Reader.Close()
	f.Invalid.Skip = true
	f.Stray = datasets.NewStrayLabels([]string{"R"})
	f.Weak = &datasets.WeakSwap{}
	var first *datasets.Case
	c, ok := f.Next()
	if ok {
		first = c
	}
	rest := drain(f)
	if first == nil || first.ID != "c1" || first.Labels["R"] != datasets.LabelMatch || first.WeakLabels != nil {
		t.Fatalf("first case %+v: want c1 with its weak label as its label", first)
	}
	if got := strings.Join(rest, ","); got != "c2,c3" {
		t.Errorf("then %s, want c2,c3", got)
	}
	if err := f.Err(); err != nil || f.Invalid.Count != 1 {
		t.Errorf("Err %v, %d invalid; want nil and 1 skipped", err, f.Invalid.Count)
	}
	// The stray check sees the labels as the run counts them: after the
	// swap, c1's label names R, which the policy has.
	if ids := f.Stray.IDs(); len(ids) != 0 {
		t.Errorf("stray labels %v, want none after the weak swap", ids)
	}
}

func TestFeedStopsOnTheBudgetsSignal(t *testing.T) {
	t.Parallel()
	f := feedOf(feedInput)
	defer f.Reader.Close()
	var stop atomic.Bool
	f.Stop = &stop
	if _, ok := f.Next(); !ok {
		t.Fatal("no first case")
	}
	stop.Store(true)
	if c, ok := f.Next(); ok {
		t.Errorf("handed out %s after the stop", c.ID)
	}
	if f.Cases != 1 {
		t.Errorf("cases %d, want 1", f.Cases)
	}
}

func TestScanStatsCountsOrFails(t *testing.T) {
	t.Parallel()
	p := &Policy{}
	r := datasets.Open([]string{"-"}, strings.NewReader(feedInput))
	if _, err := ScanStats(r, p, false); err == nil || !strings.Contains(err.Error(), "the dataset has 1 invalid line(s)") {
		t.Errorf("without skip: %v", err)
	}
	r.Close()
	r = datasets.Open([]string{"-"}, strings.NewReader(feedInput))
	defer r.Close()
	st, err := ScanStats(r, p, true)
	if err != nil || st.Cases != 3 || st.Invalid != 1 {
		t.Errorf("with skip: %+v, %v; want 3 cases and 1 invalid", st, err)
	}
}
