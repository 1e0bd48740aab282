// Package replay is the middle of the apeval pipeline (datasets → replay →
// judge → replay → metrics → reports): it loads a policy and replays each
// recorded tool call through it — scope, permissions, deterministic
// matchers, session state, judge calls, failure policy, action priority —
// emitting one Result per case and judge.
//
// # Main types
//
// A [Policy] (LoadPolicy, ParsePolicy) holds the [Rule]s, [Permissions] and
// [KillCriteria] of a policy TOML file; ParseCriteria reads a --criteria
// file. Every problem in a file is reported as "file:line: key: message".
//
// [Run] drives a replay: it pulls cases from a function, replays them for
// every judge concurrently under [Options], and calls emit with each
// [Result] in input order, case by case and judge by judge, so the output is
// identical at any concurrency. A Result carries what every stage decided:
// one [RuleResult] per rule in scope, the [Call]s made to the judge, the
// resolved gate action, and failures as data. A session whose records go
// backwards in seq stops the run with a [*SeqError].
//
// [BuildInput] is the only way a case reaches a judge: an allow-listed,
// masked judge.Input (internal/mask). [Fingerprint] is the
// approval hash of a call and rule.
//
// # Where to look
//
//	policy.go           policy and criteria types, rule Class, LoadPolicy, ParsePolicy
//	policy_validate.go  the raw TOML shapes and their validation
//	internal/tomlfile   (shared) the key → line locator for file:line errors
//	match.go            deterministic matchers; shell.go splits shell commands
//	permissions.go      the permissions layer
//	engine.go           one case for one judge: scope → … → resolution
//	run.go              orchestration on errgroup: reader, session-owning workers, in-order writer
//	input.go            judge input, masked with internal/mask; which
//	                    arguments a rule refers to were masked or cut
//	                    (RuleResult.EvidenceAltered)
//	result.go           Result, RuleResult, Call
//	outcome.go          RuleResult.Classify: how metrics count a pair
//	budgetcut.go        BudgetCut: which results a stopped budget leaves out of a run
//	feed.go             Feed: the cases a run replays (shard, selection, invalid lines, budget stop); ScanStats
//	criteria.go         KillCriteria and DefaultKillCriteria
//	failure.go          OnFailure: the failure policy replay and `apeval simulate` share
//	fingerprint.go      Fingerprint: the approval fingerprint of a tool call
//	glob.go             the glob patterns of permissions and rules
//	category.go         the built-in tool-name → category map
//	permissions_import.go  DecideCall with the agents' imported permission files
//	session.go          per-session state in bounded memory
//	spill.go            session state spilled to disk past the memory budget
//	shard.go            Shard: a dataset partitioned by session hash
//	permimport/, automode/  importers of agents' permission and auto-mode settings
//
// The replay semantics (what fires, on which failure, which action wins),
// the matchers' exact definitions, the judge input and the memory bounds are
// written once, in docs/replay.md.
//
// Not a stable Go API: apeval is a command, and this package serves
// cmd/apeval; its exported names change with the command, without a
// compatibility promise between versions.
package replay
