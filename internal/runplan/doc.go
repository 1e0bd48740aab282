// Package runplan is what `apeval run` and `apeval replay` run, after
// terraform's internal/command/arguments: the flags as parsed (Options, a
// plain struct the command binds its flags to) are resolved with
// apeval.toml (internal/config) and --resume's run.json into an immutable
// Plan (Resolve), and one run of the plan has a State (Plan.Start): its run
// ID and directory, the budget spent and whether it stopped the run, the
// prices of the judges opened. The command (cmd/apeval) parses the flags,
// calls Resolve and State.Prepare, fans the results out and renders; what
// the run is — which settings win, the checks across flags, the judges a bare
// `--judge recorded` means and how they are opened (OpenJudges: servers,
// budget, cache), the run directory, replay's deadline, what run.json
// records, when a run is partial — is decided here.
//
// Every error of Resolve is a usage error (the command exits 2) naming
// the flag or the apeval.toml key. It is not a stable Go API.
//
// Where to look:
//
//	options.go   Options and the flag groups: JudgeFlags, Filter, Budget, Repeat (their checks)
//	resolve.go   Plan, Resolve: apeval.toml under the flags, the checks across flags, --shard
//	resume.go    --resume DIR: its recorded settings under the flags, the same servers and keys
//	policy.go    Plan.LoadPolicy (policy, --rule, --batch-size, criteria), Outcome (a replay's end)
//	judges.go    ResolveBaseline, CheckResumed (--resume keeps the judges), State.Feed (the case feed)
//	open.go      State.OpenJudges: each judge under its settings, told apart, budget, response cache; JudgeInfo
//	prepare.go   State.Prepare (policy, dataset, selection, judges, run directory), Evaluation, Replay
//	             (what is reported, the budget's cut, run.json finished and committed), Total, Notes,
//	             Warning, Stopped
//	recorded.go  ExpandRecorded, NeedsRecordedNames: no --judge, or a bare --judge recorded
//	state.go     State, Plan.Start: run ID, run directory (RunDirFor; to a bucket: BucketRunDir,
//	             Remote, StageIn), budget and prices (Limit), replay's options and deadline,
//	             run.json's Info, Settings and Finish (partial)
package runplan
