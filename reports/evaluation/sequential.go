package evaluation

import (
	"fmt"
	"io"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/rundir"
)

// Sequential decides over the history of runs with confidence sequences
// (apeval gate --sequential): every run directory of rs, in order, is one
// look of metrics.SequentialGate, named names[i] as the user gave it (a
// bucket's run is read from a local copy). criteriaFile, policyFile and
// baseline are the command's --criteria, --policy and --baseline
// (RunSet.Criteria, RunSet.Baseline). A partial run is said on errOut:
// its sessions count as far as it got.
func (rs *RunSet) Sequential(names []string, criteriaFile, policyFile, baseline string, errOut io.Writer) (*metrics.SequentialResult, error) {
	crit, _, err := rs.Criteria(criteriaFile, policyFile, errOut)
	if err != nil {
		return nil, err
	}
	base, err := rs.Baseline(baseline)
	if err != nil {
		return nil, err
	}
	g := metrics.NewSequentialGate(crit, base)
	for i, d := range rs.Dirs {
		g.BeginRun(names[i])
		if _, err := rundir.ReadRun(d, func(r *replay.Result) error { g.Add(r); return nil }); err != nil {
			return nil, DirError(names[i], err)
		}
		g.EndRun()
		if p := rs.Infos[i].Partial; p != "" {
			fmt.Fprintf(errOut, "apeval: %s is partial (%s): its sessions count as far as it got (a session it cut short is not completed by a later run: those cases are left out as duplicates)\n", names[i], p)
		}
	}
	return g.Result(), nil
}

// Weak reports whether any of the runs was made on weak labels (run
// --weak-labels): every figure on labels rests on them.
func (rs *RunSet) Weak() bool {
	for _, in := range rs.Infos {
		if in.LabelSource == datasets.LabelSourceWeak {
			return true
		}
	}
	return false
}
