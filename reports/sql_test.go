package reports_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/judge/recorded"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/internal/duckdbtest"
	"github.com/apeval/apeval/reports/rundir"
)

// replaySample replays the embedded sample with its recorded judges (what
// `apeval run` does with no flags) into a run directory of the given layout.
func replaySample(t *testing.T, dir, runID, layout string) {
	t.Helper()
	pol, err := replay.ParsePolicy(datasets.SamplePolicy(), "policy.toml")
	if err != nil {
		t.Fatal(err)
	}
	st := datasets.NewStats()
	rd := datasets.Open([]string{"-"}, datasets.SampleCases())
	for rd.Scan() {
		if rec := rd.Record(); rec.Err == nil {
			st.Add(rec.Case)
		}
	}
	rd.Close()
	var judges []judge.Judge
	info := rundir.RunInfo{RunID: runID, Layout: layout}
	for _, n := range st.RecordedJudgeNames() {
		j := recorded.New(n)
		judges = append(judges, j)
		info.Judges = append(info.Judges, rundir.JudgeInfo{Identity: j.Identity().String(), Backend: "recorded"})
	}
	if len(judges) < 2 {
		t.Fatalf("the sample records %d judges, want ≥ 2", len(judges))
	}
	w, err := rundir.CreateRun(dir, info)
	if err != nil {
		t.Fatal(err)
	}
	rd = datasets.Open([]string{"-"}, datasets.SampleCases())
	defer rd.Close()
	next := func() (*datasets.Case, bool) {
		for rd.Scan() {
			if rec := rd.Record(); rec.Err == nil {
				return rec.Case, true
			}
		}
		return nil, false
	}
	if _, err := replay.Run(context.Background(), pol, next, judges, replay.Options{RunID: runID}, w.Write); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// report computes what `apeval report DIR` computes: the metrics summary
// over the run's decision files.
func report(t *testing.T, dir string) *metrics.Summary {
	t.Helper()
	acc := metrics.New(metrics.Config{Criteria: replay.DefaultKillCriteria()})
	if _, err := rundir.ReadRun(dir, func(r *replay.Result) error { acc.Add(r); return nil }); err != nil {
		t.Fatal(err)
	}
	return acc.Close()
}

// The hive layout: several runs under one root read back through DuckDB as
// one table partitioned by run_id and judge, with the partition values
// decoded to the judge identities (which hold / and :).
func TestHiveLayoutIsOneTable(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, id := range []string{"2026-11-01", "2026-11-02"} {
		replaySample(t, filepath.Join(root, rundir.RunDir(id)), id, rundir.LayoutHive)
	}
	// The directories are what the layout promises.
	run1 := filepath.Join(root, "run_id=2026-11-01")
	s := report(t, run1)
	for _, js := range s.Judges {
		p := filepath.Join(run1, rundir.JudgeDir(js.Judge), rundir.DecisionsFile)
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("judge %s: %v", js.Judge, err)
		}
		if !strings.Contains(js.Judge, "/") || strings.Contains(rundir.JudgeDir(js.Judge), "/") {
			t.Fatalf("judge %s → directory %s: want an identity with / escaped", js.Judge, rundir.JudgeDir(js.Judge))
		}
	}

	glob := duckdbtest.Literal(filepath.Join(root, "*", "*", rundir.DecisionsFile))
	rows := duckdbtest.Query(t, fmt.Sprintf(`
		SELECT run_id, judge, COUNT(*) AS n,
		       COUNT(DISTINCT case_id) AS cases
		FROM read_parquet(%s, hive_partitioning = true)
		GROUP BY run_id, judge ORDER BY run_id, judge`, glob))[0]
	// Two runs of the sample, each with every judge: one group per run ×
	// judge, each with the decision rows that judge's summary counts
	// (in_scope + missing over its rules).
	if want := 2 * len(s.Judges); len(rows) != want {
		t.Fatalf("DuckDB sees %d run × judge groups, want %d: %v", len(rows), want, rows)
	}
	want := map[string]int64{}
	for _, js := range s.Judges {
		want[js.Judge] = js.Total.InScope + js.Total.Missing
	}
	for _, r := range rows {
		judgeID := fmt.Sprint(r["judge"])
		n, _ := strconv.ParseInt(fmt.Sprint(r["n"]), 10, 64)
		if w, ok := want[judgeID]; !ok || n != w {
			t.Errorf("run %v judge %q: %d rows, want %d (known judges %v)", r["run_id"], judgeID, n, w, want)
		}
		if id := fmt.Sprint(r["run_id"]); id != "2026-11-01" && id != "2026-11-02" {
			t.Errorf("run_id %q", id)
		}
	}
}

