package evaluation

import (
	"time"

	"github.com/apeval/apeval/metrics"
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
// shards' counts summed, interrupted when one was, partial when one was
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
		info.InvalidLines += in.InvalidLines
		info.Interrupted = info.Interrupted || in.Interrupted
		if in.Partial != "" && info.Partial == "" {
			info.Partial = "shard " + in.Shard + ": " + in.Partial // one partial shard makes the whole partial
		}
	}
	t := metrics.ThresholdsOf(spec.Criteria)
	info.Criteria, info.CriteriaFrom = &t, spec.CriteriaFrom
	return info
}
