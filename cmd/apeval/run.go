package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/internal/progress"
	"github.com/apeval/apeval/internal/runplan"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/evaluation"
	"github.com/apeval/apeval/reports/otlp"
)

// newRunCmd is `apeval run` (replayOnly: `apeval replay`). Its RunE only
// resolves the options into a plan (runplan.Resolve) and hands it to runF,
// which is runRun unless a test passes its own to look at the plan alone.
func newRunCmd(io IO, replayOnly bool, runF func(context.Context, *runplan.Plan, IO) error) *cobra.Command {
	if runF == nil {
		runF = runRun
	}
	o := &runplan.Options{ReplayOnly: replayOnly}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Replay a dataset through a policy and judges, compute metrics and the verdict",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := resolveRun(cmd, *o, io.Getenv)
			if err != nil {
				return err
			}
			return runF(cmd.Context(), p, io)
		},
	}
	if replayOnly {
		cmd.Use = "replay"
		cmd.Short = "Replay a dataset and write decisions only (decisions.parquet, gates.parquet, run.json)"
	}
	f := cmd.Flags()
	f.StringArrayVarP(&o.Datasets, "dataset", "d", nil, "case file (JSONL, apeval.case/v1); repeatable; - reads stdin (default: the embedded sample)")
	f.StringVarP(&o.Policy, "policy", "p", "", "policy file (TOML, apeval.policy/v1); required with --dataset")
	f.StringArrayVar(&o.PermissionsFrom, "permissions-from", nil, "add an agent's permission rules (KIND:PATH; claude-code, codex, opencode, gemini) to the permissions layer; repeatable")
	f.StringArrayVarP(&o.Judges, "judge", "j", nil, judge.SpecUsage())
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
	registerJudgeFlags(f, &o.Judge)
	registerFilter(f, &o.Filter)
	registerBudget(f, &o.Budget)
	registerRepeat(f, &o.Repeat)
	f.StringVar(&o.Resume, "resume", "", "finish the run in `DIR`: replay it again with its settings into a new run directory, answering every call it completed from the cache, so only the calls that failed there (timeout, error) are re-sent; run.json notes what was (the judges' servers and key variables come from these flags and apeval.toml, never from DIR)")
	return cmd
}

// resolveRun makes the plan of run and replay (runplan.Resolve):
// apeval.toml (or --config) under the flags, --resume's recorded settings,
// the checks across flags. It reads the config file and, with --resume,
// that run directory; it opens no dataset and no judge.
func resolveRun(cmd *cobra.Command, o runplan.Options, getenv func(string) string) (*runplan.Plan, error) {
	cfg, err := loadProjectConfig(cmd)
	if err != nil {
		return nil, err
	}
	p, err := runplan.Resolve(o, cmd.Flags().Changed, cfg, getenv)
	if err != nil {
		return nil, usageError{err}
	}
	return p, nil
}

// checkInconclusive is evaluation.CheckInconclusive with a usage error.
func checkInconclusive(v string) error {
	if err := evaluation.CheckInconclusive(v); err != nil {
		return usageError{err}
	}
	return nil
}

// runRun is `apeval run` / `apeval replay` with a resolved plan: to a
// bucket (--out s3://…) through a temporary directory, else runLocal.
func runRun(ctx context.Context, p *runplan.Plan, io IO) error {
	if p.ToBucket() {
		return runToBucket(ctx, p, io)
	}
	return runLocal(ctx, p.Start(time.Now()), io)
}

