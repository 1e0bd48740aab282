package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/apeval/apeval/judge/judgetest"
)

// benchScalePolicy is the deterministic benchmark's policy plus one rule
// that needs the judge for every command the agent runs, so a shard spends
// both CPU (reading, matching, Parquet) and judge round trips.
const benchScalePolicy = benchDeterministicPolicy + `
[[rule]]
id = "nl-delete"
condition = "The agent is about to delete something that is hard to restore"
action = "request_approval"
class = "approval"
categories = ["command_execution"]
`

// judgeFleet is R fake OpenAI-compatible judge replicas behind one
// round-robin front, like a Kubernetes Service over a Deployment. Each
// replica serves at most slots calls at once (a GPU server's batch slots)
// and each call takes delay; callers beyond that queue.
type judgeFleet struct {
	front    *httptest.Server
	replicas []*httptest.Server
	next     atomic.Uint64
}

func newJudgeFleet(replicas, slots int, delay time.Duration) *judgeFleet {
	f := &judgeFleet{}
	var targets []*url.URL
	for range replicas {
		fake := judgetest.OpenAIHandler(judgetest.Options{Model: "fleet", Delay: delay})
		sem := make(chan struct{}, slots)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sem <- struct{}{}
			defer func() { <-sem }()
			fake.ServeHTTP(w, r)
		}))
		f.replicas = append(f.replicas, srv)
		u, _ := url.Parse(srv.URL)
		targets = append(targets, u)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	f.front = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t := targets[f.next.Add(1)%uint64(len(targets))]
		req, err := http.NewRequestWithContext(r.Context(), r.Method, t.String()+r.URL.Path, r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		req.Header = r.Header.Clone()
		resp, err := client.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		buf := make([]byte, 32<<10)
		for {
			n, err := resp.Body.Read(buf)
			if n > 0 {
				_, _ = w.Write(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}))
	return f
}

func (f *judgeFleet) Close() {
	f.front.Close()
	for _, r := range f.replicas {
		r.Close()
	}
}

