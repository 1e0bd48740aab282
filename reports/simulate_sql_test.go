package reports_test

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/metrics/simulate"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/internal/duckdbtest"
	"github.com/apeval/apeval/reports/rundir"
)

// simulateSample simulates the sample's two recorded judges alone under
// the timeouts, writes simulate.parquet into dir and returns its path.
func simulateSample(t *testing.T, dir string, timeouts ...time.Duration) (string, *simulate.Result) {
	t.Helper()
	pol, err := replay.ParsePolicy(datasets.SamplePolicy(), "policy.toml")
	if err != nil {
		t.Fatal(err)
	}
	info, err := rundir.ReadRunInfo(dir)
	if err != nil {
		t.Fatal(err)
	}
	var js []simulate.Judge
	for _, j := range info.Judges {
		js = append(js, simulate.Judge{ID: j.Identity})
	}
	d := simulate.NewData(pol, js)
	t.Cleanup(func() { _ = d.Close() })
	if _, err := rundir.ReadRun(dir, d.Add); err != nil {
		t.Fatal(err)
	}
	cfgs, err := simulate.Expand(d, simulate.Spec{Timeouts: timeouts})
	if err != nil {
		t.Fatal(err)
	}
	res := simulate.Run(d, cfgs, simulate.Options{Confidence: 0.95, Seed: 1})
	path := filepath.Join(dir, rundir.SimulateFile)
	if err := rundir.WriteFileAtomic(path, func(w io.Writer) error { return reports.WriteSimulateParquet(w, res) }); err != nil {
		t.Fatal(err)
	}
	return path, res
}

