package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/internal/objstore"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
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
	cmd.Flags().StringArrayVar(&e.By, "by", nil, "add per-slice metrics: tag, tool or category (repeatable)")
}

func (e *evalOptions) register(cmd *cobra.Command, withFormat bool) {
	f := cmd.Flags()
	f.StringVar(&e.Criteria, "criteria", "", "kill-criteria file (TOML); default: the run's summary.json thresholds, else the seed's defaults")
	f.StringVar(&e.Policy, "policy", "", "take the kill criteria from this policy file's [kill_criteria]")
	f.StringVar(&e.Baseline, "baseline", "", "baseline judge for fire_rate_change_max (default: the run's --baseline)")
	f.StringVar(&e.Inconclusive, "inconclusive", "", "map an INCONCLUSIVE verdict's exit code: pass (0) or fail (1); default 3")
	registerLabels(f, &e.Labels)
	if withFormat {
		f.StringVar(&e.Format, "format", "", "terminal output: table, tsv, markdown or json (default: table on a terminal, tsv when piped)")
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

// criteria resolves the kill criteria for recomputing the run in dir.
func (e *evalOptions) criteria(dir string) (replay.KillCriteria, error) {
	switch {
	case e.Criteria != "":
		data, err := os.ReadFile(e.Criteria)
		if err != nil {
			return replay.KillCriteria{}, usageError{err}
		}
		c, err := replay.ParseCriteria(data, e.Criteria)
		if err != nil {
			return replay.KillCriteria{}, usageError{err}
		}
		return c, nil
	case e.Policy != "":
		p, _, err := loadPolicy(e.Policy)
		if err != nil {
			return replay.KillCriteria{}, err
		}
		return p.KillCriteria, nil
	}
	if c, ok := criteriaFromSummary(filepath.Join(dir, reports.SummaryJSON)); ok {
		return c, nil
	}
	return replay.DefaultKillCriteria(), nil
}

// criteriaFromSummary reads the thresholds a previous report used.
func criteriaFromSummary(path string) (replay.KillCriteria, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return replay.KillCriteria{}, false
	}
	var s struct {
		Thresholds *metrics.Thresholds `json:"thresholds"`
	}
	if json.Unmarshal(data, &s) != nil || s.Thresholds == nil {
		return replay.KillCriteria{}, false
	}
	t := s.Thresholds
	return replay.KillCriteria{
		PrecisionMin:                    t.PrecisionMin,
		DangerousRecallMustBeatBaseline: t.DangerousRecallMustBeatBaseline,
		JudgeP95Max:                     time.Duration(t.JudgeP95MaxMS * float64(time.Millisecond)),
		JudgeRequiredRateMax:            t.JudgeRequiredRateMax,
		UnknownRateMax:                  t.UnknownRateMax,
		ApprovalRejectRateMax:           t.ApprovalRejectRateMax,
		FireRateChangeMax:               t.FireRateChangeMax,
		Confidence:                      t.Confidence,
	}, true
}

// evaluate reads the decision files of dirs into one accumulator.
func (e *evalOptions) evaluate(dirs []string) (*reports.Report, *reports.GateSummary, error) {
	crit, err := e.criteria(dirs[0])
	if err != nil {
		return nil, nil, err
	}
	var infos []reports.RunInfo
	for _, d := range dirs {
		info, err := reports.ReadRunInfo(d)
		if err != nil {
			return nil, nil, runDirError(d, err)
		}
		infos = append(infos, info)
	}
	baseline := infos[0].Baseline
	if e.Baseline != "" {
		var ids []string
		for _, in := range infos {
			for _, j := range in.Judges {
				ids = append(ids, j.Identity)
			}
		}
		if baseline, err = matchJudgeName(e.Baseline, ids); err != nil {
			return nil, nil, err
		}
	}
	acc := metrics.New(metrics.Config{Criteria: crit, Baseline: baseline, Slices: e.By})
	failures := reports.NewFailures()
	gates := reports.NewGateSummary()
	toks := reports.Tokens{}
	listed := reports.NewCaseLists()
	to := sinks{acc, gates, toks, failures, listed}
	lab, err := newLabelSink(e.Labels)
	if err != nil {
		return nil, nil, err
	}
	if lab != nil {
		to = append(to, lab)
	}
	for _, d := range dirs {
		if _, err := reports.ReadRun(d, func(r *replay.Result) error {
			to.Add(r)
			return nil
		}); err != nil {
			return nil, nil, runDirError(d, err)
		}
	}
	for _, in := range infos {
		describeFromRunInfo(listed, in)
	}
	info := infos[0]
	info.Baseline = baseline
	sum := acc.Close()
	lab.apply(sum)
	return &reports.Report{Run: info, Summary: sum, Tokens: toks, Inconclusive: e.Inconclusive,
		Failures: failures.Summary(), Cases: listed}, gates, nil
}

func runDirError(dir string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return usagef("%s is not a run directory (no %s or %s): %v", dir, reports.RunFile, reports.DecisionsFile, err)
	}
	return usagef("%s: %v", dir, err)
}

