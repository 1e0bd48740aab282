package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/config"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/evaluation"
	"github.com/apeval/apeval/reports/otlp"
	"github.com/apeval/apeval/reports/rundir"
)

// runOptions are the options of `apeval run` and `apeval replay`: the
// flags' values (exported fields, bound to the flags), then what
// resolveRunOptions makes of them with apeval.toml and --resume
// (runResolved). Once resolved, runRun reads them and changes only RunID and Out
// (their defaults are made when the run starts).
type runOptions struct {
	// OTLPEndpoint, when set (or OTEL_EXPORTER_OTLP_ENDPOINT is), sends
	// the run as OpenTelemetry traces (otlp.Tracer).
	OTLPEndpoint string
	Datasets     []string
	Policy       string
	// PermissionsFrom are agents' permission files (KIND:PATH) added to the
	// policy's permissions layer.
	PermissionsFrom []string
	Judges          []string
	Out             string
	OutLayout       string
	Concurrency     int
	Timeout         time.Duration
	CacheDir        string
	NoCache         bool
	SkipInvalid     bool
	Shard           string
	ShardCount      int
	Criteria        string
	Baseline        string
	Inconclusive    string
	Format          string
	JSON            bool
	Quiet           bool
	RunID           string
	By              []string
	Labels          []string
	WeakLabels      bool
	Judge           judgeFlags
	Filter          filterFlags
	Budget          budgetFlags
	Repeat          repeatFlags
	// Resume is --resume DIR: finish that run, re-sending only its failed calls.
	Resume string

	runResolved
}

// runResolved is what resolveRunOptions makes of run's flags with
// apeval.toml and --resume; nothing sets it from a flag directly.
type runResolved struct {
	replayOnly bool
	shard      replay.Shard
	shardFrom  string // where --shard auto found the shard
	layout     string // rundir.LayoutFlat or LayoutHive
	remoteOut  string // --out as a bucket URL (masked), the run written to a temporary directory
	// fileJudges are apeval.toml's [[judge]] tables; judgesFromFile: they
	// are the run's judges (no --judge given). outPattern is the file's out
	// directory pattern; config the file read ("" when none).
	fileJudges     []config.JudgeEntry
	judgesFromFile bool
	outPattern     string
	config         string
	// baselineFromConfig: --baseline was not given, apeval.toml's is used.
	baselineFromConfig bool
	// resume is --resume DIR's state; nil without it.
	resume *rundir.Resume
}

