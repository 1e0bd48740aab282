package evaluation

import (
	"fmt"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/diff"
	"github.com/apeval/apeval/reports/rundir"
)

// Comparison is a candidate judge compared with a baseline (apeval
// compare): the report of the runs, the comparison and the line that
// leads the output when the runs share only part of their cases.
type Comparison struct {
	Report *reports.Report
	Cmp    *metrics.Comparison
	Banner string
	// Verdict is the candidate's verdict against the baseline.
	Verdict metrics.Verdict
}

// Compare evaluates the runs (one holding both judges of pair, or two)
// with spec, whose Baseline is the pair's, and compares the candidate
// with the baseline. Two runs' differences (datasets, policies, prompts)
// lead the comparison's warnings. Runs with no case in common are an
// error; a partial overlap gives the Banner. The caller releases
// Report.Summary.
func (rs *RunSet) Compare(spec Spec, pair reports.JudgePair) (*Comparison, error) {
	infos := rs.Infos
	spec.Baseline = pair.Baseline
	// One flat run holds each case's results together; two runs of one
	// dataset hold the same cases in the same order. Either is checked
	// exactly, and the files are read again when it does not hold (see
	// Evaluate). Slices and hive runs with several judges keep every case ID.
	spec.CheckDistinct = len(spec.Slices) == 0 && flat(infos[0]) && (len(infos) == 1 || flat(infos[1]))
	spec.PairedStreams = spec.CheckDistinct && len(infos) == 2
	// The two runs are decoded in parallel (decoding Parquet is most of the
	// work); results reach the evaluation one at a time. Every figure is
	// independent of the order results arrive in.
	// Against auto mode's recorded decisions, the cases a hook rewrote
	// are counted as the results come (hookrewrite.go).
	hooks := newHookRewrites(infos, pair.Baseline, pair.Candidate, rs.URLs)
	if spec.WithoutHookRewritten {
		if err := hooks.canLeaveOut(pair); err != nil {
			return nil, err
		}
	}
	ev, err := rs.Evaluate(spec, true, func(i int, r *replay.Result, again bool) (bool, error) {
		keep := pair.Read(i, r)
		if keep && !again {
			hooks.see(r, pair.Baseline, pair.Candidate)
		}
		// Left out whole (both judges), so the paired figures stay paired.
		return keep && !(spec.WithoutHookRewritten && hooks.ids[r.CaseID]), nil
	})
	if err != nil {
		return nil, err
	}
	rep, err := ev.Finish(pair.Run(infos))
	if err != nil {
		return nil, err
	}
	sum := rep.Summary
	cmp := sum.Compare(pair.Baseline, pair.Candidate)
	if cmp == nil {
		_ = sum.Release()
		return nil, fmt.Errorf("no results for %s or %s in %v", pair.Baseline, pair.Candidate, rs.Dirs)
	}
	if len(infos) == 2 {
		cmp.Warnings = append(reports.RunDifferences(infos[0], infos[1]), cmp.Warnings...)
	}
	if w := hooks.Warning(spec.WithoutHookRewritten); w != "" {
		cmp.Warnings = append(cmp.Warnings, w)
	}
	// Runs with nothing in common have nothing to compare; a partial
	// overlap leads the output with its counts (as apeval diff does).
	ov := diff.NewOverlap(infos[0], infos[len(infos)-1])
	ov.Common, ov.OnlyBase, ov.OnlyHead = int64(cmp.Cases.Shared), int64(cmp.Cases.BaselineOnly), int64(cmp.Cases.CandidateOnly)
	if err := ov.Err(); err != nil {
		_ = sum.Release()
		return nil, err
	}
	return &Comparison{Report: rep, Cmp: cmp, Banner: ov.Banner(), Verdict: sum.CompareVerdict(pair.Baseline, pair.Candidate)}, nil
}

// flat says a run holds each case's results together: not a hive run of
// several judges, whose judges come one after another.
func flat(in rundir.RunInfo) bool { return in.Layout != rundir.LayoutHive || len(in.Judges) <= 1 }

// Distinct says whether a reading command (report, gate) can check that
// each case comes once and number the cases as they come: one run
// directory in one part holds each case's results together, each case
// once, and distinct shards of one run hold disjoint cases (checked, see
// Evaluate). Other directories may repeat cases (pooled runs of one
// dataset), and a hive run's judges come one after another.
func (rs *RunSet) Distinct() bool {
	d := len(rs.Infos) == 1 || rs.ShardsOfOneRun()
	for _, in := range rs.Infos {
		d = d && flat(in)
	}
	return d
}

// ForComment makes the report describe the head run (B, or the single
// run), as the pull-request comment does: its run ID, filter, datasets
// and policy.
func (c *Comparison) ForComment(infos []rundir.RunInfo) {
	head := infos[len(infos)-1]
	r := &c.Report.Run
	r.RunID, r.Filter, r.Datasets, r.Policy = head.RunID, head.Filter, head.Datasets, head.Policy
}

// Changes is the comment's "what changes" block: apeval diff's summary
// of the runs (the top five loosened calls, a link to diffURL, the calls
// auto mode judged on a hook-rewritten input marked, their datasets opened
// through urls), or why a diff of them is not shown.
func Changes(dirs []string, baseline, candidate, diffURL string, urls datasets.Opener) string {
	in, err := diff.Open(dirs, baseline, candidate)
	if err == nil {
		var res *diff.Result
		o := diff.Options{Top: 5}
		var ids map[string]bool
		o.AutoMode, ids, o.HookNote = HookRewritten(in.Infos, in.Base, in.Head, urls)
		o.HookRewritten = func(id string) bool { return ids[id] }
		if res, err = diff.Diff(in, o); err == nil {
			return res.Summary.CommentBlock(diffURL)
		}
	}
	return "\n### What changes\n\nNot shown: " + err.Error() + "\n\n"
}
