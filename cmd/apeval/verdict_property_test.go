package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/apeval/apeval/datasets"
)

// The verdict is a function of the evidence: for random subsets of the
// sample's cases and random kill criteria, `run`, `replay` + `report` and a
// three-shard `replay` + `merge` write the same summary.json — verdicts and
// every figure (only the run's own block and IDs differ).
func TestVerdictIsTheSameOnEveryPath(t *testing.T) {
	wholeProcess(t)
	rng := rand.New(rand.NewPCG(19, 2026))
	var lines [][]byte
	sc := bufio.NewScanner(datasets.SampleCases())
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		lines = append(lines, append([]byte(nil), sc.Bytes()...))
	}
	if len(lines) < 1000 {
		t.Fatalf("the sample has %d lines", len(lines))
	}
	dir := t.TempDir()
	pol := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(pol, datasets.SamplePolicy(), 0o644); err != nil {
		t.Fatal(err)
	}
	for iter := range 6 {
		t.Run(fmt.Sprint(iter), func(t *testing.T) {
			d := filepath.Join(dir, fmt.Sprint(iter))
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			// A random subset: each case kept with probability p (a
			// session's seq order survives any subset).
			p := 0.2 + 0.6*rng.Float64()
			var sub bytes.Buffer
			for _, l := range lines {
				if rng.Float64() < p {
					sub.Write(l)
					sub.WriteByte('\n')
				}
			}
			ds := filepath.Join(d, "cases.jsonl")
			crit := filepath.Join(d, "criteria.toml")
			criteria := fmt.Sprintf("[kill_criteria]\nprecision_min = %.2f\ndangerous_recall_must_beat_baseline = %t\njudge_p95_max = \"%dms\"\n"+
				"judge_required_rate_max = %.2f\nunknown_rate_max = %.2f\napproval_reject_rate_max = %.2f\nfire_rate_change_max = 0.05\nconfidence = %g\n",
				0.6+0.35*rng.Float64(), rng.IntN(2) == 0, 500+rng.IntN(1200), 0.1+0.3*rng.Float64(), 0.03+0.15*rng.Float64(),
				0.3+0.4*rng.Float64(), []float64{0.9, 0.95, 0.99}[rng.IntN(3)])
			if err := os.WriteFile(ds, sub.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(crit, []byte(criteria), 0o644); err != nil {
				t.Fatal(err)
			}
			in := []string{"-d", ds, "-p", pol, "--criteria", crit, "-q"}
			if rng.IntN(2) == 0 {
				// The newer recorded judge alone: verdicts other than NO-GO.
				in = append(in, "--judge", "recorded:ollama/qwen2.5:7b-instruct-q4_K_M")
			}
			out := func(name string) string { return filepath.Join(d, name) }
			code, _, stderr := apeval(t, "", append([]string{"run", "--format", "tsv", "--out", out("run")}, in...)...)
			if code == exitUsage {
				t.Fatal(stderr)
			}
			want := comparableSummary(t, out("run"))

			if c, _, stderr := apeval(t, "", append([]string{"replay", "--out", out("replay")}, in...)...); c != 0 {
				t.Fatalf("replay: exit %d: %s", c, stderr)
			}
			if c, _, stderr := apeval(t, "", "report", "--format", "tsv", out("replay")); c != code {
				t.Fatalf("report: exit %d, run's %d: %s", c, code, stderr)
			}
			if got := comparableSummary(t, out("replay")); got != want {
				t.Fatalf("criteria\n%s\nreplay+report's summary.json differs from run's: %s", criteria, firstDiff(want, got))
			}

			shards := []string{"merge", "--out", out("merged"), "--format", "tsv"}
			for i := 1; i <= 3; i++ {
				s := out(fmt.Sprintf("shard%d", i))
				if c, _, stderr := apeval(t, "", append([]string{"replay", "--shard", fmt.Sprintf("%d/3", i), "--out", s}, in...)...); c != 0 {
					t.Fatalf("shard %d: exit %d: %s", i, c, stderr)
				}
				shards = append(shards, s)
			}
			if c, _, stderr := apeval(t, "", shards...); c != code {
				t.Fatalf("merge: exit %d, run's %d: %s", c, code, stderr)
			}
			if got := comparableSummary(t, out("merged")); got != want {
				t.Fatalf("criteria\n%s\nthe merged shards' summary.json differs from run's: %s", criteria, firstDiff(want, got))
			}
			t.Logf("p=%.2f: exit %d on every path", p, code)
		})
	}
}