// newRunCmd is `apeval run` (replayOnly: `apeval replay`). Its RunE only
// resolves the options (resolveRunOptions) and hands them to runF, which
// is runRun unless a test passes its own to look at the options alone.
func newRunCmd(io IO, replayOnly bool, runF func(context.Context, *runOptions, IO) error) *cobra.Command {
	if runF == nil {
		runF = runRun
	}
	o := &runOptions{runResolved: runResolved{replayOnly: replayOnly}}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Replay a dataset through a policy and judges, compute metrics and the verdict",
		Long: `Replay every case of the datasets through the policy's scope filter, permissions
layer, deterministic matchers and each judge, then compute metrics, check the kill
criteria and write the run directory (decisions.parquet, gates.parquet,
metrics.parquet, summary.json, summary.md, junit.xml, charts, report.html, run.json).

Settings come from ./apeval.toml when it exists (apeval init writes one; or
--config FILE); a flag overrides the file. With neither, evaluates the embedded
sample dataset and policy with its recorded judges. Without --judge, the judges are the dataset's recordings when it has any,
else "none" (the deterministic fallback when the judge is down).

Judge specs:
  ollama:MODEL     a model served by Ollama (--ollama-host or $OLLAMA_HOST)
  openai:MODEL     any OpenAI-compatible /v1/chat/completions (--openai-base-url)
  SPEC@URL         an ollama: or openai: judge on its own server, e.g.
                   openai:qwen2.5-7b@http://localhost:8000/v1 (several judges,
                   each its own: apeval.toml [[judge]] base_url, api_key_env,
                   prompt, options, prices)
  exec:COMMAND     a long-lived plugin speaking judge JSON lines on stdin/stdout
  recorded[:NAME]  decisions recorded in the dataset (bare: one judge per name)
  none             no judge: every judge-needing rule fails with status error

The resolved kill criteria are recorded in run.json: apeval report, gate and
merge use them, so the verdict is the same on every path.

Exit codes: 0 GO, 1 NO-GO, 3 INCONCLUSIVE (--inconclusive=pass|fail maps 3 to
0 or 1, and says so), 2 usage or input error, a broken judge setup (ERROR:
half or more of a judge's calls failed with HTTP 401/403/404, an HTML page, a
refused connection or an unknown host), or a partial run (a budget stopped it),
130 interrupted.`,
		Example: `  apeval run
  apeval run --dataset cases.jsonl --policy policy.toml --judge recorded
  apeval run --dataset a.jsonl --dataset b.jsonl --policy policy.toml \
    --judge ollama:qwen2.5:3b --judge ollama:qwen2.5:7b --baseline ollama/qwen2.5:3b \
    --concurrency 8 --timeout 2s --out out/nightly
  apeval run --judge openai:qwen2.5-7b@http://localhost:8000/v1 \
    --judge ollama:qwen2.5:3b@http://gpu-box:11434 ...
  cat cases.jsonl | apeval run --dataset - --policy policy.toml --judge none
  apeval run --shard 2/4 --out out/shard2 ...   # then: apeval merge --out out/merged out/shard*
  apeval run --judge ollama:qwen2.5:3b --repeat 5 --shuffle-rules --seed 7   # flip rate, position effect
  apeval run --max-calls 500 --budget-usd 2 ...   # stops at the budget: partial, exit 2; rerun continues
  apeval run --resume apeval-out/20261201T101500Z-3f2a1b   # re-send only the failed calls`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := resolveRunOptions(cmd, o, io.Getenv); err != nil {
				return err
			}
			return runF(cmd.Context(), o, io)
		},
	}
	if replayOnly {
		cmd.Use = "replay"
		cmd.Short = "Replay a dataset and write decisions only (decisions.parquet, gates.parquet, run.json)"
		cmd.Long = "Like run, but writes only the decision files; `apeval report DIR` computes\nmetrics and reports from them later. Exit code 0 unless the input is bad."
		cmd.Example = "  apeval replay --dataset cases.jsonl --policy policy.toml --judge recorded --out out/r1\n  apeval report out/r1"
	}
	f := cmd.Flags()
	f.StringArrayVarP(&o.Datasets, "dataset", "d", nil, "case file (JSONL, apeval.case/v1); repeatable; - reads stdin (default: the embedded sample)")
	f.StringVarP(&o.Policy, "policy", "p", "", "policy file (TOML, apeval.policy/v1); required with --dataset")
	f.StringArrayVar(&o.PermissionsFrom, "permissions-from", nil, "add an agent's permission rules (KIND:PATH; claude-code, codex, opencode, gemini) to the permissions layer; repeatable")
	f.StringArrayVarP(&o.Judges, "judge", "j", nil, "judge spec (ollama:MODEL, openai:MODEL, exec:CMD, recorded[:NAME], none); ollama:/openai: take @URL for their own server; repeatable")
	f.StringVarP(&o.Out, "out", "o", "", "run directory (default apeval-out/<run-id>)")
	layoutVar(f, &o.OutLayout)
	f.IntVarP(&o.Concurrency, "concurrency", "c", 4, "judge calls in flight per judge (sessions replayed in parallel)")
	f.DurationVar(&o.Timeout, "timeout", 10*time.Second, "deadline of one judge call; a call past it counts as a timeout at this latency")
	f.StringVar(&o.CacheDir, "cache", "", "response cache directory (default: the user cache dir, e.g. ~/.cache/apeval)")
	f.BoolVar(&o.NoCache, "no-cache", false, "neither read nor write the response cache")
	f.BoolVar(&o.SkipInvalid, "skip-invalid", false, "skip malformed dataset lines (counted and listed) instead of failing")
	f.StringVar(&o.Shard, "shard", "", "replay only shard I of N (`I/N`, 1-based), partitioned by session_id hash; recombine with apeval merge; auto: from the scheduler's environment")
	f.IntVar(&o.ShardCount, "shard-count", 0, "with --shard auto: the number of shards (a Kubernetes Indexed Job's completions; else $"+replay.ShardCountEnv+")")
	f.StringVar(&o.RunID, "run-id", "", "run ID (default: UTC time plus a random suffix)")
	f.StringVar(&o.OTLPEndpoint, "otlp-endpoint", "", "send the run as OpenTelemetry traces to this OTLP/HTTP collector (http://localhost:4318; default $OTEL_EXPORTER_OTLP_ENDPOINT): a span per run and judge call, an evaluation event per rule × judge")
	f.BoolVarP(&o.Quiet, "quiet", "q", false, "no progress output")
	f.StringVar(&o.Criteria, "criteria", "", "kill-criteria file (TOML, [kill_criteria] table); overrides the policy's and is recorded in run.json")
	if !replayOnly {
		f.StringVar(&o.Baseline, "baseline", "", "judge to compare candidates with (identity, spec or unique prefix); enables fire_rate_change_max")
		inconclusiveVar(f, &o.Inconclusive)
		formatVar(f, &o.Format, "terminal output: table, tsv, csv, markdown or json (default: table on a terminal, tsv when piped)")
		f.BoolVar(&o.JSON, "json", false, "print summary.json to stdout instead of tables (same as --format json)")
		byVar(f, &o.By)
		registerLabels(f, &o.Labels)
	}
	f.BoolVar(&o.WeakLabels, "weak-labels", false, weakLabelsHelp)
	o.Judge.register(f)
	o.Filter.register(f)
	o.Budget.register(f)
	o.Repeat.register(f)
	f.StringVar(&o.Resume, "resume", "", "finish the run in `DIR`: replay it again with its settings into a new run directory, answering every call it completed from the cache, so only the calls that failed there (timeout, error) are re-sent; run.json notes what was (the judges' servers and key variables come from these flags and apeval.toml, never from DIR)")
	return cmd
}

