// Package diff says what a change of judge, prompt or policy changes, call
// by call: it matches the cases of two runs (or two judges of one run) by
// case ID and classifies each by the gate action on either side. It sits
// with the reports (it reads run directories and writes diff.parquet and
// diff.html) and computes no statistic.
//
// A case is loosened when the head's gate action is weaker than the base's
// by the gate's priority (replay.ActionRank: stop_task > deny_current_tool >
// request_approval > inject_instruction > audit_only = notify_admin >
// allow), tightened when it is stronger, changed when it has the same
// strength but another action or another set of fired rules. A labeled
// rule whose result moved to or from match is fixed when the head now
// agrees with the label, broken when it no longer does. With --repeat runs
// a changed rule is flaky when some repeat of the base and some repeat of
// the head gave the same answer (the change vanishes across repeats),
// stable when none did.
//
// # Where to look
//
//	overlap.go   Overlap: refusal of runs with no case in common, the partial-overlap banner (shared with compare)
//	diff.go      Differ: the join by case ID and the classification
//	differ.go    Counts: a diff's totals
//	run.go       Options and Result: a diff's settings and its outcome
//	input.go     each side's judge input rebuilt for a case (rules, conditions, earlier fires)
//	policy.go    PolicyDiff, RuleChange: a policy backtest's view of the rules
//	read.go      Run: reading two runs (or two judges of one) into a Differ
//	parquet.go   diff.parquet
//	text.go      terminal output and --json
//	html.go      diff.html (page.html is its template)
//
// Not a stable Go API: apeval is a command, and this package serves it;
// its exported names change with the command, without a compatibility
// promise between versions.
package diff
