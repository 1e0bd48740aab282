package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/evaluation"
)

// planOptions are `apeval plan`'s flags.
type planOptions struct {
	Rates       []string // CRITERION=RATE
	ICC         float64
	SessionSize float64
	Sessions    int64
	Criteria    string
	Policy      string
	JSON        bool
	Reps        int
	Seed        uint64
	// Pilot is a run directory to plan from (the argument or --pilot);
	// Baseline the judge its drift is planned against (the run's own
	// --baseline by default).
	Pilot, Baseline string
	// Labels, when set, plans the label path at that many labels.
	Labels int

	// LatencyP95, LatencyP50 guess the judge's call latency in ms.
	LatencyP95, LatencyP50 float64

	// labelGuess is what the labels will show (--labels with --rate
	// precision=P --rate recall=R); guesses the guesses of a plan without
	// a pilot.
	labelGuess *metrics.LabelGuess
	guesses    metrics.PlanGuesses
	// weak: the pilot's labels are weak labels (run --weak-labels), so
	// every figure on labels it plans from says so.
	weak bool
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
	f.BoolVar(&o.JSON, "json", false, "print the plan as JSON")
	f.IntVar(&o.Reps, "reps", 200, "simulated data sets per size")
	f.Uint64Var(&o.Seed, "seed", 1, "seed of the simulation")
	f.StringVar(&o.Pilot, "pilot", "", "plan from this pilot `RUN_DIR` (the same as giving it as the argument)")
	f.IntVar(&o.Labels, "labels", 0, "with a pilot: plan the label path (label queue, then --labels) at a budget of `N` labels: per judge and rule, the labels for an 80% chance of deciding precision and recall vs baseline, and the shares at N")
	f.StringVar(&o.Baseline, "baseline", "", "with a pilot: the `JUDGE` whose fire rates drift is planned against (default: the run's --baseline)")
	return cmd
}

func (o *planOptions) validate(cmd *cobra.Command) error {
	if cmd.Flags().Changed("labels") {
		switch {
		case o.Pilot == "":
			return usagef("--labels %d: the label path is planned from a pilot run directory (its pairs make the queue)", o.Labels)
		case o.Labels < 1:
			return usagef("--labels %d: a label budget needs at least 1 label", o.Labels)
		}
		// --rate precision=P --rate recall=R guess what the labels show
		// where the pilot has none.
		return o.labelGuesses(cmd)
	}
	if o.Pilot != "" {
		for _, f := range []string{"rate", "icc", "session-size"} {
			if cmd.Flags().Changed(f) {
				return usagef("--%s: a plan from a pilot run fits it from %s; leave it out (with --labels, --rate precision=P --rate recall=R guess the labels)", f, o.Pilot)
			}
		}
	}
	if o.Baseline != "" && o.Pilot == "" {
		return usagef("--baseline %q: a baseline judge needs a pilot run directory", o.Baseline)
	}
	latency := cmd.Flags().Changed("latency-p95") || cmd.Flags().Changed("latency-p50")
	if o.Pilot != "" && latency {
		return usagef("--latency-p95/--latency-p50: a plan from a pilot run resamples its calls' latencies; leave them out")
	}
	if len(o.Rates) == 0 && !latency && o.Pilot == "" {
		return usagef("plan needs a pilot run directory or at least one guess: --rate CRITERION=RATE (e.g. --rate precision=0.95), --rate recall=R --rate baseline-recall=B, --rate drift=D --rate disagree=S, or --latency-p95 MS")
	}
	if o.Criteria != "" && o.Policy != "" {
		return usagef("--criteria and --policy exclude each other")
	}
	if cmd.Flags().Changed("sessions") && o.Sessions < 1 {
		return usagef("--sessions %d: a budget needs at least 1 session", o.Sessions)
	}
	if o.Reps < 10 {
		return usagef("--reps %d: at least 10 simulated data sets are needed", o.Reps)
	}
	if o.Pilot != "" {
		return nil
	}
	g := metrics.PlanGuess{Rate: 0.5, ICC: o.ICC, SessionSize: o.SessionSize}
	if err := g.Check(); err != nil {
		flag := "--icc"
		if o.ICC >= 0 && o.ICC < 1 {
			flag = "--session-size"
		}
		return usagef("%s: %v", flag, err)
	}
	o.guesses = metrics.PlanGuesses{ICC: o.ICC, SessionSize: o.SessionSize}
	for _, r := range o.Rates {
		k, v, ok := strings.Cut(r, "=")
		if !ok {
			return usagef("--rate %q: want CRITERION=RATE", r)
		}
		rate, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return usagef("--rate %q: %q is not a number", r, v)
		}
		if err := o.guesses.Set(k, rate); err != nil {
			return usagef("--rate %s: %v", r, err)
		}
	}
	if latency {
		if !cmd.Flags().Changed("latency-p95") {
			return usagef("--latency-p50 %g: give the P95 too (--latency-p95 MS); the criterion is on the P95", o.LatencyP50)
		}
		if cmd.Flags().Changed("latency-p50") && o.LatencyP50 == 0 {
			return usagef("--latency-p50 0: a latency is a positive number of ms")
		}
		o.guesses.SetLatency(o.LatencyP50, o.LatencyP95)
	}
	if err := o.guesses.Check(); err != nil {
		flag := "--rate"
		if strings.Contains(err.Error(), "latency") {
			flag = "--latency-p95/--latency-p50"
		}
		return usagef("%s: %v", flag, err)
	}
	return nil
}