// resolveRunOptions completes the parsed flags of run and replay: apeval.toml
// (or --config) under them, --resume's recorded settings, then validate.
// It reads the config file and, with --resume, that run directory; it
// opens no dataset and no judge.
func resolveRunOptions(cmd *cobra.Command, o *runOptions, getenv func(string) string) error {
	cfg, err := loadProjectConfig(cmd)
	if err != nil {
		return err
	}
	if err := applyToRun(cfg, cmd, o); err != nil {
		return err
	}
	if err := o.applyResume(cmd); err != nil {
		return err
	}
	o.config = cfg.Path
	return o.validate(getenv)
}

// validate checks the options together and resolves --json, --out-layout
// and --shard; a value one flag alone rejects is rejected by the flag at
// parse time (enumFlag).
func (o *runOptions) validate(getenv func(string) string) error {
	if err := o.Filter.validate(); err != nil {
		return err
	}
	if len(o.Datasets) > 0 && o.Policy == "" {
		return usagef("--policy is required with --dataset (the embedded sample policy only fits the embedded sample)")
	}
	if o.Policy != "" && len(o.Datasets) == 0 {
		// Without this, the user's policy and judges would run over the
		// embedded sample: a paid API billed for cases nobody meant.
		return usagef("--policy %s needs --dataset: without one, apeval would evaluate the embedded sample with your policy and judges; pass --dataset FILE (or drop --policy to try the sample)", o.Policy)
	}
	if o.Concurrency < 1 || o.Concurrency > replay.MaxConcurrency {
		return usagef("--concurrency must be between 1 and %d, got %d", replay.MaxConcurrency, o.Concurrency)
	}
	if err := metrics.CheckSlices(o.By); err != nil {
		return usagef("--by: %v", err)
	}
	if err := checkLabels(o.Labels, o.By); err != nil {
		return err
	}
	if o.WeakLabels && len(o.Labels) > 0 {
		return usagef("--weak-labels and --labels exclude each other: weak labels are never mixed with people's labels (apeval label correct puts the weak figures beside the ones corrected from people's labels)")
	}
	if o.Timeout <= 0 {
		return usagef("--timeout must be positive, got %s", o.Timeout)
	}
	if o.NoCache && o.CacheDir != "" {
		return usagef("--cache and --no-cache exclude each other")
	}
	if err := checkInconclusive(o.Inconclusive); err != nil {
		return err
	}
	if o.JSON {
		o.Format = "json"
	}
	if err := parseFormat(o.Format); err != nil {
		return err
	}
	stdin := 0
	for _, d := range o.Datasets {
		if d == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return usagef("--dataset - (stdin) may be given once")
	}
	layout, err := rundir.ParseLayout(o.OutLayout)
	if err != nil {
		return usagef("--out-layout: %v", err)
	}
	o.layout = layout
	if err := o.resolveShard(getenv); err != nil {
		return err
	}
	if err := o.Judge.validate(); err != nil {
		return err
	}
	if err := o.Repeat.validate(); err != nil {
		return err
	}
	return o.Budget.validate(o.Judge.Retries)
}

