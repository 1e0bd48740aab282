package main

import (
	"fmt"
	stdio "io"

	"github.com/apeval/apeval/datasets/source"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/evaluation"
	"github.com/apeval/apeval/reports/rundir"
)

// The one evaluation pipeline is reports/evaluation: every command that
// gives a verdict — run, report, gate, merge, compare — turns results into
// figures, criteria and a verdict there. This file binds it to the reading
// commands' flags.

// openRuns reads each directory's run.json; their case lists get their
// tool arguments from the datasets run.json names (evaluation.DescribeFrom).
func openRuns(dirs []string) (*evaluation.RunSet, error) {
	rs, err := evaluation.Open(dirs)
	if err != nil {
		return nil, err
	}
	rs.Describe, rs.URLs = evaluation.DescribeFrom(source.URLs), source.URLs
	return rs, nil
}

// criteria resolves the kill criteria of a reading command
// (evaluation.RunSet.Criteria): --criteria or --policy replace the ones
// the runs recorded.
func (e *evalOptions) criteria(rs *evaluation.RunSet, errOut stdio.Writer) (replay.KillCriteria, string, error) {
	return rs.Criteria(e.Criteria, e.Policy, errOut)
}

// baseline is the run's --baseline, or the reading command's own.
func (e *evalOptions) baseline(rs *evaluation.RunSet) (string, error) {
	return rs.Baseline(e.Baseline)
}

// spec resolves everything a reading command's evaluation needs.
func (e *evalOptions) spec(rs *evaluation.RunSet, errOut stdio.Writer) (evaluation.Spec, error) {
	crit, from, err := e.criteria(rs, errOut)
	if err != nil {
		return evaluation.Spec{}, err
	}
	base, err := e.baseline(rs)
	if err != nil {
		return evaluation.Spec{}, err
	}
	lab, err := newLabelSink(e.Labels, rs.Infos[0].LabelSource)
	if err != nil {
		return evaluation.Spec{}, err
	}
	warnLabelsLeftOut(rs, e.Labels, errOut)
	return evaluation.Spec{Criteria: crit, CriteriaFrom: from, Baseline: base, Slices: e.By, Inconclusive: e.Inconclusive, Labels: lab}, nil
}

// finish is Evaluation.Finish with the report's exit code: the verdict's
// (ERROR, a broken judge setup, is 2), and 2 for a partial run (a budget
// stopped it).
func finish(ev *evaluation.Evaluation, run rundir.RunInfo) (*reports.Report, error) {
	rep, err := ev.Finish(run)
	if err != nil {
		return nil, err
	}
	rep.Exit = rep.RunExit()
	return rep, nil
}

// warnLabelsLeftOut warns, when a reading command has no --labels, about
// each run whose reports rested on labels (evaluation.RunSet.LabeledBefore):
// its figures and verdict would silently differ from the run's. With
// --labels it warns instead about a labels file whose queue was drawn
// from another dataset than a run's (evaluation.WarnLabelsDataset).
func warnLabelsLeftOut(rs *evaluation.RunSet, labels []string, errOut stdio.Writer) {
	if len(labels) > 0 {
		// Labels drawn from another dataset: said, never refused.
		ws, _ := evaluation.WarnLabelsDataset(labels, rs)
		for _, w := range ws {
			fmt.Fprintf(errOut, "apeval: warning: %s\n", w)
		}
		return
	}
	for _, d := range rs.LabeledBefore() {
		fmt.Fprintf(errOut, "apeval: warning: the reports of %s were made with --labels; a run directory does not keep them, "+
			"so these figures rest on the dataset's own labels and the verdict may differ: give the same --labels again\n", d)
	}
}
