package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	stdio "io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/internal/config"
	"github.com/apeval/apeval/metrics/simulate"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/evaluation"
	"github.com/apeval/apeval/reports/rundir"
)

// simulateOptions are the options of `apeval simulate`.
type simulateOptions struct {
	Dirs               []string
	Timeouts           []time.Duration
	OnFailure          string
	Judges             []string
	Cascades           []string
	Votes              []string
	Deployed           string
	Policy             string
	policySet          bool // --policy or apeval.toml's policy: its [kill_criteria] apply
	EffectiveRecallMin float64
	effRecallSet       bool // --effective-recall-min given
	PerRule            bool
	OperatingPoints    bool
	Frontier           bool
	WritePatch         string
	Out                string
	Format             string
	JSON               bool
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
// the options.
func (o *simulateOptions) apply(cmd *cobra.Command, cfg *config.Project) error {
	s := cfg.Simulate
	fl := cmd.Flags()
	if !fl.Changed("hook-timeout") {
		for _, t := range s.HookTimeouts {
			d, err := time.ParseDuration(t)
			if err != nil {
				return usagef("%s: simulate.hook_timeouts: %q is not a duration", cfg.Path, t)
			}
			o.Timeouts = append(o.Timeouts, d)
		}
	}
	if !fl.Changed("on-failure") && s.OnFailure != "" {
		o.OnFailure = s.OnFailure
	}
	if !fl.Changed("judge") && !fl.Changed("cascade") && !fl.Changed("vote") {
		o.Judges, o.Cascades, o.Votes = s.Judges, s.Cascades, s.Votes
	}
	if !fl.Changed("deployed") && s.Deployed != "" {
		o.Deployed = s.Deployed
	}
	if s.EffectiveRecallMin != nil {
		return usagef("%s: simulate.effective_recall_min: the criterion is a kill criterion: write effective_recall_min in the policy's [kill_criteria] table (or --effective-recall-min)", cfg.Path)
	}
	o.effRecallSet = fl.Changed("effective-recall-min")
	if !fl.Changed("policy") && cfg.Policy != "" {
		o.Policy = cfg.Policy
	}
	o.policySet = o.Policy != ""
	for _, t := range o.Timeouts {
		if t <= 0 {
			return usagef("--hook-timeout %s: a timeout must be > 0", t)
		}
	}
	if _, err := simulate.ParseOnFailure(o.OnFailure); err != nil {
		return usagef("--on-failure: %v", err)
	}
	if o.EffectiveRecallMin < 0 || o.EffectiveRecallMin > 1 {
		return usagef("--effective-recall-min %g: want a rate in [0, 1]", o.EffectiveRecallMin)
	}
	if o.JSON {
		o.Format = "json"
	}
	return parseFormat(o.Format)
}

// runSimulate is `apeval simulate` with checked options.
func runSimulate(ctx context.Context, o *simulateOptions, io IO) error {
	rs, err := openRuns(o.Dirs)
	if err != nil {
		return err
	}
	if len(rs.Infos) > 1 {
		var set rundir.ShardSet
		for i, in := range rs.Infos {
			if err := set.Add(rs.Dirs[i], in); err != nil {
				return usagef("simulate reads one run or shards of one run: %v", err)
			}
		}
		if err := set.Complete(); err != nil {
			fmt.Fprintf(io.Err, "apeval: warning: %v; simulating the shards given\n", strings.TrimSuffix(err.Error(), " (pass --allow-partial to merge anyway)"))
		}
	}
	info := rs.Infos[0]
	pol, err := simulatePolicy(o.Policy, info, io.Err)
	if err != nil {
		return err
	}
	judges := make([]simulate.Judge, len(info.Judges))
	for i, j := range info.Judges {
		judges[i] = simulate.Judge{ID: j.Identity, PriceIn: j.PriceIn, PriceOut: j.PriceOut}
	}
	d := simulate.NewData(pol, judges)
	defer d.Close()
	for _, dir := range rs.Dirs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, err := rundir.ReadRun(dir, d.Add); err != nil {
			if d.Err() != nil {
				return usagef("%s: %v", dir, d.Err())
			}
			return evaluation.DirError(dir, err)
		}
	}
	if err := d.Done(); err != nil {
		return usageError{err}
	}
	mode, _ := simulate.ParseOnFailure(o.OnFailure)
	cfgs, err := simulate.Expand(d, simulate.Spec{Judges: o.Judges, Cascades: o.Cascades, Votes: o.Votes,
		Timeouts: o.Timeouts, OnFailure: mode, Deployed: o.Deployed})
	if err != nil {
		return usageError{err}
	}
	opts := simulate.Options{Confidence: 0.95, Seed: 1}
	if info.Criteria != nil && info.Criteria.Confidence > 0 {
		opts.Confidence = info.Criteria.Confidence
	}
	if m := effectiveRecallMin(o, info, pol); m > 0 {
		opts.EffectiveRecallMin = &m
	}
	var ops []simulate.OpPoint
	if o.OperatingPoints || o.WritePatch != "" {
		pmin := 0.9
		if info.Criteria != nil {
			pmin = info.Criteria.PrecisionMin
		}
		if ops, err = simulate.OperatingPoints(d, pmin, opts.Confidence, opts.Seed, simulate.JudgesOf(cfgs)...); err != nil {
			return err
		}
		// Each judge at its chosen thresholds is one more configuration.
		cfgs = simulate.WithOperatingPoints(d, cfgs, ops)
	}
	res := simulate.Run(d, cfgs, opts)
	if err := res.Err(); err != nil {
		return err
	}
	res.OperatingPoints = ops
	// On a run on weak labels every output says its figures on labels
	// rest on them (simulate.parquet's label_source, the JSON's, the
	// tables' marks).
	res.SetLabelSource(info.LabelSource)
	out := o.Out
	if out == "" {
		out = rs.Dirs[0]
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return usageError{err}
	}
	path := filepath.Join(out, rundir.SimulateFile)
	if err := rundir.WriteFileAtomic(path, func(w stdio.Writer) error { return reports.WriteSimulateParquet(w, res) }); err != nil {
		return err
	}
	if o.Frontier {
		pmin := 0.9
		if info.Criteria != nil {
			pmin = info.Criteria.PrecisionMin
		}
		if res.Frontier, err = simulate.Frontier(d, cfgs, pmin, opts); err != nil {
			return err
		}
	}
	if err := rundir.WriteFileAtomic(filepath.Join(out, rundir.SimulateJSONFile), func(w stdio.Writer) error {
		return reports.WriteSimulateJSON(w, res)
	}); err != nil {
		return err
	}
	format := outputFormat(o.Format, io.Out)
	if err := reports.WriteSimulateTable(io.Out, res, format, o.PerRule); err != nil {
		return err
	}
	if len(res.OperatingPoints) > 0 && format != reports.FormatJSON {
		fmt.Fprintln(io.Out)
		if err := reports.WriteOperatingPoints(io.Out, res.OperatingPoints, format, res.LabelSource == "weak"); err != nil {
			return err
		}
	}
	if o.Frontier && format != reports.FormatJSON {
		fmt.Fprintln(io.Out)
		if err := reports.WriteFrontier(io.Out, res.Frontier, format, res.LabelSource == "weak"); err != nil {
			return err
		}
	}
	if o.WritePatch != "" {
		if err := rundir.WriteFileAtomic(o.WritePatch, func(w stdio.Writer) error {
			return reports.WriteSimulatePatch(w, res.OperatingPoints, info.RunID)
		}); err != nil {
			return err
		}
		fmt.Fprintf(io.Err, "apeval: wrote the policy patch %s\n", o.WritePatch)
	}
	fmt.Fprintf(io.Err, "apeval: %d configurations over %d cases in %d sessions; wrote %s\n", len(cfgs), res.Cases, res.Sessions, path)
	for _, r := range res.Rows {
		if r.RuleID == "*" && r.EffectiveRecallStatus == "FAIL" {
			fmt.Fprintf(io.Err, "apeval: %s: effective_recall %.4g [%.4g, %.4g] lies wholly below effective_recall_min %g\n",
				r.Config, *r.EffectiveRecall, *r.EffectiveRecallLo, *r.EffectiveRecallHi, *opts.EffectiveRecallMin)
			err = exitCodeError{exitNoGo}
		}
	}
	return err
}

