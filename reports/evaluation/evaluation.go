// Package evaluation is the one evaluation pipeline of apeval. Every
// command that gives a verdict — run, report, gate, merge, compare — turns
// results into figures, criteria and a verdict here and nowhere else, so
// the same evidence gives the same verdict on every path
// (docs/statistics.md, "One verdict"):
//
//	ev := evaluation.New(spec)     // spec: criteria, baseline, slices, --inconclusive, labels
//	for each result: ev.Add(r)     // run: as replayed; readers: RunSet.Evaluate
//	rep, err := ev.Finish(runInfo) // err: the figures' data failed (exit 2), never a verdict
//
// The reading commands start from run directories: Open reads their
// run.json, RunSet.Criteria resolves the kill criteria (the recorded ones
// unless --criteria/--policy replace them), RunSet.Evaluate feeds every
// decision file through one evaluation. A new reading option (a label
// file, a filter) plugs in as a field of Spec or as the each hook of
// RunSet.Evaluate; it never needs its own accumulator.
//
// # Where to look
//
//	evaluation.go   Spec, Evaluation (New, Add, Finish), Check
//	runset.go       RunSet: Open (ReadInfos), Criteria, Baseline, Evaluate (the second read when cases repeat), Report (report, gate); WriteReports
//	cases.go        DescribeCases, DescribeFrom: the listed cases' arguments from an unchanged dataset
//	compare.go      RunSet.Compare: a candidate against a baseline (compare); the comment's head run and what changes
//	disagreements.go  FindDisagreements (datasets disagreements), ReplayedSample, ReplayedInput
//	merge.go        CheckShards, MergedInfo: the shards of one run and the merged run.json (merge)
//	pairs.go        ReadPairs: a run's pair table of the chosen judges (label verbs, plan --pilot)
//	labels.go       DrawQueue (label queue), CorrectWeak (label correct), Agreement (label agreement), LabeledSample (--labels)
//	pilot.go        RunSet.Pilot: a plan from a pilot run (plan RUN_DIR), in sessions or labels
//	sequential.go   RunSet.Sequential: the history of runs as looks of the sequential gate (gate --sequential)
//	settings.go     Settings.Under: a reading command's flags over apeval.toml (criteria, baseline,
//	                inconclusive); CheckInconclusive
//
// Not a stable Go API: apeval is a command, and this package serves
// cmd/apeval; its exported names change with the command, without a
// compatibility promise between versions.
package evaluation

import (
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/rundir"
)

// Spec is what an evaluation needs besides the results.
type Spec struct {
	Criteria replay.KillCriteria
	// CriteriaFrom names where the criteria came from (policy.toml,
	// strict.toml (--criteria)); recorded in run.json.
	CriteriaFrom string
	Baseline     string
	Slices       []string
	// DistinctCases: each case's results arrive together (run).
	DistinctCases bool
	// CheckDistinct: the results are expected to come case by case, each
	// case once (one flat run, shards): the accumulator numbers cases as
	// they come and checks it exactly; RunSet.Evaluate reads the results
	// again for an accumulator keeping every case ID when the check fails.
	CheckDistinct bool
	// PairedStreams: with CheckDistinct, the two directories are two runs of
	// the same cases (compare): each numbered as it comes and checked
	// against the other (metrics.Config.PairedStreams).
	PairedStreams bool
	Inconclusive  string
	// PolicyRules: the policy's rule IDs, when the command has the policy
	// (a rule never in scope is listed, not dropped).
	PolicyRules []string
	// Labels is the --labels sample (nil without): the figures are then
	// weighted by the labeling design.
	Labels *metrics.LabeledSample
	// WithoutHookRewritten (compare --without-hook-rewritten) leaves out
	// the cases auto mode judged on an input a PreToolUse hook changed
	// (hookrewrite.go): the comparison is then on the cases where both
	// judges saw the same input.
	WithoutHookRewritten bool
}

// Evaluation is one pass of the pipeline: every sink a report needs, fed
// with the same results.
type Evaluation struct {
	spec Spec
	acc  *metrics.Accumulator
	toks reports.Tokens
	// Gates, Failures and Listed are the report's sinks; apeval replay
	// prints Gates alone, run describes Listed's cases from the dataset.
	Gates    *reports.GateSummary
	Failures *reports.Failures
	Listed   *reports.CaseLists
}

// New starts an evaluation.
func New(spec Spec) *Evaluation {
	return &Evaluation{
		spec: spec,
		acc: metrics.New(metrics.Config{Criteria: spec.Criteria, Baseline: spec.Baseline, Slices: spec.Slices, DistinctCases: spec.DistinctCases,
			CheckDistinct: spec.CheckDistinct, PairedStreams: spec.PairedStreams, PolicyRules: spec.PolicyRules}),
		Gates:    reports.NewGateSummary(),
		toks:     reports.Tokens{},
		Failures: reports.NewFailures(),
		Listed:   reports.NewCaseLists(),
	}
}

// Add hands one result to every sink.
func (ev *Evaluation) Add(r *replay.Result) { ev.AddFrom(0, r) }

// AddFrom is Add for a result of the i-th run directory.
func (ev *Evaluation) AddFrom(i int, r *replay.Result) {
	if ev.spec.PairedStreams {
		ev.acc.AddFrom(i, r)
	} else {
		ev.acc.Add(r)
	}
	ev.Gates.Add(r)
	ev.toks.Add(r)
	ev.Failures.Add(r)
	ev.Listed.Add(r)
	if ev.spec.Labels != nil {
		ev.spec.Labels.Add(r)
	}
}

// Finish computes the summary and the verdict. Data the figures need that
// could not be read back (a spill file) is an error: the command never
// prints a verdict on figures with a hole. The report's Exit is left to
// the command (it maps verdicts to exit codes).
func (ev *Evaluation) Finish(run rundir.RunInfo) (*reports.Report, error) {
	sum := ev.acc.Close()
	if err := Check(sum); err != nil {
		_ = sum.Release()
		return nil, err
	}
	if ev.spec.Labels != nil {
		if err := ev.spec.Labels.Apply(sum); err != nil {
			_ = sum.Release()
			return nil, err
		}
	}
	t := metrics.ThresholdsOf(ev.spec.Criteria)
	run.Criteria, run.CriteriaFrom = &t, ev.spec.CriteriaFrom
	return &reports.Report{Run: run, Summary: sum, Tokens: ev.toks, Inconclusive: ev.spec.Inconclusive,
		Failures: ev.Failures.SummaryOf(sum), Cases: ev.Listed, Gates: ev.Gates}, nil
}

// Check is the pipeline's last word after a command read the summary
// further (comparisons, reports): a spill read that failed there is an
// error too, never a verdict.
func Check(sum *metrics.Summary) error { return reports.CheckFigures(sum) }
