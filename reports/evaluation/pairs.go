package evaluation

import (
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/rundir"
)

// ReadPairs reads a run directory into a pair table (label queue, serve,
// agreement, correct; plan --pilot) of the chosen judges and rules.
// judges name them by identity, spec or unique prefix (the --judge flags;
// every judge of the run, in run order, when none); rules nil keeps every
// rule.
func ReadPairs(dir string, judges, rules []string) (*metrics.PairTable, rundir.RunInfo, error) {
	info, err := rundir.ReadRunInfo(dir)
	if err != nil {
		return nil, info, DirError(dir, err)
	}
	var ids []string
	for _, j := range info.Judges {
		ids = append(ids, j.Identity)
	}
	chosen := ids
	if len(judges) > 0 {
		chosen = nil
		for _, f := range judges {
			id, err := reports.MatchJudge("--judge", f, ids)
			if err != nil {
				return nil, info, err
			}
			chosen = append(chosen, id)
		}
	}
	t := metrics.NewPairTable(chosen, rules)
	if _, err := rundir.ReadRun(dir, func(r *replay.Result) error { t.Add(r); return nil }); err != nil {
		return nil, info, DirError(dir, err)
	}
	return t, info, nil
}