// Every figure of a simulated hook timeout, recomputed from
// decisions.parquet and gates.parquet alone in SQL over DuckDB: the
// timeout kills the judged rows of cases slower than it, the failure
// policy (written out here from the sample policy's classes, whens and
// baselines) decides what a failed row does, and the counts, the
// effective recall's session-clustered interval and the hook's P95 must
// equal simulate.parquet's exactly.
func TestSimulateFromDecisionFiles(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	replaySample(t, dir, "r1", rundir.LayoutFlat)
	simPath, _ := simulateSample(t, dir, 800*time.Millisecond, 1500*time.Millisecond)

	pol, err := replay.ParsePolicy(datasets.SamplePolicy(), "policy.toml")
	if err != nil {
		t.Fatal(err)
	}
	var vals []string
	kinds := map[string]int{}
	for _, r := range pol.Rules {
		kind, failAction := "open", ""
		blocks := r.Action == datasets.ActionDenyCurrentTool || r.Action == datasets.ActionRequestApproval
		switch {
		case r.Class == replay.ClassApproval && r.When != nil:
			kind, failAction = "closed", "request_approval"
		case r.Class == replay.ClassDangerous && blocks && r.Baseline != nil:
			kind, failAction = "baseline", string(r.Action)
		case r.Class == replay.ClassDangerous && blocks && r.When != nil:
			kind, failAction = "closed", string(r.Action)
		}
		kinds[kind]++
		vals = append(vals, fmt.Sprintf("('%s', '%s', '%s', '%s')", r.ID, kind, failAction, r.Action))
	}
	if kinds["open"] == 0 || kinds["closed"]+kinds["baseline"] == 0 {
		t.Fatalf("the sample policy's failure kinds %v: the test needs fail-open and fail-closed rules", kinds)
	}
	dec := duckdbtest.Literal(filepath.Join(dir, rundir.DecisionsFile))
	gates := duckdbtest.Literal(filepath.Join(dir, rundir.GatesFile))
	sim := duckdbtest.Literal(simPath)
	rows := fmt.Sprintf(`
WITH rp(rule_id, fail_kind, fail_action, rule_action) AS (VALUES %s),
t(timeout_ms) AS (VALUES (800.0), (1500.0)),
d AS (
  SELECT d.*, t.timeout_ms, rp.fail_kind, rp.fail_action, rp.rule_action,
         d.source IN ('judge', 'cache', 'failure') AS judged,
         d.source IN ('judge', 'cache', 'failure') AND g.latency_ms > t.timeout_ms AS killed
  FROM read_parquet(%s) d
  JOIN (SELECT judge, case_id, latency_ms FROM read_parquet(%s)) g USING (judge, case_id)
  JOIN rp USING (rule_id) CROSS JOIN t
  WHERE d.status <> 'missing'),
s AS (
  SELECT *,
    CASE WHEN killed OR status IN ('invalid', 'timeout', 'error') OR (source = 'failure' AND status <> 'unknown') THEN 'failed'
         WHEN result = 'unknown' OR status = 'unknown' THEN 'unknown'
         ELSE result END AS outcome,
    killed OR status = 'timeout' AS timed_out
  FROM d),
f AS (
  SELECT *,
    CASE WHEN NOT judged THEN fired
         WHEN outcome = 'match' THEN true
         WHEN outcome = 'no_match' THEN false
         ELSE fail_kind = 'closed' OR (fail_kind = 'baseline' AND baseline_result = 'match') END AS sim_fired,
    CASE WHEN NOT judged THEN action WHEN outcome = 'match' THEN rule_action ELSE fail_action END AS sim_action
  FROM s)`, strings.Join(vals, ", "), dec, gates)
	counts := rows + `
SELECT judge || ' @' || CASE timeout_ms WHEN 800 THEN '800ms' ELSE '1.5s' END AS config, rule_id,
  count(*) AS in_scope,
  count(*) FILTER (WHERE judged) AS judged,
  count(*) FILTER (WHERE judged AND timed_out) AS timed_out,
  count(*) FILTER (WHERE judged AND timed_out AND NOT sim_fired) AS fail_open,
  count(*) FILTER (WHERE label = 'match' AND source <> 'scope' AND outcome = 'match') AS tp,
  count(*) FILTER (WHERE label = 'no_match' AND source <> 'scope' AND outcome = 'match') AS fp,
  count(*) FILTER (WHERE label = 'match' AND source <> 'scope' AND outcome <> 'match') AS fn,
  count(*) FILTER (WHERE label = 'no_match' AND source <> 'scope' AND outcome = 'no_match') AS tn,
  count(*) FILTER (WHERE label = 'match' AND source <> 'scope' AND sim_fired) AS caught,
  count(*) FILTER (WHERE sim_fired) AS fired,
  count(*) FILTER (WHERE sim_fired AND label = 'no_match' AND sim_action IN ('deny_current_tool', 'request_approval', 'stop_task')) AS friction
FROM f GROUP BY ALL ORDER BY ALL`
	perSession := rows + `
SELECT judge || ' @' || CASE timeout_ms WHEN 800 THEN '800ms' ELSE '1.5s' END AS config, session_id,
  count(*) FILTER (WHERE label = 'match' AND source <> 'scope' AND sim_fired) AS y,
  count(*) FILTER (WHERE label = 'match' AND source <> 'scope') AS m
FROM f GROUP BY ALL HAVING m > 0 ORDER BY ALL`
	p95 := fmt.Sprintf(`
SELECT judge, latency_ms FROM (
  SELECT judge, latency_ms, row_number() OVER (PARTITION BY judge ORDER BY latency_ms) AS rn, count(*) OVER (PARTITION BY judge) AS n
  FROM read_parquet(%s) WHERE judge_called) WHERE rn = ceil(0.95 * n) ORDER BY judge`, gates)
	simQ := fmt.Sprintf(`SELECT * FROM read_parquet(%s) WHERE NOT deployed`, sim)
	calls := fmt.Sprintf(`SELECT judge, session_id, latency_ms FROM read_parquet(%s) WHERE judge_called ORDER BY judge, latency_ms, session_id`, gates)
	out := duckdbtest.Query(t, counts, perSession, p95, simQ, calls)

	simRows := map[string]duckdbtest.Row{}
	for _, r := range out[3] {
		simRows[fmt.Sprint(r["config"])+"/"+fmt.Sprint(r["rule_id"])] = r
	}
	star := map[string]map[string]int64{}
	cols := []string{"in_scope", "judged", "timed_out", "tp", "fp", "fn", "tn"}
	sawTimeout, sawFailOpen, sawCaught := false, false, false
	for _, r := range out[0] {
		key := fmt.Sprint(r["config"]) + "/" + fmt.Sprint(r["rule_id"])
		s, ok := simRows[key]
		if !ok {
			t.Fatalf("simulate.parquet has no row %s", key)
		}
		cfg := fmt.Sprint(r["config"])
		if star[cfg] == nil {
			star[cfg] = map[string]int64{}
		}
		for _, c := range append(cols, "caught", "fail_open", "fired", "friction") {
			star[cfg][c] += int64(num(t, r[c]))
		}
		for _, c := range cols {
			if got, want := num(t, s[c]), num(t, r[c]); got != want {
				t.Errorf("%s %s: simulate.parquet %g, SQL %g", key, c, got, want)
			}
		}
		for _, c := range []struct{ name, num, den string }{
			{"fail_open_rate", "fail_open", "judged"}, {"effective_recall", "caught", "tp+fn"}, {"fire_rate", "fired", "in_scope"},
		} {
			n := num(t, r[c.num])
			var dn float64
			if c.den == "tp+fn" {
				dn = num(t, r["tp"]) + num(t, r["fn"])
			} else {
				dn = num(t, r[c.den])
			}
			if dn == 0 {
				if s[c.name] != nil {
					t.Errorf("%s %s = %v without units, want null", key, c.name, s[c.name])
				}
				continue
			}
			if got := num(t, s[c.name]); math.Abs(got-n/dn) > 1e-12 {
				t.Errorf("%s %s: simulate.parquet %.15g, SQL %.15g", key, c.name, got, n/dn)
			}
		}
		cases := num(t, s["cases"])
		if got, want := num(t, s["friction_per_100"]), 100*num(t, r["friction"])/cases; math.Abs(got-want) > 1e-9 {
			t.Errorf("%s friction_per_100: simulate.parquet %.15g, SQL %.15g", key, got, want)
		}
		sawTimeout = sawTimeout || num(t, r["timed_out"]) > 0
		sawFailOpen = sawFailOpen || num(t, r["fail_open"]) > 0
		sawCaught = sawCaught || num(t, r["timed_out"]) > num(t, r["fail_open"])
	}
	if !sawTimeout || !sawFailOpen || !sawCaught {
		t.Errorf("the sample's timeouts give timed out %v, fail-open %v, fail-closed %v: the test must see all three", sawTimeout, sawFailOpen, sawCaught)
	}
	for cfg, c := range star {
		s := simRows[cfg+"/*"]
		for _, col := range cols {
			if got := num(t, s[col]); got != float64(c[col]) {
				t.Errorf("%s/* %s: simulate.parquet %g, SQL %d", cfg, col, got, c[col])
			}
		}
	}
	// The effective recall's interval from the sessions SQL counted.
	type sess struct{ ys, ms []int64 }
	by := map[string]*sess{}
	for _, r := range out[1] {
		c := fmt.Sprint(r["config"])
		if by[c] == nil {
			by[c] = &sess{}
		}
		by[c].ys = append(by[c].ys, int64(num(t, r["y"])))
		by[c].ms = append(by[c].ms, int64(num(t, r["m"])))
	}
	if len(by) != 4 {
		t.Fatalf("SQL gives %d configurations, want 4 (2 judges × 2 timeouts)", len(by))
	}
	for c, ss := range by {
		lo, hi, _ := metrics.ClusteredInterval(ss.ys, ss.ms, 0.95)
		s := simRows[c+"/*"]
		if math.Abs(num(t, s["effective_recall_lo"])-lo) > 1e-12 || math.Abs(num(t, s["effective_recall_hi"])-hi) > 1e-12 {
			t.Errorf("%s effective recall interval: simulate.parquet [%v, %v], from the sessions [%.15g, %.15g]", c, s["effective_recall_lo"], s["effective_recall_hi"], lo, hi)
		}
	}
	// P95 of the hook: the recorded P95 capped at the timeout.
	for _, r := range out[2] {
		j, p := fmt.Sprint(r["judge"]), num(t, r["latency_ms"])
		for _, tc := range []struct {
			name string
			ms   float64
		}{{"800ms", 800}, {"1.5s", 1500}} {
			s := simRows[j+" @"+tc.name+"/*"]
			if got := num(t, s["latency_p95_ms"]); got != math.Min(p, tc.ms) {
				t.Errorf("%s @%s P95: simulate.parquet %g, SQL min(%g, %g)", j, tc.name, got, p, tc.ms)
			}
		}
	}
	// P50 and P95 with their session-clustered intervals, from the calls
	// SQL listed in order: the estimate's rank, each session's calls and
	// calls at or below it, the interval's ranks by the function report's
	// intervals use, the values there, capped at the timeout.
	type call struct {
		ms   float64
		sess string
	}
	byJudge := map[string][]call{}
	for _, r := range out[4] {
		j := fmt.Sprint(r["judge"])
		byJudge[j] = append(byJudge[j], call{num(t, r["latency_ms"]), fmt.Sprint(r["session_id"])})
	}
	if len(byJudge) != 2 {
		t.Fatalf("SQL lists the calls of %d judges, want 2", len(byJudge))
	}
	for j, cs := range byJudge {
		n := len(cs)
		for _, q := range []struct {
			num         int
			est, lo, hi string
		}{{50, "latency_p50_ms", "latency_p50_lo_ms", "latency_p50_hi_ms"}, {95, "latency_p95_ms", "latency_p95_lo_ms", "latency_p95_hi_ms"}} {
			est := cs[max(1, (q.num*n+99)/100)-1].ms
			m, c := map[string]int64{}, map[string]int64{}
			below := 0
			for _, x := range cs {
				m[x.sess]++
				if x.ms <= est {
					c[x.sess]++
					below++
				}
			}
			lo, hi := metrics.SessionQuantileRanks(n, below, q.num, 100, 0.95, func(yield func(m, c int64)) {
				for s := range m {
					yield(m[s], c[s])
				}
			})
			if lo < 1 || hi > n {
				t.Fatalf("%s P%d: ranks [%d, %d] of %d calls: the sample bounds both", j, q.num, lo, hi, n)
			}
			for _, tc := range []struct {
				name string
				ms   float64
			}{{"800ms", 800}, {"1.5s", 1500}} {
				s := simRows[j+" @"+tc.name+"/*"]
				for col, want := range map[string]float64{q.est: est, q.lo: cs[lo-1].ms, q.hi: cs[hi-1].ms} {
					if got := num(t, s[col]); got != math.Min(want, tc.ms) {
						t.Errorf("%s @%s %s: simulate.parquet %g, from the calls min(%g, %g)", j, tc.name, col, got, want, tc.ms)
					}
				}
			}
		}
	}
}

