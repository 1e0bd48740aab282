package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/internal/runplan"
	"github.com/apeval/apeval/replay"
)

// The seam of every command (docs/internals.md, "How a command is built"):
// newXCmd(io, runF) parses and checks the command line into options and
// hands them to runF. These tests pass their own runF to look at the
// options alone — no dataset read, no judge opened — and call runX with
// options and buffers to run a command without cobra.

// parseCmd runs args through a root holding only cmd (built with a
// recording runF) and returns the exit code and stderr.
func parseCmd(t *testing.T, cmd func(IO) *cobra.Command, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	io := IO{In: strings.NewReader(""), Out: &out, Err: &errb, Getenv: func(string) string { return "" }}
	root := newRoot(&io)
	root.AddCommand(cmd(io))
	root.SetArgs(args)
	code := exitCode(root.ExecuteContext(context.Background()), io.Err)
	if code == exitUsage && out.Len() > 0 {
		t.Errorf("%v: a usage error printed on stdout: %q", args, out.String())
	}
	return code, errb.String()
}

// record is a runF that keeps the options it was given.
func record[T any](got **T) func(context.Context, *T, IO) error {
	return func(_ context.Context, o *T, _ IO) error {
		*got = o
		return nil
	}
}

// missing is a path no test creates: a command that rejects its flags
// must not have tried to open it.
var missing = filepath.Join(os.TempDir(), "apeval-seam-no-such-file")

func TestRunParse(t *testing.T) {
	var o *runplan.Plan
	runCmd := func(io IO) *cobra.Command { return newRunCmd(io, false, record(&o)) }
	replayCmd := func(io IO) *cobra.Command { return newRunCmd(io, true, record(&o)) }

	// Bad values of enum flags are refused when the command line is parsed:
	// the config file named is never read, the dataset never opened.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--format", "xml"}, `apeval: --format: unknown format "xml" (want table, tsv, csv, markdown or json)` + "\n"},
		{[]string{"run", "--inconclusive", "maybe"}, `apeval: --inconclusive must be pass or fail, got "maybe"` + "\n"},
		{[]string{"run", "--out-layout", "nested"}, `apeval: --out-layout: unknown layout "nested": want flat or hive` + "\n"},
		{[]string{"replay", "--out-layout=tree"}, `apeval: --out-layout: unknown layout "tree": want flat or hive` + "\n"},
		{[]string{"run", "--by", "tag", "--by", "colour"}, `apeval: --by: unknown slice "colour" (want tag, tool, category)` + "\n"},
	} {
		o = nil
		cmd := runCmd
		if tc.args[0] == "replay" {
			cmd = replayCmd
		}
		args := append(append([]string(nil), tc.args...), "--config", missing, "--dataset", missing, "--policy", missing)
		code, stderr := parseCmd(t, cmd, args...)
		if code != exitUsage || stderr != tc.want || o != nil {
			t.Errorf("%v: exit %d, stderr %q, ran %v; want exit 2 and %q", tc.args, code, stderr, o != nil, tc.want)
		}
	}
	// Checks across flags happen before anything is opened, too.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--dataset", missing}, "--policy is required with --dataset"},
		{[]string{"run", "--policy", missing}, "needs --dataset"},
		{[]string{"run", "--concurrency", "0"}, "--concurrency must be between 1 and"},
		{[]string{"run", "--limit", "2", "--sample", "3"}, "--limit and --sample exclude each other"},
		{[]string{"run", "--shard-count", "3"}, "--shard-count applies only with --shard auto"},
		{[]string{"run", "--shard", "5/4"}, "--shard"},
		{[]string{"run", "--cache", "c", "--no-cache"}, "--cache and --no-cache exclude each other"},
		{[]string{"run", "--by", "colour"}, "--by"},
		{[]string{"replay", "--format", "json"}, "unknown flag: --format"},
		{[]string{"run", "extra"}, "takes no arguments"},
	} {
		o = nil
		cmd := runCmd
		if tc.args[0] == "replay" {
			cmd = replayCmd
		}
		code, stderr := parseCmd(t, cmd, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) || o != nil {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", tc.args, code, stderr, tc.want)
		}
	}

	// No judge is started either: this one would leave a file behind.
	marker := filepath.Join(t.TempDir(), "judge-started")
	for _, bad := range [][]string{{"--format", "xml"}, {"--concurrency", "0"}, {"--inconclusive", "x"}} {
		args := append([]string{"run", "--judge", "exec:touch " + marker}, bad...)
		if code, _ := parseCmd(t, runCmd, args...); code != exitUsage {
			t.Errorf("%v: exit %d", args, code)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%v started the judge", args)
		}
	}

	// Defaults, resolved.
	if code, stderr := parseCmd(t, runCmd, "run"); code != 0 || o == nil {
		t.Fatalf("run: exit %d %s", code, stderr)
	}
	if o.Concurrency != 4 || o.Timeout != 10*time.Second || o.Format != "" || o.Inconclusive != "" || o.Layout != "" ||
		o.Filter.Seed != 1 || o.ShardOf != (replay.Shard{}) || o.Shard != "" || o.ReplayOnly || o.Config != "" || len(o.Datasets) != 0 || o.Judge.Retries != 0 {
		t.Errorf("run defaults: %+v", o)
	}
	if code, _ := parseCmd(t, runCmd, "run", "--json", "--inconclusive=fail", "--out-layout", "hive", "--shard", "2/4", "-c", "8", "--by", "tag", "--by", "tool"); code != 0 ||
		strings.Join(o.By, ",") != "tag,tool" || o.Format != "json" || o.Inconclusive != "fail" || o.Layout != "hive" || o.ShardOf != (replay.Shard{Index: 2, Count: 4}) || o.Concurrency != 8 {
		t.Errorf("run flags resolved to %+v", o)
	}
	// --shard auto reads the scheduler's environment through IO.Getenv only.
	if code, stderr := parseCmd(t, runCmd, "run", "--shard", "auto"); code != exitUsage || !strings.Contains(stderr, "--shard auto") {
		t.Errorf("--shard auto without a scheduler's environment: exit %d %s", code, stderr)
	}
	if code, _ := parseCmd(t, replayCmd, "replay", "--format", "xml"); code != exitUsage {
		t.Errorf("replay --format: exit %d, want unknown flag", code)
	}
	if code, _ := parseCmd(t, replayCmd, "replay"); code != 0 || !o.ReplayOnly {
		t.Errorf("replay: exit %d, replayOnly %v", code, o.ReplayOnly)
	}
}

