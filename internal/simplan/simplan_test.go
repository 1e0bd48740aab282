package simplan

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/config"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/evaluation"
	"github.com/apeval/apeval/reports/rundir"
)

func given(flags ...string) func(string) bool {
	return func(f string) bool { return slices.Contains(flags, f) }
}

// TestResolve: apeval.toml's [simulate] fills what the flags leave unset
// (the flags win; --judge, --cascade or --vote replace all three), and
// every bad value is an error naming the flag or the file and key.
func TestResolve(t *testing.T) {
	t.Parallel()
	cfg := &config.Project{Path: "apeval.toml", Policy: "p.toml", Simulate: config.Simulate{HookTimeouts: []string{"1s", "2s"}, OnFailure: "pass",
		Judges: []string{"A"}, Votes: []string{"2of2:A,B"}, Deployed: "B"}}
	p, err := Resolve(Options{OnFailure: "policy"}, given(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Timeouts) != 2 || p.Timeouts[1] != 2*time.Second || p.OnFailure != "pass" || p.Deployed != "B" || p.Policy != "p.toml" ||
		strings.Join(p.Judges, ",") != "A" || len(p.Votes) != 1 || !p.policySet || p.effRecallSet {
		t.Errorf("from apeval.toml: %+v", p)
	}
	p, err = Resolve(Options{OnFailure: "block", Timeouts: []time.Duration{time.Second}, Cascades: []string{"A>B"}, JSON: true, EffectiveRecallMin: 0.8},
		given("on-failure", "hook-timeout", "cascade", "effective-recall-min"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Timeouts) != 1 || p.OnFailure != "block" || len(p.Judges) != 0 || len(p.Votes) != 0 || len(p.Cascades) != 1 || p.Format != "json" || !p.effRecallSet {
		t.Errorf("flags over apeval.toml: %+v", p)
	}
	for _, tc := range []struct {
		o     Options
		flags []string
		cfg   config.Simulate
		want  string
	}{
		{Options{OnFailure: "policy"}, nil, config.Simulate{HookTimeouts: []string{"soon"}}, `apeval.toml: simulate.hook_timeouts: "soon" is not a duration`},
		{Options{OnFailure: "policy"}, nil, config.Simulate{EffectiveRecallMin: new(0.8)}, "apeval.toml: simulate.effective_recall_min: the criterion is a kill criterion"},
		{Options{OnFailure: "policy", Timeouts: []time.Duration{0}}, []string{"hook-timeout"}, config.Simulate{}, "--hook-timeout 0s: a timeout must be > 0"},
		{Options{OnFailure: "maybe"}, []string{"on-failure"}, config.Simulate{}, `--on-failure: on-failure "maybe": want block, pass or policy`},
		{Options{OnFailure: "policy", EffectiveRecallMin: 2}, []string{"effective-recall-min"}, config.Simulate{}, "--effective-recall-min 2: want a rate in [0, 1]"},
		{Options{OnFailure: "policy", Format: "xml"}, []string{"format"}, config.Simulate{}, `--format: unknown format "xml"`},
	} {
		_, err := Resolve(tc.o, given(tc.flags...), &config.Project{Path: "apeval.toml", Simulate: tc.cfg})
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.o, err, tc.want)
		}
	}
}

// TestEffectiveRecallMinFor: --effective-recall-min, else --policy's (or
// apeval.toml's policy's) [kill_criteria], else the criteria run.json
// recorded, else the policy run.json names.
func TestEffectiveRecallMinFor(t *testing.T) {
	t.Parallel()
	pol := &replay.Policy{KillCriteria: replay.KillCriteria{EffectiveRecallMin: 0.7}}
	th := replay.DefaultKillCriteria()
	th.EffectiveRecallMin = 0.6
	recorded := rundir.RunInfo{Criteria: new(metrics.ThresholdsOf(th))}
	for _, tc := range []struct {
		p    Plan
		info rundir.RunInfo
		want float64
	}{
		{Plan{Options: Options{EffectiveRecallMin: 0}, effRecallSet: true, policySet: true}, recorded, 0},
		{Plan{Options: Options{EffectiveRecallMin: 0.9}, effRecallSet: true}, recorded, 0.9},
		{Plan{policySet: true}, recorded, 0.7},
		{Plan{}, recorded, 0.6},
		{Plan{}, rundir.RunInfo{}, 0.7},
	} {
		if got := tc.p.EffectiveRecallMinFor(tc.info, pol); got != tc.want {
			t.Errorf("%+v on %v: %g, want %g", tc.p, tc.info.Criteria != nil, got, tc.want)
		}
	}
}

const testPolicy = `
schema = "apeval.policy/v1"
[[rule]]
id = "del"
condition = "deletes something hard to restore"
action = "deny_current_tool"
class = "dangerous"
[rule.when]
command_prefix = ["rm"]
[kill_criteria]
effective_recall_min = 0.99
`