// runLocal is a run into a local directory: prepare (policy, dataset,
// judges, run directory: runplan.State.Prepare), replay (every result
// fanned out to the sinks), report.
func runLocal(ctx context.Context, st *runplan.State, io IO) error {
	o := st.Plan
	note := func(msg string) { fmt.Fprintf(io.Err, "apeval: %s\n", msg) }
	p, err := st.Prepare(ctx, runplan.Env{Version: version, Stdin: io.In, Note: note, MaxIDsInMemory: maxIDsInMemory,
		Judge:  judgeConfig(&o.Judge, o.Timeout, o.Concurrency, io),
		Labels: func() (*metrics.LabeledSample, error) { return newLabelSink(o.Labels, "") }})
	if err != nil {
		return usageError{err}
	}
	defer p.Close()

	ev := p.Evaluation()
	to := sinks{ev.Gates, ev.Failures} // replay prints the gate table only
	if !o.ReplayOnly {
		to = sinks{ev}
	}
	var tracer *otlp.Tracer
	if otlp.Enabled(o.OTLPEndpoint, io.Getenv) {
		if tracer, err = otlp.NewTracer(ctx, o.OTLPEndpoint, *p.Writer.Info(), version); err != nil {
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
	var prog *progress.Printer
	if !o.Quiet {
		prog = progress.New(io.Err, isTerminal(io.Err), p.Total(), st.Created)
	}
	res, err := p.Replay(ctx, to.Add, prog)
	if err != nil {
		return usageError{err}
	}

	for _, n := range p.Notes(res) {
		note(n)
	}
	stopped := p.Stopped(res, st.Out)
	if o.ReplayOnly {
		p.Writer.ReportsWritten() // replay writes no reports: the run is complete
		if err := ev.Gates.RenderWidth(io.Out, outputFormat(o.Format, io.Out), termWidth(io.Out, io)); err != nil {
			return err
		}
		fmt.Fprintf(io.Err, "apeval: decisions written to %s\n", st.Out)
		if res.Interrupted {
			return interrupted(res.Stats, st.Out, o.NoCache, o.CacheDir, io)
		}
		if stopped != "" {
			return budgetStopped(stopped, io)
		}
		return nil
	}

	evaluation.DescribeCases(ev.Listed, p.Source.Reader(p.Policy.Policy))
	rep, err := finish(ev, *p.Writer.Info())
	if err != nil {
		return err
	}
	if w := p.Warning(); w != "" {
		rep.Summary.Warnings = append(rep.Summary.Warnings, w)
	}
	defer func() { _ = rep.Summary.Release() }() // a temporary file with no name; nothing to keep
	finishTrace(rep)
	if err := writeRunReports(st.Out, rep, o.Format, io, p.Writer); err != nil {
		return err
	}
	if res.Interrupted {
		return interrupted(res.Stats, st.Out, o.NoCache, o.CacheDir, io)
	}
	if stopped != "" {
		return budgetStopped(stopped, io)
	}
	return verdictDone(rep, io)
}

// interrupted says what an interrupted replay kept: exit 130, with no
// further "context canceled" line.
// Sessions are replayed in parallel and cases are written in the
// dataset's order, so judges may have answered calls of cases after the
// last one written: they are in the cache (not with --no-cache), and
// --resume continues without asking them again. A run given --cache DIR
// kept them there, and the resume must name it again (it never takes a
// cache from the run directory): the command shown says so.
func interrupted(st replay.RunStats, out string, noCache bool, cacheDir string, io IO) error {
	fmt.Fprintf(io.Err, "apeval: interrupted; %d finished cases are in %s\n", st.Cases, out)
	resume := "apeval run --resume " + shellWord(out)
	switch {
	case st.Calls == 0:
	case noCache:
		fmt.Fprintf(io.Err, "apeval: with --no-cache the judges' answers to calls of later cases were not kept; %s continues, asking them again\n", resume)
	case cacheDir != "":
		fmt.Fprintf(io.Err, "apeval: %s --cache %s continues; the judges' answers already received, for later cases too, are in that cache and are not asked again (without --cache they would be)\n", resume, shellWord(cacheDir))
	default:
		fmt.Fprintf(io.Err, "apeval: %s continues; the judges' answers already received, for later cases too, are in the cache and are not asked again\n", resume)
	}
	return exitCodeError{exitInterrupted}
}

// shellWord is s as one shell word: as it is when it holds only
// characters no shell reads, else single-quoted.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=@+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// budgetStopped prints why a budget stopped the run (runplan's
// Prepared.Stopped): exit 2, whatever the verdict of the finished part.
func budgetStopped(msg string, io IO) error {
	fmt.Fprintf(io.Err, "apeval: %s\n", msg)
	return exitCodeError{exitUsage}
}
