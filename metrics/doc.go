// Package metrics is the fourth stage of the apeval pipeline: it turns
// replay.Results (one case × judge) into confusion counts, rates, latency
// quantiles and confidence intervals per judge × rule, evaluates the kill
// criteria of seed 000 §21.9, gives the go/no-go verdict and compares
// judges (DESIGN §6, §7; issues 3 and 5). Reports only format the Summary
// it produces; nothing here writes output.
//
// # Use
//
//	a := metrics.New(metrics.Config{Criteria: crit, Baseline: "ollama/a@…"})
//	for r := range results { a.Add(r) }
//	s := a.Close()                       // *Summary, summary.json is its JSON
//	os.Exit(metrics.ExitCode(s.Verdict, "")) // in cmd only
//	cmp := s.Compare(baseline, candidate) // any two judges of the summary
//
// Two run directories are compared by feeding both runs' results into one
// Accumulator; their judge identities must differ (the CLI renames them).
//
// # Counting (DESIGN §6)
//
// A pair is one (case, rule) in scope for one judge. A pair with status
// `missing` (a recorded judge lacks a rule the policy now asks about) is
// left out of every figure of that judge except Row.Missing, and counted in
// a warning. Every other pair is in scope (Row.InScope), including pairs
// skipped by an approved fingerprint (source `scope`); those were decided by
// a human, not by the judge or a matcher, so they count in no confusion
// cell (nor in Row.Labeled).
//
// A pair's result is the rule's own result whatever stage gave it. A pair
// is a failure when its status is invalid, timeout or error, or its source
// is `failure` with any status but `unknown`; it is unknown when not a
// failure and its result or status is `unknown` (replay routes a judge's
// unknown answer through the failure policy as source failure, status
// unknown). Failures and unknowns are never `match`, even when
// the failure policy fired the rule. So TP = label match ∧ match;
// FP = label no_match ∧ match; FN = label match ∧ not match (no_match,
// unknown or failure); TN = label no_match ∧ no_match. A failure or unknown
// with label no_match is neither FP nor TN. Unlabeled pairs count in every
// rate that needs no label.
//
// Judged pairs are those sent to the judge: source judge, cache or failure
// (cache hits included). unknown_rate = judged pairs that are unknown,
// invalid, timeout or error ÷ judged pairs, with the breakdown in
// Row.Unknown; a judged pair with no recognisable result counts as error.
//
// precision = TP/(TP+FP), recall = TP/(TP+FN); each with a Wilson score
// interval at Criteria.Confidence, z = Φ⁻¹(1 − (1−confidence)/2), taken at
// the effective sample size of its units grouped by session (DESIGN §6.1,
// Deff and WilsonDeff): so are the unknown-rate, judge-required-rate and
// approval-reject-rate intervals; Row.<Figure>Deff carries the design
// effect. A case without a session ID is a session of its own.
//
// fire_rate = pairs where the rule fired ÷ pairs in scope.
//
// judge_required_rate: on the total row, cases with Result.JudgeCalled ÷
// cases replayed; on a rule row, the rule's judged pairs ÷ its pairs in
// scope (how often this rule needed the judge).
//
// Latency: a live call is a Result.Calls entry that is not a cache hit;
// failed calls count at the time they took. calls = their number,
// p50/p95/p99 are nearest-rank (the ⌈p·n⌉-th smallest, computed in
// integers). On a rule row, latency is over the live calls the rule was
// part of (RuleResult.Call); the judge's total row is over all its live
// calls and is what judge_p95_max uses.
//
// baseline_recall = labeled positives whose RuleResult.BaselineResult is
// match ÷ labeled positives that have a baseline result, for any rule with
// a baseline (in practice the dangerous ones); nil on the total row, since a
// pooled figure would mix rules with and without baselines.
//
// approval_reject_rate = (denied + ignored) ÷ cases with a recorded
// approval outcome where request_approval fired: on a rule row, the rule
// fired with action request_approval; on the total row, the case's
// GateAction was request_approval.
//
// The total row (rule_id "*") sums the rule rows' counts (micro-average)
// and derives its rates from the sums. A metric with a zero denominator is
// nil, never 0.
//
// # Kill criteria and verdicts (DESIGN §7)
//
// Each criterion FAILs only when the data confirm it: FAIL when its whole
// interval lies on the bad side of the threshold, PASS when it lies
// strictly on the good side, INCONCLUSIVE when it straddles, and N/A (with a Reason) when it has no data; N/A
// never moves a verdict. Which side the threshold itself is on follows seed
// 000 §21.9's wording: precision below 90 % kills (0.90 itself is not bad),
// unknown at or above 10 % kills, the judge needed for 20 % or more of
// calls kills, a P95 above 1 s kills, an approval reject rate above the max
// kills, a fire-rate change beyond ±max kills.
//
//   - precision_min (rule): clustered Wilson. TP+FP = 0 is INCONCLUSIVE, not N/A: no
//     rule goes live on no evidence.
//   - dangerous_recall_must_beat_baseline (rule of class dangerous): on the
//     labeled positives with a baseline result, b = judge hit ∧ baseline
//     miss, c = judge miss ∧ baseline hit. Estimate (b−c)/n with a Newcombe
//     paired interval; FAIL when b ≤ c, PASS when the one-sided McNemar
//     p = P(X ≥ b | X ~ Bin(b+c, ½)) < 1 − confidence (Durkalski's
//     clustered statistic when a session holds more than one discordant
//     positive). N/A: criterion
//     disabled, not dangerous, no labeled positives, no baseline.
//   - judge_p95_max (total row): nearest-rank P95 with a distribution-free
//     interval from order statistics (ranks from Binomial(n, 0.95) through
//     gonum); PASS when the upper bound < max, FAIL when the lower bound >
//     max. With fewer than 72 calls (95 %) no upper bound exists:
//     INCONCLUSIVE. N/A with no live call (the none judge makes none) or a
//     zero max.
//   - judge_required_rate_max (total row), unknown_rate_max (rule and total
//     rows), approval_reject_rate_max (rule): clustered Wilson. N/A with no cases, no
//     judged pair, or no recorded approval outcome respectively.
//   - fire_rate_change_max (rule, candidate judges only, vs
//     Config.Baseline): over the cases both judges replayed where either had
//     the rule in scope (a judge that had it out of scope did not fire it;
//     cases where either's recording is missing the rule are left out),
//     estimate = candidate − baseline fire rate with Newcombe's method 10
//     paired interval; PASS inside ±max, FAIL wholly outside. N/A without a baseline judge, for
//     the baseline itself, or when a judge never had the rule.
//
// For an INCONCLUSIVE criterion, SamplesNeeded is the smallest sample size
// (raw units, at the observed design effect) at which the same observed
// rates would be decisive either way (Wilson bound, McNemar p or Newcombe
// interval recomputed at scaled counts); nil when the
// estimate sits exactly on the threshold, and for judge_p95_max (whose
// reason says how many calls bound a P95 at all).
//
// A rule's verdict: NO-GO if any of its criteria FAILs, else INCONCLUSIVE
// if any is INCONCLUSIVE, else GO. A judge's verdict is the worst of its
// total-row criteria and all its rules' verdicts (a judge is not GO while
// any of its rules is not); Total.Verdict repeats it. The run's verdict is
// the worst over candidate judges: every judge except Config.Baseline (the
// baseline is the reference being replaced, so its own failures do not
// block a candidate), or the baseline's own verdict when it is the only
// judge. No results at all is INCONCLUSIVE. ExitCode maps GO 0, NO-GO 1,
// INCONCLUSIVE 3 (or 0/1 with --inconclusive=pass|fail).
//
// # Comparison (issue 5)
//
// Summary.Compare(baseline, candidate) gives per rule and overall both
// rows, candidate − baseline deltas, the exact two-sided McNemar test on
// paired "result is match" decisions (McNemarP, kept for compatibility),
// the fire-rate change criterion above, and Figures: one paired test per
// figure (DESIGN §6.2) — recall, false-positive rate, unknown rate and fire
// rate by McNemar on the units each counts (exact, or Durkalski's clustered
// statistic when a session holds more than one discordant unit) with a
// Newcombe paired Δ interval; precision by a paired bootstrap of sessions
// (seeded by Config.Seed, independent of arrival order); P50/P95 latency by
// Mann–Whitney U with a bootstrap Δ interval. With Config.Slices the same
// per slice value (Comparison.Slices). docs/statistics.md has the details. Warnings flag different
// prompt versions, different case sets, different rule versions, rules only
// one judge had, and rules with fewer than 30 paired cases.
//
// # Memory
//
// Case IDs are interned once per distinct case into dense ordinals; per
// pair the Accumulator keeps one packed uint64 (ordinal and the pair's
// flags) for clustered intervals and comparisons, per case a uint32 session
// ordinal, per live call one float64 latency plus a uint32 per rule it
// carried (BenchmarkAccumulate). Up to 2³² distinct cases can be paired.
package metrics