// resolveShard reads --shard: I/N as given, or auto from the environment of
// the scheduler running this worker (replay.ShardFromEnv).
func (o *runOptions) resolveShard(getenv func(string) string) error {
	if o.ShardCount != 0 && o.Shard != "auto" {
		return usagef("--shard-count applies only with --shard auto")
	}
	switch o.Shard {
	case "":
		return nil
	case "auto":
		if o.ShardCount < 0 {
			return usagef("--shard-count must be positive, got %d", o.ShardCount)
		}
		if getenv == nil {
			getenv = func(string) string { return "" }
		}
		a, err := replay.ShardFromEnv(getenv, o.ShardCount)
		if err != nil {
			return usageError{err}
		}
		o.shard, o.shardFrom = a.Shard, a.Source
	default:
		s, err := replay.ParseShard(o.Shard)
		if err != nil {
			return usagef("--%v", err)
		}
		o.shard = s
	}
	// run.json and merge see the resolved I/N, never "auto".
	o.Shard = o.shard.String()
	return nil
}

func checkInconclusive(v string) error {
	switch v {
	case "", "pass", "fail":
		return nil
	}
	return usagef("--inconclusive must be pass or fail, got %q", v)
}

func newRunID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// runRun is `apeval run` / `apeval replay` with resolved options: to a
// bucket (--out s3://…) through a temporary directory, else runLocal.
func runRun(ctx context.Context, o *runOptions, io IO) error {
	if outIsURL(o) {
		return runToBucket(ctx, o, io)
	}
	return runLocal(ctx, o, io)
}

