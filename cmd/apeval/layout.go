package main

import (
	"path/filepath"

	"github.com/apeval/apeval/reports/rundir"
)

const layoutUsage = "decision files: flat (DIR/decisions.parquet) or hive (DIR/run_id=<id>/judge=<judge>/decisions.parquet, --out being the table root)"

// runDirFor is the run directory that --out and --out-layout give: --out
// itself (default apeval-out/<run-id>) in the flat layout; in the hive
// layout --out (default apeval-out) is the root of the table and the run
// is its partition run_id=<run-id>.
func runDirFor(out, layout, runID string) string {
	if layout == rundir.LayoutHive {
		if out == "" {
			out = "apeval-out"
		}
		return filepath.Join(out, rundir.RunDir(runID))
	}
	if out == "" {
		return filepath.Join("apeval-out", runID)
	}
	return out
}