// labelGuesses checks the flags of a label plan: only --rate
// precision=P and --rate recall=R, both or neither.
func (o *planOptions) labelGuesses(cmd *cobra.Command) error {
	for _, f := range []string{"icc", "session-size", "sessions"} {
		if cmd.Flags().Changed(f) {
			return usagef("--%s: a label plan counts labels (--labels N), not sessions; leave it out", f)
		}
	}
	if o.Reps < 10 {
		return usagef("--reps %d: at least 10 simulated data sets are needed", o.Reps)
	}
	var lg metrics.LabelGuesses
	for _, r := range o.Rates {
		k, v, ok := strings.Cut(r, "=")
		if !ok {
			return usagef("--rate %q: with --labels, give --rate precision=P and --rate recall=R (what the labels will show)", r)
		}
		rate, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return usagef("--rate %q: %q is not a number", r, v)
		}
		if err := lg.Set(k, rate); err != nil {
			return usagef("--rate %s: %v", r, err)
		}
	}
	g, err := lg.Guess()
	if err != nil {
		return usagef("--rate: with --labels %v", err)
	}
	o.labelGuess = g
	return nil
}

func (o *planOptions) killCriteria() (replay.KillCriteria, error) {
	switch {
	case o.Criteria != "":
		c, err := replay.ReadCriteria(o.Criteria)
		if err != nil {
			return replay.KillCriteria{}, usageError{err}
		}
		return c, nil
	case o.Policy != "":
		p, _, err := loadPolicy(o.Policy)
		if err != nil {
			return replay.KillCriteria{}, err
		}
		return p.KillCriteria, nil
	}
	return replay.DefaultKillCriteria(), nil
}

// pilotPlans plans from the pilot run directory through the one
// evaluation pipeline (its criteria, baseline and figures).
func (o *planOptions) pilotPlans(io IO) (replay.KillCriteria, []metrics.PlanResult, error) {
	rs, err := openRuns([]string{o.Pilot})
	if err != nil {
		return replay.KillCriteria{}, nil, err
	}
	eo := evalOptions{Criteria: o.Criteria, Policy: o.Policy, Baseline: o.Baseline}
	spec, err := eo.spec(rs, io.Err)
	if err != nil {
		return replay.KillCriteria{}, nil, err
	}
	ev, err := rs.Evaluate(spec, false, nil)
	if err != nil {
		return replay.KillCriteria{}, nil, err
	}
	rep, err := finish(ev, rs.Infos[0])
	if err != nil {
		return replay.KillCriteria{}, nil, err
	}
	defer func() { _ = rep.Summary.Release() }()
	o.weak = rs.Infos[0].LabelSource == datasets.LabelSourceWeak
	if o.Labels > 0 {
		t, _, err := evaluation.ReadPairs(o.Pilot, nil, nil)
		if err != nil {
			return replay.KillCriteria{}, nil, err
		}
		lo := metrics.LabelPlanOptions{Budget: o.Labels, Baseline: spec.Baseline, Reps: o.Reps, Seed: o.Seed, Guess: o.labelGuess}
		plans, err := metrics.PlanLabels(t, spec.Criteria, lo)
		if err != nil {
			return replay.KillCriteria{}, nil, usagef("%s: %v", o.Pilot, err)
		}
		return spec.Criteria, plans, nil
	}
	po := metrics.PlanOptions{Budget: o.Sessions, Reps: o.Reps, Seed: o.Seed}
	if isTerminal(io.Err) {
		// Dozens of criteria, seconds each: say where the plan is.
		po.Progress = func(done int, what string) {
			if what == "" {
				fmt.Fprint(io.Err, "\r\033[K")
				return
			}
			fmt.Fprintf(io.Err, "\r\033[Kplanning: %d done (%s)", done, what)
		}
	}
	plans, err := metrics.PlanPilot(rep.Summary, po)
	if err != nil {
		return replay.KillCriteria{}, nil, usagef("%v", err)
	}
	if len(plans) == 0 {
		return replay.KillCriteria{}, nil, usagef("%s: no criterion to plan (no judge call, labeled pair or case in scope)", o.Pilot)
	}
	return spec.Criteria, plans, nil
}

// runPlan is `apeval plan` with parsed options.
func runPlan(ctx context.Context, o *planOptions, io IO) error {
	var crit replay.KillCriteria
	var plans []metrics.PlanResult
	var err error
	if o.Pilot != "" {
		crit, plans, err = o.pilotPlans(io)
		if err != nil {
			return err
		}
	} else {
		crit, err = o.killCriteria()
		if err != nil {
			return err
		}
		plans, err = metrics.Plan(crit, o.guesses, metrics.PlanOptions{Budget: o.Sessions, Reps: o.Reps, Seed: o.Seed})
		if err != nil {
			return usagef("%v", err)
		}
	}
	v := reports.PlanView{Plans: plans, Confidence: crit.Confidence, Pilot: o.Pilot, Weak: o.weak,
		Sessions: o.Sessions, Labels: o.Labels, ICC: o.ICC, SessionSize: o.SessionSize, Reps: o.Reps, Seed: o.Seed}
	if o.JSON {
		return v.WriteJSON(io.Out)
	}
	return v.WriteTable(io.Out)
}