// effectiveRecallMin is the kill criterion effective_recall_min simulate
// applies (0: off): --effective-recall-min; else --policy FILE's
// [kill_criteria] (as report --policy takes that file's criteria); else the
// kill criteria run.json recorded; else, for a run that recorded none, the
// [kill_criteria] of the policy it names.
func effectiveRecallMin(o *simulateOptions, info rundir.RunInfo, pol *replay.Policy) float64 {
	switch {
	case o.effRecallSet:
		return o.EffectiveRecallMin
	case o.policySet:
		return pol.KillCriteria.EffectiveRecallMin
	case info.Criteria != nil:
		return info.Criteria.EffectiveRecallMin
	}
	return pol.KillCriteria.EffectiveRecallMin
}

// simulatePolicy loads the policy the run was made with: --policy, else the
// embedded sample's or the file run.json names. A file whose content
// differs from the run's is used with a warning.
func simulatePolicy(path string, info rundir.RunInfo, errOut stdio.Writer) (*replay.Policy, error) {
	if path == "" && info.Policy != nil && info.Policy.Name != "sample:policy.toml" {
		path = info.Policy.Name
	}
	if path == "" && info.Policy == nil {
		return nil, usagef("run.json names no policy: pass the policy the run was made with (--policy FILE)")
	}
	p, ref, err := loadPolicy(path)
	if err != nil {
		return nil, usagef("simulate needs the policy the run was made with (each rule's when and baseline decide its failure policy): %v", err)
	}
	if info.Policy != nil && info.Policy.SHA256 != "" && ref.SHA256 != info.Policy.SHA256 {
		fmt.Fprintf(errOut, "apeval: warning: %s differs from the policy the run was made with (%s); its rules decide the failure policy\n", ref.Name, info.Policy.Name)
	}
	return p, nil
}

// readSimulation reads the simulate.json `apeval simulate` left in a run
// directory, for report.html's "Simulated deployment" section; nil when
// there is none.
func readSimulation(dir string) (*simulate.Result, error) {
	data, err := os.ReadFile(filepath.Join(dir, rundir.SimulateJSONFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, usageError{err}
	}
	var res simulate.Result
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, usagef("%s: %v", filepath.Join(dir, rundir.SimulateJSONFile), err)
	}
	return &res, nil
}