// BenchmarkScale runs the same evaluation as one process and as N shard
// processes in parallel (N = 2, 4; `--shard I/N`, then `apeval merge`)
// against a local fake judge fleet, and reports the speed-up of the N
// processes over one (wall time of the replay, and with the merge), and
// the CPU the processes used per second of wall time. The fleet (4
// replicas × 16 slots, 20 ms per call) runs inside this benchmark process,
// on the same cores as the shards. APEVAL_BENCH_SCALE_CASES sets the case
// count (default 20,000: about 10,000 judge calls).
//
// For reference it also runs one process at 4 × the judge concurrency,
// and a CPU-bound variant: deterministic rules only, no judge, 10 × the
// cases, as 1, 2 and 4 processes ("det-" metrics).
func BenchmarkScale(b *testing.B) {
	n := 20_000
	if v := os.Getenv("APEVAL_BENCH_SCALE_CASES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 100 {
			b.Fatalf("APEVAL_BENCH_SCALE_CASES=%q: want a number ≥ 100", v)
		}
	}
	dir := b.TempDir()
	data := filepath.Join(dir, "cases.jsonl")
	if err := writeBenchDataset(data, n, 7); err != nil {
		b.Fatal(err)
	}
	pol := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(pol, []byte(benchScalePolicy), 0o644); err != nil {
		b.Fatal(err)
	}
	detData := filepath.Join(dir, "deterministic.jsonl")
	if err := writeBenchDataset(detData, 10*n, 8); err != nil {
		b.Fatal(err)
	}
	detPol := filepath.Join(dir, "deterministic.toml")
	if err := os.WriteFile(detPol, []byte(benchDeterministicPolicy), 0o644); err != nil {
		b.Fatal(err)
	}
	bin := apevalBinary(b)
	fleet := newJudgeFleet(4, 16, 20*time.Millisecond)
	defer fleet.Close()
	args := func(out string, extra ...string) []string {
		return append([]string{"replay", "--dataset", data, "--policy", pol, "--judge", "openai:fleet",
			"--openai-base-url", fleet.front.URL + "/v1", "--concurrency", "16", "--no-cache",
			"--quiet", "--out", out}, extra...)
	}
	b.ResetTimer()
	for range b.N {
		runs := b.TempDir()
		t1, cpu1 := runShards(b, bin, runs, 1, args)
		b.ReportMetric(float64(n)/t1.Seconds(), "cases/s-1proc")
		b.ReportMetric(cpu1, "cpu-1proc")
		for _, k := range []int{2, 4} {
			tk, cpuk := runShards(b, bin, runs, k, args)
			mergeArgs := []string{"merge", "--out", filepath.Join(runs, fmt.Sprintf("merged-%d", k))}
			for i := 1; i <= k; i++ {
				mergeArgs = append(mergeArgs, shardDir(runs, i, k))
			}
			tm, _, _ := runBinary(b, mergeArgs...)
			b.ReportMetric(t1.Seconds()/tk.Seconds(), fmt.Sprintf("speedup-%dproc", k))
			b.ReportMetric(t1.Seconds()/(tk+tm).Seconds(), fmt.Sprintf("speedup-%dproc-with-merge", k))
			b.ReportMetric(cpuk, fmt.Sprintf("cpu-%dproc", k))
		}
		// The same judge concurrency as 4 shards, in one process: what
		// raising --concurrency alone buys on one machine.
		wide := func(out string, extra ...string) []string {
			a := args(out, extra...)
			for i := range a {
				if a[i] == "--concurrency" {
					a[i+1] = "64"
				}
			}
			return a
		}
		tw, cpuw := runShards(b, bin, filepath.Join(runs, "wide"), 1, wide)
		b.ReportMetric(t1.Seconds()/tw.Seconds(), "speedup-1proc-concurrency64")
		b.ReportMetric(cpuw, "cpu-1proc-concurrency64")

		// CPU-bound: deterministic rules only, no judge, ten times the cases.
		det := func(out string, extra ...string) []string {
			return append([]string{"replay", "--dataset", detData, "--policy", detPol, "--judge", "none",
				"--no-cache", "--quiet", "--concurrency", "2", "--out", out}, extra...)
		}
		d1, dcpu1 := runShards(b, bin, filepath.Join(runs, "det"), 1, det)
		b.ReportMetric(float64(10*n)/d1.Seconds(), "det-cases/s-1proc")
		b.ReportMetric(dcpu1, "det-cpu-1proc")
		for _, k := range []int{2, 4} {
			dk, cpuk := runShards(b, bin, filepath.Join(runs, "det"), k, det)
			b.ReportMetric(d1.Seconds()/dk.Seconds(), fmt.Sprintf("det-speedup-%dproc", k))
			b.ReportMetric(cpuk, fmt.Sprintf("det-cpu-%dproc", k))
		}
	}
}

func shardDir(base string, i, k int) string {
	return filepath.Join(base, fmt.Sprintf("shard-%d-of-%d", i, k))
}

// runShards starts k apeval processes at once, shard i/k each (k = 1: no
// --shard), waits for all, and returns the wall time and the CPU seconds
// (user + system) they used per wall second.
func runShards(b *testing.B, bin, runs string, k int, args func(string, ...string) []string) (time.Duration, float64) {
	b.Helper()
	cmds := make([]*exec.Cmd, k)
	start := time.Now()
	for i := 1; i <= k; i++ {
		var a []string
		out := shardDir(runs, i, k)
		if k == 1 {
			a = args(out)
		} else {
			a = args(out, "--shard", fmt.Sprintf("%d/%d", i, k))
		}
		c := exec.Command(bin, a...)
		c.Stderr = os.Stderr // errors only: --quiet, and the gate table on stdout is dropped
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		cmds[i-1] = c
	}
	var cpu time.Duration
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			b.Fatalf("%v: %v", c.Args, err)
		}
		ru := c.ProcessState.SysUsage().(*syscall.Rusage)
		cpu += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	wall := time.Since(start)
	return wall, cpu.Seconds() / wall.Seconds()
}