// apeval.toml under the flags: the config's values, a flag over them.
func TestRunParseConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "apeval.toml")
	if err := os.WriteFile(cfg, []byte("concurrency = 6\ninconclusive = \"pass\"\ntimeout = \"3s\"\n[filter]\nlimit = 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var o *runplan.Plan
	runCmd := func(io IO) *cobra.Command { return newRunCmd(io, false, record(&o)) }
	if code, stderr := parseCmd(t, runCmd, "run", "--config", cfg, "--timeout", "1s"); code != 0 {
		t.Fatalf("exit %d %s", code, stderr)
	}
	if o.Concurrency != 6 || o.Inconclusive != "pass" || o.Timeout != time.Second || o.Filter.Limit != 5 || o.Config != cfg {
		t.Errorf("config under flags: concurrency %d, inconclusive %q, timeout %s, limit %d, config %q",
			o.Concurrency, o.Inconclusive, o.Timeout, o.Filter.Limit, o.Config)
	}
}

func TestReadingCommandsParse(t *testing.T) {
	var (
		rep *reportOptions
		g   *gateOptions
		c   *compareOptions
		m   *mergeOptions
	)
	reportCmd := func(io IO) *cobra.Command { return newReportCmd(io, record(&rep)) }
	gateCmd := func(io IO) *cobra.Command { return newGateCmd(io, record(&g)) }
	compareCmd := func(io IO) *cobra.Command { return newCompareCmd(io, record(&c)) }
	mergeCmd := func(io IO) *cobra.Command { return newMergeCmd(io, record(&m)) }
	cmds := map[string]func(IO) *cobra.Command{"report": reportCmd, "gate": gateCmd, "compare": compareCmd, "merge": mergeCmd}
	ran := func() bool { return rep != nil || g != nil || c != nil || m != nil }
	reset := func() { rep, g, c, m = nil, nil, nil, nil }

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--format", "xml", missing}, `apeval: --format: unknown format "xml" (want table, tsv, csv, markdown or json)` + "\n"},
		{[]string{"report", "--inconclusive", "maybe", missing}, `apeval: --inconclusive must be pass or fail, got "maybe"` + "\n"},
		{[]string{"report", "--by", "rule", missing}, `apeval: --by: unknown slice "rule" (want tag, tool, category)` + "\n"},
		{[]string{"gate", "--inconclusive", "x", missing}, `apeval: --inconclusive must be pass or fail, got "x"` + "\n"},
		{[]string{"gate", "--format", "xml", missing}, `apeval: --format: unknown format "xml" (want table, tsv, csv, markdown or json)` + "\n"},
		{[]string{"compare", "--format", "html", missing, missing}, `apeval: --format: unknown format "html" (want table, tsv, csv, markdown or json)` + "\n"},
		{[]string{"merge", "--out-layout", "x", "--out", missing, missing}, `apeval: --out-layout: unknown layout "x": want flat or hive` + "\n"},
		{[]string{"merge", "--format", "x", "--out", missing, missing}, `apeval: --format: unknown format "x" (want table, tsv, csv, markdown or json)` + "\n"},
	} {
		reset()
		args := append(append([]string(nil), tc.args...), "--config", missing)
		code, stderr := parseCmd(t, cmds[tc.args[0]], args...)
		if code != exitUsage || stderr != tc.want || ran() {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report"}, "report needs at least one run directory"},
		{[]string{"report", "a", "b"}, "report of several directories needs --out"},
		{[]string{"report", "--criteria", "c.toml", "--policy", "p.toml", "a"}, "--criteria and --policy exclude each other"},
		{[]string{"report", "--labels", "l.jsonl", "--by", "tag", "a"}, "--labels and --by exclude each other"},
		{[]string{"gate", "a", "b"}, "gate takes exactly one run directory"},
		{[]string{"compare", "a", "b", "c"}, "compare takes two run directories"},
		{[]string{"compare", "--comment", "--format", "json", "a", "b"}, "--comment prints Markdown"},
		{[]string{"compare", "--report-url", "http://x", "a", "b"}, "--report-url goes with --comment"},
		{[]string{"merge", "a"}, "merge needs --out DIR"},
		{[]string{"merge", "--out", "m"}, "merge needs the shard run directories"},
	} {
		reset()
		code, stderr := parseCmd(t, cmds[tc.args[0]], tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) || ran() {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", tc.args, code, stderr, tc.want)
		}
	}

	reset()
	if code, _ := parseCmd(t, reportCmd, "report", "--json", "r1"); code != 0 || rep.Format != "json" || rep.Out != "" || len(rep.Dirs) != 1 {
		t.Errorf("report: exit %d, %+v", code, rep)
	}
	if code, _ := parseCmd(t, gateCmd, "gate", "--inconclusive=pass", "r1"); code != 0 || g.Dir != "r1" || g.Inconclusive != "pass" {
		t.Errorf("gate: exit %d, %+v", code, g)
	}
	if code, _ := parseCmd(t, compareCmd, "compare", "--comment", "a", "b"); code != 0 || c.Format != "markdown" || len(c.Dirs) != 2 {
		t.Errorf("compare --comment: exit %d, %+v", code, c)
	}
	// One directory without --baseline parses: the run's own baseline is
	// read from its run.json when the command runs (baseline_default.txtar).
	if code, stderr := parseCmd(t, compareCmd, "compare", "a"); code != 0 || len(c.Dirs) != 1 || c.Baseline != "" {
		t.Errorf("compare of one dir: exit %d, %q, %+v", code, stderr, c)
	}
	if code, _ := parseCmd(t, mergeCmd, "merge", "--out", "m", "s1", "s2"); code != 0 || m.OutLayout != "flat" || m.RunID != "" || len(m.Dirs) != 2 {
		t.Errorf("merge: exit %d, %+v", code, m)
	}
}

// --help shows every enum flag's values.
func TestEnumFlagsInHelp(t *testing.T) {
	code, stdout, _ := apeval(t, "", "run", "--help")
	for _, want := range []string{"--format table|tsv|csv|markdown|json", "--inconclusive pass|fail", "--out-layout flat|hive", "--by tag|tool|category"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("run --help lacks %q", want)
		}
	}
}

