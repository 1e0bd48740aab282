package main

import (
	"fmt"
	stdio "io"
	"os"
	"path/filepath"
	"sync"

	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
)

// The one evaluation pipeline. Every command that gives a verdict — run,
// report, gate, merge, compare — turns results into figures, criteria and
// a verdict here and nowhere else, so the same evidence gives the same
// verdict on every path (docs/statistics.md, "One verdict"):
//
//	ev := newEvaluation(spec)      // spec: criteria, baseline, slices, --inconclusive
//	for each result: ev.Add(r)     // run: as replayed; readers: runSet.evaluate
//	rep, err := ev.finish(runInfo) // err: the figures' data failed (exit 2), never a verdict
//
// The reading commands start from run directories: openRuns reads their
// run.json, runSet.criteria resolves the kill criteria (the recorded ones
// unless --criteria/--policy replace them), runSet.evaluate feeds every
// decision file through one evaluation. A new reading option (a label
// file, a filter) plugs in as a field of evalSpec or as the each hook of
// runSet.evaluate; it never needs its own accumulator.

// evalSpec is what an evaluation needs besides the results.
type evalSpec struct {
	Criteria replay.KillCriteria
	// CriteriaFrom names where the criteria came from (policy.toml,
	// strict.toml (--criteria)); recorded in run.json.
	CriteriaFrom string
	Baseline     string
	Slices       []string
	// DistinctCases: each case's results arrive together (run).
	DistinctCases bool
	// CheckDistinct: the results are expected to come case by case, each
	// case once (one flat run, shards): the accumulator numbers cases as
	// they come and checks it exactly; runSet.evaluate reads the results
	// again for an accumulator keeping every case ID when the check fails.
	CheckDistinct bool
	// PairedStreams: with CheckDistinct, the two directories are two runs of
	// the same cases (compare): each numbered as it comes and checked
	// against the other (metrics.Config.PairedStreams).
	PairedStreams bool
	Inconclusive  string
	// PolicyRules: the policy's rule IDs, when the command has the policy
	// (a rule never in scope is listed, not dropped).
	PolicyRules []string
	// Labels are the --labels files (nil without): the figures are then
	// weighted by the labeling design (metrics.LabeledSample).
	Labels *metrics.LabeledSample
}

// evaluation is one pass of the pipeline: every sink a report needs, fed
// with the same results.
type evaluation struct {
	spec     evalSpec
	acc      *metrics.Accumulator
	gates    *reports.GateSummary
	toks     reports.Tokens
	failures *reports.Failures
	listed   *reports.CaseLists
}

func newEvaluation(spec evalSpec) *evaluation {
	return &evaluation{
		spec: spec,
		acc: metrics.New(metrics.Config{Criteria: spec.Criteria, Baseline: spec.Baseline, Slices: spec.Slices, DistinctCases: spec.DistinctCases,
			CheckDistinct: spec.CheckDistinct, PairedStreams: spec.PairedStreams, PolicyRules: spec.PolicyRules}),
		gates:    reports.NewGateSummary(),
		toks:     reports.Tokens{},
		failures: reports.NewFailures(),
		listed:   reports.NewCaseLists(),
	}
}

// Add hands one result to every sink.
func (ev *evaluation) Add(r *replay.Result) { ev.addFrom(0, r) }

// addFrom is Add for a result of the i-th run directory.
func (ev *evaluation) addFrom(i int, r *replay.Result) {
	if ev.spec.PairedStreams {
		ev.acc.AddFrom(i, r)
	} else {
		ev.acc.Add(r)
	}
	ev.gates.Add(r)
	ev.toks.Add(r)
	ev.failures.Add(r)
	ev.listed.Add(r)
	if ev.spec.Labels != nil {
		ev.spec.Labels.Add(r)
	}
}

