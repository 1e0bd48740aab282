package evaluation

import (
	"fmt"
	"os"
	"time"

	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/rundir"
)

// CheckShards reads the shard runs' run.json and checks that they belong
// together (rundir.ShardSet): one policy, the same judges, shards 1..N
// once each unless allowPartial.
func CheckShards(dirs []string, allowPartial bool) ([]rundir.RunInfo, error) {
	var infos []rundir.RunInfo
	var set rundir.ShardSet
	for _, d := range dirs {
		info, err := rundir.ReadRunInfo(d)
		if err != nil {
			return nil, DirError(d, err)
		}
		if err := set.Add(d, info); err != nil {
			return nil, err
		}
		infos = append(infos, info)
	}
	if !allowPartial {
		if err := set.Complete(); err != nil {
			return nil, err
		}
	}
	return infos, nil
}

// MergedInfo is the run.json of the merge of shard runs (apeval merge):
// the first shard's settings under a new run ID, layout and time, the
// shards' counts summed (invalid lines: the most any shard read, as each
// reads the whole input), interrupted when one was, partial when one was
// (naming the first such shard), no shard and no budget (a shard's budget
// is its own), and the criteria the merged run is evaluated with (spec's:
// the shards', or the ones --criteria/--policy put instead).
func MergedInfo(infos []rundir.RunInfo, runID, layout string, created time.Time, spec Spec) rundir.RunInfo {
	info := infos[0]
	info.Layout = layout
	info.RunID = runID
	info.Created = created.UTC()
	info.Shard = ""
	info.Cases, info.InvalidLines, info.Results, info.Decisions = 0, 0, 0, 0
	info.Interrupted = false
	info.ReplayMS = 0
	info.Partial, info.Budget = "", nil
	for _, in := range infos {
		info.Cases += in.Cases
		// Every shard reads the whole input and counts its invalid lines
		// before taking its own sessions (replay.Feed): the lines are the
		// same in each, not a share of them (summed, 3 bad lines read
		// as 6 over two shards).
		info.InvalidLines = max(info.InvalidLines, in.InvalidLines)
		info.Interrupted = info.Interrupted || in.Interrupted
		if in.Partial != "" && info.Partial == "" {
			info.Partial = "shard " + in.Shard + ": " + in.Partial // one partial shard makes the whole partial
		}
	}
	t := metrics.ThresholdsOf(spec.Criteria)
	info.Criteria, info.CriteriaFrom = &t, spec.CriteriaFrom
	return info
}

// Merge writes the merged run of the shard runs rs (CheckShards) into
// out with run.json info (MergedInfo): every shard's results under
// info's run ID, evaluated with spec as one unsharded run would have
// been (shards hold disjoint cases, each case's results together: they
// are numbered as they come, and checked). It refuses an out that is one
// of the shards, which the merge would replace. The report's exit code
// is set (Report.RunExit); the caller writes the reports through the
// returned writer, then releases it and the report's summary.
func (rs *RunSet) Merge(spec Spec, out string, info rundir.RunInfo) (*reports.Report, *rundir.RunWriter, error) {
	if err := outIsNotInput(out, rs.Dirs); err != nil {
		return nil, nil, err
	}
	w, err := rundir.CreateRun(out, info)
	if err != nil {
		return nil, nil, err
	}
	spec.CheckDistinct = true
	ev, err := rs.Evaluate(spec, false, func(_ int, r *replay.Result, again bool) (bool, error) {
		r.RunID = info.RunID
		if again {
			return true, nil
		}
		return true, w.Write(r)
	})
	if err != nil {
		w.Abort()
		w.Release()
		return nil, nil, err
	}
	if err := w.Close(); err != nil {
		w.Release()
		return nil, nil, err
	}
	rep, err := ev.Finish(*w.Info())
	if err != nil {
		w.Release()
		return nil, nil, err
	}
	rep.Exit = rep.RunExit()
	return rep, w, nil
}

// outIsNotInput refuses a merge whose out is one of its input shards:
// writing it would replace the shard with the merged run.
func outIsNotInput(out string, inputs []string) error {
	ost, err := os.Stat(out)
	if err != nil {
		return nil // a new directory is no input
	}
	for _, in := range inputs {
		if ist, err := os.Stat(in); err == nil && os.SameFile(ost, ist) {
			return fmt.Errorf("--out %s is one of the shards being merged (%s); choose another directory for the merged run", out, in)
		}
	}
	return nil
}