// runLocal is a run into a local directory: prepare (policy, dataset,
// judges, run directory), replay (every result fanned out to the sinks),
// report.
func runLocal(ctx context.Context, o *runOptions, io IO) error {
	p, err := prepareRun(ctx, o, io)
	if err != nil {
		return err
	}
	defer p.close()

	// replay.Run emits a case's results together, judge by judge, and the
	// dataset reader rejects duplicate ids: the accumulator numbers cases
	// as they come instead of keeping their IDs.
	ev := evaluation.New(evaluation.Spec{Criteria: p.crit, CriteriaFrom: p.critFrom, Baseline: p.baseline, Slices: o.By,
		DistinctCases: true, Inconclusive: o.Inconclusive, PolicyRules: p.pol.RuleIDs(), Labels: p.lab})
	to := sinks{ev.Gates, ev.Failures} // replay prints the gate table only
	if !o.replayOnly {
		to = sinks{ev}
	}
	var tracer *otlp.Tracer
	if otlp.Enabled(o.OTLPEndpoint, io.Getenv) {
		if tracer, err = otlp.NewTracer(ctx, o.OTLPEndpoint, *p.w.Info(), version); err != nil {
			return usagef("%v", err)
		}
		tracer.Providers = judge.Providers()
		to = append(to, tracer)
	}
	// finishTrace ends the run span and flushes; an unreachable collector
	// is a warning, never a change of verdict.
	finishTrace := func(rep *reports.Report) {
		if tracer == nil {
			return
		}
		if err := tracer.Finish(rep); err != nil {
			fmt.Fprintf(io.Err, "apeval: warning: %v\n", err)
		}
		tracer = nil
	}
	defer finishTrace(nil)
	res, err := p.replay(ctx, o, io, to)
	if err != nil {
		return err
	}

	if res.weak != nil {
		fmt.Fprintf(io.Err, "apeval: %s\n", res.weak.Message())
	}
	if res.invalid > 0 {
		fmt.Fprintf(io.Err, "apeval: skipped %d invalid line(s) (--skip-invalid); the first: %s\n", res.invalid, datasets.MaskedLineText(res.firstInvalid))
	}
	stray := p.stray.Message()
	if stray != "" {
		fmt.Fprintf(io.Err, "apeval: warning: %s\n", stray)
	}
	stopped := p.w.Info().Partial
	if o.replayOnly {
		p.w.ReportsWritten() // replay writes no reports: the run is complete
		if err := ev.Gates.RenderWidth(io.Out, outputFormat(o.Format, io.Out), termWidth(io.Out, io)); err != nil {
			return err
		}
		fmt.Fprintf(io.Err, "apeval: decisions written to %s\n", o.Out)
		if res.interrupted {
			return context.Canceled
		}
		if stopped != "" {
			return budgetStopped(stopped, res, o.Out, io)
		}
		return nil
	}

	evaluation.DescribeCases(ev.Listed, p.src.reader(p.pol))
	rep, err := finish(ev, *p.w.Info())
	if err != nil {
		return err
	}
	if stray != "" {
		rep.Summary.Warnings = append(rep.Summary.Warnings, stray) // in summary.json and summary.md too
	}
	defer func() { _ = rep.Summary.Release() }() // a temporary file with no name; nothing to keep
	finishTrace(rep)
	if err := writeRunReports(o.Out, rep, o.Format, io, p.w); err != nil {
		return err
	}
	if res.interrupted {
		fmt.Fprintf(io.Err, "apeval: interrupted; %d finished cases are in %s\n", res.stats.Cases, o.Out)
		return context.Canceled
	}
	if stopped != "" {
		return budgetStopped(stopped, res, o.Out, io)
	}
	return verdictDone(rep, io)
}

// budgetStopped says that a budget stopped the run, which reports are
// partial and how to continue: exit 2, whatever the verdict of the
// finished part.
func budgetStopped(reason string, res replayed, dir string, io IO) error {
	// reason is run.json's partial, which names the budget already.
	fmt.Fprintf(io.Err, "apeval: stopped: %s; the %d finished cases are in %s, marked partial (%d left out: their calls were not sent); rerun with the same cache to continue where it stopped\n",
		reason, res.stats.Cases-res.dropped, dir, res.dropped)
	return exitCodeError{exitUsage}
}

// preparedRun is what a run needs before the first case is replayed.
type preparedRun struct {
	// lab is the --labels sink (nil without --labels).
	lab      *metrics.LabeledSample
	now      time.Time
	pol      *replay.Policy
	crit     replay.KillCriteria
	critFrom string // where crit came from, for run.json
	stray    *datasets.StrayLabels
	src      *source
	stats    *datasets.Stats     // when the dataset was scanned for recorded judges
	sel      *datasets.Selection // sessions chosen by --tag/--limit/--sample; nil for all
	judges   []judge.Judge
	baseline string
	refs     chan []rundir.FileRef // the datasets' hashes, computed beside the replay
	w        *rundir.RunWriter

	closeJudges func()
	committed   bool
}

