package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
)

func newMergeCmd(io IO) *cobra.Command {
	var (
		out          string
		outLayout    string
		runID        string
		allowPartial bool
		e            = &evalOptions{}
	)
	cmd := &cobra.Command{
		Use:   "merge DIR...",
		Short: "Recombine the shard runs of one evaluation into a single run directory",
		Long: `Merges the decision files of runs made with --shard I/N into one run directory and
computes metrics and reports over the union, exactly as one unsharded run would
have. The shards must come from the same policy and judges, and cover 1..N
once each (--allow-partial accepts missing shards).`,
		Example: `  # a CI matrix ran: apeval run --shard $I/4 --out out/shard-$I ...
  apeval merge --out out/merged out/shard-1 out/shard-2 out/shard-3 out/shard-4`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("merge needs the shard run directories")
			}
			if out == "" {
				return usagef("merge needs --out DIR")
			}
			return e.validate()
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			infos, err := checkShards(args, allowPartial)
			if err != nil {
				return err
			}
			if runID == "" {
				runID = newRunID(time.Now())
			}
			layout, err := reports.ParseLayout(outLayout)
			if err != nil {
				return usagef("--out-layout: %v", err)
			}
			out = runDirFor(out, layout, runID)
			info := infos[0]
			info.Layout = layout
			info.RunID = runID
			info.Created = time.Now().UTC()
			info.Shard = ""
			info.Cases, info.InvalidLines, info.Results, info.Decisions = 0, 0, 0, 0
			info.Interrupted = false
			info.ReplayMS = 0
			for _, in := range infos {
				info.Cases += in.Cases
				info.InvalidLines += in.InvalidLines
				info.Interrupted = info.Interrupted || in.Interrupted
			}
			crit, err := e.criteria(args[0])
			if err != nil {
				return err
			}
			w, err := reports.CreateRun(out, info)
			if err != nil {
				return usageError{err}
			}
			acc := metrics.New(metrics.Config{Criteria: crit, Baseline: info.Baseline})
			gates := reports.NewGateSummary()
			lat := reports.Latencies{}
			for _, d := range args {
				if _, err := reports.ReadRun(d, func(r *replay.Result) error {
					r.RunID = runID
					acc.Add(r)
					gates.Add(r)
					lat.Add(r)
					return w.Write(r)
				}); err != nil {
					w.Abort()
					return runDirError(d, err)
				}
			}
			if err := w.Close(); err != nil {
				return err
			}
			rep := &reports.Report{Run: *w.Info(), Summary: acc.Close(), Latencies: lat, Inconclusive: e.Inconclusive}
			if err := writeRunReports(out, rep, e.Format, io, gates); err != nil {
				return err
			}
			return exitCodeError{rep.ExitCode()}
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "merged run directory (required)")
	cmd.Flags().StringVar(&outLayout, "out-layout", "flat", layoutUsage)
	cmd.Flags().StringVar(&runID, "run-id", "", "run ID of the merged run (default: new)")
	cmd.Flags().BoolVar(&allowPartial, "allow-partial", false, "merge even when some shards of 1..N are missing")
	e.register(cmd, true)
	return cmd
}

// checkShards verifies the shard runs belong together: same N, distinct I,
// same policy and judges, all of 1..N present unless allowPartial.
func checkShards(dirs []string, allowPartial bool) ([]reports.RunInfo, error) {
	var infos []reports.RunInfo
	seen := map[int]string{}
	n := 0
	for _, d := range dirs {
		info, err := reports.ReadRunInfo(d)
		if err != nil {
			return nil, runDirError(d, err)
		}
		if info.Shard == "" {
			return nil, usagef("%s is not a shard run (it was not made with --shard I/N)", d)
		}
		i, k, err := splitShard(info.Shard)
		if err != nil {
			return nil, usagef("%s: run.json shard %q: %v", d, info.Shard, err)
		}
		if n == 0 {
			n = k
		} else if k != n {
			return nil, usagef("%s is shard %s but %s is of %d shards", d, info.Shard, dirs[0], n)
		}
		if prev, dup := seen[i]; dup {
			return nil, usagef("%s and %s are both shard %d/%d", prev, d, i, n)
		}
		seen[i] = d
		if len(infos) > 0 {
			if err := sameRun(infos[0], info); err != nil {
				return nil, usagef("%s and %s are not shards of one evaluation: %v", dirs[0], d, err)
			}
		}
		infos = append(infos, info)
	}
	if !allowPartial && len(seen) != n {
		var missing []string
		for i := 1; i <= n; i++ {
			if _, ok := seen[i]; !ok {
				missing = append(missing, fmt.Sprintf("%d/%d", i, n))
			}
		}
		return nil, usagef("shards %s are missing (pass --allow-partial to merge anyway)", strings.Join(missing, ", "))
	}
	return infos, nil
}

func splitShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if !ok {
		return 0, 0, fmt.Errorf("want I/N")
	}
	if i, err = strconv.Atoi(a); err != nil {
		return 0, 0, err
	}
	if n, err = strconv.Atoi(b); err != nil {
		return 0, 0, err
	}
	return i, n, nil
}

func sameRun(a, b reports.RunInfo) error {
	if (a.Policy == nil) != (b.Policy == nil) || (a.Policy != nil && a.Policy.SHA256 != b.Policy.SHA256) {
		return fmt.Errorf("different policies")
	}
	ja, jb := judgeIDs(a), judgeIDs(b)
	if strings.Join(ja, ",") != strings.Join(jb, ",") {
		return fmt.Errorf("different judges (%s vs %s)", strings.Join(ja, ", "), strings.Join(jb, ", "))
	}
	if a.Baseline != b.Baseline {
		return fmt.Errorf("different --baseline (%q vs %q)", a.Baseline, b.Baseline)
	}
	return nil
}

func judgeIDs(in reports.RunInfo) []string {
	var ids []string
	for _, j := range in.Judges {
		ids = append(ids, j.Identity)
	}
	sort.Strings(ids)
	return ids
}