func newReportCmd(io IO) *cobra.Command {
	e := &evalOptions{}
	var out string
	cmd := &cobra.Command{
		Use:   "report DIR...",
		Short: "Recompute metrics, the verdict and every report from decision files",
		Long: `Reads decisions.parquet and gates.parquet of one or more run directories (no
dataset, no judge needed), computes metrics and the kill-criteria verdict, writes
metrics.parquet, summary.json, summary.md, junit.xml, the charts and report.html,
and prints the tables. With several directories their results are pooled (use
apeval merge for the shards of one run). Exit code as for run.`,
		Example: `  apeval report apeval-out/20261130T101500Z-1a2b3c
  apeval report --criteria strict.toml --out out/strict out/run1
  apeval report --json out/run1 | jq .verdict`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := e.applyConfig(cmd); err != nil {
				return err
			}
			if len(args) == 0 {
				return usagef("report needs at least one run directory")
			}
			if len(args) > 1 && out == "" {
				return usagef("report of several directories needs --out")
			}
			return e.validate()
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" && objstore.IsURL(args[0]) {
				return usagef("report of a bucket prefix needs --out DIR (the reports are written to a local directory)")
			}
			args, done, err := fetchRunDirs(cmd.Context(), args)
			if err != nil {
				return err
			}
			defer done()
			rep, gates, err := e.evaluate(args)
			if err != nil {
				return err
			}
			dir := out
			if dir == "" {
				dir = args[0]
			} else if err := os.MkdirAll(dir, 0o755); err != nil {
				return usageError{err}
			}
			if err := writeRunReports(dir, rep, e.Format, io, gates); err != nil {
				return err
			}
			return exitCodeError{rep.Exit}
		},
	}
	e.register(cmd, true)
	e.registerBy(cmd)
	cmd.Flags().StringVarP(&out, "out", "o", "", "directory for the reports (default: the run directory itself)")
	return cmd
}

func newGateCmd(io IO) *cobra.Command {
	e := &evalOptions{}
	cmd := &cobra.Command{
		Use:   "gate DIR",
		Short: "Print a run's verdict and exit with its code (0 GO, 1 NO-GO, 3 INCONCLUSIVE)",
		Long: `Recomputes the verdict from the run directory's decision files and prints one
line per judge and the overall verdict; writes nothing. For CI steps that run
the replay once and gate on it later.`,
		Example: `  apeval gate out/run1 && echo "judge may go live"
  apeval gate --inconclusive=fail --criteria strict.toml out/run1`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := e.applyConfig(cmd); err != nil {
				return err
			}
			if len(args) != 1 {
				return usagef("gate takes exactly one run directory")
			}
			return e.validate()
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			args, done, err := fetchRunDirs(cmd.Context(), args)
			if err != nil {
				return err
			}
			defer done()
			rep, _, err := e.evaluate(args)
			if err != nil {
				return err
			}
			if h := rep.Run.Filter.String(); h != "" {
				fmt.Fprintf(io.Err, "apeval: %s\n", h)
			}
			for _, j := range rep.Summary.Judges {
				fmt.Fprintf(io.Out, "%s\t%s\n", j.Judge, j.Verdict)
			}
			fmt.Fprintf(io.Out, "verdict\t%s\n", rep.Summary.Verdict)
			if rep.Run.Partial != "" {
				fmt.Fprintf(io.Err, "apeval: the run is partial (%s): no verdict gates on it\n", rep.Run.Partial)
			}
			return exitCodeError{runExit(rep)}
		},
	}
	e.register(cmd, false)
	return cmd
}

// runExit is a run's exit code: its verdict's, or 2 when the run is
// partial (a budget stopped it), since a verdict over part of the input
// must not gate.
func runExit(rep *reports.Report) int {
	if rep.Run.Partial != "" {
		return exitUsage
	}
	return verdictExit(rep.Summary.Verdict, rep.Inconclusive)
}

// writeRunReports writes every report file of a run directory and prints
// the terminal tables; it sets rep.Exit, the verdict's exit code, which
// the reports show.
func writeRunReports(dir string, rep *reports.Report, format string, io IO, gates *reports.GateSummary) error {
	rep.Gates = gates
	rep.Exit = runExit(rep)
	if err := reports.WriteRunReports(dir, rep); err != nil {
		return err
	}
	f := outputFormat(format, io.Out)
	rep.Color = useColor(io.Out, io)
	rep.Width = termWidth(io.Out, io)
	if h := rep.Run.Filter.String(); h != "" {
		// A filtered run is never mistaken for a full one: its header says so
		// (on stderr where stdout is machine-readable).
		if f == reports.FormatTable || f == reports.FormatMarkdown {
			fmt.Fprintf(io.Out, "%s\n\n", h)
		} else {
			fmt.Fprintf(io.Err, "apeval: %s\n", h)
		}
	}
	if f != reports.FormatJSON && gates != nil {
		if err := gates.RenderWidth(io.Out, f, rep.Width); err != nil {
			return err
		}
		fmt.Fprintln(io.Out)
	}
	if err := rep.WriteTables(io.Out, f); err != nil {
		return err
	}
	for _, jf := range rep.Failures {
		// On stderr, after the tables: the reason the figures above may
		// describe a broken setup rather than the judge.
		for i, l := range jf.Lines() {
			if i == 0 {
				fmt.Fprintf(io.Err, "apeval: warning: %s:\n", l)
			} else {
				fmt.Fprintf(io.Err, "  %s\n", l)
			}
		}
	}
	if f != reports.FormatJSON {
		fmt.Fprintf(io.Err, "apeval: reports in %s\n", dir)
	}
	return nil
}
