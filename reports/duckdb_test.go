package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apeval/apeval/metrics"

	"github.com/apeval/apeval/reports/internal/duckdbtest"
	"github.com/apeval/apeval/reports/rundir"
)

func init() {
	duckdbtest.Skip = os.Getenv("APEVAL_NO_DUCKDB") == "1"
	duckdbtest.Required = os.Getenv("APEVAL_REQUIRE_DUCKDB") == "1"
}

func checkColumns(t *testing.T, path string, want []duckdbtest.Column) {
	t.Helper()
	got := duckdbtest.Describe(t, path)
	if !reflect.DeepEqual(got, want) {
		var b strings.Builder
		for i := range max(len(got), len(want)) {
			var g, w duckdbtest.Column
			if i < len(got) {
				g = got[i]
			}
			if i < len(want) {
				w = want[i]
			}
			mark := " "
			if g != w {
				mark = "!"
			}
			fmt.Fprintf(&b, "%s %-24s %-10s want %-24s %s\n", mark, g.Name, g.Type, w.Name, w.Type)
		}
		t.Fatalf("%s columns differ:\n%s", filepath.Base(path), b.String())
	}
}

// columns pairs names and types: columns("a", "VARCHAR", "b", "BIGINT").
func columns(nameType ...string) []duckdbtest.Column {
	cols := make([]duckdbtest.Column, 0, len(nameType)/2)
	for i := 0; i+1 < len(nameType); i += 2 {
		cols = append(cols, duckdbtest.Column{Name: nameType[i], Type: nameType[i+1]})
	}
	return cols
}

// checkRows compares query rows with the expected rows written as JSON, so
// NULL (null), BIGINT (a string in DuckDB's JSON) and lists are explicit.
func checkRows(t *testing.T, sql string, wantJSON string) {
	t.Helper()
	got := duckdbtest.Query(t, sql)[0]
	var want []duckdbtest.Row
	if err := json.Unmarshal([]byte(wantJSON), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", " ")
		t.Fatalf("%s\ngot  %s\nwant %s", sql, g, wantJSON)
	}
}