// runX with options and buffers, no command line: the sample through run,
// then gate, report and compare on its directory.
func TestRunFunctionsWithBuffers(t *testing.T) {
	wholeProcess(t)
	dir := filepath.Join(t.TempDir(), "run")
	var o *runplan.Plan
	if code, stderr := parseCmd(t, func(io IO) *cobra.Command { return newRunCmd(io, false, record(&o)) },
		"run", "--out", dir, "--quiet", "--format", "tsv", "--run-id", "seam"); code != 0 {
		t.Fatalf("parse: exit %d %s", code, stderr)
	}
	var out, errb bytes.Buffer
	io := IO{In: strings.NewReader(""), Out: &out, Err: &errb, Getenv: func(string) string { return "" }, term: &termSettings{}}
	err := runRun(context.Background(), o, io)
	var ec exitCodeError
	if !errors.As(err, &ec) || ec.code != exitNoGo || !strings.Contains(out.String(), "NO-GO") {
		t.Fatalf("runRun on the sample: %v, stdout %q, stderr %q; want NO-GO, exit 1", err, out.String(), errb.String())
	}

	out.Reset()
	err = runGate(context.Background(), &gateOptions{Dir: dir}, io)
	if !errors.As(err, &ec) || ec.code != exitNoGo || !strings.HasSuffix(out.String(), "verdict\tNO-GO\n") {
		t.Errorf("runGate: %v, stdout %q", err, out.String())
	}
	out.Reset()
	err = runGate(context.Background(), &gateOptions{Dir: dir, evalOptions: evalOptions{Inconclusive: "pass"}}, io)
	if !errors.As(err, &ec) || ec.code != exitNoGo {
		t.Errorf("runGate --inconclusive pass on a NO-GO: %v", err)
	}

	out.Reset()
	rdir := filepath.Join(t.TempDir(), "reports")
	err = runReport(context.Background(), &reportOptions{Out: rdir, Dirs: []string{dir}, evalOptions: evalOptions{Format: "json"}}, io)
	if !errors.As(err, &ec) || ec.code != exitNoGo || !strings.HasPrefix(strings.TrimSpace(out.String()), "{") {
		t.Errorf("runReport --format json: %v, stdout %.80q", err, out.String())
	}
	if _, err := os.Stat(filepath.Join(rdir, "summary.json")); err != nil {
		t.Errorf("runReport wrote no summary.json: %v", err)
	}

	// The sample in two shards, merged: the same verdict.
	var shards []string
	for _, sh := range []string{"1/2", "2/2"} {
		sdir := filepath.Join(t.TempDir(), "shard")
		if code, stderr := parseCmd(t, func(io IO) *cobra.Command { return newRunCmd(io, true, record(&o)) },
			"replay", "--out", sdir, "--quiet", "--shard", sh); code != 0 {
			t.Fatalf("parse replay --shard %s: exit %d %s", sh, code, stderr)
		}
		if err := runRun(context.Background(), o, io); err != nil {
			t.Fatalf("replay --shard %s: %v", sh, err)
		}
		shards = append(shards, sdir)
	}
	out.Reset()
	mdir := filepath.Join(t.TempDir(), "merged")
	err = runMerge(context.Background(), &mergeOptions{Out: mdir, OutLayout: "flat", RunID: "m", Dirs: shards, evalOptions: evalOptions{Format: "tsv"}}, io)
	if !errors.As(err, &ec) || ec.code != exitNoGo {
		t.Errorf("runMerge: %v, stderr %s", err, errb.String())
	}
	if _, err := os.Stat(filepath.Join(mdir, "summary.json")); err != nil {
		t.Errorf("runMerge wrote no summary.json: %v", err)
	}

	out.Reset()
	err = runCompare(context.Background(), &compareOptions{Dirs: []string{dir}, evalOptions: evalOptions{Baseline: "recorded/ollama/qwen2.5:3b", Format: "tsv"}}, io)
	if !errors.As(err, &ec) || out.Len() == 0 {
		t.Errorf("runCompare: %v, stdout %q, stderr %q", err, out.String(), errb.String())
	}
}

