package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkDiff1M diffs two 1M-case runs (the deterministic benchmark
// dataset under two policies: the candidate's irreversible-delete rule also
// fires on `go` commands) and compares them, alternately, reporting the
// diff's time and peak RSS beside compare's and their ratio (issue 37: a
// diff in less than 2× a compare, memory bounded as compare's). The diff
// writes diff.parquet and diff.html like compare writes compare.parquet.
func BenchmarkDiff1M(b *testing.B) {
	const n = 1_000_000
	cacheDir := filepath.Join("..", "..", ".cache", "bench")
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		b.Fatal(err)
	}
	data := filepath.Join(cacheDir, "deterministic-1m.jsonl")
	if _, err := os.Stat(data); err != nil {
		if err := writeBenchDataset(data+".tmp", n, 1); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(data+".tmp", data); err != nil {
			b.Fatal(err)
		}
	}
	tmp := b.TempDir()
	runs := map[string]string{
		"base": benchDeterministicPolicy,
		"cand": strings.Replace(benchDeterministicPolicy, `command_prefix = ["rm", "shred"]`, `command_prefix = ["rm", "shred", "go"]`, 1),
	}
	for _, name := range []string{"base", "cand"} {
		pol := filepath.Join(tmp, name+".toml")
		if err := os.WriteFile(pol, []byte(runs[name]), 0o644); err != nil {
			b.Fatal(err)
		}
		runBinary(b, "run", "--dataset", data, "--policy", pol, "--judge", "none", "--no-cache", "--quiet",
			"--concurrency", "2", "--out", filepath.Join(tmp, name), "--format", "tsv")
	}
	base, cand := filepath.Join(tmp, "base"), filepath.Join(tmp, "cand")
	b.ResetTimer()
	var dWall, cWall, dCPU, cCPU time.Duration
	var dRSS, cRSS int64
	for i := 0; i < b.N; i++ {
		c := runBinaryUsage(b, "compare", "--format", "tsv", "--out", filepath.Join(tmp, "cmp"), base, cand)
		if !strings.Contains(c.text, "false_positive_rate") {
			b.Fatalf("compare printed no figures:\n%.2000s", c.text)
		}
		d := runBinaryUsage(b, "diff", "--out", filepath.Join(tmp, "diff"), base, cand)
		if !strings.Contains(d.text, "1000000 cases in common") {
			b.Fatalf("diff did not diff every case:\n%.2000s", d.text)
		}
		cWall, cCPU, cRSS = cWall+c.wall, cCPU+c.user+c.sys, max(cRSS, c.rss)
		dWall, dCPU, dRSS = dWall+d.wall, dCPU+d.user+d.sys, max(dRSS, d.rss)
	}
	b.StopTimer()
	if st, err := os.Stat(filepath.Join(tmp, "diff", "diff.html")); err == nil {
		b.ReportMetric(float64(st.Size())/1e6, "diff.html-MB")
	}
	nb := float64(b.N)
	b.ReportMetric(dWall.Seconds()/nb, "s/diff")
	b.ReportMetric(cWall.Seconds()/nb, "s/compare")
	b.ReportMetric(dCPU.Seconds()/cCPU.Seconds(), "cpu-diff/compare")
	b.ReportMetric(dWall.Seconds()/cWall.Seconds(), "wall-diff/compare")
	b.ReportMetric(float64(dRSS)/(1<<20), "diff-peak-RSS-MB")
	b.ReportMetric(float64(cRSS)/(1<<20), "compare-peak-RSS-MB")
}
