package runplan

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/datasets/source"
	"github.com/apeval/apeval/internal/config"
	"github.com/apeval/apeval/internal/progress"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/evaluation"
	"github.com/apeval/apeval/reports/rundir"
)

// Env is what a run takes from the command besides its plan: the
// version run.json records, stdin (--dataset -), the judges' shared
// configuration (with the command's log and environment), the reader of
// --labels, and where notes go (one line each, the command prefixes and
// prints them).
type Env struct {
	Version string
	Stdin   io.Reader
	Judge   judge.Config
	// Labels reads --labels into the sample that weighs decisions.parquet
	// (nil, nil without --labels).
	Labels func() (*metrics.LabeledSample, error)
	Note   func(msg string)
	// MaxIDsInMemory is the dataset readers' (0: the datasets default).
	MaxIDsInMemory int
}

// Prepared is a run ready to replay (State.Prepare): its policy, dataset,
// judges and run directory, open. Close releases them.
type Prepared struct {
	State  *State
	Policy Policy
	Source *source.Source
	// Stats are the dataset's, when it was scanned for the recorded
	// judges' names; Selection the sessions --tag/--limit/--sample chose
	// (nil for all).
	Stats     *datasets.Stats
	Selection *datasets.Selection
	Judges    *Judges
	Baseline  string // the baseline's identity ("" for none)
	Labels    *metrics.LabeledSample
	Writer    *rundir.RunWriter

	env       Env
	refs      chan []rundir.FileRef // the datasets' hashes, computed beside the replay
	committed bool
}

func (env Env) note(format string, args ...any) {
	if env.Note != nil {
		env.Note(fmt.Sprintf(format, args...))
	}
}

// Prepare loads the policy and criteria, opens the dataset (scanning it
// first when the recorded judges' names are needed, selecting the
// sessions of --tag/--limit/--sample), opens the judges, checks them
// against --resume and --baseline, and creates the run directory with its
// run.json. On error it releases what it opened; otherwise the caller
// closes the result.
func (s *State) Prepare(ctx context.Context, env Env) (_ *Prepared, err error) {
	o := s.Plan
	p := &Prepared{State: s, env: env}
	defer func() {
		if err != nil {
			p.Close()
		}
	}()

	if p.Policy, err = o.LoadPolicy(); err != nil {
		return nil, err
	}
	if len(o.Datasets) == 0 && o.Config != "" && o.Options.Resume == "" {
		// A project file without datasets is not silently the sample.
		env.note("%s names no dataset (datasets = [\"cases.jsonl\"]) and no --dataset was given: evaluating the embedded sample dataset", o.Config)
	}
	if p.Source, err = source.Open(o.Datasets, env.Stdin); err != nil {
		return nil, err
	}
	p.Source.MaxIDsInMemory = env.MaxIDsInMemory
	p.Source.Done = ctx.Done()
	if o.ShardFrom != "" && !o.Quiet {
		env.note("--shard auto: shard %s from %s", o.Shard, o.ShardFrom)
	}

	entries, err := o.JudgeEntries()
	if err != nil {
		return nil, err
	}
	if NeedsRecordedNames(entries) {
		// One pass to learn the recorded judges' names; it also finds bad
		// lines before any judge is called.
		if p.Stats, err = p.Source.ScanStats(p.Policy.Policy, o.SkipInvalid); err != nil {
			return nil, err
		}
		given := len(entries) > 0
		if entries, err = ExpandRecorded(entries, p.Stats); err != nil {
			return nil, err
		}
		if !given && len(entries) == 1 && entries[0].Spec == "none" {
			// The default of a dataset without recordings (imported logs):
			// said, since its verdict is the judge-down one.
			env.note("no --judge given and the dataset holds no recorded judge: judging with none, as if the judge were down (each rule that needs it fails and its failure policy decides); name one with --judge, e.g. --judge ollama:MODEL (apeval judges check SPEC tries it)")
		}
	}
	if p.Stats == nil && !o.SkipInvalid && anyLive(entries) {
		// Every line is checked before the first judge call: a bad line
		// late in the input would otherwise stop the run after the calls
		// for the lines before it were paid for (and, with --no-cache,
		// lost). One more streaming pass over the input; stdin is spooled
		// to a temporary file to be read again (so a run on stdin starts
		// calling at its end). --skip-invalid skips the pass: bad lines do
		// not stop that run.
		if p.Stats, err = p.Source.ScanStats(p.Policy.Policy, false); err != nil {
			return nil, err
		}
	}
	if p.Selection, err = p.selectSessions(); err != nil {
		return nil, err
	}

	if p.Judges, err = s.OpenJudges(ctx, entries, env.Judge, func(w string) { env.note("cache: %s", w) }); err != nil {
		return nil, err
	}
	ids := p.Judges.IDs()
	if err := o.CheckResumed(ids); err != nil {
		return nil, err
	}
	if p.Baseline, err = o.ResolveBaseline(ids); err != nil {
		return nil, err
	}

	// Hashing the datasets for run.json reads them once more: it runs beside
	// the replay instead of before it (run.json is written by Writer.Close).
	p.refs = make(chan []rundir.FileRef, 1)
	go func(src *source.Source) { p.refs <- src.Refs() }(p.Source)
	info := s.Info(Run{Version: env.Version, Policy: p.Policy.Ref, Criteria: p.Policy.Criteria, CriteriaFrom: p.Policy.CriteriaFrom,
		Baseline: p.Baseline, Entries: entries, Judges: p.Judges.Infos()})
	if env.Labels != nil {
		if p.Labels, err = env.Labels(); err != nil {
			return nil, err
		}
	}
	if p.Writer, err = rundir.CreateRunWeighted(s.Out, info, labelWeights(p.Labels)); err != nil {
		return nil, err
	}
	return p, nil
}

