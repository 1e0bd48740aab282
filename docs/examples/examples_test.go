// Package examples holds no code: its test checks that the shipped
// deployment examples in this directory (a Kubernetes Indexed Job with its
// merge Job, a GitHub Actions matrix workflow) are valid for their engine and
// do what they say when their commands run against the embedded sample.
package examples

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/rundir"
)

var (
	repoRoot string
	bin      string // the apeval binary built for these tests (.cache/testbin/apeval)
)

func TestMain(m *testing.M) {
	os.Exit(func() int {
		root, err := filepath.Abs("../..")
		if err != nil {
			panic(err)
		}
		repoRoot = root
		// Built into .cache/testbin, where go build leaves an up-to-date
		// binary as it is: with a warm build cache this costs no link.
		dir := filepath.Join(repoRoot, ".cache", "testbin")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			panic(err)
		}
		bin = filepath.Join(dir, "apeval")
		// Without DWARF (-ldflags=-w, last -ldflags wins) for this build and
		// every go install the action's steps run (they inherit the
		// environment): a third less CPU per link of the 110 MB binary, the
		// same program. The tests read no debug information.
		if err := os.Setenv("GOFLAGS", strings.TrimSpace(os.Getenv("GOFLAGS")+" -ldflags=-w")); err != nil {
			panic(err)
		}
		build := exec.Command("go", "build", "-o", bin, "./cmd/apeval")
		build.Dir = repoRoot
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building apeval: %v\n%s", err, out)
			return 2
		}
		return m.Run()
	}())
}

// decodeJob reads a manifest strictly: an unknown or misspelt field, or a
// value of the wrong type, fails as it would on `kubectl apply --validate=strict`.
func decodeJob(t *testing.T, path string) *batchv1.Job {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict(data, &job); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if job.APIVersion != "batch/v1" || job.Kind != "Job" {
		t.Fatalf("%s: %s %s, want batch/v1 Job", path, job.APIVersion, job.Kind)
	}
	if rp := job.Spec.Template.Spec.RestartPolicy; rp != corev1.RestartPolicyNever && rp != corev1.RestartPolicyOnFailure {
		t.Errorf("%s: restartPolicy %q: a Job's pods need Never or OnFailure", path, rp)
	}
	if n := len(job.Spec.Template.Spec.Containers); n != 1 {
		t.Fatalf("%s: %d containers, want 1", path, n)
	}
	return &job
}

var varRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// podArgs expands $(VAR) in a container's args as the kubelet does, from
// the container's env plus what the Job controller adds.
func podArgs(c corev1.Container, extra map[string]string) ([]string, map[string]string) {
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	for k, v := range extra {
		env[k] = v
	}
	var args []string
	for _, a := range c.Args {
		args = append(args, varRef.ReplaceAllStringFunc(a, func(m string) string {
			if v, ok := env[m[2:len(m)-1]]; ok {
				return v
			}
			return m
		}))
	}
	return args, env
}

// runPod runs the apeval binary with args and exactly env, mapping the
// volume mounts /data (the sample) and /runs (a temporary directory).
func runPod(t *testing.T, args []string, env map[string]string, runs string) int {
	t.Helper()
	data := filepath.Join(repoRoot, "datasets", "sample")
	var mapped []string
	for _, a := range args {
		a = strings.ReplaceAll(a, "/data/", data+"/")
		a = strings.ReplaceAll(a, "/runs/", runs+"/")
		mapped = append(mapped, a)
	}
	cmd := exec.Command(bin, mapped...)
	cmd.Env = []string{"HOME=" + runs}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	code := cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatalf("apeval %v: %v", mapped, err)
	}
	if code == 2 {
		t.Fatalf("apeval %v: exit 2:\n%s", mapped, out)
	}
	return code
}

// singleRun is one unsharded run of the sample, what every example must
// reproduce.
func singleRun(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "single")
	runPod(t, []string{"run", "--dataset", "/data/cases.jsonl", "--policy", "/data/policy.toml", "--judge", "recorded", "-q", "--out", dir}, nil, dir)
	return dir
}

func TestKubernetesIndexedJob(t *testing.T) {
	t.Parallel()
	shardJob := decodeJob(t, "kubernetes/shard-job.yaml")
	mergeJob := decodeJob(t, "kubernetes/merge-job.yaml")

	spec := shardJob.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Fatalf("shard Job completionMode %v, want Indexed (pods need JOB_COMPLETION_INDEX)", spec.CompletionMode)
	}
	if spec.Completions == nil || *spec.Completions < 2 {
		t.Fatalf("shard Job completions %v, want ≥ 2", spec.Completions)
	}
	n := int(*spec.Completions)
	c := spec.Template.Spec.Containers[0]
	if strings.Join(c.Args, " ") == "" || !strings.Contains(strings.Join(c.Args, " "), "--shard auto") {
		t.Fatalf("shard Job args %q lack --shard auto", c.Args)
	}
	_, env := podArgs(c, nil)
	if env[replay.ShardCountEnv] != fmt.Sprint(n) {
		t.Fatalf("shard Job sets %s=%q but completions is %d", replay.ShardCountEnv, env[replay.ShardCountEnv], n)
	}

	runs := t.TempDir()
	for i := 0; i < n; i++ {
		args, env := podArgs(c, map[string]string{"JOB_COMPLETION_INDEX": fmt.Sprint(i)})
		if code := runPod(t, args, env, runs); code != 0 {
			t.Fatalf("pod %d: exit %d", i, code)
		}
	}
	margs, menv := podArgs(mergeJob.Spec.Template.Spec.Containers[0], nil)
	if len(margs) == 0 || margs[0] != "merge" {
		t.Fatalf("merge Job args %q do not run apeval merge", margs)
	}
	if code := runPod(t, margs, menv, runs); code != 0 && code != 1 && code != 3 {
		t.Fatalf("merge: exit %d", code)
	}
	merged := ""
	for i, a := range margs {
		if a == "--out" && i+1 < len(margs) {
			merged = strings.ReplaceAll(margs[i+1], "/runs/", runs+"/")
		}
	}
	sameAsSingle(t, singleRun(t), merged)
}