// writeRun writes a run of two judges over four cases in four sessions
// made with the policy at polPath; judge A answers in 100–1500 ms. Each
// labeled positive is alone in its session (independent units): a
// positive pair in one session would rest effective_recall_min on 2
// sessions, which decides nothing (metrics.MinSessions).
func writeRun(t *testing.T, dir, polPath string) {
	t.Helper()
	_, name, sha, err := replay.ReadPolicy(polPath)
	if err != nil {
		t.Fatal(err)
	}
	info := rundir.RunInfo{RunID: "r1", Created: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Version: "test",
		Judges: []rundir.JudgeInfo{{Identity: "A"}, {Identity: "B"}}, Policy: &rundir.FileRef{Name: name, SHA256: sha}}
	w, err := rundir.CreateRun(dir, info)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		id, sess   string
		label      datasets.Label
		latA, latB float64
	}{{"c1", "s1", datasets.LabelMatch, 100, 400}, {"c2", "s4", datasets.LabelMatch, 900, 200}, {"c3", "s2", datasets.LabelNoMatch, 300, 800}, {"c4", "s3", datasets.LabelMatch, 1500, 100}} {
		for _, j := range []struct {
			id  string
			lat float64
		}{{"A", c.latA}, {"B", c.latB}} {
			lat := j.lat
			r := &replay.Result{CaseID: c.id, SessionID: c.sess, Seq: int64(i), Judge: j.id, JudgeCalled: true, LatencyMS: &lat,
				Calls: []replay.Call{{Rules: 1, Status: judge.StatusOK, LatencyMS: lat}},
				Rules: []replay.RuleResult{{RuleID: "del", Class: replay.ClassDangerous, Label: c.label, Source: replay.SourceJudge, Result: judge.Match,
					Fired: true, Action: datasets.ActionDenyCurrentTool, Status: judge.StatusOK}}}
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w.ReportsWritten()
	w.Release()
}

// TestRun: a run is simulated under the policy run.json names, at the
// timeouts asked; simulate.parquet and simulate.json are written to
// --out; the policy's effective_recall_min applies and a configuration
// below it is Failing; the patch is written; a policy file changed since
// the run is used with a warning; two runs that are not shards of one
// are refused.
func TestRun(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	polPath := filepath.Join(root, "policy.toml")
	if err := os.WriteFile(polPath, []byte(testPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(root, "run")
	writeRun(t, runDir, polPath)
	rs, err := evaluation.Open([]string{runDir})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "sim")
	p, err := Resolve(Options{Dirs: []string{runDir}, Timeouts: []time.Duration{time.Second}, OnFailure: "pass", Judges: []string{"A"},
		Out: out, WritePatch: filepath.Join(root, "patch.toml")}, given("hook-timeout", "on-failure", "judge"), &config.Project{})
	if err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	sim, err := p.Run(context.Background(), rs, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	if errOut.Len() != 0 {
		t.Errorf("stderr %q", errOut.String())
	}
	res := sim.Result
	if sim.Path != filepath.Join(out, rundir.SimulateFile) || sim.RunID != "r1" || res.Cases != 4 || res.Sessions != 4 || res.EffectiveRecallMin == nil || *res.EffectiveRecallMin != 0.99 {
		t.Fatalf("simulation %+v, result cases %d sessions %d", sim, res.Cases, res.Sessions)
	}
	// A at 1 s lets c4 (1500 ms) through fail-open: 2 of 3 positives.
	var failing []string
	for _, r := range sim.Failing() {
		failing = append(failing, r.Config)
		if *r.EffectiveRecall != 2.0/3 {
			t.Errorf("%s: effective recall %g, want 2/3", r.Config, *r.EffectiveRecall)
		}
	}
	if len(failing) == 0 {
		t.Errorf("no configuration below effective_recall_min 0.99: %v", res.Rows)
	}
	back, err := reports.ReadSimulateJSON(out)
	if err != nil || back == nil || back.Cases != 4 {
		t.Errorf("simulate.json read back: %v, %+v", err, back)
	}
	if none, err := reports.ReadSimulateJSON(runDir); none != nil || err != nil {
		t.Errorf("no simulate.json: %v, %v", none, err)
	}
	if err := p.WritePolicyPatch(sim); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "patch.toml")); err != nil {
		t.Error(err)
	}
	// The policy file changed since the run: used, with a warning.
	if err := os.WriteFile(polPath, []byte(testPolicy+"\n# edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	errOut.Reset()
	if _, err := p.Run(context.Background(), rs, &errOut); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "differs from the policy the run was made with") {
		t.Errorf("stderr %q", errOut.String())
	}
	two, err := evaluation.Open([]string{runDir, runDir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(context.Background(), two, &errOut); err == nil || !strings.HasPrefix(err.Error(), "simulate reads one run or shards of one run") {
		t.Errorf("two runs: %v", err)
	}
	if _, err := Policy("", rundir.RunInfo{}, &errOut); err == nil || !strings.Contains(err.Error(), "run.json names no policy") {
		t.Errorf("no policy: %v", err)
	}
	// run.json keeps the policy's path as run was given it: from another
	// directory the error said only "open policy.toml: no such file or
	// directory", naming no way out.
	gone := rundir.RunInfo{Policy: &rundir.FileRef{Name: filepath.Join(t.TempDir(), "policy.toml"), SHA256: "x"}}
	if _, err := Policy("", gone, &errOut); err == nil || !strings.Contains(err.Error(), "give the policy with --policy FILE") || !strings.Contains(err.Error(), "run.json names ") {
		t.Errorf("the policy run.json names is not there: %v", err)
	}
	if _, err := Policy(gone.Policy.Name, rundir.RunInfo{}, &errOut); err == nil || strings.Contains(err.Error(), "run.json names") {
		t.Errorf("--policy FILE not there: %v; want the plain error (the path is the user's own)", err)
	}
}