func TestRunFilesInDuckDB(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeRun(t, dir, fixtureResults())
	dec := filepath.Join(dir, rundir.DecisionsFile)
	gates := filepath.Join(dir, rundir.GatesFile)

	V, B, I, L, D, T := "VARCHAR", "BIGINT", "INTEGER", "BOOLEAN", "DOUBLE", "VARCHAR[]"
	// case_time and run_started are Parquet TIMESTAMP(isAdjustedToUTC,
	// MICROS): UTC instants, which DuckDB calls TIMESTAMP WITH TIME ZONE.
	TZ := "TIMESTAMP WITH TIME ZONE"
	checkColumns(t, dec, columns(
		"run_id", V, "case_id", V, "session_id", V, "seq", B, "judge", V, "model", V,
		"model_digest", V, "prompt_version", V, "rule_id", V, "rule_version", I, "rule_class", V,
		"label", V, "label_source", V, "source", V, "result", V, "confidence", D, "fired", L, "action", V,
		"gate_action", V, "latency_ms", D, "status", V, "error", V, "fingerprint", "BLOB", "tags", T,
		"baseline_result", V, "evidence_altered", L, "call_index", I, "call_rules", I, "call_status", V, "call_error", V, "call_cause", V,
		"call_cached", L, "call_attempts", I, "server_total_ms", D, "server_load_ms", D,
		"server_prompt_eval_ms", D, "server_eval_ms", D, "prompt_tokens", B, "completion_tokens", B, "repeats", V,
		"tool_name", V, "category", V, "hook_point", V, "case_time", TZ, "run_started", TZ,
	))
	checkColumns(t, gates, columns(
		"run_id", V, "case_id", V, "session_id", V, "seq", B, "judge", V, "permission", V,
		"gate_action", V, "expected_action", V, "rules_in_scope", I, "rules_judged", I,
		"judge_called", L, "cache_hit", L, "latency_ms", D, "status", V, "approval_outcome", V,
		"model", V, "model_digest", V, "prompt_version", V, "calls", I, "tags", T,
		"tool_name", V, "category", V, "hook_point", V, "case_time", TZ, "run_started", TZ,
	))

	checkRows(t, fmt.Sprintf(`SELECT case_id, judge, seq, rule_id, rule_version, label, source, result, confidence,
		fired, latency_ms, status, error, tags, baseline_result, call_index, call_cached, call_attempts,
		server_total_ms, prompt_tokens, model FROM read_parquet(%s)`, duckdbtest.Literal(dec)), `[
	 {"case_id":"c-1","judge":"ollama/qwen2.5:3b@sha256:abc+p1","seq":"1","rule_id":"rule-12","rule_version":3,
	  "label":"match","source":"judge","result":"match","confidence":0.91,"fired":true,"latency_ms":412.5,
	  "status":"ok","error":null,"tags":["ja","deletion"],"baseline_result":"match","call_index":0,
	  "call_cached":false,"call_attempts":1,"server_total_ms":400,"prompt_tokens":"812","model":"qwen2.5:3b"},
	 {"case_id":"c-1","judge":"ollama/qwen2.5:3b@sha256:abc+p1","seq":"1","rule_id":"rule-18","rule_version":1,
	  "label":null,"source":"judge","result":"no_match","confidence":null,"fired":false,"latency_ms":412.5,
	  "status":"ok","error":null,"tags":["ja","deletion"],"baseline_result":null,"call_index":0,
	  "call_cached":false,"call_attempts":1,"server_total_ms":400,"prompt_tokens":"812","model":"qwen2.5:3b"},
	 {"case_id":"c-1","judge":"ollama/qwen2.5:3b@sha256:abc+p1","seq":"1","rule_id":"rule-1","rule_version":1,
	  "label":"no_match","source":"deterministic","result":"match","confidence":null,"fired":true,"latency_ms":null,
	  "status":"ok","error":null,"tags":["ja","deletion"],"baseline_result":null,"call_index":null,
	  "call_cached":null,"call_attempts":null,"server_total_ms":null,"prompt_tokens":null,"model":"qwen2.5:3b"},
	 {"case_id":"c-3","judge":"ollama/qwen2.5:3b@sha256:abc+p1","seq":"1","rule_id":"rule-12","rule_version":3,
	  "label":"match","source":"cache","result":"unknown","confidence":0,"fired":false,"latency_ms":0.25,
	  "status":"unknown","error":null,"tags":null,"baseline_result":"no_match","call_index":0,
	  "call_cached":true,"call_attempts":0,"server_total_ms":null,"prompt_tokens":null,"model":"qwen2.5:3b"},
	 {"case_id":"c-3","judge":"ollama/qwen2.5:3b@sha256:abc+p1","seq":"1","rule_id":"rule-20","rule_version":2,
	  "label":"no_match","source":"failure","result":"unknown","confidence":null,"fired":false,"latency_ms":1000,
	  "status":"timeout","error":"context deadline exceeded","tags":null,"baseline_result":null,"call_index":1,
	  "call_cached":false,"call_attempts":2,"server_total_ms":null,"prompt_tokens":null,"model":"qwen2.5:3b"},
	 {"case_id":"c-1","judge":"recorded/judge-v2","seq":"1","rule_id":"rule-12","rule_version":3,
	  "label":"match","source":"scope","result":"no_match","confidence":null,"fired":false,"latency_ms":null,
	  "status":"ok","error":null,"tags":["ja","deletion"],"baseline_result":null,"call_index":null,
	  "call_cached":null,"call_attempts":null,"server_total_ms":null,"prompt_tokens":null,"model":null}
	]`)

	checkRows(t, fmt.Sprintf(`SELECT case_id, judge, permission, gate_action, expected_action, rules_in_scope,
		rules_judged, judge_called, cache_hit, latency_ms, status, approval_outcome, calls, tags
		FROM read_parquet(%s)`, duckdbtest.Literal(gates)), `[
	 {"case_id":"c-1","judge":"ollama/qwen2.5:3b@sha256:abc+p1","permission":"allow","gate_action":"request_approval",
	  "expected_action":"request_approval","rules_in_scope":3,"rules_judged":2,"judge_called":true,"cache_hit":false,
	  "latency_ms":412.5,"status":"ok","approval_outcome":"denied","calls":1,"tags":["ja","deletion"]},
	 {"case_id":"c-2","judge":"ollama/qwen2.5:3b@sha256:abc+p1","permission":"off","gate_action":"allow",
	  "expected_action":null,"rules_in_scope":0,"rules_judged":0,"judge_called":false,"cache_hit":false,
	  "latency_ms":null,"status":null,"approval_outcome":null,"calls":0,"tags":[]},
	 {"case_id":"c-3","judge":"ollama/qwen2.5:3b@sha256:abc+p1","permission":"ask","gate_action":"request_approval",
	  "expected_action":"deny_current_tool","rules_in_scope":2,"rules_judged":2,"judge_called":true,"cache_hit":false,
	  "latency_ms":1000,"status":"timeout","approval_outcome":null,"calls":2,"tags":null},
	 {"case_id":"c-1","judge":"recorded/judge-v2","permission":"allow","gate_action":"allow",
	  "expected_action":"request_approval","rules_in_scope":1,"rules_judged":0,"judge_called":false,"cache_hit":false,
	  "latency_ms":null,"status":null,"approval_outcome":"denied","calls":0,"tags":["ja","deletion"]}
	]`)
}

