// Package metrics is the fourth stage of the apeval pipeline (datasets →
// replay → judge → replay → metrics → reports): it turns replay.Results
// (one case × judge) into confusion counts, rates, latency quantiles and
// confidence intervals per judge × rule, evaluates the kill criteria, gives
// the GO / NO-GO / INCONCLUSIVE verdict and compares judges. Reports only
// format the Summary it produces; nothing here writes output.
//
// # Use
//
//	a := metrics.New(metrics.Config{Criteria: crit, Baseline: "ollama/a@…"})
//	for r := range results { a.Add(r) }
//	s := a.Close()                        // *Summary; summary.json is its JSON
//	cmp := s.Compare(baseline, candidate) // any two judges of the summary
//
// Two run directories are compared by feeding both runs' results into one
// Accumulator; their judge identities must differ (the command renames
// them).
//
// # Memory
//
// What the intervals and comparisons need per case and per decision is
// kept in spill lists (internal/spill): up to Config.SpillBudget bytes in
// memory, the rest in an unnamed temporary file read back in case order
// by Close and Compare; [Summary.Release] frees it. With
// Config.DistinctCases (each case's results together, as `apeval run`
// emits them) no case ID is kept either; Config.CheckDistinct does the same
// for results expected to come so, and checks it exactly in bounded memory
// ([Accumulator.Distinct]). What remains grows with sessions
// and live judge calls (see docs/internals.md, "Per-case data on disk").
//
// # Main types
//
// [Accumulator] takes Add(*replay.Result) and finishes with Close, giving a
// [Summary]: one [JudgeSummary] per judge, each with a total [Row] and one
// Row per rule, a [Criterion] per kill criterion and a [Verdict].
// [Summary.Compare] gives a [Comparison]. [DisagreementFinder] lists the
// cases two judges decided differently. [ClusteredInterval],
// [SignFlip], [Wilson], [NewcombePaired],
// [McNemarTwoSided], [Holm], [BenjaminiHochberg], [NearestRank] and
// [QuantileInterval] are the statistics, usable on their own.
//
// # Where to look
//
//	accumulate.go      Add: classification and counting per pair
//	close.go           Close: rates and intervals from the counts
//	criteria.go        Criteria, the one table of kill criteria, and Direction.Decide, the one verdict rule
//	verdict.go         each criterion's evidence and the verdicts
//	compare.go         Summary.Compare, CompareVerdict (apeval compare's verdict)
//	stream.go          reading the spill lists back
//	disagreements.go   DisagreementFinder
//	disagreementline.go CaseDisagreements.Annotate: the apeval_disagreement member of a case line
//	stats.go           the statistics: Wilson, Newcombe, quantiles, Holm, Benjamini–Hochberg
//	betabin.go         ClusteredInterval: a pooled rate's interval; BetaBinomialInterval, its fallback
//	ratio.go           the ratio over sessions: CR2 variance, Bell–McCaffrey df, Wilson at n_eff
//	pairdiff.go        the clustered Newcombe interval of paired differences over sessions (drift)
//	tests.go           SignFlip, the precision delta-t, the latency bootstrap, Mann–Whitney
//	latency.go         latency quantiles over sessions: the P95 interval, the paired P50/P95 test
//	hint.go            SessionsToDecide(All), SessionsToGain, labelsToDecide (LabelHint): "+N" in new sessions (or labels, or sessions when labels cannot) that decide with 80 % probability
//	plan.go            Plan: sessions for an 80 % chance of a decision, from guesses (apeval plan)
//	planpilot.go       PlanPilot: the same from a pilot run: rates fitted, P95/recall/drift by resampling sessions
//	planlabels.go      PlanLabels: the label path from a pilot run: labels from the queue for 80 %, shares at N labels
//	sequential.go      ConfidenceSequence: anytime-valid decisions over sessions (stopping early)
//	seqgate.go         SequentialGate: gate --sequential over a history of runs (a session counted once)
//	seqlabels.go       LabelSequential: the labeling page's "decided after N labels"
//	figures.go         the comparison figures and their tests
//	calibration_test.go the calibration suite (make calibrate): known truth, measured goals
//	grid_test.go       the interval grid and the 11-rule GO rate (make calibrate; smoke in go test)
//	samplequeue.go     BuildQueue: strata, allocation and order of a labeling queue
//	sample.go          the design-weighted ratio estimator and its two-phase interval (sessions sample the traffic, labels the sessions' pairs)
//	samplecrit.go      kill criteria and "+N more labels" on weighted figures
//	samplepanel.go     SampleFiguresOf: one judge × rule from a labeled sample
//	sampledraws.go     drawnInterval: a labeled proportion's interval from stratified draws of the strata's shares
//	sampletraffic.go   the queue's traffic from a run (queueTraffic) and the printed interval's choice (withDraws)
//	pairs.go           PairTable: a run's pairs across judges; resolving labels files
//	labeled.go         LabeledSample: --labels applied to a summary (weights, matching, refusals)
//	agreement.go       Cohen's and Fleiss' kappa, LabelAgreement
//	weakagreement.go   WeakAgreement: weak labels against people's first label
//	row.go             Row, the one definition of a figure row: tags, counting, rates
//	figure.go          Figure: one paired test of a comparison, Significant
//	paired.go          PairedCounts, PairedBinary: a binary figure of two configurations on the same sessions
//	cluster.go         the clustered figures of a rule row: lanes, units and one pass over the spill lists
//	sesssums.go        per-session sums in bounded memory (spilled to disk past a budget)
//	repeats.go         flip_rate and position_effect of --repeat and --shuffle-rules
//	slices.go          slices (--by tool, category): kinds and values
//	overlap.go         CaseOverlap: the cases two judges have in common
//	sampleapply.go     RowSample, SampleInfo, ApplySample: a summary's figures from a labeled sample
//	weakcorrect.go     weak labels corrected from a human-labeled slice
//	seqgate.go         SequentialGate: kill criteria decided anytime-validly over a history of runs
//	seqlabels.go       LabelStanding, LabelSequential: precision_min decided along a labeling queue
//	*_test.go          named after the file they test; *_sim_test.go are simulations (make calibrate)
//	summary.go         Summary and its JSON
//
// What every figure means, how a pair is counted, the session-clustered
// intervals, the paired comparison tests, each criterion's rule and how
// verdicts combine are written once, in docs/statistics.md.
//
// Not a stable Go API: apeval is a command, and this package serves
// cmd/apeval; its exported names change with the command, without a
// compatibility promise between versions.
package metrics
