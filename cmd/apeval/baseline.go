package main

import (
	"fmt"
	goio "io"

	"github.com/apeval/apeval/reports/rundir"
)

// runBaseline sets *baseline, when a command given one run directory has
// no --baseline, to the judge that run was made with --baseline (run.json's
// baseline) and says so on w. A run made without one is a usage error that
// names the flag.
func runBaseline(cmd, dir string, info rundir.RunInfo, baseline *string, w goio.Writer) error {
	if *baseline != "" {
		return nil
	}
	if info.Baseline == "" {
		return usagef("%s of one run directory needs --baseline JUDGE: %s was run without --baseline", cmd, dir)
	}
	*baseline = info.Baseline
	fmt.Fprintf(w, "apeval: baseline %s, the run's own --baseline (--baseline JUDGE names another)\n", info.Baseline)
	return nil
}