// prepareRun loads the policy and criteria, opens the dataset and the
// judges, and creates the run directory. On error it releases what it
// opened; otherwise the caller closes the result.
func prepareRun(ctx context.Context, o *runOptions, io IO) (_ *preparedRun, err error) {
	p := &preparedRun{now: time.Now()}
	defer func() {
		if err != nil {
			p.close()
		}
	}()
	o.Budget.start(o.Judge.Retries)
	if o.RunID == "" {
		o.RunID = newRunID(p.now)
	}
	if o.Out == "" && o.outPattern != "" {
		o.Out = expandOut(o.outPattern, o.RunID, p.now)
	}
	o.Out = runDirFor(o.Out, o.layout, o.RunID)

	pol, polRef, err := loadPolicy(o.Policy)
	if err != nil {
		return nil, err
	}
	if err := replay.AddPermissionImports(pol, o.PermissionsFrom); err != nil {
		return nil, usageError{err}
	}
	p.stray = datasets.NewStrayLabels(pol.RuleIDs()) // before --rule: a rule filtered out is not a typo
	if pol, err = o.Filter.restrictPolicy(pol); err != nil {
		return nil, err
	}
	if o.Repeat.BatchSize > 0 {
		pol.MaxRulesPerCall = o.Repeat.BatchSize // --batch-size: the same rules alone or in other company
	}
	p.pol, p.crit = pol, pol.KillCriteria
	p.critFrom = cmp.Or(o.Policy, replay.SamplePolicyName)
	if o.Criteria != "" {
		p.critFrom = o.Criteria + " (--criteria)"
		if p.crit, err = replay.ReadCriteria(o.Criteria); err != nil {
			return nil, usageError{err}
		}
	}

	if len(o.Datasets) == 0 && o.config != "" && o.Resume == "" {
		// A project file without datasets is not silently the sample.
		fmt.Fprintf(io.Err, "apeval: %s names no dataset (datasets = [\"cases.jsonl\"]) and no --dataset was given: evaluating the embedded sample dataset\n", o.config)
	}
	if p.src, err = openSource(o.Datasets, io.In); err != nil {
		return nil, err
	}
	p.src.done = ctx.Done()
	if o.shardFrom != "" && !o.Quiet {
		fmt.Fprintf(io.Err, "apeval: --shard auto: shard %s from %s\n", o.Shard, o.shardFrom)
	}

	entries, err := config.JudgeEntries(o.Judges, o.fileJudges, o.judgesFromFile)
	if err != nil {
		return nil, err
	}
	if needsRecordedNames(entries) {
		// One pass to learn the recorded judges' names; it also finds bad
		// lines before any judge is called.
		if p.stats, err = scanStats(p.src, pol, o.SkipInvalid); err != nil {
			return nil, err
		}
		if entries, err = expandRecorded(entries, p.stats); err != nil {
			return nil, err
		}
	}

	if p.sel, err = o.Filter.selectSessions(p.src, pol, o.shard); err != nil {
		return nil, err
	}

	if p.judges, p.closeJudges, err = openJudges(ctx, entries, o, io); err != nil {
		return nil, err
	}
	if o.resume != nil {
		var ids []string
		for _, j := range p.judges {
			ids = append(ids, j.Identity().String())
		}
		if err := o.resume.CheckIdentities(ids); err != nil {
			return nil, usagef("--resume %s: %v", o.resume.Dir, err)
		}
	}

	if o.Baseline != "" {
		if p.baseline, err = resolveJudge(o.Baseline, p.judges); err != nil {
			if o.baselineFromConfig {
				return nil, usagef("%v (the baseline comes from %s; pass --baseline to choose another)", err, o.config)
			}
			return nil, err
		}
	}

	// Hashing the datasets for run.json reads them once more: it runs beside
	// the replay instead of before it (run.json is written by w.Close).
	p.refs = make(chan []rundir.FileRef, 1)
	go func(src *source) { p.refs <- src.refs() }(p.src)
	info := rundir.RunInfo{
		RunID:       o.RunID,
		Created:     p.now.UTC(),
		Version:     version,
		Policy:      polRef,
		Baseline:    p.baseline,
		Concurrency: o.Concurrency,
		Timeout:     rundir.Duration(o.Timeout),
		Shard:       o.Shard,
		Filter:      o.Filter.info(),
		Settings:    o.settings(entries, p.baseline),
		Layout:      o.layout,
	}
	if o.WeakLabels {
		info.LabelSource = datasets.LabelSourceWeak
	}
	// The resolved kill criteria travel with the run: report, gate and
	// merge use them (run and replay alike).
	t := metrics.ThresholdsOf(p.crit)
	info.Criteria, info.CriteriaFrom = &t, p.critFrom
	for _, j := range p.judges {
		ji := judgeInfo(j)
		o.Judge.setPrices(&ji)
		info.Judges = append(info.Judges, ji)
	}
	if p.lab, err = newLabelSink(o.Labels, ""); err != nil {
		return nil, err
	}
	if p.w, err = rundir.CreateRunWeighted(o.Out, info, labelWeights(p.lab)); err != nil {
		return nil, usageError{err}
	}
	return p, nil
}

