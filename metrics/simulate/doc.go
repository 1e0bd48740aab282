// Package simulate answers deployment questions from a run directory's
// recorded answers, with no new model call (`apeval simulate`, see
// docs/simulate.md): what a judge would do inside an agent's hook with a
// timeout (a call slower than the timeout is a failure and the rule's
// failure policy applies), what a cascade or a vote of the run's judges
// would decide, at what latency and cost. It sits beside package metrics
// (datasets → replay → judge → replay → metrics → reports): it reads
// replay.Results, computes figures with metrics' session-clustered
// interval and paired comparison, and formats nothing.
//
// # Use
//
//	d := simulate.NewData(policy, judges)   // the run's policy and judges
//	defer d.Close()                         // its temporary files
//	for r := range results { d.Add(r) }     // rundir.ReadRun's results
//	err := d.Done()                         // counts, checks (a case twice)
//	cfgs, err := simulate.Expand(d, spec)   // judges/cascades/votes × timeouts
//	res := simulate.Run(d, cfgs, opts)      // *Result: one Row per config × rule; res.Err()
//
// # Where to look
//
//	data.go      Data: the run's answers as compact records, on disk beyond a budget (internal/spill), read session by session, aligned by case
//	config.go    Config, the cascade and vote grammar, Expand and its checks
//	eval.go      one case under one configuration: hook timeout, failure policy, combination
//	run.go       Run: session by session, the figures, intervals and paired comparisons; the hook's P50/P95 from spilled latencies
//	row.go       Row, the one definition of a simulated figure row
//	frontier.go  Frontier: the non-dominated configurations
//	oppoint.go   Item, Point: a threshold's figures on labeled pairs (metrics.ClusteredInterval)
//	oppoints.go  OpPoint: the operating point of one judge × rule
//
// Not a stable Go API: apeval is a command, and this package serves it;
// its exported names change with the command, without a compatibility
// promise between versions.
package simulate
