package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
)

// runOptions are the flags of `apeval run` and `apeval replay`.
type runOptions struct {
	Datasets     []string
	Policy       string
	Judges       []string
	Out          string
	OutLayout    string
	Concurrency  int
	Timeout      time.Duration
	CacheDir     string
	NoCache      bool
	SkipInvalid  bool
	Shard        string
	ShardCount   int
	Criteria     string
	Baseline     string
	Inconclusive string
	Format       string
	JSON         bool
	Quiet        bool
	RunID        string
	Judge        judgeFlags

	replayOnly bool
	shard      replay.Shard
	shardFrom  string // where --shard auto found the shard
	layout     string // reports.LayoutFlat or LayoutHive
}

func newRunCmd(io IO, replayOnly bool) *cobra.Command {
	o := &runOptions{replayOnly: replayOnly}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Replay a dataset through a policy and judges, compute metrics and the verdict",
		Long: `Replay every case of the datasets through the policy's scope filter, permissions
layer, deterministic matchers and each judge, then compute metrics, check the kill
criteria and write the run directory (decisions.parquet, gates.parquet,
metrics.parquet, summary.json, summary.md, junit.xml, charts, report.html, run.json).

With no flags, evaluates the embedded sample dataset and policy with its recorded
judges. Without --judge, the judges are the dataset's recordings when it has any,
else "none" (the deterministic fallback when the judge is down).

Judge specs:
  ollama:MODEL     a model served by Ollama (--ollama-host or $OLLAMA_HOST)
  openai:MODEL     any OpenAI-compatible /v1/chat/completions (--openai-base-url)
  exec:COMMAND     a long-lived plugin speaking judge JSON lines on stdin/stdout
  recorded[:NAME]  decisions recorded in the dataset (bare: one judge per name)
  none             no judge: every judge-needing rule fails with status error

Exit codes: 0 GO, 1 NO-GO, 2 usage or input error, 3 INCONCLUSIVE
(--inconclusive=pass|fail maps 3 to 0 or 1), 130 interrupted.`,
		Example: `  apeval run
  apeval run --dataset cases.jsonl --policy policy.toml --judge recorded
  apeval run --dataset a.jsonl --dataset b.jsonl --policy policy.toml \
    --judge ollama:qwen2.5:3b --judge ollama:qwen2.5:7b --baseline ollama/qwen2.5:3b \
    --concurrency 8 --timeout 2s --out out/nightly
  cat cases.jsonl | apeval run --dataset - --policy policy.toml --judge none
  apeval run --shard 2/4 --out out/shard2 ...   # then: apeval merge out/shard*`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.validate(io.Getenv); err != nil {
				return err
			}
			return runRun(cmd.Context(), o, io)
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
	f.StringArrayVarP(&o.Judges, "judge", "j", nil, "judge spec (ollama:MODEL, openai:MODEL, exec:CMD, recorded[:NAME], none); repeatable")
	f.StringVarP(&o.Out, "out", "o", "", "run directory (default apeval-out/<run-id>)")
	f.StringVar(&o.OutLayout, "out-layout", "flat", layoutUsage)
	f.IntVarP(&o.Concurrency, "concurrency", "c", 4, "judge calls in flight per judge (sessions replayed in parallel)")
	f.DurationVar(&o.Timeout, "timeout", 10*time.Second, "deadline of one judge call; a call past it counts as a timeout at this latency")
	f.StringVar(&o.CacheDir, "cache", "", "response cache directory (default: the user cache dir, e.g. ~/.cache/apeval)")
	f.BoolVar(&o.NoCache, "no-cache", false, "neither read nor write the response cache")
	f.BoolVar(&o.SkipInvalid, "skip-invalid", false, "skip malformed dataset lines (counted and listed) instead of failing")
	f.StringVar(&o.Shard, "shard", "", "replay only shard I of N (`I/N`, 1-based), partitioned by session_id hash; recombine with apeval merge; auto: from the scheduler's environment")
	f.IntVar(&o.ShardCount, "shard-count", 0, "with --shard auto: the number of shards (a Kubernetes Indexed Job's completions; else $"+replay.ShardCountEnv+")")
	f.StringVar(&o.RunID, "run-id", "", "run ID (default: UTC time plus a random suffix)")
	f.BoolVarP(&o.Quiet, "quiet", "q", false, "no progress output")
	if !replayOnly {
		f.StringVar(&o.Criteria, "criteria", "", "kill-criteria file (TOML, [kill_criteria] table); overrides the policy's")
		f.StringVar(&o.Baseline, "baseline", "", "judge to compare candidates with (identity, spec or unique prefix); enables fire_rate_change_max")
		f.StringVar(&o.Inconclusive, "inconclusive", "", "map an INCONCLUSIVE verdict's exit code: pass (0) or fail (1); default 3")
		f.StringVar(&o.Format, "format", "", "terminal output: table, tsv, markdown or json (default: table on a terminal, tsv when piped)")
		f.BoolVar(&o.JSON, "json", false, "print summary.json to stdout instead of tables (same as --format json)")
	}
	o.Judge.register(f)
	return cmd
}