// docs/sql/metrics.sql, run through DuckDB over the sample's hive-layout
// decision and gate files, gives exactly the figures of `apeval report`.
func TestMetricsSQLEqualsReport(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	replaySample(t, filepath.Join(root, rundir.RunDir("r1")), "r1", rundir.LayoutHive)
	s := report(t, filepath.Join(root, rundir.RunDir("r1")))

	sqlText, err := os.ReadFile("../docs/sql/metrics.sql")
	if err != nil {
		t.Fatal(err)
	}
	view := func(name, file string) string {
		return fmt.Sprintf("CREATE VIEW %s AS SELECT * FROM read_parquet(%s, hive_partitioning = true)",
			name, duckdbtest.Literal(filepath.Join(root, "*", "*", file)))
	}
	res := duckdbtest.Query(t, view("decisions", rundir.DecisionsFile), view("gates", rundir.GatesFile), string(sqlText))
	got := map[string]duckdbtest.Row{}
	for _, r := range res[2] {
		if r["run_id"] != "r1" {
			t.Errorf("run_id %v", r["run_id"])
		}
		got[fmt.Sprint(r["judge"], "\x00", r["rule_id"])] = r
	}

	type expect struct {
		name string
		v    any // int64 or *float64
	}
	compared, wantRows := 0, 0
	for _, js := range s.Judges {
		rows := append([]*metrics.Row{js.Total}, js.Rules...)
		for _, row := range rows {
			wantRows++
			r, ok := got[js.Judge+"\x00"+row.RuleID]
			if !ok {
				t.Errorf("SQL has no row for judge %s rule %s", js.Judge, row.RuleID)
				continue
			}
			for _, e := range []expect{
				{"in_scope", row.InScope}, {"judged", row.Judged}, {"fired", row.Fired},
				{"tp", row.TP}, {"fp", row.FP}, {"fn", row.FN}, {"tn", row.TN}, {"calls", row.Calls},
				{"precision", row.Precision}, {"recall", row.Recall}, {"unknown_rate", row.UnknownRate},
				{"judge_required_rate", row.JudgeRequiredRate}, {"fire_rate", row.FireRate},
				{"latency_p95_ms", row.LatencyP95MS},
				{"evidence_altered", row.EvidenceAltered}, {"evidence_altered_rate", row.EvidenceAlteredRate},
			} {
				compared++
				where := fmt.Sprintf("%s %s %s", js.Judge, row.RuleID, e.name)
				switch want := e.v.(type) {
				case int64:
					// BIGINT comes back from DuckDB's JSON as a decimal string.
					if g := fmt.Sprint(r[e.name]); g != strconv.FormatInt(want, 10) {
						t.Errorf("%s: SQL %s, report %d", where, g, want)
					}
				case *float64:
					g, isNum := r[e.name].(float64)
					switch {
					case want == nil && r[e.name] != nil:
						t.Errorf("%s: SQL %v, report null", where, r[e.name])
					case want != nil && (!isNum || g != *want):
						// Exact: both divide the same integers in IEEE double.
						t.Errorf("%s: SQL %v, report %v", where, r[e.name], *want)
					}
				}
			}
		}
	}
	if len(res[2]) != wantRows {
		var keys []string
		for k := range got {
			keys = append(keys, strings.ReplaceAll(k, "\x00", " "))
		}
		sort.Strings(keys)
		t.Errorf("SQL gave %d rows, the report has %d: %v", len(res[2]), wantRows, keys)
	}
	// The sample exercises every figure: live calls with latencies,
	// unknowns and both kinds of error, so a P95 or unknown rate that the
	// SQL got wrong could not hide behind nulls.
	var p95s, unknowns, fps, altered int
	for _, js := range s.Judges {
		for _, row := range append([]*metrics.Row{js.Total}, js.Rules...) {
			altered += int(row.EvidenceAltered)
			if row.LatencyP95MS != nil {
				p95s++
			}
			if row.UnknownRate != nil && *row.UnknownRate > 0 {
				unknowns++
			}
			fps += int(row.FP)
		}
	}
	if p95s == 0 || unknowns == 0 || fps == 0 || altered == 0 {
		t.Fatalf("the sample does not exercise the SQL: %d P95s, %d rows with unknowns, %d FPs, %d pairs with altered evidence", p95s, unknowns, fps, altered)
	}
	t.Logf("compared %d figures over %d rows", compared, wantRows)
}

// JudgeDir escapes identities so that engines decode the partition value
// back to the identity: checked with DuckDB on identities holding every
// character Hive escapes, and others it leaves alone.
func TestJudgeDirDecodesInDuckDB(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ids := []string{
		"ollama/qwen2.5:3b@sha256:abc+p1",
		"openai/gpt-4o-mini+v2",
		`exec/a=b%c d?e#f*g'h"i\j{k[l]m^n`,
		"recorded/ジャッジ",
	}
	var queries []string
	for i, id := range ids {
		dir := filepath.Join(root, rundir.JudgeDir(id))
		if strings.Count(rundir.JudgeDir(id), "/") != 0 {
			t.Fatalf("%q → %q: a / left in the directory name", id, rundir.JudgeDir(id))
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		queries = append(queries, fmt.Sprintf("COPY (SELECT %d AS i) TO %s (FORMAT parquet)", i,
			duckdbtest.Literal(filepath.Join(dir, "part.parquet"))))
	}
	queries = append(queries, fmt.Sprintf("SELECT i, judge FROM read_parquet(%s, hive_partitioning = true) ORDER BY i",
		duckdbtest.Literal(filepath.Join(root, "*", "part.parquet"))))
	res := duckdbtest.Query(t, queries...)
	rows := res[len(res)-1]
	if len(rows) != len(ids) {
		t.Fatalf("DuckDB read %d partitions, want %d: %v", len(rows), len(ids), rows)
	}
	for _, r := range rows {
		i, _ := strconv.Atoi(fmt.Sprint(r["i"]))
		if r["judge"] != ids[i] {
			t.Errorf("DuckDB decodes %s as %q, want %q", rundir.JudgeDir(ids[i]), r["judge"], ids[i])
		}
	}
}