// anyLive reports whether a judge of entries calls a server or a plugin
// (judge.Backend.Live): its calls cost, and are lost without a cache when
// the run stops.
func anyLive(entries []config.JudgeEntry) bool {
	for _, e := range entries {
		name, _, _ := strings.Cut(e.Spec, ":")
		if b, ok := judge.Lookup(name); !ok || b.Live {
			return true
		}
	}
	return false
}

// selectSessions reads the dataset once (session IDs and tags only) and
// picks the sessions of this shard to replay (datasets.SessionFilter.Select);
// nil without --tag, --limit and --sample.
func (p *Prepared) selectSessions() (*datasets.Selection, error) {
	o := p.State.Plan
	sf := o.Filter.Sessions()
	if !sf.Active() {
		return nil, nil
	}
	if err := p.Source.SpoolStdin(); err != nil {
		return nil, err
	}
	r := p.Source.Reader(p.Policy.Policy)
	defer r.Close()
	return sf.Select(r, o.ShardOf.Owns)
}

// labelWeights gives decisions.parquet its label weights; nil without
// --labels (the files stay as they were).
func labelWeights(l *metrics.LabeledSample) func(caseID, ruleID, label string) rundir.LabelWeight {
	if l == nil {
		return nil
	}
	w := l.Weights()
	return func(caseID, ruleID, label string) rundir.LabelWeight {
		v, x := w(caseID, ruleID, label)
		return rundir.LabelWeight{SampleLabel: v, Weight: x}
	}
}

// Close aborts an uncommitted run directory (removing it when this run
// created it), then closes the judges and the dataset, in the reverse
// order of opening. The run directory stays locked until Close: every
// report is written before it.
func (p *Prepared) Close() {
	if p.Writer != nil {
		if !p.committed {
			p.Writer.Abort()
		}
		p.Writer.Release()
	}
	p.Judges.Close()
	if p.Source != nil {
		p.Source.Cleanup()
	}
}

// Total is the number of cases the progress line counts toward (0 when
// unknown): the selected sessions' cases, tagged or not; else the cases
// the scan for recorded judges counted; else, unsharded, the dataset's
// estimate.
func (p *Prepared) Total() int64 {
	switch {
	case p.Selection != nil:
		return p.Selection.Cases
	case p.Stats != nil && p.State.Plan.ShardOf.Count <= 1:
		return int64(p.Stats.Cases)
	case p.State.Plan.ShardOf.Count <= 1:
		return p.Source.ApproxCases()
	}
	return 0
}

// Replayed is what a replay did (Prepared.Replay).
type Replayed struct {
	Stats replay.RunStats
	// Dropped are the cases left out (for a judge, or all) because a
	// budget stopped their calls; Interrupted: the run was cancelled.
	Dropped     int64
	Interrupted bool
	// Invalid are the lines --skip-invalid skipped, FirstInvalid the first.
	Invalid      int64
	FirstInvalid error
	Weak         *datasets.WeakSwap // --weak-labels: what the swap counted
}