func TestMetricsFileInDuckDB(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, rundir.MetricsFile)
	s := fixtureSummary()
	if err := rundir.WriteFileAtomic(path, func(w io.Writer) error { return WriteMetricsParquet(w, s, "") }); err != nil {
		t.Fatal(err)
	}
	V, B, I, L, D := "VARCHAR", "BIGINT", "INTEGER", "BOOLEAN", "DOUBLE"
	checkColumns(t, path, columns(
		"run_id", V, "judge", V, "rule_id", V, "slice", V, "slice_value", V, "cases", B, "in_scope", B, "judged", B,
		"tp", B, "fp", B, "fn", B, "tn", B, "precision", D, "precision_lo", D, "precision_hi", D, "precision_deff", D,
		"recall", D, "recall_lo", D, "recall_hi", D, "recall_deff", D,
		"unknown_rate", D, "unknown_rate_lo", D, "unknown_rate_hi", D, "unknown_rate_deff", D,
		"judge_required_rate", D, "judge_required_rate_lo", D, "judge_required_rate_hi", D, "judge_required_rate_deff", D,
		"calls", B, "latency_p50_ms", D, "latency_p95_ms", D, "latency_p99_ms", D, "fire_rate", D, "baseline_recall", D,
		"approval_reject_rate", D, "approval_reject_rate_lo", D, "approval_reject_rate_hi", D, "approval_reject_rate_deff", D,
		"verdict", V,
		"precision_min_status", V, "dangerous_recall_must_beat_baseline_status", V, "judge_p95_max_status", V,
		"judge_required_rate_max_status", V, "unknown_rate_max_status", V, "approval_reject_rate_max_status", V,
		"fire_rate_change_max_status", V,
		"model", V, "model_digest", V, "prompt_version", V, "is_baseline", L, "rule_version", I, "rule_class", V,
		"action", V, "labeled", B, "missing", B, "cache_hits", B, "fired", B, "unknown", B, "invalid", B,
		"timeout", B, "error", B, "judge_required", B, "cached_calls", B, "failed_calls", B,
		"latency_p95_lo_ms", D, "latency_p95_hi_ms", D, "baseline_positives", B, "baseline_hits", B,
		"judge_only_hits", B, "baseline_only_hits", B, "approval_outcomes", B, "approval_rejected", B,
		"flip_pairs", B, "flips", B, "flip_rate", D, "flip_rate_lo", D, "flip_rate_hi", D, "flip_rate_deff", D,
		"position_first", B, "position_first_match", B, "position_last", B, "position_last_match", B,
		"position_effect", D, "position_effect_lo", D, "position_effect_hi", D, "label_source", V,
		"latency_p50_lo_ms", D, "latency_p50_hi_ms", D,
		"evidence_altered", B, "evidence_altered_rate", D,
	))
	// Values come from the Summary; NULL where a metric or criterion does not
	// apply at that scope (judge-level criteria on rule rows and the reverse,
	// baseline recall off dangerous rules, rule fields on the total row).
	j := s.Judge("recorded/judge-v2")
	r12 := j.Rule("rule-12")
	want := fmt.Sprintf(`[
	 {"judge":"recorded/judge-v2","rule_id":"*","tp":"%d","precision":%v,"baseline_recall":null,"rule_version":null,
	  "rule_class":null,"verdict":"%s","precision_min_status":null,"judge_p95_max_status":"%s",
	  "fire_rate_change_max_status":null,"latency_p95_ms":%v,"is_baseline":false},
	 {"judge":"recorded/judge-v2","rule_id":"rule-12","tp":"%d","precision":%v,"baseline_recall":%v,"rule_version":1,
	  "rule_class":"dangerous","verdict":"%s","precision_min_status":"%s","judge_p95_max_status":null,
	  "fire_rate_change_max_status":"%s","latency_p95_ms":%v,"is_baseline":false},
	 {"judge":"recorded/judge-v2","rule_id":"rule-18","tp":"%d","precision":%v,"baseline_recall":null,"rule_version":2,
	  "rule_class":"style","verdict":"%s","precision_min_status":"%s","judge_p95_max_status":null,
	  "fire_rate_change_max_status":"%s","latency_p95_ms":%v,"is_baseline":false}
	]`,
		j.Total.TP, *j.Total.Precision, j.Total.Verdict, j.Total.Status(metrics.CriterionJudgeP95Max), *j.Total.LatencyP95MS,
		r12.TP, *r12.Precision, *r12.BaselineRecall, r12.Verdict, r12.Status(metrics.CriterionPrecisionMin),
		r12.Status(metrics.CriterionFireRateChangeMax), *r12.LatencyP95MS,
		j.Rule("rule-18").TP, *j.Rule("rule-18").Precision, j.Rule("rule-18").Verdict,
		j.Rule("rule-18").Status(metrics.CriterionPrecisionMin), j.Rule("rule-18").Status(metrics.CriterionFireRateChangeMax),
		*j.Rule("rule-18").LatencyP95MS)
	checkRows(t, fmt.Sprintf(`SELECT judge, rule_id, tp, precision, baseline_recall, rule_version, rule_class, verdict,
		precision_min_status, judge_p95_max_status, fire_rate_change_max_status, latency_p95_ms, is_baseline
		FROM read_parquet(%s) WHERE judge = 'recorded/judge-v2' AND rule_id IN ('*', 'rule-12', 'rule-18')`,
		duckdbtest.Literal(path)), want)
	counts := duckdbtest.Query(t, fmt.Sprintf(`SELECT count(*) AS n, count(*) FILTER (WHERE rule_id = '*') AS totals
		FROM read_parquet(%s)`, duckdbtest.Literal(path)))[0][0]
	if fmt.Sprint(counts["n"]) != "10" || fmt.Sprint(counts["totals"]) != "2" {
		t.Fatalf("metrics.parquet has %v rows and %v total rows, want 10 and 2", counts["n"], counts["totals"])
	}
}

