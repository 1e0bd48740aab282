package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/internal/planargs"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/evaluation"
)

// planOptions are `apeval plan`'s flags (planargs.Options) and, once
// checked, what they resolve to.
type planOptions struct {
	planargs.Options
	// pilotLabels are labels files whose labels count as the pilot's on
	// the label path (--pilot-labels).
	pilotLabels []string
	spec        *planargs.Spec
}

func newPlanCmd(io IO, runF func(context.Context, *planOptions, IO) error) *cobra.Command {
	if runF == nil {
		runF = runPlan
	}
	o := &planOptions{}
	cmd := &cobra.Command{
		Use:   "plan [RUN_DIR] [--rate KEY=VALUE...] [--latency-p95 MS] [--icc X] [--session-size N] [--sessions BUDGET]",
		Short: "Before collecting: how many sessions give an 80% chance of a decision, per criterion",
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) > 1:
				return usagef("plan takes at most one run directory (got %q)", args)
			case len(args) == 1 && o.Pilot != "":
				return usagef("give the pilot run directory once: as the argument %q or as --pilot %q", args[0], o.Pilot)
			case len(args) == 1:
				o.Pilot = args[0]
			}
			if err := o.validate(cmd); err != nil {
				return err
			}
			return runF(cmd.Context(), o, io)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.Rates, "rate", nil, "a guess, `KEY=VALUE` (repeatable): precision=0.95, unknown=0.03, recall=0.85 with baseline-recall=0.7, drift=0.01 with disagree=0.06 (above)")
	f.Float64Var(&o.LatencyP95, "latency-p95", 0, "guessed P95 of the judge's call latency in `MS` (plans judge_p95_max)")
	f.Float64Var(&o.LatencyP50, "latency-p50", 0, "guessed median call latency in `MS` (default: half the P95)")
	f.Float64Var(&o.ICC, "icc", 0, "guessed intra-class correlation of a session's units, in [0, 1)")
	f.Float64Var(&o.SessionSize, "session-size", 1, "guessed mean units per session (≥ 1)")
	f.Int64Var(&o.Sessions, "sessions", 0, "a budget of `N` sessions: print the shares that PASS and FAIL at it")
	f.StringVar(&o.Criteria, "criteria", "", "kill-criteria file (TOML) for the thresholds")
	f.StringVar(&o.Policy, "policy", "", "take the thresholds from this policy's [kill_criteria]")
	formatVar(f, &o.Format, "output: table, tsv, csv, markdown or json (default: table, also when piped)")
	f.BoolVar(&o.JSON, "json", false, "print the plan as JSON (same as --format json)")
	f.IntVar(&o.Reps, "reps", 200, fmt.Sprintf("simulated data sets per size, 10 to %d (the time grows with them)", metrics.PlanMaxReps))
	f.Uint64Var(&o.Seed, "seed", 1, "seed of the simulation")
	f.StringVar(&o.Pilot, "pilot", "", "plan from this pilot `RUN_DIR` (the same as giving it as the argument)")
	f.IntVar(&o.Labels, "labels", 0, "with a pilot: plan the label path (label queue, then --labels) at a budget of `N` labels: per judge and rule, the labels for an 80% chance of deciding precision and recall vs baseline, and the shares at N (at most the pilot's pairs to label)")
	f.StringArrayVar(&o.pilotLabels, "pilot-labels", nil, "with --labels N: a labels `FILE` (label serve's) whose labels count as the pilot's, as its dataset's do (repeatable)")
	f.StringVar(&o.Baseline, "baseline", "", "with a pilot: the `JUDGE` whose fire rates drift is planned against (default: the run's --baseline)")
	return cmd
}

// validate checks the flags and resolves the guesses (planargs.Resolve).
func (o *planOptions) validate(cmd *cobra.Command) error {
	s, err := planargs.Resolve(o.Options, cmd.Flags().Changed)
	if err != nil {
		return usageError{err}
	}
	if len(o.pilotLabels) > 0 && o.Labels == 0 {
		return usagef("--pilot-labels: the pilot's labels files are read on the label path; give --labels N too")
	}
	o.spec = s
	return nil
}

// runPlan is `apeval plan` with checked options: a plan from guesses
// (metrics.Plan) or from a pilot run (evaluation.RunSet.Pilot), printed
// in the --format asked.
func runPlan(ctx context.Context, o *planOptions, io IO) error {
	// The simulation can run for minutes (a figure near its threshold is
	// searched up to 100,000 sessions) and does not look at ctx: Ctrl-C
	// or SIGTERM ends the command at once, with exit 130 and nothing
	// printed, instead of being swallowed until the search ends.
	return interruptible(ctx, "plan", func() error { return planOnce(o, io) })
}

// interruptible runs f and returns its error, or, as soon as ctx ends,
// an interruption (exit 130) naming what without waiting for f (which
// the process's exit then stops).
func interruptible(ctx context.Context, what string, f func() error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s interrupted: %w", what, err)
	}
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("%s interrupted before it finished, nothing printed: %w", what, ctx.Err())
	}
}

// planOnce computes and prints the plan.
func planOnce(o *planOptions, io IO) error {
	s := o.spec
	v := reports.PlanView{Pilot: s.Pilot, Sessions: s.Sessions, Labels: s.Labels, ICC: s.ICC, SessionSize: s.SessionSize, Reps: s.Reps, Seed: s.Seed}
	po := s.PlanOptions()
	var progress func(done int, what string)
	if isTerminal(io.Err) {
		// A plan simulates for seconds to minutes (dozens of criteria
		// from a pilot, sizes up to 100,000 sessions, label queues):
		// say where it is, on one line that the table then replaces.
		progress = func(done int, what string) {
			if what == "" {
				fmt.Fprint(io.Err, "\r\033[K")
				return
			}
			fmt.Fprintf(io.Err, "\r\033[Kplanning: %d done (%s)", done, what)
		}
	}
	po.Progress = progress
	if s.Pilot != "" {
		rs, err := openRuns([]string{s.Pilot})
		if err != nil {
			return err
		}
		po := evaluation.PilotOptions{CriteriaFile: s.Criteria, PolicyFile: s.Policy, Baseline: s.Baseline, Plan: po, Labels: s.LabelOptions(), PilotLabels: o.pilotLabels}
		if po.Labels != nil {
			po.Labels.Progress = progress
		}
		p, err := rs.Pilot(po, io.Err)
		if err != nil {
			return usageError{err}
		}
		v.Plans, v.Confidence, v.Weak = p.Plans, p.Criteria.Confidence, rs.Weak()
	} else {
		crit, err := s.KillCriteria()
		if err != nil {
			return usageError{err}
		}
		if v.Plans, err = metrics.Plan(crit, s.Guesses, po); err != nil {
			return usageError{err}
		}
		v.Confidence = crit.Confidence
	}
	return v.Write(io.Out, s.OutputFormat())
}
