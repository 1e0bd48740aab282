package runplan

import (
	"errors"
	"fmt"

	"github.com/apeval/apeval/internal/config"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/evaluation"
	"github.com/apeval/apeval/reports/rundir"
)

// Plan is a resolved run: the options with apeval.toml under the flags
// and --resume's recorded settings filled in, checked together. Nothing
// changes a Plan once Resolve made it; what one run of it changes (its ID
// and directory, the budget spent, the prices of the judges opened) is its
// State.
type Plan struct {
	// Options are the resolved options: --json is Format "json", --shard
	// is its resolved I/N (never "auto").
	Options

	// ShardOf is --shard resolved; ShardFrom where --shard auto found it.
	ShardOf   replay.Shard
	ShardFrom string
	// Layout is --out-layout resolved (rundir.LayoutFlat or LayoutHive).
	Layout string
	// FileJudges are apeval.toml's [[judge]] tables (or --resume's judges);
	// JudgesFromFile: they are the run's judges (no --judge given).
	FileJudges     []config.JudgeEntry
	JudgesFromFile bool
	// OutPattern is apeval.toml's out directory pattern ({run_id}, {date}).
	OutPattern string
	// Config is the project file read ("" when none).
	Config string
	// BaselineFromConfig: --baseline was not given, apeval.toml's is used.
	BaselineFromConfig bool
	// Resuming is --resume DIR's state (it counts the calls re-sent); nil
	// without --resume.
	Resuming *rundir.Resume
}

// Resolve completes the parsed options of run or replay: apeval.toml (cfg,
// never nil: an empty Project when there is no file) under the flags,
// --resume's recorded settings, then the checks across flags. given
// reports whether a flag was set on the command line; getenv is the
// environment --shard auto reads. It reads --resume's run directory and
// opens no dataset and no judge. Every error is a usage error naming the
// flag or key.
func Resolve(o Options, given func(flag string) bool, cfg *config.Project, getenv func(string) string) (*Plan, error) {
	p := &Plan{Options: o}
	if err := p.applyConfig(given, cfg); err != nil {
		return nil, err
	}
	if err := p.applyResume(given); err != nil {
		return nil, err
	}
	p.Config = cfg.Path
	if err := p.validate(getenv); err != nil {
		return nil, err
	}
	return p, nil
}

// applyConfig fills the options the command line left unset.
func (p *Plan) applyConfig(given func(string) bool, c *config.Project) error {
	if c.Path == "" {
		// No file: nothing to fill, but --slice names a table of one.
		return p.Filter.applyConfig(given, c)
	}
	set := func(name string) bool { return !given(name) }
	if set("dataset") && len(c.Datasets) > 0 {
		p.Datasets = append([]string(nil), c.Datasets...)
	}
	if set("policy") && c.Policy != "" {
		p.Policy = c.Policy
	}
	// The file's judges, each with its own settings; --judge flags name
	// judges instead and take a file entry's settings when the spec is
	// the same. --judge-option (for every judge) overrides a key.
	p.FileJudges = nil
	for _, j := range c.Judges {
		p.FileJudges = append(p.FileJudges, j.Entry())
	}
	p.JudgesFromFile = set("judge") && len(c.Judges) > 0
	if set("concurrency") && c.Concurrency > 0 {
		p.Concurrency = c.Concurrency
	}
	if set("timeout") && c.TimeoutDuration() > 0 {
		p.Timeout = c.TimeoutDuration()
	}
	if set("criteria") && c.Criteria != "" {
		p.Criteria = c.Criteria
	}
	if set("baseline") && c.Baseline != "" {
		p.Baseline, p.BaselineFromConfig = c.Baseline, true
	}
	if set("inconclusive") && c.Inconclusive != "" {
		p.Inconclusive = c.Inconclusive
	}
	if set("out") && c.Out != "" {
		p.OutPattern = c.Out
	}
	return p.Filter.applyConfig(given, c)
}