func TestCompareFileInDuckDB(t *testing.T) {
	t.Parallel()
	s := fixtureSummary()
	c := s.Compare("recorded/judge-v1", "recorded/judge-v2")
	if c == nil {
		t.Fatal("no comparison")
	}
	path := filepath.Join(t.TempDir(), rundir.CompareFile)
	if err := rundir.WriteFileAtomic(path, func(w io.Writer) error {
		return WriteComparisonParquet(w, []*metrics.Comparison{c}, 0.95, "")
	}); err != nil {
		t.Fatal(err)
	}
	V, B, L, D := "VARCHAR", "BIGINT", "BOOLEAN", "DOUBLE"
	checkColumns(t, path, columns(
		"slice", V, "slice_value", V, "baseline_judge", V, "candidate_judge", V, "rule_id", V, "figure", V,
		"baseline", D, "candidate", D, "delta", D, "delta_lo", D, "delta_hi", D, "p_value", D, "p_value_mc_error", D,
		"q_value", D, "adjustment", V, "n", B, "n_baseline", B, "n_candidate", B, "test", V,
		"discordant_baseline", B, "discordant_candidate", B, "significant", L, "confidence", D, "label_source", V,
	))
	// One row per rule × figure (the rules and the total).
	rows := duckdbtest.Query(t, fmt.Sprintf(`SELECT count(*) AS n, count(DISTINCT figure) AS figures,
		count(*) FILTER (WHERE rule_id = '*') AS totals,
		count(*) FILTER (WHERE test = 'mann_whitney' AND discordant_baseline IS NOT NULL) AS bad_discordant
		FROM read_parquet(%s)`, duckdbtest.Literal(path)))[0][0]
	want := (len(c.Rules) + 1) * len(metrics.FigureNames)
	nf := fmt.Sprint(len(metrics.FigureNames))
	if fmt.Sprint(rows["n"]) != fmt.Sprint(want) || fmt.Sprint(rows["figures"]) != nf ||
		fmt.Sprint(rows["totals"]) != nf || fmt.Sprint(rows["bad_discordant"]) != "0" {
		t.Fatalf("compare.parquet: %v, want %d rows of %s figures, %s total rows, no discordant counts for latency", rows, want, nf, nf)
	}
	// The total's recall row carries the Figure's values.
	var rec metrics.Figure
	for _, f := range c.Total.Figures {
		if f.Figure == metrics.FigureRecall {
			rec = f
		}
	}
	checkRows(t, fmt.Sprintf(`SELECT n, test, discordant_baseline, discordant_candidate, p_value
		FROM read_parquet(%s) WHERE rule_id = '*' AND figure = 'recall'`, duckdbtest.Literal(path)),
		fmt.Sprintf(`[{"n":"%d","test":"%s","discordant_baseline":"%d","discordant_candidate":"%d","p_value":%v}]`,
			rec.N, rec.Test, *rec.DiscordantBaseline, *rec.DiscordantCandidate, *rec.PValue))
}