func TestDatasetsCommandsParse(t *testing.T) {
	var (
		st  *statsOptions
		imp *importOptions
		dis *disagreementsOptions
		li  *labelImportOptions
		val *validateOptions
		smp *sampleOptions
	)
	statsCmd := func(io IO) *cobra.Command { return newStatsCmd(io, record(&st)) }
	importCmd := func(io IO) *cobra.Command { return newImportCmd(io, record(&imp)) }
	disCmd := func(io IO) *cobra.Command { return newDisagreementsCmd(io, record(&dis)) }
	liCmd := func(io IO) *cobra.Command { return newLabelImportCmd(io, record(&li)) }
	valCmd := func(io IO) *cobra.Command { return newValidateCmd(io, record(&val)) }
	smpCmd := func(io IO) *cobra.Command { return newSampleCmd(io, record(&smp)) }

	if code, stderr := parseCmd(t, statsCmd, "stats", "--format", "xlsx", missing); code != exitUsage || st != nil ||
		stderr != `apeval: --format: unknown format "xlsx" (want table, tsv, csv, markdown or json)`+"\n" {
		t.Errorf("stats --format xlsx: exit %d, %q", code, stderr)
	}
	if code, _ := parseCmd(t, statsCmd, "stats", "--json", "a.jsonl"); code != 0 || st.Format != "json" || len(st.Files) != 1 {
		t.Errorf("stats --json: exit %d, %+v", code, st)
	}
	// --from is checked at parse time: the source is never opened.
	if code, stderr := parseCmd(t, importCmd, "import", "--from", "bogus", missing); code != exitUsage || imp != nil ||
		!strings.HasPrefix(stderr, `apeval: unknown format "bogus" (want one of claude-code-hooks, `) {
		t.Errorf("import --from bogus: exit %d, %q", code, stderr)
	}
	if code, _ := parseCmd(t, importCmd, "import", "src"); code != 0 || imp.from != "auto" || imp.out != "-" || imp.noMask {
		t.Errorf("import defaults: exit %d, %+v", code, imp)
	}
	if code, _ := parseCmd(t, importCmd, "import", "--from", "codex-rollout", "src"); code != 0 || imp.from != "codex-rollout" {
		t.Errorf("import --from codex-rollout: %+v", imp)
	}
	if code, stderr := parseCmd(t, disCmd, "disagreements", "--limit", "-1", "a", "b"); code != exitUsage || dis != nil || !strings.Contains(stderr, "--limit must be 0") {
		t.Errorf("disagreements --limit -1: exit %d, %q", code, stderr)
	}
	if code, stderr := parseCmd(t, disCmd, "disagreements", "a"); code != 0 || len(dis.Dirs) != 1 || dis.Baseline != "" {
		t.Errorf("disagreements of one dir: exit %d, %q", code, stderr)
	}
	if code, _ := parseCmd(t, disCmd, "disagreements", "-n", "5", "a", "b"); code != 0 || dis.Limit != 5 || len(dis.Dirs) != 2 {
		t.Errorf("disagreements: %+v", dis)
	}
	if code, stderr := parseCmd(t, liCmd, "label-import", "--dataset", "-", "--labels", "-"); code != exitUsage || li != nil || !strings.Contains(stderr, "only one of --dataset and --labels") {
		t.Errorf("label-import two stdins: exit %d, %q", code, stderr)
	}
	if code, _ := parseCmd(t, liCmd, "label-import", "-d", "c.jsonl", "-l", "l.jsonl", "--overwrite"); code != 0 || !li.Overwrite || li.Out != "" {
		t.Errorf("label-import: %+v", li)
	}
	if code, _ := parseCmd(t, valCmd, "validate", "--json", "a", "b"); code != 0 || !val.JSON || len(val.Files) != 2 {
		t.Errorf("validate: %+v", val)
	}
	if code, _ := parseCmd(t, smpCmd, "sample"); code != 0 || smp.Out != "." || smp.Unlabeled {
		t.Errorf("sample defaults: %+v", smp)
	}
}

