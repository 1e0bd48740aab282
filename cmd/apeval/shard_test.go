package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apeval/apeval/reports/rundir"
)

// apevalEnv runs apeval with exactly the environment env (nothing from the
// process's own, so a CI that happens to run us in parallel cannot leak in).
func apevalEnv(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	getenv := func(k string) string { return env[k] }
	code := run(context.Background(), args, IO{In: strings.NewReader(""), Out: &out, Err: &errb, Getenv: getenv})
	return code, out.String(), errb.String()
}

// Each scheduler's workers, run with --shard auto in that scheduler's
// environment, cover the sample exactly once: merged, they equal one
// unsharded run.
func TestShardAutoPerScheduler(t *testing.T) {
	wholeProcess(t)
	t.Parallel()
	base := t.TempDir()
	single := filepath.Join(base, "single")
	if code, _, stderr := apeval(t, "", "run", "--out", single, "-q"); code == exitUsage {
		t.Fatal(stderr)
	}
	want := comparableSummary(t, single)
	wantRows := len(readResults(t, single))

	const n = 3
	for _, sch := range []struct {
		name  string
		env   func(worker int) map[string]string // worker counts from 0
		extra []string
	}{
		{"kubernetes-flag", func(w int) map[string]string {
			return map[string]string{"JOB_COMPLETION_INDEX": fmt.Sprint(w)}
		}, []string{"--shard-count", fmt.Sprint(n)}},
		{"kubernetes-env", func(w int) map[string]string {
			return map[string]string{"JOB_COMPLETION_INDEX": fmt.Sprint(w), "APEVAL_SHARD_COUNT": fmt.Sprint(n)}
		}, nil},
		{"gitlab", func(w int) map[string]string {
			return map[string]string{"CI_NODE_INDEX": fmt.Sprint(w + 1), "CI_NODE_TOTAL": fmt.Sprint(n)}
		}, nil},
		{"circleci", func(w int) map[string]string {
			return map[string]string{"CIRCLE_NODE_INDEX": fmt.Sprint(w), "CIRCLE_NODE_TOTAL": fmt.Sprint(n)}
		}, nil},
		{"buildkite", func(w int) map[string]string {
			return map[string]string{"BUILDKITE_PARALLEL_JOB": fmt.Sprint(w), "BUILDKITE_PARALLEL_JOB_COUNT": fmt.Sprint(n)}
		}, nil},
	} {
		t.Run(sch.name, func(t *testing.T) {
			var dirs []string
			for w := 0; w < n; w++ {
				dir := filepath.Join(base, sch.name, fmt.Sprint("worker", w))
				args := append([]string{"run", "--shard", "auto", "--out", dir}, sch.extra...)
				code, _, stderr := apevalEnv(t, sch.env(w), args...)
				if code == exitUsage {
					t.Fatalf("worker %d: %s", w, stderr)
				}
				// The resolved shard is logged and recorded, never "auto".
				wantShard := fmt.Sprintf("%d/%d", w+1, n)
				if !strings.Contains(stderr, "shard "+wantShard+" from ") {
					t.Errorf("worker %d stderr does not name shard %s: %s", w, wantShard, stderr)
				}
				info, err := rundir.ReadRunInfo(dir)
				if err != nil {
					t.Fatal(err)
				}
				if info.Shard != wantShard {
					t.Errorf("worker %d: run.json shard %q, want %q", w, info.Shard, wantShard)
				}
				dirs = append(dirs, dir)
			}
			merged := filepath.Join(base, sch.name, "merged")
			if code, _, stderr := apevalEnv(t, nil, append([]string{"merge", "--out", merged}, dirs...)...); code == exitUsage {
				t.Fatalf("merge: %s", stderr)
			}
			if got := comparableSummary(t, merged); got != want {
				t.Errorf("merged summary differs from the single run:\n--- single\n%s\n--- merged\n%s", want, got)
			}
			if got := len(readResults(t, merged)); got != wantRows {
				t.Errorf("merged has %d decision rows, single %d", got, wantRows)
			}
		})
	}
}

func TestShardFlagErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, []string{"run", "--shard", "auto"}, "looked for JOB_COMPLETION_INDEX, CI_NODE_INDEX, CIRCLE_NODE_INDEX, BUILDKITE_PARALLEL_JOB"},
		{map[string]string{"JOB_COMPLETION_INDEX": "0"}, []string{"run", "--shard", "auto"}, "--shard-count"},
		{nil, []string{"run", "--shard", "1/2", "--shard-count", "2"}, "--shard-count applies only with --shard auto"},
		{nil, []string{"run", "--shard", "0/2"}, "want I/N"},
		{map[string]string{"JOB_COMPLETION_INDEX": "0"}, []string{"run", "--shard", "auto", "--shard-count", "-1"}, "--shard-count must be positive"},
	} {
		code, _, stderr := apevalEnv(t, tc.env, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v with %v: exit %d, stderr %q; want exit %d naming %q", tc.args, tc.env, code, stderr, exitUsage, tc.want)
		}
	}
}

// An explicit --shard I/N wins over a scheduler's environment.
func TestShardExplicitWins(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	env := map[string]string{"CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "3"}
	if code, _, stderr := apevalEnv(t, env, "run", "-q", "--shard", "2/2", "--out", dir); code == exitUsage {
		t.Fatal(stderr)
	}
	info, err := rundir.ReadRunInfo(dir)
	if err != nil {
		t.Fatal(err)
	}
	if info.Shard != "2/2" {
		t.Errorf("run.json shard %q, want 2/2 (the flag, not CI_NODE_INDEX=1 of 3)", info.Shard)
	}
}
