package main

import (
	"context"
	"fmt"
	stdio "io"
	"os"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/internal/objstore"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/evaluation"
	"github.com/apeval/apeval/reports/rundir"
)

// evalOptions are the flags shared by report and gate: where the criteria and
// the baseline come from when recomputing a verdict from decision files.
type evalOptions struct {
	Criteria     string
	Policy       string
	Baseline     string
	Inconclusive string
	Format       string
	JSON         bool
	By           []string
	Labels       []string
}

// registerBy adds --by (per-slice metrics) to a command.
func (e *evalOptions) registerBy(cmd *cobra.Command) {
	byVar(cmd.Flags(), &e.By)
}

func (e *evalOptions) register(cmd *cobra.Command, withFormat bool) {
	f := cmd.Flags()
	f.StringVar(&e.Criteria, "criteria", "", "kill-criteria file (TOML); replaces the criteria the run recorded in run.json (default: those), and the output says so")
	f.StringVar(&e.Policy, "policy", "", "take the kill criteria from this policy file's [kill_criteria] instead of the run's")
	f.StringVar(&e.Baseline, "baseline", "", "baseline judge for fire_rate_change_max (default: the run's --baseline)")
	inconclusiveVar(f, &e.Inconclusive)
	registerLabels(f, &e.Labels)
	if withFormat {
		formatVar(f, &e.Format, "terminal output: table, tsv, csv, markdown or json (default: table on a terminal, tsv when piped)")
		f.BoolVar(&e.JSON, "json", false, "print summary.json to stdout (same as --format json)")
	}
}

func (e *evalOptions) validate() error {
	if e.Criteria != "" && e.Policy != "" {
		return usagef("--criteria and --policy exclude each other")
	}
	if e.JSON {
		e.Format = "json"
	}
	if err := parseFormat(e.Format); err != nil {
		return err
	}
	if err := metrics.CheckSlices(e.By); err != nil {
		return usagef("--by: %v", err)
	}
	if err := checkLabels(e.Labels, e.By); err != nil {
		return err
	}
	return checkInconclusive(e.Inconclusive)
}

// evaluateDirs is the pipeline of report and gate: the run directories'
// decision files and run.json, with the command's overrides, give one
// Report (see evaluate.go).
func (e *evalOptions) evaluateDirs(dirs []string, errOut stdio.Writer) (*reports.Report, error) {
	rs, err := openRuns(dirs)
	if err != nil {
		return nil, err
	}
	spec, err := e.spec(rs, errOut)
	if err != nil {
		return nil, err
	}
	return rs.Report(spec)
}

// reportOptions are the options of `apeval report`.
type reportOptions struct {
	evalOptions
	Out  string
	Dirs []string // the run directories (arguments)
}

// newReportCmd is `apeval report`; its RunE resolves the options and hands
// them to runF (runReport unless a test passes its own).
func newReportCmd(io IO, runF func(context.Context, *reportOptions, IO) error) *cobra.Command {
	if runF == nil {
		runF = runReport
	}
	o := &reportOptions{}
	cmd := &cobra.Command{
		Use:   "report DIR...",
		Short: "Recompute metrics, the verdict and every report from decision files",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.resolve(cmd, args); err != nil {
				return err
			}
			return runF(cmd.Context(), o, io)
		},
	}
	o.register(cmd, true)
	o.registerBy(cmd)
	cmd.Flags().StringVarP(&o.Out, "out", "o", "", "directory for the reports (default: the run directory itself)")
	return cmd
}

// resolve completes report's parsed flags with apeval.toml and checks them
// with the arguments; it reads no run directory.
func (o *reportOptions) resolve(cmd *cobra.Command, args []string) error {
	if err := o.applyConfig(cmd); err != nil {
		return err
	}
	if len(args) == 0 {
		return usagef("report needs at least one run directory")
	}
	if err := fileAmongRuns(args); err != nil {
		return err
	}
	if len(args) > 1 && o.Out == "" {
		return usagef("report of several directories needs --out")
	}
	o.Dirs = args
	return o.validate()
}

// runReport is `apeval report` with resolved options.
func runReport(ctx context.Context, o *reportOptions, io IO) error {
	if o.Out == "" && objstore.IsURL(o.Dirs[0]) {
		return usagef("report of a bucket prefix needs --out DIR (the reports are written to a local directory)")
	}
	dirs, done, err := fetchRunDirs(ctx, o.Dirs)
	if err != nil {
		return err
	}
	defer done()
	rep, err := o.evaluateDirs(dirs, io.Err)
	if err != nil {
		return err
	}
	if rep.Simulation, err = reports.ReadSimulateJSON(dirs[0]); err != nil {
		return err
	}
	dir := o.Out
	if dir == "" {
		dir = dirs[0]
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return usageError{err}
	}
	if err := writeRunReports(dir, rep, o.Format, io, nil); err != nil {
		return err
	}
	return verdictDone(rep, io)
}