// close aborts an uncommitted run directory, then closes the judges and
// the dataset, in the reverse order of opening.
func (p *preparedRun) close() {
	if p.w != nil {
		if !p.committed {
			p.w.Abort() // removes the directory when this run created it
		}
		p.w.Release() // the run directory stays locked until every report is written
	}
	if p.closeJudges != nil {
		p.closeJudges()
	}
	if p.src != nil {
		p.src.cleanup()
	}
}

// replayed is what the replay stage reports.
type replayed struct {
	stats        replay.RunStats
	dropped      int64 // results left out because a budget stopped their calls
	interrupted  bool
	invalid      int64
	firstInvalid error
	weak         *datasets.WeakSwap // --weak-labels: what the swap counted
}

// replay replays the dataset through every judge, writes each result to
// the run directory and hands it to the sinks, then commits the run
// directory (run.json). A bad input line without --skip-invalid, or a
// session out of seq order, fails the run before anything is reported.
func (p *preparedRun) replay(ctx context.Context, o *runOptions, io IO, to sinks) (replayed, error) {
	tty := isTerminal(io.Err)
	var prog *progress
	if !o.Quiet {
		total := int64(0)
		if p.sel != nil {
			total = p.sel.Cases // replayed, tagged or not
		} else if p.stats != nil {
			total = int64(p.stats.Cases)
		} else if o.shard.Count <= 1 {
			total = p.src.approxCases()
		}
		prog = newProgress(io.Err, tty, total, p.now)
	}

	rd := p.src.reader(p.pol)
	defer rd.Close()
	in := &replay.Feed{Reader: rd, Invalid: datasets.InvalidLines{Skip: o.SkipInvalid}, Shard: o.shard, Selection: p.sel, Stop: &o.Budget.stopped, Stray: p.stray}
	if o.WeakLabels {
		in.Weak = &datasets.WeakSwap{}
	}
	var cut replay.BudgetCut

	ropts := replay.Options{
		RunID:       o.RunID,
		Concurrency: o.Concurrency,
		// Live judges apply --timeout to each attempt themselves, so that
		// --retries can retry; replay's deadline is only a backstop for the
		// whole call.
		Timeout: time.Duration(o.Judge.Retries+1)*(o.Timeout+2*time.Second) + 5*time.Second,
		// emit below copies what it keeps (RunWriter and every sink hold no
		// pointer into a Result).
		ReuseResults: true,
		Repeat:       o.Repeat.Repeat,
		ShuffleRules: o.Repeat.ShuffleRules,
		ShuffleSeed:  o.Filter.Seed,
	}
	if prog != nil {
		nj := int64(max(len(p.judges), 1))
		ropts.ProgressInterval = prog.interval
		ropts.Progress = func(s replay.ProgressStats) {
			cases := max(s.Cases, s.Replayed/nj)
			prog.update(progressSnapshot{Cases: cases, Calls: s.Calls, CacheHits: s.CacheHits, Failures: s.Failures, InFlight: s.InFlight}, time.Now(), false)
		}
	}
	emit := func(r *replay.Result) error {
		if !p.sel.Reports(r.Tags) {
			return nil // replayed for its session's state, not reported
		}
		if o.resume != nil {
			o.resume.Count(r)
		}
		if o.Budget.budget != nil && cut.Drop(r) {
			return nil // a budget stopped it: not finished work
		}
		if err := p.w.Write(r); err != nil {
			return err
		}
		to.Add(r)
		return nil
	}
	replayStart := time.Now()
	rstats, runErr := replay.Run(ctx, p.pol, in.Next, p.judges, ropts, emit)
	replayTime := time.Since(replayStart)
	if prog != nil {
		prog.update(progressSnapshot{Cases: rstats.Cases, Calls: rstats.Calls, CacheHits: rstats.CacheHits, Failures: rstats.Failures}, time.Now(), true)
	}
	if err := in.Err(); err != nil {
		// Bad input without --skip-invalid: nothing is reported from a run
		// that would silently miss cases.
		return replayed{}, usageError{err}
	}
	interrupted := errors.Is(runErr, context.Canceled) || ctx.Err() != nil
	if in.Valid == 0 && !interrupted {
		// Nothing to evaluate is an input error, not a GO on no evidence.
		if in.Invalid.Count > 0 {
			return replayed{}, usagef("the dataset has no valid case (%d invalid line(s) skipped)", in.Invalid.Count)
		}
		return replayed{}, usagef("the dataset has no cases")
	}
	if runErr != nil && !interrupted {
		var se *replay.SeqError
		var ge *datasets.GroupedError
		if errors.As(runErr, &se) || errors.As(runErr, &ge) {
			return replayed{}, usageError{runErr}
		}
		return replayed{}, runErr
	}

	wi := p.w.Info()
	wi.Datasets = <-p.refs
	wi.Cases = in.Cases
	wi.InvalidLines = in.Invalid.Count
	wi.Interrupted = interrupted
	wi.ReplayMS = float64(replayTime) / float64(time.Millisecond)
	if b := o.Budget.budget; b != nil {
		rep := b.Report()
		wi.Budget = &rep
		if rep.Stopped != "" {
			wi.Partial = "budget " + rep.Stopped
		}
		if rep.Unmetered > 0 {
			fmt.Fprintf(io.Err, "apeval: --budget-usd: %d call(s) reported no token counts; each was counted at its estimate from the input's size, not as free\n", rep.Unmetered)
		}
	}
	if o.resume != nil {
		wi.Resumed = o.resume.Report()
		fmt.Fprintf(io.Err, "apeval: %s\n", o.resume.Message())
	}
	if err := p.w.Close(); err != nil {
		return replayed{}, err
	}
	p.committed = true
	return replayed{stats: rstats, interrupted: interrupted, invalid: in.Invalid.Count, firstInvalid: in.Invalid.First, dropped: cut.Dropped(), weak: in.Weak}, nil
}

