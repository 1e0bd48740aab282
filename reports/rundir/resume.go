package rundir

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/apeval/apeval/judge/core"
	"github.com/apeval/apeval/replay"
)

// Resume is a run being finished (apeval run --resume DIR): the run
// directory resumed, how many of its calls failed, and how many calls the
// new run sent. Count is safe for concurrent use.
type Resume struct {
	Dir    string
	Info   RunInfo
	failed int64 // DIR's calls that timed out or failed in transport
	sent   atomic.Int64
}

// OpenResume reads the run directory dir and counts its failed calls
// (timeout or error). A run.json recording no settings (an older apeval)
// cannot be resumed: its judges and flags are unknown.
func OpenResume(dir string) (*Resume, error) {
	rs := &Resume{Dir: dir}
	info, err := ReadRun(dir, func(r *replay.Result) error {
		for i := range r.Calls {
			if st := r.Calls[i].Status; st == core.StatusTimeout || st == core.StatusError {
				rs.failed++
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if info.Settings == nil {
		return nil, fmt.Errorf("its run.json records no settings (made by an older apeval); rerun it with the same flags and the same cache instead")
	}
	rs.Info = info
	return rs, nil
}

// CheckIdentities makes sure the resumed run has the judges of the run it
// resumes (identities, in any order): a resume that changed a model or a
// prompt would be a new experiment, not the same run finished.
func (rs *Resume) CheckIdentities(ids []string) error {
	var want []string
	for _, j := range rs.Info.Judges {
		want = append(want, j.Identity)
	}
	got := slices.Clone(ids)
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		return fmt.Errorf("its judges are %s, this run's are %s; a resumed run keeps the judges' identities (drop the flags that changed them)",
			strings.Join(want, ", "), strings.Join(got, ", "))
	}
	return nil
}

// Count notes the calls of a result the new run sent: not cache hits, not
// calls a budget kept from being sent, not the none judge's.
func (rs *Resume) Count(r *replay.Result) {
	for i := range r.Calls {
		if !r.Calls[i].Cached && r.Calls[i].Cause != core.CauseBudget && r.Judge != "none" {
			rs.sent.Add(1)
		}
	}
}

// Report is run.json's "resumed".
func (rs *Resume) Report() *Resumed {
	return &Resumed{From: rs.Dir, RunID: rs.Info.RunID, FailedCalls: rs.failed, Resent: rs.sent.Load(),
		FromPartial: rs.Info.Partial != "" || rs.Info.Interrupted}
}

// Message says what the resume re-sent, and why more calls than failed
// may have been.
func (rs *Resume) Message() string {
	r := rs.Report()
	s := fmt.Sprintf("resumed %s (run %s): re-sent %d call(s); %d had failed there (timeout or error)", r.From, r.RunID, r.Resent, r.FailedCalls)
	switch {
	case r.Resent > r.FailedCalls && r.FromPartial:
		s += "; the others are the cases it did not finish"
	case r.Resent > r.FailedCalls:
		s += fmt.Sprintf("; the other %d are later calls of those sessions, whose input (the session's rule fires) changed once the failed call answered, or calls the cache lacks (another --cache?)", r.Resent-r.FailedCalls)
	}
	return s
}