func (o *runOptions) validate(getenv func(string) string) error {
	if len(o.Datasets) > 0 && o.Policy == "" {
		return usagef("--policy is required with --dataset (the embedded sample policy only fits the embedded sample)")
	}
	if o.Concurrency < 1 {
		return usagef("--concurrency must be at least 1, got %d", o.Concurrency)
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
	layout, err := reports.ParseLayout(o.OutLayout)
	if err != nil {
		return usagef("--out-layout: %v", err)
	}
	o.layout = layout
	if err := o.resolveShard(getenv); err != nil {
		return err
	}
	return o.Judge.validate()
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

// runRun is `apeval run` / `apeval replay`.
func runRun(ctx context.Context, o *runOptions, io IO) error {
	now := time.Now()
	if o.RunID == "" {
		o.RunID = newRunID(now)
	}
	o.Out = runDirFor(o.Out, o.layout, o.RunID)

	pol, polRef, err := loadPolicy(o.Policy)
	if err != nil {
		return err
	}
	crit := pol.KillCriteria
	if o.Criteria != "" {
		data, err := os.ReadFile(o.Criteria)
		if err != nil {
			return usageError{err}
		}
		if crit, err = replay.ParseCriteria(data, o.Criteria); err != nil {
			return usageError{err}
		}
	}

	src, err := openSource(o.Datasets, io.In)
	if err != nil {
		return err
	}
	defer src.cleanup()
	if o.shardFrom != "" && !o.Quiet {
		fmt.Fprintf(io.Err, "apeval: --shard auto: shard %s from %s\n", o.Shard, o.shardFrom)
	}

	specs := o.Judges
	var stats *datasets.Stats
	if needsRecordedNames(specs) {
		// One pass to learn the recorded judges' names; it also finds bad
		// lines before any judge is called.
		if stats, err = scanStats(src, pol, o.SkipInvalid); err != nil {
			return err
		}
		if specs, err = expandRecorded(specs, stats); err != nil {
			return err
		}
	}

	judges, closeJudges, err := openJudges(ctx, specs, o, io)
	if err != nil {
		return err
	}
	defer closeJudges()

	baseline := ""
	if o.Baseline != "" {
		if baseline, err = resolveJudge(o.Baseline, judges); err != nil {
			return err
		}
	}

	// Hashing the datasets for run.json reads them once more: it runs beside
	// the replay instead of before it (run.json is written by w.Close).
	refs := make(chan []reports.FileRef, 1)
	go func() { refs <- src.refs() }()
	info := reports.RunInfo{
		RunID:       o.RunID,
		Created:     now.UTC(),
		Version:     version,
		Policy:      polRef,
		Baseline:    baseline,
		Concurrency: o.Concurrency,
		Timeout:     reports.Duration(o.Timeout),
		Shard:       o.Shard,
		Layout:      o.layout,
	}
	for _, j := range judges {
		info.Judges = append(info.Judges, judgeInfo(j))
	}
	w, err := reports.CreateRun(o.Out, info)
	if err != nil {
		return usageError{err}
	}
	committed := false
	defer func() {
		if !committed {
			w.Abort()
		}
	}()

	acc := metrics.New(metrics.Config{Criteria: crit, Baseline: baseline})
	gates := reports.NewGateSummary()
	lat := reports.Latencies{}

	tty := isTerminal(io.Err)
	var prog *progress
	if !o.Quiet {
		total := int64(0)
		if stats != nil {
			total = int64(stats.Cases)
		} else if o.shard.Count <= 1 {
			total = src.approxCases()
		}
		prog = newProgress(io.Err, tty, total, now)
	}

	rd := src.reader(pol)
	defer rd.Close()
	in := &caseFeed{r: rd, skipInvalid: o.SkipInvalid, shard: o.shard, errOut: io.Err}

	ropts := replay.Options{
		RunID:       o.RunID,
		Concurrency: o.Concurrency,
		// Live judges apply --timeout to each attempt themselves, so that
		// --retries can retry; replay's deadline is only a backstop for the
		// whole call.
		Timeout: time.Duration(o.Judge.Retries+1)*(o.Timeout+2*time.Second) + 5*time.Second,
		// emit below copies what it keeps (RunWriter, Accumulator,
		// Latencies and GateSummary hold no pointer into a Result).
		ReuseResults: true,
	}
	if prog != nil {
		ropts.Progress = func(p replay.ProgressStats) {
			prog.update(progressSnapshot{Cases: p.Cases, Calls: p.Calls, CacheHits: p.CacheHits, Failures: p.Failures}, time.Now(), false)
		}
	}
	emit := func(r *replay.Result) error {
		if err := w.Write(r); err != nil {
			return err
		}
		if !o.replayOnly {
			acc.Add(r)
			lat.Add(r)
		}
		gates.Add(r)
		return nil
	}
	replayStart := time.Now()
	rstats, runErr := replay.Run(ctx, pol, in.next, judges, ropts, emit)
	replayTime := time.Since(replayStart)
	if prog != nil {
		prog.update(progressSnapshot{Cases: rstats.Cases, Calls: rstats.Calls, CacheHits: rstats.CacheHits, Failures: rstats.Failures}, time.Now(), true)
	}
	if err := in.err(); err != nil {
		// Bad input without --skip-invalid: nothing is reported from a run
		// that would silently miss cases.
		return err
	}
	interrupted := errors.Is(runErr, context.Canceled) || ctx.Err() != nil
	if runErr != nil && !interrupted {
		var se *replay.SeqError
		if errors.As(runErr, &se) {
			return usageError{runErr}
		}
		return runErr
	}

	wi := w.Info()
	wi.Datasets = <-refs
	wi.Cases = in.cases
	wi.InvalidLines = in.invalid
	wi.Interrupted = interrupted
	wi.ReplayMS = float64(replayTime) / float64(time.Millisecond)
	if err := w.Close(); err != nil {
		return err
	}
	committed = true

	if in.invalid > 0 {
		fmt.Fprintf(io.Err, "apeval: skipped %d invalid line(s) (--skip-invalid); the first: %s\n", in.invalid, in.firstInvalid)
	}
	if o.replayOnly {
		if err := gates.Render(io.Out, outputFormat(o.Format, io.Out)); err != nil {
			return err
		}
		fmt.Fprintf(io.Err, "apeval: decisions written to %s\n", o.Out)
		if interrupted {
			return context.Canceled
		}
		return nil
	}

	rep := &reports.Report{Run: *w.Info(), Summary: acc.Close(), Latencies: lat, Inconclusive: o.Inconclusive}
	if err := writeRunReports(o.Out, rep, o.Format, io, gates); err != nil {
		return err
	}
	if interrupted {
		fmt.Fprintf(io.Err, "apeval: interrupted; %d finished cases are in %s\n", rstats.Cases, o.Out)
		return context.Canceled
	}
	return exitCodeError{rep.ExitCode()}
}

// needsRecordedNames reports whether the judge list must be completed from
// the dataset's recordings: no --judge at all, or a bare "recorded".
func needsRecordedNames(specs []string) bool {
	if len(specs) == 0 {
		return true
	}
	for _, s := range specs {
		if s == "recorded" {
			return true
		}
	}
	return false
}

// expandRecorded turns no specs into the dataset's recorded judges (or none),
// and a bare "recorded" into one recorded:NAME per name.
func expandRecorded(specs []string, st *datasets.Stats) ([]string, error) {
	names := st.RecordedJudgeNames()
	if len(specs) == 0 {
		if len(names) == 0 {
			return []string{"none"}, nil
		}
		specs = []string{"recorded"}
	}
	var out []string
	for _, s := range specs {
		if s != "recorded" {
			out = append(out, s)
			continue
		}
		if len(names) == 0 {
			return nil, usagef("--judge recorded: the dataset holds no recorded decisions")
		}
		for _, n := range names {
			out = append(out, "recorded:"+n)
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
	return matchJudgeName(want, ids)
}

func matchJudgeName(want string, ids []string) (string, error) {
	alt := strings.Replace(want, ":", "/", 1)
	var hits []string
	for _, id := range ids {
		if id == want || id == alt {
			return id, nil
		}
		if strings.HasPrefix(id, want) || strings.HasPrefix(id, alt) {
			hits = append(hits, id)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return "", usagef("--baseline %q matches no judge; the judges are: %s", want, strings.Join(ids, ", "))
	}
	return "", usagef("--baseline %q is ambiguous: %s", want, strings.Join(hits, ", "))
}