// Replay replays the dataset through every judge: each result the run
// reports (the selection's; not one a budget stopped) is written to the
// run directory and handed to sink; prog (nil for none) shows the way.
// Then it completes run.json (State.Finish) and commits the run directory.
// A bad input line without --skip-invalid, a dataset without a valid case
// or a session out of seq order fails the run before anything is reported
// (Outcome).
func (p *Prepared) Replay(ctx context.Context, sink func(*replay.Result), prog *progress.Printer) (Replayed, error) {
	s := p.State
	o := s.Plan
	rd := p.Source.Reader(p.Policy.Policy)
	defer rd.Close()
	in := s.Feed(rd, p.Selection, p.Policy.Stray)
	var cut replay.BudgetCut
	var skipped int64 // cases cut counted, told to prog

	ropts := s.ReplayOptions()
	if prog != nil {
		ropts.ProgressInterval, ropts.Progress = prog.Interval(), prog.Replay(len(p.Judges.List))
	}
	emit := func(r *replay.Result) error {
		if !p.Selection.Reports(r.Tags) {
			return nil // replayed for its session's state, not reported
		}
		if o.Resuming != nil {
			o.Resuming.Count(r)
		}
		if s.Budget != nil && cut.Drop(r) {
			if n := cut.DroppedCases(); n > skipped {
				skipped = n
				prog.Skip()
			}
			return nil // a budget stopped it: not finished work
		}
		if err := p.Writer.Write(r); err != nil {
			return err
		}
		sink(r)
		return nil
	}
	start := time.Now()
	stats, runErr := replay.Run(ctx, p.Policy.Policy, in.Next, p.Judges.List, ropts, emit)
	took := time.Since(start)
	prog.Done(stats, time.Now())
	interrupted, err := Outcome(ctx, in, runErr)
	if err != nil {
		if in.Err() == nil && in.Valid == 0 && len(o.Datasets) > 0 {
			// Nothing to evaluate: say which files held nothing.
			err = fmt.Errorf("%s: %w", strings.Join(o.Datasets, ", "), err)
		}
		return Replayed{}, err
	}
	if n := s.Finish(p.Writer.Info(), Counted{Datasets: <-p.refs, Feed: in, Interrupted: interrupted, Time: took}); n > 0 {
		p.env.note("--budget-usd: %d call(s) reported no token counts; each was counted at its estimate from the input's size, not as free", n)
	}
	if o.Resuming != nil {
		p.env.note("%s", o.Resuming.Message())
	}
	if err := p.Writer.Close(); err != nil {
		return Replayed{}, err
	}
	p.committed = true
	return Replayed{Stats: stats, Interrupted: interrupted, Invalid: in.Invalid.Count, FirstInvalid: in.Invalid.First, Dropped: cut.DroppedCases(), Weak: in.Weak}, nil
}

// Evaluation is the evaluation of the run's results (reports/evaluation):
// the criteria and where they came from, the baseline, --by's slices,
// --labels' sample, the policy's rules (one that never fired is listed);
// the cases are numbered as they come, since replay emits a case's results
// together and the dataset reader rejects duplicate IDs.
func (p *Prepared) Evaluation() *evaluation.Evaluation {
	o := p.State.Plan
	return evaluation.New(evaluation.Spec{Criteria: p.Policy.Criteria, CriteriaFrom: p.Policy.CriteriaFrom, Baseline: p.Baseline,
		Slices: o.By, DistinctCases: true, Inconclusive: o.Inconclusive, PolicyRules: p.Policy.RuleIDs(), Labels: p.Labels})
}

// Notes are what the run says once replayed, in order: what --weak-labels
// swapped, the lines --skip-invalid skipped (the first one masked), and
// the labels naming no rule of the policy (Warning).
func (p *Prepared) Notes(r Replayed) []string {
	var notes []string
	if r.Weak != nil {
		notes = append(notes, r.Weak.Message())
	}
	if r.Invalid > 0 {
		notes = append(notes, fmt.Sprintf("skipped %d invalid line(s) (--skip-invalid); the first: %s", r.Invalid, datasets.MaskedLineText(r.FirstInvalid)))
	}
	if w := p.Warning(); w != "" {
		notes = append(notes, "warning: "+w)
	}
	return notes
}

// Warning is the run's warning about labels naming no rule of the policy
// ("" when none); summary.json and summary.md carry it too.
func (p *Prepared) Warning() string { return p.Policy.Stray.Message() }

// Stopped says, when a budget stopped the run (run.json's partial, which
// names the budget), how many finished cases dir holds, how many were left
// out and how to continue; "" when no budget stopped it.
func (p *Prepared) Stopped(r Replayed, dir string) string {
	reason := p.Writer.Info().Partial
	if reason == "" {
		return ""
	}
	return fmt.Sprintf("stopped: %s; the %d finished cases are in %s, marked partial (%d left out: their calls were not sent); rerun with the same cache to continue where it stopped",
		reason, r.Stats.Cases-r.Dropped, dir, r.Dropped)
}