// finish computes the summary and the verdict. Data the figures need that
// could not be read back (a spill file) is an error, exit 2: the command
// never prints a verdict on figures with a hole. The report's Exit is the
// verdict's exit code (ERROR, a broken judge setup, is 2).
func (ev *evaluation) finish(run reports.RunInfo) (*reports.Report, error) {
	sum := ev.acc.Close()
	if err := sum.Err(); err != nil {
		_ = sum.Release()
		return nil, fmt.Errorf("metrics: the figures' per-case data could not be read back, so no verdict is given: %w", err)
	}
	if ev.spec.Labels != nil {
		if err := ev.spec.Labels.Apply(sum); err != nil {
			_ = sum.Release()
			return nil, usageError{err}
		}
	}
	t := metrics.ThresholdsOf(ev.spec.Criteria)
	run.Criteria, run.CriteriaFrom = &t, ev.spec.CriteriaFrom
	rep := &reports.Report{Run: run, Summary: sum, Tokens: ev.toks, Inconclusive: ev.spec.Inconclusive,
		Failures: ev.failures.SummaryOf(sum), Cases: ev.listed, Gates: ev.gates}
	rep.Exit = runExit(rep) // a partial run (a budget stopped it) is 2 too
	return rep, nil
}

// checkSummary is the pipeline's last word after a command read the summary
// further (comparisons, reports): a spill read that failed there is exit 2
// too.
func checkSummary(sum *metrics.Summary) error {
	if err := sum.Err(); err != nil {
		return fmt.Errorf("metrics: the figures' per-case data could not be read back, so no verdict is given: %w", err)
	}
	return nil
}

// runSet is the run directories a reading command evaluates.
type runSet struct {
	dirs  []string
	infos []reports.RunInfo
}

// openRuns reads each directory's run.json.
func openRuns(dirs []string) (*runSet, error) {
	rs := &runSet{dirs: dirs}
	for _, d := range dirs {
		info, err := reports.ReadRunInfo(d)
		if err != nil {
			return nil, runDirError(d, err)
		}
		rs.infos = append(rs.infos, info)
	}
	if _, err := reports.LabelSource(dirs, rs.infos); err != nil {
		return nil, usageError{err}
	}
	return rs, nil
}

// criteria resolves the kill criteria of a reading command. --criteria or
// --policy replace the criteria the runs recorded, and the command says so
// on errOut. Otherwise every run directory's run.json must record the same
// criteria (a difference is named, exit 2). A run directory written before
// run.json recorded them falls back to its summary.json's thresholds, then
// to the defaults, and says which.
func (e *evalOptions) criteria(rs *runSet, errOut stdio.Writer) (replay.KillCriteria, string, error) {
	recorded := rs.infos[0].Criteria
	for i := 1; i < len(rs.infos); i++ {
		if d := reports.CriteriaDiff(recorded, rs.infos[i].Criteria); d != "" && e.Criteria == "" && e.Policy == "" {
			return replay.KillCriteria{}, "", usagef("%s and %s were made with different kill criteria (%s); pass --criteria FILE or --policy FILE to choose one set",
				rs.dirs[0], rs.dirs[i], d)
		}
	}
	switch {
	case e.Criteria != "":
		data, err := os.ReadFile(e.Criteria)
		if err != nil {
			return replay.KillCriteria{}, "", usageError{err}
		}
		c, err := replay.ParseCriteria(data, e.Criteria)
		if err != nil {
			return replay.KillCriteria{}, "", usageError{err}
		}
		from := e.Criteria + " (--criteria)"
		replacing(errOut, rs, from, c)
		return c, from, nil
	case e.Policy != "":
		p, _, err := loadPolicy(e.Policy)
		if err != nil {
			return replay.KillCriteria{}, "", err
		}
		from := e.Policy + " (--policy)"
		replacing(errOut, rs, from, p.KillCriteria)
		return p.KillCriteria, from, nil
	case recorded != nil:
		return recorded.KillCriteria(), rs.infos[0].CriteriaFrom, nil
	}
	if c, ok := criteriaFromSummary(filepath.Join(rs.dirs[0], reports.SummaryJSON)); ok {
		fmt.Fprintf(errOut, "apeval: %s: run.json records no kill criteria (written by apeval %s); using the thresholds of its summary.json\n", rs.dirs[0], rs.infos[0].Version)
		return c, reports.SummaryJSON + " of " + rs.dirs[0], nil
	}
	fmt.Fprintf(errOut, "apeval: %s: run.json records no kill criteria (written by apeval %s); using the defaults (pass --policy or --criteria to choose)\n", rs.dirs[0], rs.infos[0].Version)
	return replay.DefaultKillCriteria(), "defaults", nil
}

