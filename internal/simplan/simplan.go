// Package simplan is what `apeval simulate` simulates, resolved (as
// internal/runplan is for `apeval run`): the flags as parsed (Options, a
// plain struct the command binds its flags to) under apeval.toml's
// [simulate] table and policy, checked (Resolve); then, on the run
// directories, the run's policy and kill criteria, the configurations and
// the simulation itself, written to simulate.parquet and simulate.json
// (Plan.Run). The command parses the flags, calls these, prints the
// tables and maps exit codes.
//
// Not a stable Go API: the package serves cmd/apeval and may change with
// it.
package simplan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apeval/apeval/internal/config"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/metrics/simulate"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/evaluation"
	"github.com/apeval/apeval/reports/rundir"
)

// Options are `apeval simulate`'s flags as parsed.
type Options struct {
	Dirs               []string
	Timeouts           []time.Duration
	OnFailure          string
	Judges             []string
	Cascades           []string
	Votes              []string
	Deployed           string
	Policy             string
	EffectiveRecallMin float64
	PerRule            bool
	OperatingPoints    bool
	Frontier           bool
	WritePatch         string
	Out                string
	Format             string
	JSON               bool
}

// Plan is a checked simulation: the options with apeval.toml's settings
// filled in.
type Plan struct {
	Options
	// OnFailureMode is --on-failure parsed.
	OnFailureMode simulate.OnFailure
	// policySet: --policy or apeval.toml's policy, whose [kill_criteria]
	// apply; effRecallSet: --effective-recall-min was given.
	policySet, effRecallSet bool
}

// Resolve fills what the command line left unset (changed reports
// whether a flag was given) from apeval.toml (cfg) and checks the
// options; every error names the flag or the file and key.
func Resolve(o Options, changed func(flag string) bool, cfg *config.Project) (*Plan, error) {
	s := cfg.Simulate
	if !changed("hook-timeout") {
		for _, t := range s.HookTimeouts {
			d, err := time.ParseDuration(t)
			if err != nil {
				return nil, fmt.Errorf("%s: simulate.hook_timeouts: %q is not a duration", cfg.Path, t)
			}
			o.Timeouts = append(o.Timeouts, d)
		}
	}
	if !changed("on-failure") && s.OnFailure != "" {
		o.OnFailure = s.OnFailure
	}
	if !changed("judge") && !changed("cascade") && !changed("vote") {
		o.Judges, o.Cascades, o.Votes = s.Judges, s.Cascades, s.Votes
	}
	if !changed("deployed") && s.Deployed != "" {
		o.Deployed = s.Deployed
	}
	if s.EffectiveRecallMin != nil {
		return nil, fmt.Errorf("%s: simulate.effective_recall_min: the criterion is a kill criterion: write effective_recall_min in the policy's [kill_criteria] table (or --effective-recall-min)", cfg.Path)
	}
	if !changed("policy") && cfg.Policy != "" {
		o.Policy = cfg.Policy
	}
	p := &Plan{Options: o, effRecallSet: changed("effective-recall-min"), policySet: o.Policy != ""}
	for _, t := range o.Timeouts {
		if t <= 0 {
			return nil, fmt.Errorf("--hook-timeout %s: a timeout must be > 0", t)
		}
	}
	mode, err := simulate.ParseOnFailure(o.OnFailure)
	if err != nil {
		return nil, fmt.Errorf("--on-failure: %v", err)
	}
	p.OnFailureMode = mode
	if o.EffectiveRecallMin < 0 || o.EffectiveRecallMin > 1 {
		return nil, fmt.Errorf("--effective-recall-min %g: want a rate in [0, 1]", o.EffectiveRecallMin)
	}
	if o.JSON {
		p.Format = "json"
	}
	if p.Format != "" {
		if _, err := reports.ParseFormat(p.Format); err != nil {
			return nil, fmt.Errorf("--format: %v", err)
		}
	}
	return p, nil
}

// Simulation is one simulation of a run: its result, the number of
// configurations and the simulate.parquet written.
type Simulation struct {
	Result  *simulate.Result
	Configs int
	Path    string
	// RunID is the simulated run's (the policy patch names it).
	RunID string
}

