-- apeval per-rule metrics recomputed from decision and gate files.
--
-- One row per run_id × judge × rule_id, plus the judge's total row
-- (rule_id '*'), with the counts and rates `apeval report` puts in
-- summary.json: TP/FP/FN/TN, precision, recall, unknown rate, judge-required
-- rate, fire rate and the nearest-rank P95 of live judge-call latency.
-- A rate whose denominator is 0 is NULL. The figures are equal to apeval's
-- exactly (a test in reports/sql_test.go runs this file through DuckDB on
-- the embedded sample and compares every value with `apeval report`).
-- Confidence intervals and verdicts are not recomputed here.
--
-- Input: two relations, `decisions` and `gates`, over the run files. With
-- `apeval run --out-layout hive --out ROOT`, in DuckDB:
--
--   CREATE VIEW decisions AS SELECT * FROM read_parquet('ROOT/*/*/decisions.parquet', hive_partitioning = true);
--   CREATE VIEW gates     AS SELECT * FROM read_parquet('ROOT/*/*/gates.parquet', hive_partitioning = true);
--
-- in Spark SQL:
--
--   CREATE TEMPORARY VIEW decisions USING parquet OPTIONS (path 'ROOT/*/*/decisions.parquet');
--   CREATE TEMPORARY VIEW gates     USING parquet OPTIONS (path 'ROOT/*/*/gates.parquet');
--
-- in Trino, two Hive connector tables over ROOT partitioned by run_id and
-- judge (one table per file name). A flat run directory works the same with
-- read_parquet('DIR/decisions.parquet'): every file carries run_id and
-- judge as columns too.
--
-- Dialect: DuckDB, written to the subset that Spark SQL and Trino accept
-- as is: CTEs, CASE, NULLIF, CAST(… AS DOUBLE), CEIL, ROW_NUMBER() and
-- COUNT(*) as window functions, UNION ALL. The one exception is the view
-- definitions above, which each engine spells its own way.
--
-- Definitions (apeval's metrics package documentation is normative):
--   A pair is one decisions row whose status is not 'missing'.
--   failed   = status is invalid, timeout or error, or source is 'failure'
--              with any status but 'unknown'.
--   unknown  = not failed, and result or status is 'unknown'.
--   match    = not failed, not unknown, result 'match'; no_match likewise.
--   judged   = source is judge, cache or failure.
--   TP = label match ∧ match, FN = label match ∧ not match,
--   FP = label no_match ∧ match, TN = label no_match ∧ no_match; pairs
--   skipped by an approved fingerprint (source 'scope') count in none.
--   precision = TP / (TP + FP); recall = TP / (TP + FN).
--   unknown_rate = judged pairs neither match nor no_match / judged pairs.
--   judge_required_rate = judged / in_scope on a rule row; on the total row
--   cases with judge_called / cases (from gates).
--   fire_rate = fired / in_scope.
--   evidence_altered = judged pairs whose judge input masked or cut an
--   argument the rule refers to (decisions' evidence_altered);
--   evidence_altered_rate = evidence_altered / judged.
--   latency_p95_ms: the ⌈0.95·n⌉-th smallest latency of the n live calls
--   (not cache hits; failed calls at the time they took): on a rule row the
--   calls the rule was part of, on the total row every call of the judge.
--   The total row sums the rule rows' counts (micro-average).

WITH pair AS (
  SELECT
    run_id, judge, case_id, rule_id, label, source, result, status, fired,
    call_index, call_cached, latency_ms, evidence_altered,
    (status IN ('invalid', 'timeout', 'error') OR (source = 'failure' AND status <> 'unknown')) AS failed
  FROM decisions
  WHERE status <> 'missing'
),
classified AS (
  SELECT
    pair.*,
    (NOT failed AND (result = 'unknown' OR status = 'unknown')) AS is_unknown,
    (source IN ('judge', 'cache', 'failure')) AS judged
  FROM pair
),
decided AS (
  SELECT
    classified.*,
    (NOT failed AND NOT is_unknown AND result = 'match') AS is_match,
    (NOT failed AND NOT is_unknown AND result = 'no_match') AS is_no_match
  FROM classified
),
rule_counts AS (
  SELECT
    run_id, judge, rule_id,
    COUNT(*) AS in_scope,
    SUM(CASE WHEN judged THEN 1 ELSE 0 END) AS judged,
    SUM(CASE WHEN fired THEN 1 ELSE 0 END) AS fired,
    SUM(CASE WHEN source <> 'scope' AND label = 'match' AND is_match THEN 1 ELSE 0 END) AS tp,
    SUM(CASE WHEN source <> 'scope' AND label = 'no_match' AND is_match THEN 1 ELSE 0 END) AS fp,
    SUM(CASE WHEN source <> 'scope' AND label = 'match' AND NOT is_match THEN 1 ELSE 0 END) AS fn,
    SUM(CASE WHEN source <> 'scope' AND label = 'no_match' AND is_no_match THEN 1 ELSE 0 END) AS tn,
    SUM(CASE WHEN judged AND NOT is_match AND NOT is_no_match THEN 1 ELSE 0 END) AS undecided,
    SUM(CASE WHEN judged AND evidence_altered THEN 1 ELSE 0 END) AS evidence_altered
  FROM decided
  GROUP BY run_id, judge, rule_id
),
-- Live calls a rule was part of: one per judged pair that points at a call
-- that was not a cache hit.
rule_calls AS (
  SELECT
    run_id, judge, rule_id, latency_ms,
    ROW_NUMBER() OVER (PARTITION BY run_id, judge, rule_id ORDER BY latency_ms) AS rn,
    COUNT(*) OVER (PARTITION BY run_id, judge, rule_id) AS n
  FROM decided
  WHERE judged AND call_index IS NOT NULL AND call_cached = false
),
rule_latency AS (
  SELECT run_id, judge, rule_id, n AS calls, latency_ms AS latency_p95_ms
  FROM rule_calls
  WHERE rn = CEIL(95 * n / 100.0)
),
-- Every live call of a judge once: a call is on the rows of each rule it
-- decided, all carrying its index and latency.
judge_call AS (
  SELECT DISTINCT run_id, judge, case_id, call_index, latency_ms
  FROM decisions
  WHERE call_index IS NOT NULL AND call_cached = false
),
judge_calls AS (
  SELECT
    run_id, judge, latency_ms,
    ROW_NUMBER() OVER (PARTITION BY run_id, judge ORDER BY latency_ms) AS rn,
    COUNT(*) OVER (PARTITION BY run_id, judge) AS n
  FROM judge_call
),
judge_latency AS (
  SELECT run_id, judge, n AS calls, latency_ms AS latency_p95_ms
  FROM judge_calls
  WHERE rn = CEIL(95 * n / 100.0)
),
judge_cases AS (
  SELECT
    run_id, judge,
    COUNT(*) AS cases,
    SUM(CASE WHEN judge_called THEN 1 ELSE 0 END) AS judge_required
  FROM gates
  GROUP BY run_id, judge
),
judge_counts AS (
  SELECT
    run_id, judge,
    SUM(in_scope) AS in_scope, SUM(judged) AS judged, SUM(fired) AS fired,
    SUM(tp) AS tp, SUM(fp) AS fp, SUM(fn) AS fn, SUM(tn) AS tn,
    SUM(undecided) AS undecided, SUM(evidence_altered) AS evidence_altered
  FROM rule_counts
  GROUP BY run_id, judge
)
SELECT
  r.run_id, r.judge, r.rule_id,
  r.in_scope, r.judged, r.fired, r.tp, r.fp, r.fn, r.tn,
  CAST(r.tp AS DOUBLE) / NULLIF(r.tp + r.fp, 0) AS precision,
  CAST(r.tp AS DOUBLE) / NULLIF(r.tp + r.fn, 0) AS recall,
  CAST(r.undecided AS DOUBLE) / NULLIF(r.judged, 0) AS unknown_rate,
  CAST(r.judged AS DOUBLE) / NULLIF(r.in_scope, 0) AS judge_required_rate,
  CAST(r.fired AS DOUBLE) / NULLIF(r.in_scope, 0) AS fire_rate,
  COALESCE(l.calls, 0) AS calls,
  l.latency_p95_ms,
  r.evidence_altered,
  CAST(r.evidence_altered AS DOUBLE) / NULLIF(r.judged, 0) AS evidence_altered_rate
FROM rule_counts r
LEFT JOIN rule_latency l
  ON l.run_id = r.run_id AND l.judge = r.judge AND l.rule_id = r.rule_id
UNION ALL
SELECT
  c.run_id, c.judge, '*' AS rule_id,
  COALESCE(t.in_scope, 0), COALESCE(t.judged, 0), COALESCE(t.fired, 0),
  COALESCE(t.tp, 0), COALESCE(t.fp, 0), COALESCE(t.fn, 0), COALESCE(t.tn, 0),
  CAST(t.tp AS DOUBLE) / NULLIF(t.tp + t.fp, 0),
  CAST(t.tp AS DOUBLE) / NULLIF(t.tp + t.fn, 0),
  CAST(t.undecided AS DOUBLE) / NULLIF(t.judged, 0),
  CAST(c.judge_required AS DOUBLE) / NULLIF(c.cases, 0),
  CAST(t.fired AS DOUBLE) / NULLIF(t.in_scope, 0),
  COALESCE(l.calls, 0),
  l.latency_p95_ms,
  COALESCE(t.evidence_altered, 0),
  CAST(t.evidence_altered AS DOUBLE) / NULLIF(t.judged, 0)
FROM judge_cases c
LEFT JOIN judge_counts t ON t.run_id = c.run_id AND t.judge = c.judge
LEFT JOIN judge_latency l ON l.run_id = c.run_id AND l.judge = c.judge
ORDER BY run_id, judge, rule_id
