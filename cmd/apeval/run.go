package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/datasets/source"
	"github.com/apeval/apeval/internal/progress"
	"github.com/apeval/apeval/internal/runplan"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/evaluation"
	"github.com/apeval/apeval/reports/otlp"
	"github.com/apeval/apeval/reports/rundir"
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

func checkInconclusive(v string) error {
	switch v {
	case "", "pass", "fail":
		return nil
	}
	return usagef("--inconclusive must be pass or fail, got %q", v)
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
// judges, run directory), replay (every result fanned out to the sinks),
// report.
func runLocal(ctx context.Context, st *runplan.State, io IO) error {
	o := st.Plan
	p, err := prepareRun(ctx, st, io)
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
	if !o.ReplayOnly {
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
	res, err := p.replay(ctx, st, io, to)
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
	if o.ReplayOnly {
		p.w.ReportsWritten() // replay writes no reports: the run is complete
		if err := ev.Gates.RenderWidth(io.Out, outputFormat(o.Format, io.Out), termWidth(io.Out, io)); err != nil {
			return err
		}
		fmt.Fprintf(io.Err, "apeval: decisions written to %s\n", st.Out)
		if res.interrupted {
			return context.Canceled
		}
		if stopped != "" {
			return budgetStopped(stopped, res, st.Out, io)
		}
		return nil
	}

	evaluation.DescribeCases(ev.Listed, p.src.Reader(p.pol))
	rep, err := finish(ev, *p.w.Info())
	if err != nil {
		return err
	}
	if stray != "" {
		rep.Summary.Warnings = append(rep.Summary.Warnings, stray) // in summary.json and summary.md too
	}
	defer func() { _ = rep.Summary.Release() }() // a temporary file with no name; nothing to keep
	finishTrace(rep)
	if err := writeRunReports(st.Out, rep, o.Format, io, p.w); err != nil {
		return err
	}
	if res.interrupted {
		fmt.Fprintf(io.Err, "apeval: interrupted; %d finished cases are in %s\n", res.stats.Cases, st.Out)
		return context.Canceled
	}
	if stopped != "" {
		return budgetStopped(stopped, res, st.Out, io)
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
	src      *source.Source
	stats    *datasets.Stats     // when the dataset was scanned for recorded judges
	sel      *datasets.Selection // sessions chosen by --tag/--limit/--sample; nil for all
	judges   *runplan.Judges
	baseline string
	refs     chan []rundir.FileRef // the datasets' hashes, computed beside the replay
	w        *rundir.RunWriter

	committed bool
}

// prepareRun loads the policy and criteria, opens the dataset and the
// judges, and creates the run directory. On error it releases what it
// opened; otherwise the caller closes the result.
func prepareRun(ctx context.Context, st *runplan.State, io IO) (_ *preparedRun, err error) {
	o := st.Plan
	p := &preparedRun{now: st.Created}
	defer func() {
		if err != nil {
			p.close()
		}
	}()

	pol, err := o.LoadPolicy()
	if err != nil {
		return nil, usageError{err}
	}
	p.pol, p.crit, p.critFrom, p.stray = pol.Policy, pol.Criteria, pol.CriteriaFrom, pol.Stray

	if len(o.Datasets) == 0 && o.Config != "" && o.Options.Resume == "" {
		// A project file without datasets is not silently the sample.
		fmt.Fprintf(io.Err, "apeval: %s names no dataset (datasets = [\"cases.jsonl\"]) and no --dataset was given: evaluating the embedded sample dataset\n", o.Config)
	}
	if p.src, err = openSource(o.Datasets, io.In); err != nil {
		return nil, err
	}
	p.src.Done = ctx.Done()
	if o.ShardFrom != "" && !o.Quiet {
		fmt.Fprintf(io.Err, "apeval: --shard auto: shard %s from %s\n", o.Shard, o.ShardFrom)
	}

	entries, err := o.JudgeEntries()
	if err != nil {
		return nil, usageError{err}
	}
	if runplan.NeedsRecordedNames(entries) {
		// One pass to learn the recorded judges' names; it also finds bad
		// lines before any judge is called.
		if p.stats, err = scanStats(p.src, p.pol, o.SkipInvalid); err != nil {
			return nil, err
		}
		if entries, err = runplan.ExpandRecorded(entries, p.stats); err != nil {
			return nil, usageError{err}
		}
	}

	if p.sel, err = selectSessions(o.Filter.Sessions(), p.src, p.pol, o.ShardOf); err != nil {
		return nil, err
	}

	cfg := judgeConfig(&o.Judge, o.Timeout, o.Concurrency, io)
	if p.judges, err = st.OpenJudges(ctx, entries, cfg, func(w string) { fmt.Fprintf(io.Err, "apeval: cache: %s\n", w) }); err != nil {
		return nil, usageError{err}
	}
	ids := p.judges.IDs()
	if err := o.CheckResumed(ids); err != nil {
		return nil, usageError{err}
	}
	if p.baseline, err = o.ResolveBaseline(ids); err != nil {
		return nil, usageError{err}
	}

	// Hashing the datasets for run.json reads them once more: it runs beside
	// the replay instead of before it (run.json is written by w.Close).
	p.refs = make(chan []rundir.FileRef, 1)
	go func(src *source.Source) { p.refs <- src.Refs() }(p.src)
	info := st.Info(runplan.Run{Version: version, Policy: pol.Ref, Criteria: p.crit, CriteriaFrom: p.critFrom,
		Baseline: p.baseline, Entries: entries, Judges: p.judges.Infos()})
	if p.lab, err = newLabelSink(o.Labels, ""); err != nil {
		return nil, err
	}
	if p.w, err = rundir.CreateRunWeighted(st.Out, info, labelWeights(p.lab)); err != nil {
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
	p.judges.Close()
	if p.src != nil {
		p.src.Cleanup()
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
func (p *preparedRun) replay(ctx context.Context, st *runplan.State, io IO, to sinks) (replayed, error) {
	o := st.Plan
	tty := isTerminal(io.Err)
	var prog *progress.Printer
	if !o.Quiet {
		total := int64(0)
		if p.sel != nil {
			total = p.sel.Cases // replayed, tagged or not
		} else if p.stats != nil {
			total = int64(p.stats.Cases)
		} else if o.ShardOf.Count <= 1 {
			total = p.src.ApproxCases()
		}
		prog = progress.New(io.Err, tty, total, p.now)
	}

	rd := p.src.Reader(p.pol)
	defer rd.Close()
	in := st.Feed(rd, p.sel, p.stray)
	var cut replay.BudgetCut

	ropts := st.ReplayOptions()
	if prog != nil {
		ropts.ProgressInterval, ropts.Progress = prog.Interval(), prog.Replay(len(p.judges.List))
	}
	emit := func(r *replay.Result) error {
		if !p.sel.Reports(r.Tags) {
			return nil // replayed for its session's state, not reported
		}
		if o.Resuming != nil {
			o.Resuming.Count(r)
		}
		if st.Budget != nil && cut.Drop(r) {
			return nil // a budget stopped it: not finished work
		}
		if err := p.w.Write(r); err != nil {
			return err
		}
		to.Add(r)
		return nil
	}
	replayStart := time.Now()
	rstats, runErr := replay.Run(ctx, p.pol, in.Next, p.judges.List, ropts, emit)
	replayTime := time.Since(replayStart)
	prog.Done(rstats, time.Now())
	interrupted, err := runplan.Outcome(ctx, in, runErr)
	if err != nil {
		return replayed{}, usageError{err}
	}
	wi := p.w.Info()
	if n := st.Finish(wi, runplan.Replayed{Datasets: <-p.refs, Feed: in, Interrupted: interrupted, Time: replayTime}); n > 0 {
		fmt.Fprintf(io.Err, "apeval: --budget-usd: %d call(s) reported no token counts; each was counted at its estimate from the input's size, not as free\n", n)
	}
	if o.Resuming != nil {
		fmt.Fprintf(io.Err, "apeval: %s\n", o.Resuming.Message())
	}
	if err := p.w.Close(); err != nil {
		return replayed{}, err
	}
	p.committed = true
	return replayed{stats: rstats, interrupted: interrupted, invalid: in.Invalid.Count, firstInvalid: in.Invalid.First, dropped: cut.Dropped(), weak: in.Weak}, nil
}
