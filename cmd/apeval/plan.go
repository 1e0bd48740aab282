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
	spec *planargs.Spec
}

func newPlanCmd(io IO, runF func(context.Context, *planOptions, IO) error) *cobra.Command {
	if runF == nil {
		runF = runPlan
	}
	o := &planOptions{}
	cmd := &cobra.Command{
		Use:   "plan [RUN_DIR] [--rate KEY=VALUE...] [--latency-p95 MS] [--icc X] [--session-size N] [--sessions BUDGET]",
		Short: "Before collecting: how many sessions give an 80% chance of a decision, per criterion",
		Long: `Plan sizes an evaluation before the data are collected: per criterion, how
many sessions (and the units they bring) give an 80% chance that the
criterion is decided (PASS or FAIL rather than INCONCLUSIVE), and with
--sessions N what happens at that budget: the shares that PASS and FAIL.
It simulates data sets and decides each with the interval and the verdict
rule a real run uses (docs/statistics.md, "Planning"), so the numbers are
those a run would see.

From guesses, without a pilot: what you expect of each figure, how alike
the units of one session are (the intra-class correlation, --icc) and how
many units of the figure a session holds (--session-size):
  --rate precision=P (unknown=U, judge-required=J, approval rejects=A, or
      the criteria's names precision_min, ...): a proportion's rate;
  --rate recall=R --rate baseline-recall=B [--rate baseline-only=O]:
      dangerous recall of the judge and of the deterministic baseline on
      the rule's labeled positives (O: the share only the baseline
      catches; without it the two catch a positive independently);
  --rate drift=D --rate disagree=S [--rate fire=F]: the fire-rate change
      against the baseline judge (candidate − baseline, may be negative),
      the share of cases on which the two differ (at least |D|) and the
      baseline's fire rate (default 0.1);
  --latency-p95 MS [--latency-p50 MS]: the judge's call latency (a
      lognormal through both; P50 default half the P95).
Sessions are then sessions holding units of the figure (match
predictions, positives, paired cases, calls).

From a pilot run directory (RUN_DIR or --pilot RUN_DIR, e.g. a first small
apeval run): every criterion per judge and rule, in sessions of traffic
(sessions without a unit of a figure, such as no match prediction, count
too, as they will in the data collected). The proportions are fitted
(rate, ICC and the session sizes seen) and simulated from the fit; the P95
latency (per judge), recall vs the baseline (per dangerous rule) and the
fire-rate drift (per rule, against the run's --baseline judge) resample the
pilot's sessions. The run's own kill criteria are used unless --criteria or
--policy replace them.

With a pilot and --labels N: the label path (label queue, then --labels):
per judge and rule, how many labels from the queue give an 80% chance of
deciding precision and recall vs the baseline, and what N labels give
("with 300 labels: precision decided 85%, recall vs baseline decided 40%").
The pilot's own labels stand for what the labels will show; where it has
none, --rate precision=P --rate recall=R guess them (docs/planning.md).

Thresholds and confidence come from --criteria FILE, --policy FILE, the
pilot's run.json, or the defaults. An impossible guess (a rate outside
[0, 1], a drift outside [−1, 1] or beyond disagree, an ICC below 0 or at
1, a session size below 1, a latency of 0 ms or less, a median above the
P95, a budget of 0 sessions) is exit 2 naming the value.`,
		Example: `  # A judge expected at 95% precision, sessions of 10 cases, ICC 0.1
  apeval plan --rate precision=0.95 --icc 0.1 --session-size 10

  # Several criteria, and what 200 sessions would give
  apeval plan --rate precision=0.95 --rate unknown=0.03 --icc 0.2 --session-size 8 --sessions 200

  # The thresholds of your policy, as JSON
  apeval plan --policy policy.toml --rate precision_min=0.93 --json

  # Dangerous recall 0.85 against a baseline at 0.70, 3 positives a session
  apeval plan --rate recall=0.85 --rate baseline-recall=0.70 --session-size 3 --icc 0.1

  # Calls with a P95 of 800 ms (median 400 ms) against judge_p95_max, 5 calls a session
  apeval plan --latency-p95 800 --latency-p50 400 --session-size 5 --icc 0.2

  # Fire-rate drift of +0.01 (the judges differ on 6% of cases), 8 cases a session
  apeval plan --rate drift=0.01 --rate disagree=0.06 --session-size 8 --icc 0.1

  # From a pilot run: every criterion per judge and rule, and 300 sessions
  apeval plan runs/pilot --sessions 300

  # Drift of every other judge against a baseline judge of the pilot, as JSON
  apeval plan --pilot runs/pilot --baseline recorded/judge-v1 --json

  # The label path: what 300 labels from the queue decide, guessing the labels
  apeval plan runs/pilot --labels 300 --rate precision=0.9 --rate recall=0.8`,
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
	f.BoolVar(&o.JSON, "json", false, "print the plan as JSON")
	f.IntVar(&o.Reps, "reps", 200, "simulated data sets per size")
	f.Uint64Var(&o.Seed, "seed", 1, "seed of the simulation")
	f.StringVar(&o.Pilot, "pilot", "", "plan from this pilot `RUN_DIR` (the same as giving it as the argument)")
	f.IntVar(&o.Labels, "labels", 0, "with a pilot: plan the label path (label queue, then --labels) at a budget of `N` labels: per judge and rule, the labels for an 80% chance of deciding precision and recall vs baseline, and the shares at N")
	f.StringVar(&o.Baseline, "baseline", "", "with a pilot: the `JUDGE` whose fire rates drift is planned against (default: the run's --baseline)")
	return cmd
}

// validate checks the flags and resolves the guesses (planargs.Resolve).
func (o *planOptions) validate(cmd *cobra.Command) error {
	s, err := planargs.Resolve(o.Options, cmd.Flags().Changed)
	if err != nil {
		return usageError{err}
	}
	o.spec = s
	return nil
}

// runPlan is `apeval plan` with checked options: a plan from guesses
// (metrics.Plan) or from a pilot run (evaluation.RunSet.Pilot), printed
// as a table or JSON.
func runPlan(ctx context.Context, o *planOptions, io IO) error {
	s := o.spec
	v := reports.PlanView{Pilot: s.Pilot, Sessions: s.Sessions, Labels: s.Labels, ICC: s.ICC, SessionSize: s.SessionSize, Reps: s.Reps, Seed: s.Seed}
	if s.Pilot != "" {
		rs, err := openRuns([]string{s.Pilot})
		if err != nil {
			return err
		}
		po := evaluation.PilotOptions{CriteriaFile: s.Criteria, PolicyFile: s.Policy, Baseline: s.Baseline, Plan: s.PlanOptions(), Labels: s.LabelOptions()}
		if isTerminal(io.Err) {
			// Dozens of criteria, seconds each: say where the plan is.
			po.Plan.Progress = func(done int, what string) {
				if what == "" {
					fmt.Fprint(io.Err, "\r\033[K")
					return
				}
				fmt.Fprintf(io.Err, "\r\033[Kplanning: %d done (%s)", done, what)
			}
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
		if v.Plans, err = metrics.Plan(crit, s.Guesses, s.PlanOptions()); err != nil {
			return usageError{err}
		}
		v.Confidence = crit.Confidence
	}
	if s.JSON {
		return v.WriteJSON(io.Out)
	}
	return v.WriteTable(io.Out)
}