// TestWeakLabelSourceInDuckDB: a run on weak labels (run --weak-labels)
// marks every labeled decisions row label_source "weak" and leaves the
// unlabeled ones null; a run on the datasets' labels has no weak row.
func TestWeakLabelSourceInDuckDB(t *testing.T) {
	t.Parallel()
	weak, plain := t.TempDir(), t.TempDir()
	info := testInfo()
	info.LabelSource = "weak"
	w, err := rundir.CreateRun(weak, info)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range fixtureResults() {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	writeRun(t, plain, fixtureResults())
	// fixtureResults: labels match on c-1/rule-12 (two judges) and
	// c-3/rule-12, no_match on c-1/rule-1 and c-3/rule-20, none on
	// c-1/rule-18.
	checkRows(t, fmt.Sprintf(`SELECT label, label_source, count(*) AS n FROM read_parquet(%s)
		GROUP BY ALL ORDER BY label NULLS FIRST`, duckdbtest.Literal(filepath.Join(weak, rundir.DecisionsFile))), `[
	 {"label":null,"label_source":null,"n":"1"},
	 {"label":"match","label_source":"weak","n":"3"},
	 {"label":"no_match","label_source":"weak","n":"2"}
	]`)
	checkRows(t, fmt.Sprintf(`SELECT count(*) AS n, count(label) AS labeled, count(label_source) AS weak FROM read_parquet(%s)`,
		duckdbtest.Literal(filepath.Join(plain, rundir.DecisionsFile))), `[{"n":"6","labeled":"5","weak":"0"}]`)
	info2, err := rundir.ReadRunInfo(weak)
	if err != nil || info2.LabelSource != "weak" {
		t.Fatalf("run.json label_source = %q, %v; want weak", info2.LabelSource, err)
	}

	// metrics.parquet and compare.parquet: label_source (VARCHAR) "weak"
	// on every row of a weak run, null on every row of a plain one.
	s := fixtureSummary()
	c := s.Compare("recorded/judge-v1", "recorded/judge-v2")
	if c == nil {
		t.Fatal("no comparison")
	}
	for _, src := range []string{"weak", ""} {
		dir := t.TempDir()
		mp, cp := filepath.Join(dir, rundir.MetricsFile), filepath.Join(dir, rundir.CompareFile)
		if err := rundir.WriteFileAtomic(mp, func(w io.Writer) error { return WriteMetricsParquet(w, s, src) }); err != nil {
			t.Fatal(err)
		}
		if err := rundir.WriteFileAtomic(cp, func(w io.Writer) error {
			return WriteComparisonParquet(w, []*metrics.Comparison{c}, 0.95, src)
		}); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{mp, cp} {
			rows := duckdbtest.Query(t, fmt.Sprintf(`SELECT typeof(label_source) AS type, count(*) AS n,
				count(*) FILTER (WHERE label_source = 'weak') AS weak, count(label_source) AS nonnull
				FROM read_parquet(%s) GROUP BY ALL`, duckdbtest.Literal(p)))
			if len(rows) != 1 || len(rows[0]) != 1 {
				t.Fatalf("%s (label source %q): %v", p, src, rows)
			}
			r := rows[0][0]
			n := fmt.Sprint(r["n"])
			wantWeak, wantNonNull := "0", "0"
			if src == "weak" {
				wantWeak, wantNonNull = n, n
			}
			if fmt.Sprint(r["type"]) != "VARCHAR" || n == "0" || fmt.Sprint(r["weak"]) != wantWeak || fmt.Sprint(r["nonnull"]) != wantNonNull {
				t.Errorf("%s (label source %q): label_source %v, want VARCHAR, weak on %s of %s rows", filepath.Base(p), src, r, wantWeak, n)
			}
		}
	}
}
