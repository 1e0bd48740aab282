package reports

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/apeval/apeval/judge/core"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
)

// maxErrorKinds bounds the distinct error messages Failures keeps per
// judge; further kinds are counted under one "other" line.
const maxErrorKinds = 200

// topErrors is how many messages a report lists per judge.
const topErrors = 5

// Failures tallies each judge's failed calls (status invalid, timeout or
// error) and their error messages, so that a run in which most calls
// failed says why instead of showing a verdict that only reflects a broken
// setup. Feed it every result with Add; it is not safe for concurrent use.
type Failures struct {
	judges map[string]*judgeFailures
	order  []string
}

type judgeFailures struct {
	calls, failed int64
	msgs          map[string]int64
	other         int64
}

// NewFailures returns an empty tally.
func NewFailures() *Failures { return &Failures{judges: map[string]*judgeFailures{}} }

// Add counts the calls of one result. Cache hits count too: the cache
// keeps only a model's answers, so a cached invalid answer is a failure of
// the judge as the live call was (its message says it came from the cache).
func (f *Failures) Add(r *replay.Result) {
	if strings.HasPrefix(r.Judge, "none") {
		return // the none judge fails every call by design
	}
	j := f.judges[r.Judge]
	for i := range r.Calls {
		c := &r.Calls[i]
		if j == nil {
			j = &judgeFailures{msgs: map[string]int64{}}
			f.judges[r.Judge] = j
			f.order = append(f.order, r.Judge)
		}
		j.calls++
		if c.Status == core.StatusOK || c.Status == core.StatusUnknown || c.Status == core.StatusMissing {
			continue
		}
		j.failed++
		msg := c.Error
		if msg == "" {
			msg = string(c.Status)
		}
		if c.Cached {
			msg += " (answers from the cache)"
		}
		if _, ok := j.msgs[msg]; ok || len(j.msgs) < maxErrorKinds {
			j.msgs[msg]++
		} else {
			j.other++
		}
	}
}

// ErrorCount is one error message and how many calls failed with it.
type ErrorCount struct {
	Message string `json:"message"`
	Count   int64  `json:"count"`
}

// JudgeFailures is one judge's failed calls, in summary.json's
// judge_failures.
type JudgeFailures struct {
	Judge  string `json:"judge"`
	Calls  int64  `json:"calls"`
	Failed int64  `json:"failed"`
	// Broken is set when at least half the calls failed: the verdict then
	// describes the setup (server, URL, key, plugin), not the judge.
	Broken bool `json:"broken"`
	// NoVerdict is set when the judge's setup left it no verdict (ERROR,
	// metrics.JudgeSummary.SetupError): the warning then says so instead
	// of speaking of a verdict.
	NoVerdict bool `json:"-"`
	// Top lists the most frequent error messages, most frequent first.
	Top []ErrorCount `json:"top_errors"`
}

// Summary lists the judges with at least one failed call, in the order
// they were first seen.
func (f *Failures) Summary() []JudgeFailures {
	out := []JudgeFailures{}
	if f == nil {
		return out
	}
	for _, id := range f.order {
		j := f.judges[id]
		if j.failed == 0 {
			continue
		}
		s := JudgeFailures{Judge: id, Calls: j.calls, Failed: j.failed, Broken: 2*j.failed >= j.calls}
		for m, n := range j.msgs {
			s.Top = append(s.Top, ErrorCount{m, n})
		}
		slices.SortFunc(s.Top, func(a, b ErrorCount) int {
			return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Message, b.Message))
		})
		if len(s.Top) > topErrors {
			s.Top = s.Top[:topErrors]
		}
		if j.other > 0 {
			s.Top = append(s.Top, ErrorCount{"(other messages)", j.other})
		}
		out = append(out, s)
	}
	return out
}

// SummaryOf is Summary with each judge marked NoVerdict when sum gives it
// the verdict ERROR (its setup is broken).
func (f *Failures) SummaryOf(sum *metrics.Summary) []JudgeFailures {
	out := f.Summary()
	for i := range out {
		if js := sum.Judge(out[i].Judge); js != nil && js.Verdict == metrics.VerdictError {
			out[i].NoVerdict = true
		}
	}
	return out
}

// Lines renders one judge's failures for people: a headline, then one line
// per message ("250 × dial tcp: lookup api.openai.com: no such host").
func (s JudgeFailures) Lines() []string {
	head := fmt.Sprintf("%s: %d of %d judge calls failed", s.Judge, s.Failed, s.Calls)
	if s.Broken {
		if s.NoVerdict {
			head += " — a broken judge setup: no verdict; fix the cause and rerun (apeval judges check helps)"
		} else {
			head += " — the verdict reflects a broken judge setup, not the judge; fix the cause and rerun (apeval judges check helps)"
		}
	}
	lines := []string{head}
	for _, e := range s.Top {
		lines = append(lines, fmt.Sprintf("%d × %s", e.Count, e.Message))
	}
	return lines
}