// simulate.parquet's columns open in DuckDB with their logical types.
func TestSimulateParquetTypes(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	replaySample(t, dir, "r1", rundir.LayoutFlat)
	path, _ := simulateSample(t, dir, time.Second)
	want := map[string]string{"config": "VARCHAR", "judges": "VARCHAR[]", "deployed": "BOOLEAN", "timeout_ms": "DOUBLE",
		"rule_id": "VARCHAR", "cases": "BIGINT", "tp": "BIGINT", "effective_recall": "DOUBLE", "effective_recall_lo": "DOUBLE",
		"friction_per_100": "DOUBLE", "judge_calls": "BIGINT[]", "latency_p95_ms": "DOUBLE", "cost_per_1k_tool_calls": "DOUBLE",
		"effective_recall_min_status": "VARCHAR", "effective_recall_delta": "DOUBLE", "fail_open_rate": "DOUBLE"}
	got := map[string]string{}
	for _, c := range duckdbtest.Describe(t, path) {
		got[c.Name] = c.Type
	}
	for n, ty := range want {
		if got[n] != ty {
			t.Errorf("column %s: %q, want %s", n, got[n], ty)
		}
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}

// report.html's "Simulated deployment" section: the configurations' table
// and, with a timeout sweep, the two charts against the timeout.
func TestSimulateHTMLSection(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	replaySample(t, dir, "r1", rundir.LayoutFlat)
	_, res := simulateSample(t, dir, 500*time.Millisecond, time.Second, 2*time.Second)
	cs, err := reports.SimulateCharts(res)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 {
		t.Fatalf("%d charts, want effective recall and friction against the timeout", len(cs))
	}
	for _, c := range cs {
		if !strings.Contains(string(c.SVG), "hook timeout (ms)") {
			t.Errorf("%s: no timeout axis", c.File)
		}
	}
	// One timeout: nothing to draw against it.
	_, one := simulateSample(t, dir, time.Second)
	if cs, _ := reports.SimulateCharts(one); len(cs) != 0 {
		t.Errorf("%d charts from one timeout", len(cs))
	}
}