// Run simulates the run directories of rs (one run, or shards of one
// run: incomplete shards are simulated with a warning on errOut) under
// the policy the run was made with, writes simulate.parquet and then,
// with the frontier when asked, simulate.json into --out (default the
// first run directory).
func (p *Plan) Run(ctx context.Context, rs *evaluation.RunSet, errOut io.Writer) (*Simulation, error) {
	if len(rs.Infos) > 1 {
		var set rundir.ShardSet
		for i, in := range rs.Infos {
			if err := set.Add(rs.Dirs[i], in); err != nil {
				return nil, fmt.Errorf("simulate reads one run or shards of one run: %v", err)
			}
		}
		if err := set.Complete(); err != nil {
			fmt.Fprintf(errOut, "apeval: warning: %v; simulating the shards given\n", strings.TrimSuffix(err.Error(), " (pass --allow-partial to merge anyway)"))
		}
	}
	info := rs.Infos[0]
	pol, err := Policy(p.Policy, info, errOut)
	if err != nil {
		return nil, err
	}
	judges := make([]simulate.Judge, len(info.Judges))
	for i, j := range info.Judges {
		judges[i] = simulate.Judge{ID: j.Identity, PriceIn: j.PriceIn, PriceOut: j.PriceOut}
	}
	d := simulate.NewData(pol, judges)
	defer d.Close()
	for _, dir := range rs.Dirs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if _, err := rundir.ReadRun(dir, d.Add); err != nil {
			if d.Err() != nil {
				return nil, fmt.Errorf("%s: %v", dir, d.Err())
			}
			return nil, evaluation.DirError(dir, err)
		}
	}
	if err := d.Done(); err != nil {
		return nil, err
	}
	cfgs, err := simulate.Expand(d, simulate.Spec{Judges: p.Judges, Cascades: p.Cascades, Votes: p.Votes,
		Timeouts: p.Timeouts, OnFailure: p.OnFailureMode, Deployed: p.Deployed})
	if err != nil {
		return nil, err
	}
	opts := simulate.Options{Confidence: 0.95, Seed: 1}
	if info.Criteria != nil && info.Criteria.Confidence > 0 {
		opts.Confidence = info.Criteria.Confidence
	}
	if m := p.EffectiveRecallMinFor(info, pol); m > 0 {
		opts.EffectiveRecallMin = &m
	}
	pmin := 0.9
	if info.Criteria != nil {
		pmin = info.Criteria.PrecisionMin
	}
	var ops []simulate.OpPoint
	if p.OperatingPoints || p.WritePatch != "" {
		if ops, err = simulate.OperatingPoints(d, pmin, opts.Confidence, opts.Seed, simulate.JudgesOf(cfgs)...); err != nil {
			return nil, err
		}
		// Each judge at its chosen thresholds is one more configuration.
		cfgs = simulate.WithOperatingPoints(d, cfgs, ops)
	}
	res := simulate.Run(d, cfgs, opts)
	if err := res.Err(); err != nil {
		return nil, err
	}
	res.OperatingPoints = ops
	// On a run on weak labels every output says its figures on labels
	// rest on them (simulate.parquet's label_source, the JSON's, the
	// tables' marks).
	res.SetLabelSource(info.LabelSource)
	out := p.Out
	if out == "" {
		out = rs.Dirs[0]
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(out, rundir.SimulateFile)
	if err := rundir.WriteFileAtomic(path, func(w io.Writer) error { return reports.WriteSimulateParquet(w, res) }); err != nil {
		return nil, err
	}
	if p.Frontier {
		if res.Frontier, err = simulate.Frontier(d, cfgs, pmin, opts); err != nil {
			return nil, err
		}
	}
	if err := rundir.WriteFileAtomic(filepath.Join(out, rundir.SimulateJSONFile), func(w io.Writer) error {
		return reports.WriteSimulateJSON(w, res)
	}); err != nil {
		return nil, err
	}
	return &Simulation{Result: res, Configs: len(cfgs), Path: path, RunID: info.RunID}, nil
}

// WritePolicyPatch writes the operating points as a policy patch to
// --write-patch's file, atomically.
func (p *Plan) WritePolicyPatch(s *Simulation) error {
	return rundir.WriteFileAtomic(p.WritePatch, func(w io.Writer) error {
		return reports.WriteSimulatePatch(w, s.Result.OperatingPoints, s.RunID)
	})
}

// EffectiveRecallMinFor is the kill criterion effective_recall_min the
// simulation of the run (info, made with the policy pol) applies (0:
// off): --effective-recall-min; else --policy FILE's [kill_criteria] (as
// report --policy takes that file's criteria); else the kill criteria
// run.json recorded; else, for a run that recorded none, the
// [kill_criteria] of the policy it names.
func (p *Plan) EffectiveRecallMinFor(info rundir.RunInfo, pol *replay.Policy) float64 {
	switch {
	case p.effRecallSet:
		return p.EffectiveRecallMin
	case p.policySet:
		return pol.KillCriteria.EffectiveRecallMin
	case info.Criteria != nil:
		return info.Criteria.EffectiveRecallMin
	}
	return pol.KillCriteria.EffectiveRecallMin
}

// Policy loads the policy the run (info) was made with: path (--policy),
// else the embedded sample's or the file run.json names. A file whose
// content differs from the run's is used with a warning on errOut.
func Policy(path string, info rundir.RunInfo, errOut io.Writer) (*replay.Policy, error) {
	fromRun := false
	if path == "" && info.Policy != nil && info.Policy.Name != "sample:policy.toml" {
		path, fromRun = info.Policy.Name, true
	}
	if path == "" && info.Policy == nil {
		return nil, fmt.Errorf("run.json names no policy: pass the policy the run was made with (--policy FILE)")
	}
	p, name, sha, err := replay.ReadPolicy(path)
	if err != nil {
		if fromRun && errors.Is(err, fs.ErrNotExist) {
			// run.json keeps the path as apeval run was given it: from
			// another directory (or on a run directory copied from CI) it
			// is not there, and the bare "no such file" named no way out.
			return nil, fmt.Errorf("simulate needs the policy the run was made with (each rule's when and baseline decide its failure policy): "+
				"run.json names %s, a path as apeval run was given it (relative to the directory it ran in), and it is not there: give the policy with --policy FILE (%v)", path, err)
		}
		return nil, fmt.Errorf("simulate needs the policy the run was made with (each rule's when and baseline decide its failure policy): %v", err)
	}
	if info.Policy != nil && info.Policy.SHA256 != "" && sha != info.Policy.SHA256 {
		fmt.Fprintf(errOut, "apeval: warning: %s differs from the policy the run was made with (%s); its rules decide the failure policy\n", name, info.Policy.Name)
	}
	return p, nil
}

// Failing are the configurations whose effective recall lies wholly
// below effective_recall_min (exit 1).
func (s *Simulation) Failing() []simulate.Row {
	var out []simulate.Row
	for _, r := range s.Result.Rows {
		if r.RuleID == "*" && r.EffectiveRecallStatus == string(metrics.StatusFail) {
			out = append(out, r)
		}
	}
	return out
}