// needsRecordedNames reports whether the judge list must be completed from
// the dataset's recordings: no --judge at all, or a bare "recorded".
func needsRecordedNames(entries []config.JudgeEntry) bool {
	if len(entries) == 0 {
		return true
	}
	for _, e := range entries {
		if e.Spec == "recorded" || strings.HasPrefix(e.Spec, "recorded:") {
			return true
		}
	}
	return false
}

// expandRecorded turns no judges into the dataset's recorded judges (or
// none), and a bare "recorded" into one recorded:NAME per name, each with
// the bare entry's options.
func expandRecorded(entries []config.JudgeEntry, st *datasets.Stats) ([]config.JudgeEntry, error) {
	names := st.RecordedJudgeNames()
	if len(entries) == 0 {
		if len(names) == 0 {
			return []config.JudgeEntry{{Spec: "none"}}, nil
		}
		entries = []config.JudgeEntry{{Spec: "recorded"}}
	}
	var out []config.JudgeEntry
	for _, e := range entries {
		if name, ok := strings.CutPrefix(e.Spec, "recorded:"); ok && !slices.Contains(names, name) {
			have := "none"
			if len(names) > 0 {
				have = strings.Join(names, ", ")
			}
			return nil, usagef("--judge %s matches no recording in the dataset; the recorded judges are: %s", e.Spec, have)
		}
		if e.Spec != "recorded" {
			out = append(out, e)
			continue
		}
		if len(names) == 0 {
			return nil, usagef("--judge recorded: the dataset holds no recorded decisions")
		}
		for _, n := range names {
			x := e
			x.Spec = "recorded:" + n
			out = append(out, x)
		}
	}
	return out, nil
}

// resolveJudge finds the judge meant by --baseline: its identity, its spec
// form (backend:model), or a unique prefix of the identity.
func resolveJudge(want string, judges []judge.Judge) (string, error) {
	var ids []string
	for _, j := range judges {
		ids = append(ids, j.Identity().String())
	}
	return matchJudgeName("--baseline", want, ids)
}

func matchJudgeName(flag, want string, ids []string) (string, error) {
	id, err := reports.MatchJudge(flag, want, ids)
	if err != nil {
		return "", usageError{err}
	}
	return id, nil
}