// replacing says that a reading command's --criteria/--policy replace the
// criteria the run was made with, naming what changed.
func replacing(errOut stdio.Writer, rs *runSet, from string, c replay.KillCriteria) {
	rec := rs.infos[0].Criteria
	if rec == nil {
		fmt.Fprintf(errOut, "apeval: kill criteria from %s (%s records none)\n", from, rs.dirs[0])
		return
	}
	t := metrics.ThresholdsOf(c)
	d := reports.CriteriaDiff(rec, &t)
	if d == "" {
		d = "the same values"
	}
	fmt.Fprintf(errOut, "apeval: kill criteria from %s replace the ones %s was made with (%s): %s\n", from, rs.dirs[0], rs.infos[0].CriteriaFrom, d)
}

// baseline is the run's --baseline, or the reading command's own.
func (e *evalOptions) baseline(rs *runSet) (string, error) {
	if e.Baseline == "" {
		return rs.infos[0].Baseline, nil
	}
	var ids []string
	for _, in := range rs.infos {
		for _, j := range in.Judges {
			ids = append(ids, j.Identity)
		}
	}
	return matchJudgeName("--baseline", e.Baseline, ids)
}

// spec resolves everything a reading command's evaluation needs.
func (e *evalOptions) spec(rs *runSet, errOut stdio.Writer) (evalSpec, error) {
	crit, from, err := e.criteria(rs, errOut)
	if err != nil {
		return evalSpec{}, err
	}
	base, err := e.baseline(rs)
	if err != nil {
		return evalSpec{}, err
	}
	lab, err := newLabelSink(e.Labels, rs.infos[0].LabelSource)
	if err != nil {
		return evalSpec{}, err
	}
	return evalSpec{Criteria: crit, CriteriaFrom: from, Baseline: base, Slices: e.By, Inconclusive: e.Inconclusive, Labels: lab}, nil
}

// evaluate reads every run directory's decision files through one
// evaluation. each, when set, sees every result first (i is the
// directory's index): merge writes it, compare renames and picks judges;
// keep=false leaves the result out. parallel decodes the directories at
// once (results still reach the evaluation one at a time; no figure
// depends on their order). With spec.CheckDistinct, when the results did
// not come case by case, each case once, the files are read a second time
// for the metrics alone (each sees them again with again set: it must not
// write them twice), by an accumulator keeping every case ID.
func (rs *runSet) evaluate(spec evalSpec, parallel bool, each func(i int, r *replay.Result, again bool) (keep bool, err error)) (*evaluation, error) {
	ev := newEvaluation(spec)
	add := ev.addFrom
	again := false
	var mu sync.Mutex
	read := func(i int) error {
		d := rs.dirs[i]
		_, err := reports.ReadRun(d, func(r *replay.Result) error {
			if parallel {
				mu.Lock()
				defer mu.Unlock()
			}
			if each != nil {
				keep, err := each(i, r, again)
				if err != nil || !keep {
					return err
				}
			}
			add(i, r)
			return nil
		})
		if err != nil {
			return runDirError(d, err)
		}
		return nil
	}
	readAll := func() error {
		if !parallel {
			for i := range rs.dirs {
				if err := read(i); err != nil {
					return err
				}
			}
			return nil
		}
		errs := make([]error, len(rs.dirs))
		var wg sync.WaitGroup
		for i := range rs.dirs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = read(i)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
		return nil
	}
	if err := readAll(); err != nil {
		return nil, err
	}
	for _, in := range rs.infos {
		describeFromRunInfo(ev.listed, in)
	}
	if ok, _ := ev.acc.Distinct(); ok {
		return ev, nil
	}
	// A case came back (or the check could not write its file): count
	// again, keeping every case ID.
	_ = ev.acc.Discard()
	spec.CheckDistinct, spec.PairedStreams = false, false
	ev.acc = newEvaluation(spec).acc
	add = func(_ int, r *replay.Result) { ev.acc.Add(r) }
	again = true
	if err := readAll(); err != nil {
		return nil, err
	}
	return ev, nil
}
