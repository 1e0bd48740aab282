package main

import (
	"context"
	"encoding/json"
	"fmt"
	stdio "io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/apeval/apeval/internal/objstore"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/evaluation"
	"github.com/apeval/apeval/reports/rundir"
)

// runDirsInOrder expands the arguments of gate --sequential: run
// directories in the order given, or one directory holding run
// directories, taken in the order they were made (rundir.History).
func runDirsInOrder(args []string) ([]string, error) {
	if len(args) != 1 || objstore.IsURL(args[0]) {
		// Several runs, or one in a bucket (a bucket prefix is one run).
		return args, nil
	}
	if _, err := os.Stat(filepath.Join(args[0], rundir.RunFile)); err == nil {
		return args, nil
	}
	dirs, err := rundir.History(args[0])
	if err != nil {
		return nil, usageError{err}
	}
	return dirs, nil
}

// runSequentialGate is `apeval gate --sequential`: every run directory in
// order is one look of metrics.SequentialGate; it prints where every
// criterion stands and exits with the verdict's code.
func runSequentialGate(ctx context.Context, o *gateOptions, io IO) error {
	args, err := runDirsInOrder(o.Dirs)
	if err != nil {
		return err
	}
	dirs, done, err := fetchRunDirs(ctx, args)
	if err != nil {
		return err
	}
	defer done()
	rs, err := openRuns(dirs)
	if err != nil {
		return err
	}
	crit, _, err := o.criteria(rs, io.Err)
	if err != nil {
		return err
	}
	base, err := o.baseline(rs)
	if err != nil {
		return err
	}
	g := metrics.NewSequentialGate(crit, base)
	weak := false
	for i, d := range dirs {
		g.BeginRun(args[i])
		if _, err := rundir.ReadRun(d, func(r *replay.Result) error { g.Add(r); return nil }); err != nil {
			return evaluation.DirError(args[i], err)
		}
		g.EndRun()
		weak = weak || rs.Infos[i].LabelSource == "weak"
		if p := rs.Infos[i].Partial; p != "" {
			fmt.Fprintf(io.Err, "apeval: %s is partial (%s): its sessions count as far as it got (a session it cut short is not completed by a later run: those cases are left out as duplicates)\n", args[i], p)
		}
	}
	res := g.Result()
	code := verdictExit(res.Verdict, o.Inconclusive)
	if o.JSON {
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else if err := writeSequential(io.Out, res); err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(io.Err, "apeval: warning: %s\n", w)
	}
	if weak {
		fmt.Fprintf(io.Err, "apeval: %s\n", reports.WeakBanner)
	}
	if res.Verdict == metrics.VerdictError {
		fmt.Fprintf(io.Err, "apeval: ERROR: a judge's setup is broken in the latest run, so there is no verdict (exit %d); fix the cause and rerun (apeval judges check helps)\n", code)
	}
	if res.Verdict == metrics.VerdictInconclusive && o.Inconclusive != "" {
		fmt.Fprintf(io.Err, "apeval: INCONCLUSIVE mapped to exit %d by --inconclusive=%s\n", code, o.Inconclusive)
	}
	return exitCodeError{code}
}

// writeSequential prints the sequential standing: a header, one line per
// judge, rule and criterion that has data, the criteria with nothing to
// decide grouped by reason, the judges' duplicate counts, the verdict.
func writeSequential(out stdio.Writer, res *metrics.SequentialResult) error {
	fmt.Fprintf(out, "sequential gate over %d runs: %.0f%% confidence sequences over sessions (a wrong decision on any criterion at most %.2g, however many runs)\n\n",
		len(res.Runs), (1-res.Alpha)*100, res.Alpha)
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "judge\trule\tcriterion\tstatus\tdecided\testimate [interval]\tsessions")
	type naKey struct{ judge, name, reason string }
	var naOrder []naKey
	naRules := map[naKey][]string{}
	for _, j := range res.Judges {
		name := j.Judge
		if j.Baseline {
			name += " (baseline)"
		}
		for _, row := range j.Rows {
			rule := row.RuleID
			if rule == metrics.AllRules {
				rule = "all rules"
			}
			for _, c := range row.Criteria {
				if c.Status == metrics.StatusNA {
					k := naKey{name, c.Name, c.Reason}
					if naRules[k] == nil {
						naOrder = append(naOrder, k)
					}
					naRules[k] = append(naRules[k], rule)
					continue
				}
				crit := c.Name
				switch {
				case metrics.IsPolicyCriterion(c.Name):
					crit += " (policy)"
				case c.Name == metrics.CriterionJudgeP95Max:
					crit += fmt.Sprintf(" (share > %g ms ≤ 0.05)", c.Threshold)
				}
				status, decided, est := string(c.Status), "-", "-"
				if c.Status == metrics.StatusInconclusive {
					status = "open"
				}
				if c.DecidedAfter != nil {
					decided = fmt.Sprintf("after %d sessions, run %d (%s)", *c.DecidedAfter, c.DecidedLook, c.DecidedRun)
				}
				if c.Estimate != nil {
					est = fmt.Sprintf("%.4g [%.4g, %.4g]", *c.Estimate, *c.Lo, *c.Hi)
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%d\n", name, rule, crit, status, decided, est, c.Sessions)
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if len(naOrder) > 0 {
		fmt.Fprintln(out, "\nN/A (nothing to decide, or not decided sequentially):")
	}
	for _, k := range naOrder {
		rules := naRules[k]
		where := strings.Join(rules, ", ")
		if len(rules) > 3 {
			where = fmt.Sprintf("%d rules", len(rules))
		}
		fmt.Fprintf(out, "  %s, %s on %s: %s\n", k.judge, k.name, where, k.reason)
	}
	fmt.Fprintln(out)
	for _, j := range res.Judges {
		fmt.Fprintf(out, "%s: %d sessions counted", j.Judge, j.Sessions)
		if j.DuplicateSessions > 0 {
			fmt.Fprintf(out, "; %d sessions (%d cases) that an earlier run had already counted were left out", j.DuplicateSessions, j.DuplicateCases)
		}
		for _, b := range j.BrokenRuns {
			fmt.Fprintf(out, "; broken setup, sessions left out: %s", b)
		}
		fmt.Fprintf(out, "; verdict %s (judge %s, policy %s)\n", j.Verdict, j.JudgeVerdict, j.PolicyVerdict)
	}
	_, err := fmt.Fprintf(out, "verdict\t%s\n", res.Verdict)
	return err
}