// validate checks the options together and resolves --json, --out-layout
// and --shard; a value one flag alone rejects is rejected by the flag at
// parse time.
func (p *Plan) validate(getenv func(string) string) error {
	if err := p.Filter.validate(); err != nil {
		return err
	}
	if len(p.Datasets) > 0 && p.Policy == "" {
		return errors.New("--policy is required with --dataset (the embedded sample policy only fits the embedded sample)")
	}
	if p.Policy != "" && len(p.Datasets) == 0 {
		// Without this, the user's policy and judges would run over the
		// embedded sample: a paid API billed for cases nobody meant.
		return fmt.Errorf("--policy %s needs --dataset: without one, apeval would evaluate the embedded sample with your policy and judges; pass --dataset FILE (or drop --policy to try the sample)", p.Policy)
	}
	if err := CheckRunID(p.RunID); err != nil {
		return err
	}
	if p.Concurrency < 1 || p.Concurrency > replay.MaxConcurrency {
		return fmt.Errorf("--concurrency must be between 1 and %d, got %d", replay.MaxConcurrency, p.Concurrency)
	}
	if err := metrics.CheckSlices(p.By); err != nil {
		return fmt.Errorf("--by: %v", err)
	}
	if len(p.Labels) > 0 && len(p.By) > 0 {
		return errors.New("--labels and --by exclude each other (per-slice figures are not weighted by the labeling design)")
	}
	if p.WeakLabels && len(p.Labels) > 0 {
		return errors.New("--weak-labels and --labels exclude each other: weak labels are never mixed with people's labels (apeval label correct puts the weak figures beside the ones corrected from people's labels)")
	}
	if p.Timeout <= 0 {
		return fmt.Errorf("--timeout must be positive, got %s", p.Timeout)
	}
	if p.NoCache && p.CacheDir != "" {
		return errors.New("--cache and --no-cache exclude each other")
	}
	if err := evaluation.CheckInconclusive(p.Inconclusive); err != nil {
		return err
	}
	if p.JSON {
		p.Format = "json"
	}
	if p.Format != "" {
		if _, err := reports.ParseFormat(p.Format); err != nil {
			return fmt.Errorf("--format: %v", err)
		}
	}
	stdin := 0
	for _, d := range p.Datasets {
		if d == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return errors.New("--dataset - (stdin) may be given once")
	}
	layout, err := rundir.ParseLayout(p.OutLayout)
	if err != nil {
		return fmt.Errorf("--out-layout: %v", err)
	}
	p.Layout = layout
	if err := p.resolveShard(getenv); err != nil {
		return err
	}
	if err := p.Judge.Validate(); err != nil {
		return err
	}
	if err := p.Repeat.validate(); err != nil {
		return err
	}
	return p.Budget.validate(p.Judge.Retries)
}

// resolveShard reads --shard: I/N as given, or auto from the environment of
// the scheduler running this worker (replay.ShardFromEnv).
func (p *Plan) resolveShard(getenv func(string) string) error {
	if p.ShardCount != 0 && p.Shard != "auto" {
		return errors.New("--shard-count applies only with --shard auto")
	}
	switch p.Shard {
	case "":
		return nil
	case "auto":
		if p.ShardCount < 0 {
			return fmt.Errorf("--shard-count must be positive, got %d", p.ShardCount)
		}
		if getenv == nil {
			getenv = func(string) string { return "" }
		}
		a, err := replay.ShardFromEnv(getenv, p.ShardCount)
		if err != nil {
			return err
		}
		p.ShardOf, p.ShardFrom = a.Shard, a.Source
	default:
		s, err := replay.ParseShard(p.Shard)
		if err != nil {
			return fmt.Errorf("--%v", err)
		}
		p.ShardOf = s
	}
	// run.json and merge see the resolved I/N, never "auto".
	p.Shard = p.ShardOf.String()
	return nil
}

// JudgeEntries are the run's judges before the dataset's recordings are
// known (config.JudgeEntries of --judge and the [[judge]] tables).
func (p *Plan) JudgeEntries() ([]config.JudgeEntry, error) {
	return config.JudgeEntries(p.Judges, p.FileJudges, p.JudgesFromFile)
}
