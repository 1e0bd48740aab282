package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/internal/config"
	"github.com/apeval/apeval/internal/simplan"
	"github.com/apeval/apeval/reports"
)

// simulateOptions are `apeval simulate`'s flags (simplan.Options) and,
// once resolved, the plan.
type simulateOptions struct {
	simplan.Options
	plan *simplan.Plan
}

func newSimulateCmd(io IO, runF func(context.Context, *simulateOptions, IO) error) *cobra.Command {
	if runF == nil {
		runF = runSimulate
	}
	o := &simulateOptions{}
	cmd := &cobra.Command{
		Use:   "simulate RUN_DIR...",
		Short: "What the gate would do in a hook: timeouts, failure policy, cascades and votes, from recorded answers",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Dirs = args
			cfg, err := loadProjectConfig(cmd)
			if err != nil {
				return err
			}
			if err := o.apply(cmd, cfg); err != nil {
				return err
			}
			return runF(cmd.Context(), o, io)
		},
	}
	f := cmd.Flags()
	f.DurationSliceVar(&o.Timeouts, "hook-timeout", nil, "hook timeout(s) to simulate, comma-separated or repeated (a sweep): a judged call slower than it fails")
	f.StringVar(&o.OnFailure, "on-failure", "policy", "what a failed judged rule does: policy (the rule class's failure policy), block (fail-closed) or pass (fail-open)")
	f.StringArrayVar(&o.Judges, "judge", nil, "simulate this judge of the run alone (repeatable; default: every judge)")
	f.StringArrayVar(&o.Cascades, "cascade", nil, `a cascade "A>B[:match,unknown,no_match,conf<C]": ask B about a rule only when A said one of those (default match,unknown)`)
	f.StringArrayVar(&o.Votes, "vote", nil, `a vote "KofN:A,B,C": a rule matches when at least K of the N judges say match`)
	f.StringVar(&o.Deployed, "deployed", "", "the judge deployed today, as recorded: every configuration is compared with it (default: the run's first judge)")
	f.StringVar(&o.Policy, "policy", "", "the policy the run was made with (default: the one run.json names); the failure policy needs each rule's when and baseline")
	f.Float64Var(&o.EffectiveRecallMin, "effective-recall-min", 0, "override the kill criterion effective_recall_min of the policy's [kill_criteria] (0: off): exit 1 when a configuration's effective recall lies wholly below it")
	f.BoolVar(&o.OperatingPoints, "operating-points", false, "choose each judge × rule's confidence threshold on half of the sessions (highest recall whose precision lower bound clears precision_min) and report it on the other half")
	f.BoolVar(&o.Frontier, "frontier", false, "the non-dominated configurations on cost, P95 and recall with every judged rule's precision lower bound at the floor (precision_min is per rule), chosen on half of the sessions and reported on the other, Holm across them")
	f.StringVar(&o.WritePatch, "write-patch", "", "write the chosen thresholds and the rules to demote to audit as a reviewable policy patch (TOML) to FILE; implies --operating-points")
	f.BoolVar(&o.PerRule, "per-rule", false, "print one line per configuration × rule, not only per configuration")
	f.StringVar(&o.Out, "out", "", "directory for simulate.parquet (default: the first run directory)")
	formatVar(f, &o.Format, "terminal output: table, tsv, csv, markdown or json (default: table on a terminal, tsv when piped)")
	f.BoolVar(&o.JSON, "json", false, "print the simulation as JSON (same as --format json)")
	return cmd
}

// apply fills what the command line left unset from apeval.toml and checks
// the options (simplan.Resolve).
func (o *simulateOptions) apply(cmd *cobra.Command, cfg *config.Project) error {
	p, err := simplan.Resolve(o.Options, cmd.Flags().Changed, cfg)
	if err != nil {
		return usageError{err}
	}
	o.plan = p
	return nil
}

// runSimulate is `apeval simulate` with checked options: the simulation
// (simplan.Plan.Run) printed as tables, the policy patch written; exit 1
// when a configuration's effective recall lies wholly below
// effective_recall_min.
func runSimulate(ctx context.Context, o *simulateOptions, io IO) error {
	p := o.plan
	rs, err := openRuns(p.Dirs)
	if err != nil {
		return err
	}
	sim, err := p.Run(ctx, rs, io.Err)
	if err != nil {
		return err
	}
	// A run made with --labels (a labeled queue) showed figures resting on
	// them; simulate reads the labels the dataset's cases carry and no
	// labels file, so without a word its label columns were all "–" (or
	// rested on other labels) for a user who had just labeled a queue.
	for _, d := range rs.LabeledBefore() {
		fmt.Fprintf(io.Err, "apeval: warning: the reports of %s were made with --labels; simulate reads only the labels the dataset's cases carry, "+
			"not a labels file, so its effective recall, friction, precision and recall leave those labels out\n", d)
	}
	res := sim.Result
	format := outputFormat(p.Format, io.Out)
	if err := reports.WriteSimulateTable(io.Out, res, format, p.PerRule); err != nil {
		return err
	}
	weak := res.LabelSource == "weak"
	if (p.OperatingPoints || p.WritePatch != "") && len(res.OperatingPoints) == 0 {
		// A threshold is chosen from labeled pairs: without any, the
		// table of points was left out silently and --write-patch wrote a
		// patch with nothing in it, exit 0.
		why := "no judged rule of the run has a labeled pair, and a confidence threshold is chosen from labels (simulate reads the labels the dataset's cases carry, not a labels file from apeval label serve: run on a dataset with labels, e.g. reviewed pairs merged with apeval datasets label-import)"
		if p.WritePatch != "" {
			return usagef("--write-patch: %s; no patch written", why)
		}
		fmt.Fprintf(io.Err, "apeval: --operating-points: %s\n", why)
	}
	if len(res.OperatingPoints) > 0 && format != reports.FormatJSON {
		fmt.Fprintln(io.Out)
		if err := reports.WriteOperatingPoints(io.Out, res.OperatingPoints, format, weak); err != nil {
			return err
		}
	}
	if p.Frontier && format != reports.FormatJSON {
		fmt.Fprintln(io.Out)
		if err := reports.WriteFrontier(io.Out, res.Frontier, format, weak); err != nil {
			return err
		}
	}
	if p.WritePatch != "" {
		if err := p.WritePolicyPatch(sim); err != nil {
			return err
		}
		fmt.Fprintf(io.Err, "apeval: wrote the policy patch %s\n", p.WritePatch)
	}
	fmt.Fprintf(io.Err, "apeval: %d configurations over %d cases in %d sessions; wrote %s\n", sim.Configs, res.Cases, res.Sessions, sim.Path)
	for _, r := range sim.Failing() {
		fmt.Fprintf(io.Err, "apeval: %s: effective_recall %.4g [%.4g, %.4g] lies wholly below effective_recall_min %g\n",
			r.Config, *r.EffectiveRecall, *r.EffectiveRecallLo, *r.EffectiveRecallHi, *res.EffectiveRecallMin)
		err = exitCodeError{exitNoGo}
	}
	return err
}
