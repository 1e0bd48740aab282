package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const benchSimulatePolicy = `schema = "apeval.policy/v1"

[[rule]]
id = "del"
condition = "deletes something hard to restore"
action = "deny_current_tool"
class = "dangerous"
categories = ["command_execution"]
[rule.when]
command_prefix = ["rm"]

[[rule]]
id = "tone"
condition = "the command is written rudely"
action = "inject_instruction"
class = "style"
categories = ["command_execution"]
`

// writeSimulateDataset writes n cases in sessions of 10, each answered by
// two recorded judges (A fast, B slow) with latencies, confidences and
// tokens, deterministic from seed.
func writeSimulateDataset(path string, n int, seed uint64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(seed, seed+1))
	ans := func(label string, acc float64) string {
		if rng.Float64() < acc {
			return label
		}
		if label == "match" {
			return "no_match"
		}
		return "match"
	}
	for i := range n {
		del := rng.IntN(3) == 0
		cmd, label := "ls -la", "no_match"
		if del {
			cmd = "rm -rf build/" + strconv.Itoa(i)
			if rng.IntN(2) == 0 {
				label = "match"
			}
		}
		var rec []string
		for _, j := range []struct {
			name      string
			mean, acc float64
		}{{"A", 300, 0.85}, {"B", 900, 0.95}} {
			lat := j.mean * (0.3 + 1.4*rng.Float64())
			var ds []string
			if del {
				ds = append(ds, fmt.Sprintf(`{"rule_id":"del","result":"%s","confidence":%.2f}`, ans(label, j.acc), 0.5+0.5*rng.Float64()))
			}
			ds = append(ds, fmt.Sprintf(`{"rule_id":"tone","result":"%s","confidence":%.2f}`, ans("no_match", j.acc), 0.5+0.5*rng.Float64()))
			rec = append(rec, fmt.Sprintf(`{"judge":"%s","latency_ms":%.1f,"status":"ok","prompt_tokens":400,"completion_tokens":30,"decisions":[%s]}`,
				j.name, lat, strings.Join(ds, ",")))
		}
		labels := `"tone":"no_match"`
		if del {
			labels += `,"del":"` + label + `"`
		}
		if _, err := fmt.Fprintf(w, `{"id":"c-%d","session_id":"s-%06d","seq":%d,"tool":{"name":"Bash","arguments":{"command":"%s"}},"labels":{%s},"recorded":[%s]}`+"\n",
			i, i/10, i%10+1, cmd, labels, strings.Join(rec, ",")); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// BenchmarkSimulate1M: a sweep of 10 hook timeouts × 5 configurations
// (two judges, a cascade, two votes) over a 1M-case run with two recorded
// judges, against one `report` of the same run (issue 36's goal: under
// 3×, memory bounded like report's). APEVAL_BENCH_SIMULATE_N changes the
// number of cases. The dataset and the run are made in the benchmark and
// deleted with its temporary directory.
func BenchmarkSimulate1M(b *testing.B) {
	n := 1_000_000
	if s := os.Getenv("APEVAL_BENCH_SIMULATE_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	tmp := b.TempDir()
	data, pol, run := filepath.Join(tmp, "cases.jsonl"), filepath.Join(tmp, "policy.toml"), filepath.Join(tmp, "run")
	if err := writeSimulateDataset(data, n, 1); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(pol, []byte(benchSimulatePolicy), 0o644); err != nil {
		b.Fatal(err)
	}
	runBinary(b, "run", "--dataset", data, "--policy", pol, "--judge", "recorded", "--no-cache", "--quiet",
		"--out", run, "--format", "tsv")
	var ts []string
	for i := 1; i <= 10; i++ {
		ts = append(ts, strconv.Itoa(200*i)+"ms")
	}
	b.ResetTimer()
	var rep, sim binaryRun
	for range b.N {
		r := runBinaryUsage(b, "report", "--format", "tsv", run)
		rep.wall += r.wall
		rep.user += r.user + r.sys
		rep.rss = max(rep.rss, r.rss)
		s := runBinaryUsage(b, "simulate", run, "--format", "tsv", "--out", filepath.Join(tmp, "sim"),
			"--hook-timeout", strings.Join(ts, ","), "--cascade", "A>B:match,unknown", "--vote", "1of2:A,B", "--vote", "2of2:A,B")
		sim.wall += s.wall
		sim.user += s.user + s.sys
		sim.rss = max(sim.rss, s.rss)
		if !strings.Contains(s.text, "51 configurations over "+strconv.Itoa(n)+" cases") {
			b.Fatalf("simulate did not simulate 51 configurations:\n%.3000s", s.text)
		}
	}
	b.ReportMetric(rep.wall.Seconds()/float64(b.N), "s/report")
	b.ReportMetric(sim.wall.Seconds()/float64(b.N), "s/simulate")
	b.ReportMetric(sim.wall.Seconds()/rep.wall.Seconds(), "simulate/report")
	// CPU seconds move less with other load than wall time does.
	b.ReportMetric(sim.user.Seconds()/rep.user.Seconds(), "simulate/report-cpu")
	b.ReportMetric(float64(rep.rss)/(1<<20), "report-peak-RSS-MB")
	b.ReportMetric(float64(sim.rss)/(1<<20), "simulate-peak-RSS-MB")
}