// gateOptions are the options of `apeval gate`.
type gateOptions struct {
	evalOptions
	Dir string // the run directory (the argument)
	// Sequential: decide over the history of run directories (Dirs) with
	// confidence sequences (runSequentialGate); JSON prints its standing
	// as JSON.
	Sequential bool
	Dirs       []string
}

// newGateCmd is `apeval gate`; its RunE resolves the options and hands
// them to runF (runGate unless a test passes its own).
func newGateCmd(io IO, runF func(context.Context, *gateOptions, IO) error) *cobra.Command {
	if runF == nil {
		runF = runGate
	}
	o := &gateOptions{}
	cmd := &cobra.Command{
		Use:   "gate DIR | gate --sequential RUN... | gate --sequential DIR-OF-RUNS",
		Short: "Print a run's verdict, and why, and exit with its code (0 GO, 1 NO-GO, 3 INCONCLUSIVE)",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.applyConfig(cmd); err != nil {
				return err
			}
			if o.Sequential {
				if len(args) == 0 {
					return usagef("gate --sequential needs run directories in order (or one directory of them)")
				}
				if len(o.Labels) > 0 {
					return usagef("--labels does not go with --sequential: figures from a labeled sample are weighted, not a mean over sessions (the labeling page shows the sequential standing of labels)")
				}
				o.Dirs = args
				if err := o.validate(); err != nil {
					return err
				}
				return runF(cmd.Context(), o, io)
			}
			if o.JSON {
				return usagef("--json needs --sequential (apeval report --json prints a run's summary.json)")
			}
			if o.Format != "" {
				return usagef("--format needs --sequential (apeval report --format prints a run's tables)")
			}
			if len(args) != 1 {
				if err := fileAmongRuns(args); err != nil {
					return err
				}
				return usagef("gate takes exactly one run directory (or several with --sequential)")
			}
			o.Dir = args[0]
			if err := o.validate(); err != nil {
				return err
			}
			return runF(cmd.Context(), o, io)
		},
	}
	o.register(cmd, false)
	cmd.Flags().BoolVar(&o.Sequential, "sequential", false, "decide over the history of run directories with anytime-valid confidence sequences (sessions the unit): stop as soon as the evidence allows")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "with --sequential: print the standing as JSON (same as --format json)")
	formatVar(cmd.Flags(), &o.Format, "with --sequential: table, tsv, csv, markdown or json (default: table, also when piped)")
	return cmd
}

// runGate is `apeval gate` with resolved options.
func runGate(ctx context.Context, o *gateOptions, io IO) error {
	if o.Sequential {
		return runSequentialGate(ctx, o, io)
	}
	dirs, done, err := fetchRunDirs(ctx, []string{o.Dir})
	if err != nil {
		return err
	}
	defer done()
	rep, err := o.evaluateDirs(dirs, io.Err)
	if err != nil {
		return err
	}
	defer func() { _ = rep.Summary.Release() }()
	// Every judge's verdict, and why each that is not GO is not: its
	// broken setup, failing and open criteria (reports.Explain).
	if err := rep.WriteGate(io.Out, io.Err); err != nil {
		return err
	}
	return verdictDone(rep, io)
}

// writeRunReports writes every report file of a run directory
// (evaluation.WriteReports: run is the run's writer when they complete a
// run) and prints the terminal tables.
func writeRunReports(dir string, rep *reports.Report, format string, io IO, run *rundir.RunWriter) error {
	if err := evaluation.WriteReports(dir, rep, run); err != nil {
		return err
	}
	f := outputFormat(format, io.Out)
	rep.Color = useColor(io.Out, io)
	rep.Width = termWidth(io.Out, io)
	if err := rep.WriteTerminal(io.Out, io.Err, f, dir); err != nil {
		return err
	}
	// The reports read per-case data back too (comparisons, slices).
	return evaluation.Check(rep.Summary)
}

// verdictDone ends a verdict-giving command: it says on stderr when the
// exit code is not the verdict's plain one (--inconclusive mapped it, or a
// broken judge setup left no verdict) and returns the exit code.
func verdictDone(rep *reports.Report, io IO) error {
	if n := rep.ExitNote(); n != "" {
		fmt.Fprintf(io.Err, "apeval: %s\n", n)
	}
	return exitCodeError{rep.Exit}
}

// fileAmongRuns refuses a local file given where run directories go,
// saying what it likely is: `--labels a.jsonl b.jsonl` makes b.jsonl a
// run directory (the labels flag takes one file each time).
func fileAmongRuns(args []string) error {
	for _, a := range args {
		if st, err := os.Stat(a); err == nil && !st.IsDir() {
			return usageError{evaluation.DirError(a, nil)}
		}
	}
	return nil
}
