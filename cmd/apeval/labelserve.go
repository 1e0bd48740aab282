package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/trunc"
	"github.com/apeval/apeval/reports/evaluation"
	"github.com/apeval/apeval/reports/labelpage"
)

type labelServeOptions struct {
	Run      string
	Labeler  string
	Labels   string
	Addr     string
	Part     string
	Datasets []string
	Policy   string
	Queue    string // the queue file (the argument)
}

// newLabelServeCmd is `apeval label serve`; runF is runLabelServe unless a
// test passes its own.
func newLabelServeCmd(io IO, runF func(context.Context, *labelServeOptions, IO) error) *cobra.Command {
	if runF == nil {
		runF = runLabelServe
	}
	o := &labelServeOptions{}
	cmd := &cobra.Command{
		Use:   "serve QUEUE",
		Short: "Serve the labeling page of a queue on loopback",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("label serve takes one queue file")
			}
			if o.Run == "" {
				return usagef("label serve needs --run RUNDIR (the run the queue was drawn from)")
			}
			if strings.TrimSpace(o.Labeler) == "" {
				return usagef("label serve needs --labeler NAME")
			}
			if _, _, err := labelpage.ParsePart(o.Part); err != nil {
				return usageError{err}
			}
			// Before anything is read or created (the labels file).
			if err := labelpage.CheckAddr(o.Addr); err != nil {
				return usageError{err}
			}
			o.Queue = args[0]
			return runF(cmd.Context(), o, io)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Run, "run", "", "run directory the queue was drawn from (required)")
	f.StringVar(&o.Labeler, "labeler", "", "your name, written on every label (required)")
	f.StringVar(&o.Labels, "labels", "", "labels file to append to (default labels-NAME.jsonl)")
	f.StringVar(&o.Addr, "addr", "127.0.0.1:0", "loopback address to listen on (port 0 picks a free one)")
	f.StringVar(&o.Part, "part", "1/1", "K/N: label the items whose order is K modulo N, plus the overlap items")
	f.StringArrayVarP(&o.Datasets, "dataset", "d", nil, "dataset file the run replayed (repeatable; default the files run.json names)")
	f.StringVarP(&o.Policy, "policy", "p", "", "policy file (default the policy run.json names)")
	return cmd
}

// runLabelServe is `apeval label serve` with checked options.
func runLabelServe(ctx context.Context, o *labelServeOptions, io IO) error {
	queuePath := o.Queue
	queue, err := datasets.ReadSampleLabels([]string{queuePath}, true)
	if err != nil {
		return usageError{err}
	}
	k, n, _ := labelpage.ParsePart(o.Part)
	mine := labelpage.Part(queue, k, n)
	pairs, info, err := evaluation.ReadPairs(o.Run, nil, nil)
	if err != nil {
		return err
	}
	paths, polPath := labelpage.RunSources(info, o.Datasets, o.Policy)
	pol, _, err := loadPolicy(polPath)
	if err != nil {
		return err
	}
	src, err := openSource(paths, nil)
	if err != nil {
		return err
	}
	defer src.Cleanup()
	items, missing, err := labelpage.Items(mine, src.Reader(pol), pol)
	if err != nil {
		return usageError{err}
	}
	if len(missing) > 0 {
		return usagef("%d queued pair(s) not found in the dataset or policy (give the files the run replayed with --dataset/--policy): %s", len(missing), trunc.List(missing, 20))
	}

	out := labelpage.LabelsFile(o.Labels, o.Labeler)
	app, existing, err := labelpage.OpenLabels(out)
	if err != nil {
		return usageError{err}
	}
	defer app.Close()
	srv, err := labelpage.New(labelpage.Config{Items: items, Labeler: strings.TrimSpace(o.Labeler), Appender: app,
		Existing: existing, Pairs: pairs, Criteria: pol.KillCriteria})
	if err != nil {
		return err
	}
	ln, err := labelpage.Listen(o.Addr)
	if err != nil {
		return usageError{err}
	}
	fmt.Fprintf(io.Out, "%s\n", srv.URL(ln))
	fmt.Fprintf(io.Err, "labeling page for %s: %d items (part %s), %s; labels go to %s; Ctrl-C stops\n",
		o.Labeler, len(items), o.Part, srv.Summary(), out)
	if err := srv.Serve(ctx, ln); err != nil || ctx.Err() == nil {
		return err
	}
	fmt.Fprintln(io.Err, srv.Summary())
	return nil
}