// workflow is the part of a GitHub Actions workflow the test reads.
type workflow struct {
	Env  map[string]string `json:"env"`
	Jobs map[string]struct {
		Needs    any `json:"needs"`
		Strategy struct {
			Matrix map[string][]any `json:"matrix"`
		} `json:"strategy"`
		Steps []struct {
			Run  string         `json:"run"`
			Uses string         `json:"uses"`
			With map[string]any `json:"with"`
		} `json:"steps"`
	} `json:"jobs"`
}

func TestGitHubActionsMatrix(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("github-actions/apeval-sharded.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	shard, merge := wf.Jobs["shard"], wf.Jobs["merge"]
	if fmt.Sprint(merge.Needs) != "shard" {
		t.Fatalf("merge job needs %v, want shard", merge.Needs)
	}
	matrix := shard.Strategy.Matrix["shard"]
	if len(matrix) < 2 {
		t.Fatalf("matrix.shard = %v, want ≥ 2 shards", matrix)
	}
	apevalStep := func(steps []struct {
		Run  string         `json:"run"`
		Uses string         `json:"uses"`
		With map[string]any `json:"with"`
	}, verb string) string {
		for _, s := range steps {
			if strings.HasPrefix(s.Run, "apeval "+verb+" ") {
				return s.Run
			}
		}
		t.Fatalf("no `apeval %s` step", verb)
		return ""
	}
	shardCmd, mergeCmd := apevalStep(shard.Steps, "replay"), apevalStep(merge.Steps, "merge")

	// Run each matrix job's command in a shell as the runner would, with
	// the workflow's env (paths made absolute: the runner's working
	// directory is the checkout) and apeval on the PATH; artifacts are the
	// out/ directory shared by all jobs here.
	work := t.TempDir()
	sh := func(command string) int {
		cmd := exec.Command("sh", "-c", command)
		cmd.Dir = work
		cmd.Env = []string{"PATH=" + filepath.Dir(bin) + ":/usr/bin:/bin", "HOME=" + work}
		for k, v := range wf.Env {
			cmd.Env = append(cmd.Env, k+"="+filepath.Join(repoRoot, v))
		}
		out, err := cmd.CombinedOutput()
		code := cmd.ProcessState.ExitCode()
		if err != nil && code < 0 || code == 2 || code == 127 {
			t.Fatalf("%s: exit %d %v\n%s", command, code, err, out)
		}
		return code
	}
	for _, v := range matrix {
		cmd := strings.ReplaceAll(shardCmd, "${{ matrix.shard }}", fmt.Sprint(v))
		if strings.Contains(cmd, "${{") {
			t.Fatalf("unexpanded expression in %q", cmd)
		}
		if code := sh(cmd); code != 0 {
			t.Fatalf("%s: exit %d", cmd, code)
		}
	}
	if code := sh(mergeCmd); code != 0 && code != 1 && code != 3 {
		t.Fatalf("%s: exit %d", mergeCmd, code)
	}
	sameAsSingle(t, singleRun(t), filepath.Join(work, "out", "merged"))
}

// sameAsSingle checks a merged run against an unsharded one: the same
// decision rows (merge writes them shard by shard, so compared as sorted
// sets) and the same summary, up to run IDs.
func sameAsSingle(t *testing.T, single, merged string) {
	t.Helper()
	a, b := results(t, single), results(t, merged)
	sort.Strings(a)
	sort.Strings(b)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("single run has %d decision rows, merged %d", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("decision row %d differs:\n single %s\n merged %s", i, a[i], b[i])
		}
	}
	if x, y := summary(t, single), summary(t, merged); x != y {
		t.Fatalf("merged summary differs from the single run:\n--- single\n%s\n--- merged\n%s", x, y)
	}
}

func results(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	if _, err := rundir.ReadRun(dir, func(r *replay.Result) error {
		r.RunID = ""
		b, err := json.Marshal(r)
		out = append(out, string(b))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func summary(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	var strip func(any) any
	strip = func(x any) any {
		switch x := x.(type) {
		case map[string]any:
			for k := range x {
				if k == "run_id" || k == "run_ids" || k == "run" || k == "created" {
					delete(x, k)
					continue
				}
				x[k] = strip(x[k])
			}
		case []any:
			for i := range x {
				x[i] = strip(x[i])
			}
		}
		return x
	}
	b, _ := json.MarshalIndent(strip(v), "", " ")
	return string(b)
}
