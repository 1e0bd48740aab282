package reports

import (
	"path/filepath"
	"testing"

	"github.com/apeval/apeval/reports/internal/duckdbtest"
	"github.com/apeval/apeval/reports/rundir"
)

// Row groups carry min/max for the columns a filter can skip them by and
// none for the columns whose few values every row group holds (see
// rundir.DecisionsNoBounds); DuckDB reads the statistics that are there.
func TestRowGroupStatistics(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeRun(t, dir, fixtureResults())
	stats := func(file string) map[string]bool {
		rows := duckdbtest.Query(t, `SELECT path_in_schema AS col, bool_and(stats_min_value IS NOT NULL) AS has
FROM parquet_metadata(`+duckdbtest.Literal(filepath.Join(dir, file))+`) GROUP BY ALL`)[0]
		out := map[string]bool{}
		for _, r := range rows {
			out[r["col"].(string)] = r["has"] == true
		}
		return out
	}
	for file, cols := range map[string]struct{ with, without []string }{
		rundir.DecisionsFile: {
			with:    []string{"run_id", "case_id", "session_id", "seq", "judge", "source", "status", "fired", "run_started"},
			without: rundir.DecisionsNoBounds,
		},
		rundir.GatesFile: {
			with:    []string{"run_id", "case_id", "session_id", "seq", "judge", "permission", "rules_in_scope", "run_started"},
			without: rundir.GatesNoBounds,
		},
	} {
		got := stats(file)
		for _, c := range cols.with {
			if has, ok := got[c]; !ok || !has {
				t.Errorf("%s: column %s has no min/max (present %v)", file, c, ok)
			}
		}
		for _, c := range cols.without {
			if has, ok := got[c]; !ok || has {
				t.Errorf("%s: column %s: min/max %v, want none (present %v)", file, c, has, ok)
			}
		}
	}
}
