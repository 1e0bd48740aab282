package reports

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/apeval/apeval/reports/internal/duckdbtest"
	"github.com/apeval/apeval/reports/rundir"
)

// TestCaseColumnsInDuckDB: both decision files carry the tool call's name,
// category and hook point, the case's time as a UTC timestamp and the run's
// start; absent values are NULL, never ”. They survive a read back (so
// merge keeps them).
func TestCaseColumnsInDuckDB(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rs := fixtureResults()
	// c-1: a Bash call at 12:30:05.25 in UTC+9 (03:30:05.25 UTC); c-2 and
	// c-3 have no time, c-2 no tool fields at all; c-1 of judge B has a
	// scope row whose result is "" (null in the file).
	at := time.Date(2026, 7, 24, 12, 30, 5, 250_000_000, time.FixedZone("JST", 9*3600))
	for _, r := range rs {
		switch r.CaseID {
		case "c-1":
			r.ToolName, r.Category, r.HookPoint, r.Time = "Bash", "command_execution", "tool.before", &at
		case "c-3":
			r.ToolName, r.Category, r.HookPoint = "Write", "file_change", "tool.before"
		}
	}
	rs[3].Rules[0].Result = ""
	writeRun(t, dir, rs)

	gates, dec := filepath.Join(dir, rundir.GatesFile), filepath.Join(dir, rundir.DecisionsFile)
	checkRows(t, fmt.Sprintf(`SELECT case_id, tool_name, category, hook_point,
		strftime(case_time AT TIME ZONE 'UTC', '%%Y-%%m-%%dT%%H:%%M:%%S.%%f') AS case_time,
		strftime(run_started AT TIME ZONE 'UTC', '%%Y-%%m-%%dT%%H:%%M:%%S') AS run_started
		FROM read_parquet(%s) WHERE judge LIKE 'ollama%%' ORDER BY case_id`, duckdbtest.Literal(gates)), `[
	 {"case_id":"c-1","tool_name":"Bash","category":"command_execution","hook_point":"tool.before",
	  "case_time":"2026-07-24T03:30:05.250000","run_started":"2026-07-24T10:00:00"},
	 {"case_id":"c-2","tool_name":null,"category":null,"hook_point":null,"case_time":null,"run_started":"2026-07-24T10:00:00"},
	 {"case_id":"c-3","tool_name":"Write","category":"file_change","hook_point":"tool.before","case_time":null,
	  "run_started":"2026-07-24T10:00:00"}
	]`)
	// decisions.parquet: the same per row; no '' anywhere in its string
	// columns (the scope row's missing result is NULL).
	checkRows(t, fmt.Sprintf(`SELECT count(*) FILTER (WHERE tool_name = 'Bash' AND epoch_us(case_time) = %d) AS bash,
		count(*) FILTER (WHERE result IS NULL) AS null_result,
		count(*) FILTER (WHERE result = '' OR tool_name = '' OR category = '' OR hook_point = '' OR label = ''
		  OR error = '' OR model = '' OR baseline_result = '' OR call_status = '' OR call_error = '') AS empty
		FROM read_parquet(%s)`, at.UnixMicro(), duckdbtest.Literal(dec)),
		`[{"bash":"4","null_result":"1","empty":"0"}]`)
	checkRows(t, fmt.Sprintf(`SELECT count(*) FILTER (WHERE expected_action = '' OR status = '' OR approval_outcome = ''
		OR model = '' OR tool_name = '' OR category = '' OR hook_point = '') AS empty FROM read_parquet(%s)`,
		duckdbtest.Literal(gates)), `[{"empty":"0"}]`)

	// Read back: the fields return as written, the time in UTC.
	_, got := readRun(t, dir)
	want := map[string][4]any{"c-1": {"Bash", "command_execution", "tool.before", at.UTC()}, "c-3": {"Write", "file_change", "tool.before", nil}}
	for _, r := range got {
		w, ok := want[r.CaseID]
		if !ok {
			if r.ToolName != "" || r.Time != nil {
				t.Errorf("%s: %q %v, want none", r.CaseID, r.ToolName, r.Time)
			}
			continue
		}
		var tm any
		if r.Time != nil {
			tm = *r.Time
		}
		if g := [4]any{r.ToolName, r.Category, r.HookPoint, tm}; !reflect.DeepEqual(g, w) {
			t.Errorf("%s %s read back %v, want %v", r.CaseID, r.Judge, g, w)
		}
	}
	for _, r := range got {
		if r.CaseID == "c-1" && r.Judge == "recorded/judge-v2" && r.Rules[0].Result != "" {
			t.Errorf("null result read back as %q", r.Rules[0].Result)
		}
	}
}
