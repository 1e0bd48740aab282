// Package reports is the last stage of the apeval pipeline (datasets →
// replay → judge → replay → metrics → reports): it writes a run directory
// and formats what metrics computed. It never computes a statistic; the
// only counting it does is the gate-action tally of GateSummary.
//
// # Run directory
//
// Every file is written atomically: into a temporary file in the same
// directory (name.*.tmp), synced, then renamed over the final name, so a
// reader never sees half a file and an interrupted run leaves none.
//
//	run.json           RunInfo: run_id, created, apeval_version, datasets
//	                   (name, sha256), policy (name, sha256), judges (identity,
//	                   backend, model, digest, prompt_version, details),
//	                   baseline, concurrency, timeout ("30s"), shard ("I/N"),
//	                   layout ("hive", or absent for flat),
//	                   cases, invalid_lines, results (gates rows), decisions
//	                   (decisions rows), interrupted, replay_ms (wall time of
//	                   the replay stage). Schema "apeval.run/v1".
//	decisions.parquet  one row per case × judge × rule in scope (below)
//	gates.parquet      one row per case × judge (below)
//	metrics.parquet    one row per judge × rule plus rule_id "*" (below)
//	summary.json       metrics.Summary with the run; keys in SUMMARY_JSON.md
//	summary.md         GitHub-flavoured Markdown for $GITHUB_STEP_SUMMARY or a
//	                   pull-request comment
//	junit.xml          one testcase per criterion × judge × rule
//	latency_cdf.svg    live-call latency CDF per judge, P95 and judge_p95_max marked
//	precision.svg      precision per rule and judge with its interval
//	recall.svg         recall per rule and judge with its interval
//	fire_rate.svg      fire rate per rule, one bar per judge
//	report.html        one self-contained page: verdict, tables, charts
//
// RunWriter writes run.json, decisions.parquet and gates.parquet while the
// replay streams (row groups of 64k rows, so memory does not grow with the
// run); ReadRun reads them back into the identical replay.Results, which is
// how `apeval report` and `apeval merge` recompute everything from the files
// alone. WriteRunReports writes the rest from a Report.
//
// In the hive layout (run.json "layout": "hive", LayoutHive) the run
// directory is named run_id=<id> (RunDir) and each judge's decisions.parquet
// and gates.parquet sit in judge=<identity>/ (JudgeDir, Hive's %XX escaping),
// so a root holding many runs reads as one table partitioned by run_id and
// judge; ReadRun walks the judges in run.json order.
//
// # Parquet columns
//
// Strings are UTF8 (STRING), dictionary-encoded where few values repeat;
// integers INT32 or INT64; figures DOUBLE; flags BOOLEAN; tags LIST<STRING>.
// A column marked "null" below is null where the value does not apply,
// never a stand-in 0 or "". Both run files are written in the same case ×
// judge order.
//
// decisions.parquet (the DESIGN §8 columns first, then what it takes to
// rebuild a replay.Result):
//
//	run_id, case_id, session_id   STRING
//	seq                           INT64
//	judge                         STRING  judge identity backend/model@digest+prompt
//	model, model_digest,
//	prompt_version                STRING, null when the backend has none
//	rule_id                       STRING
//	rule_version                  INT32
//	rule_class                    STRING  always|style|audit|dangerous|approval|stop
//	label                         STRING  match|no_match, null when unlabeled
//	source                        STRING  scope|deterministic|judge|cache|failure
//	result                        STRING  match|no_match|unknown
//	confidence                    DOUBLE  null when the judge gave none
//	fired                         BOOLEAN
//	action                        STRING  the rule's action, fired or not
//	gate_action                   STRING  the case's resolved action
//	latency_ms                    DOUBLE  latency of the call that decided the
//	                                      rule, as replay recorded it; cache hits
//	                                      are marked call_cached; null without a call
//	status                        STRING  ok|unknown|invalid|timeout|error|missing
//	error                         STRING  null when none
//	fingerprint                   FIXED_LEN_BYTE_ARRAY(32)  SHA-256 of the call and
//	                                      rule (seed 000 §7.3) as raw bytes, null when
//	                                      none; lower(hex(fingerprint)) in SQL is the
//	                                      hex form of approved_fingerprints
//	tags                          LIST<STRING>  the case's tags; null when absent
//	baseline_result               STRING  the rule's deterministic baseline, null without one
//	call_index                    INT32   index of the judge call among the case's
//	                                      calls, null when no call decided the rule
//	call_rules                    INT32   rules carried by that call
//	call_status                   STRING  ok|invalid|timeout|error
//	call_error                    STRING
//	call_cached                   BOOLEAN answered from the cache
//	call_attempts                 INT32
//	server_total_ms, server_load_ms,
//	server_prompt_eval_ms,
//	server_eval_ms                DOUBLE  backend-reported timings
//	prompt_tokens,
//	completion_tokens             INT64   backend-reported token counts
//
// The call_* and server_* columns repeat on every rule row of a call and
// are null without a call (or when the backend does not report them). To
// count calls in SQL, take distinct (judge, case_id, call_index).
//
// gates.parquet:
//
//	run_id, case_id, session_id   STRING
//	seq                           INT64
//	judge                         STRING
//	permission                    STRING  allow|deny|ask|off
//	gate_action                   STRING  resolved action; allow when nothing fired
//	expected_action               STRING  null when the case has none
//	rules_in_scope, rules_judged  INT32
//	judge_called, cache_hit       BOOLEAN
//	latency_ms                    DOUBLE  sum of live call latencies, null without one
//	status                        STRING  worst call status, null without a call
//	approval_outcome              STRING  approved|denied|ignored, null when not recorded
//	model, model_digest,
//	prompt_version                STRING  null when the backend has none
//	calls                         INT32   judge calls of the case, cache hits included
//	tags                          LIST<STRING>
//
// A case with no rule in scope has a gates row and no decisions row.
//
// metrics.parquet (DESIGN §8 columns first; every rate, interval and
// quantile is null when it does not apply — no labeled positives, no live
// call, not a dangerous rule, no approval outcome):
//
//	run_id, judge, rule_id        STRING  rule_id "*" is the judge's total
//	cases, in_scope, judged,
//	tp, fp, fn, tn                INT64
//	precision[_lo,_hi],
//	recall[_lo,_hi],
//	unknown_rate,
//	judge_required_rate           DOUBLE
//	calls                         INT64   live calls (cache hits excluded)
//	latency_p50_ms, latency_p95_ms,
//	latency_p99_ms                DOUBLE  nearest rank
//	fire_rate, baseline_recall,
//	approval_reject_rate          DOUBLE
//	verdict                       STRING  GO|NO-GO|INCONCLUSIVE
//	<criterion>_status            STRING  PASS|FAIL|INCONCLUSIVE|N/A for each kill
//	                                      criterion (precision_min,
//	                                      dangerous_recall_must_beat_baseline,
//	                                      judge_p95_max, judge_required_rate_max,
//	                                      unknown_rate_max, approval_reject_rate_max,
//	                                      fire_rate_change_max); null when the
//	                                      criterion is not evaluated at that
//	                                      row's scope (rule vs judge)
//	model, model_digest,
//	prompt_version                STRING
//	is_baseline                   BOOLEAN
//	rule_version                  INT32   null on the "*" row
//	rule_class, action            STRING  null on the "*" row
//	labeled, missing, cache_hits,
//	fired, unknown, invalid,
//	timeout, error,
//	judge_required                INT64
//	unknown_rate_lo/_hi,
//	judge_required_rate_lo/_hi    DOUBLE
//	cached_calls, failed_calls    INT64
//	latency_p95_lo_ms/_hi_ms      DOUBLE  order-statistic interval of the P95
//	baseline_positives,
//	baseline_hits, judge_only_hits,
//	baseline_only_hits,
//	approval_outcomes,
//	approval_rejected             INT64
//	approval_reject_rate_lo/_hi   DOUBLE
//
// The meaning of each figure is metrics.Row's.
//
// # Terminal output
//
// Report.WriteTables prints the judges side by side and the per-rule table
// with intervals as "0.93 [0.88, 0.96]", numbers right-aligned, verdict
// words coloured only when Report.Color is set (IsTerminal); TSV (one
// rectangular table, full precision, judge totals as rule_id "*") when
// piped; JSON is summary.json. Report.WriteComparison prints baseline vs
// candidate the way benchstat does. GateSummary prints the gate actions
// per judge. DefaultFormat picks table on a terminal and TSV otherwise.
package reports