// The datasets verbs' runX with buffers.
func TestDatasetsFunctionsWithBuffers(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	io := IO{In: strings.NewReader(""), Out: &out, Err: &errb, term: &termSettings{}}
	if err := runSample(context.Background(), &sampleOptions{Out: dir, Unlabeled: true}, io); err != nil {
		t.Fatal(err)
	}
	cases := filepath.Join(dir, "cases.jsonl")
	out.Reset()
	if err := runValidate(context.Background(), &validateOptions{Files: []string{cases}, JSON: true}, io); err != nil || !strings.Contains(out.String(), `"invalid": 0`) {
		t.Errorf("runValidate: %v, %s", err, out.String())
	}
	out.Reset()
	if err := runStats(context.Background(), &statsOptions{Files: []string{cases}, Format: "json"}, io); err != nil || !strings.Contains(out.String(), `"cases"`) {
		t.Errorf("runStats: %v, %.200s", err, out.String())
	}
}

func TestLabelJudgesInitParse(t *testing.T) {
	var (
		q  *labelQueueOptions
		sv *labelServeOptions
		ag *labelAgreementOptions
		jc *judgesCheckOptions
		in *initOptions
	)
	qCmd := func(io IO) *cobra.Command { return newLabelQueueCmd(io, record(&q)) }
	svCmd := func(io IO) *cobra.Command { return newLabelServeCmd(io, record(&sv)) }
	agCmd := func(io IO) *cobra.Command { return newLabelAgreementCmd(io, record(&ag)) }
	jcCmd := func(io IO) *cobra.Command { return newJudgesCheckCmd(io, record(&jc)) }
	inCmd := func(io IO) *cobra.Command { return newInitCmd(io, record(&in)) }

	for _, tc := range []struct {
		cmd  func(IO) *cobra.Command
		args []string
		want string
	}{
		{qCmd, []string{"queue", missing}, "--budget N is required"},
		{qCmd, []string{"queue", "--budget", "10", "--overlap", "2", missing}, "--overlap must be between 0 and 1"},
		{qCmd, []string{"queue", "--budget", "10"}, "label queue takes one run directory"},
		{svCmd, []string{"serve", missing}, "label serve needs --run RUNDIR"},
		{svCmd, []string{"serve", "--run", missing, missing}, "label serve needs --labeler NAME"},
		{svCmd, []string{"serve", "--run", missing, "--labeler", "ana", "--part", "3/2", missing}, `--part "3/2": want K/N`},
		{agCmd, []string{"agreement"}, "label agreement needs at least one labels file"},
		{jcCmd, []string{"check"}, "judges check needs at least one judge spec"},
		{jcCmd, []string{"check", "--retries", "-1", "ollama:x"}, "--retries"},
		{inCmd, []string{"init", "a", "b"}, "init takes at most one directory"},
	} {
		q, sv, ag, jc, in = nil, nil, nil, nil, nil
		code, stderr := parseCmd(t, tc.cmd, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) || q != nil || sv != nil || ag != nil || jc != nil || in != nil {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", tc.args, code, stderr, tc.want)
		}
	}
	if code, _ := parseCmd(t, qCmd, "queue", "--budget", "10", "r"); code != 0 || q.Dir != "r" || q.Seed != 1 || q.Overlap != 0.1 {
		t.Errorf("queue defaults: %+v", q)
	}
	if code, _ := parseCmd(t, svCmd, "serve", "--run", "r", "--labeler", "ana", "q.jsonl"); code != 0 || sv.Queue != "q.jsonl" || sv.Part != "1/1" || sv.Addr != "127.0.0.1:0" {
		t.Errorf("serve defaults: %+v", sv)
	}
	if code, _ := parseCmd(t, agCmd, "agreement", "a", "b"); code != 0 || len(ag.Files) != 2 {
		t.Errorf("agreement: %+v", ag)
	}
	if code, _ := parseCmd(t, jcCmd, "check", "none"); code != 0 || jc.Timeout != 30*time.Second || len(jc.Specs) != 1 {
		t.Errorf("judges check defaults: %+v", jc)
	}
	if code, _ := parseCmd(t, inCmd, "init"); code != 0 || in.Dir != "." || in.Force {
		t.Errorf("init defaults: %+v", in)
	}
}

// record never fails an agent's hook: an unknown flag (a newer hook
// config) is ignored, the known ones parsed.
func TestRecordParse(t *testing.T) {
	var o *recordOptions
	cmd := func(io IO) *cobra.Command { return newRecordCmd(io, record(&o)) }
	if code, stderr := parseCmd(t, cmd, "record", "--from-the-future", "--out", "c.jsonl", "--no-mask"); code != 0 || o == nil || o.out != "c.jsonl" || !o.noMask || o.log != "" {
		t.Errorf("record: exit %d %q, %+v", code, stderr, o)
	}
}
