package runplan

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/config"
	"github.com/apeval/apeval/judge"
	_ "github.com/apeval/apeval/judge/all"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/rundir"
)

// defaults are run's flag defaults.
func defaults() Options {
	return Options{Concurrency: 4, Timeout: 10 * time.Second, OutLayout: "flat", Filter: Filter{Seed: 1},
		Repeat: Repeat{Repeat: 1}, Judge: JudgeFlags{OpenAIKeyEnv: "OPENAI_API_KEY", MaxResponse: judge.DefaultMaxResponseBytes}}
}

func givenOf(names ...string) func(string) bool {
	return func(n string) bool {
		for _, x := range names {
			if x == n {
				return true
			}
		}
		return false
	}
}

func noFile() *config.Project { return &config.Project{} }

func noEnv(string) string { return "" }

// Every check across flags is an error naming the flag.
func TestResolveErrorsNameTheFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		set  func(*Options)
		want string
	}{
		{func(o *Options) { o.Datasets = []string{"a.jsonl"} }, "--policy is required with --dataset"},
		{func(o *Options) { o.Policy = "p.toml" }, "--policy p.toml needs --dataset"},
		{func(o *Options) { o.Concurrency = 0 }, "--concurrency must be between 1 and"},
		{func(o *Options) { o.By = []string{"colour"} }, "--by: "},
		{func(o *Options) { o.Labels, o.By = []string{"l.jsonl"}, []string{"tag"} }, "--labels and --by exclude each other"},
		{func(o *Options) { o.Labels, o.WeakLabels = []string{"l.jsonl"}, true }, "--weak-labels and --labels exclude each other"},
		{func(o *Options) { o.Timeout = 0 }, "--timeout must be positive, got 0s"},
		{func(o *Options) { o.CacheDir, o.NoCache = "c", true }, "--cache and --no-cache exclude each other"},
		{func(o *Options) { o.Inconclusive = "maybe" }, `--inconclusive must be pass or fail, got "maybe"`},
		{func(o *Options) { o.Format = "xml" }, `--format: unknown format "xml"`},
		{func(o *Options) { o.Datasets, o.Policy = []string{"-", "-"}, "p" }, "--dataset - (stdin) may be given once"},
		{func(o *Options) { o.OutLayout = "tree" }, "--out-layout: "},
		{func(o *Options) { o.ShardCount = 3 }, "--shard-count applies only with --shard auto"},
		{func(o *Options) { o.Shard, o.ShardCount = "auto", -1 }, "--shard-count must be positive, got -1"},
		{func(o *Options) { o.Shard = "5/4" }, "--shard"},
		{func(o *Options) { o.Filter.Limit, o.Filter.Sample = 2, 3 }, "--limit and --sample exclude each other"},
		{func(o *Options) { o.Filter.Limit = -1 }, "--limit must not be negative, got -1"},
		{func(o *Options) { o.Filter.Sample = -1 }, "--sample must not be negative, got -1"},
		{func(o *Options) { o.Judge.Retries = MaxRetries + 1 }, "--retries must be between 0 and 10, got 11"},
		{func(o *Options) { o.Judge.MaxResponse = 10 }, "--max-response-bytes must be between 1024 and"},
		{func(o *Options) { o.Judge.Options = []string{"temperature"} }, `--judge-option "temperature": want key=value`},
		{func(o *Options) { o.Judge.Prompt = filepath.Join(os.TempDir(), "runplan-no-prompt") }, "--prompt: "},
		{func(o *Options) { o.Repeat.Repeat = 0 }, "--repeat must be between 1 and 100, got 0"},
		{func(o *Options) { o.Repeat.BatchSize = -1 }, "--batch-size must be at least 1"},
		{func(o *Options) { o.Budget.MaxCalls = -1 }, "--max-calls must not be negative, got -1"},
		{func(o *Options) { o.Budget.BudgetUSD = -2 }, "--budget-usd must not be negative, got -2"},
		{func(o *Options) { o.Budget.MaxCalls, o.Judge.Retries = 2, 2 }, "--max-calls 2 cannot hold one call with --retries 2"},
		{func(o *Options) { o.Filter.Slice = "nightly" }, "--slice nightly: no apeval.toml"},
		{func(o *Options) { o.Resume, o.NoCache = "dir", true }, "--resume re-sends only the calls that failed in dir"},
		{func(o *Options) { o.Resume = filepath.Join(os.TempDir(), "runplan-no-run") }, "--resume " + filepath.Join(os.TempDir(), "runplan-no-run") + ": "},
	} {
		o := defaults()
		tc.set(&o)
		p, err := Resolve(o, givenOf(), noFile(), noEnv)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v (plan %v), want %q", o, err, p != nil, tc.want)
		}
	}
}

// apeval.toml under the flags: its values where no flag was given.
func TestResolveConfigUnderFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg, err := config.Parse([]byte(`datasets = ["c.jsonl"]
policy = "p.toml"
criteria = "k.toml"
baseline = "ollama/x"
concurrency = 6
timeout = "3s"
inconclusive = "pass"
out = "runs/{date}/{run_id}"
[[judge]]
spec = "openai:m"
base_url = "http://a/v1"
[filter]
limit = 5
[slices.small]
sample = 7
seed = 9
`), filepath.Join(dir, "apeval.toml"))
	if err != nil {
		t.Fatal(err)
	}
	o := defaults()
	o.Timeout = time.Second
	p, err := Resolve(o, givenOf("timeout"), cfg, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if p.Concurrency != 6 || p.Timeout != time.Second || p.Inconclusive != "pass" || p.Filter.Limit != 5 ||
		p.Config != cfg.Path || p.Criteria != filepath.Join(dir, "k.toml") || p.Baseline != "ollama/x" || !p.BaselineFromConfig ||
		p.Datasets[0] != filepath.Join(dir, "c.jsonl") || !p.JudgesFromFile || p.FileJudges[0].BaseURL != "http://a/v1" || p.Layout != rundir.LayoutFlat {
		t.Errorf("config under flags: %+v", p)
	}
	// The plan is its own: the file's slices are copied.
	p.Datasets[0] = "changed"
	if cfg.Datasets[0] == "changed" {
		t.Error("the plan shares the config's datasets")
	}
	// --judge given: the file's tables lend their settings, they are not the judges.
	o = defaults()
	o.Judges, o.Filter.Slice = []string{"openai:m", "ollama:y"}, "small"
	p, err = Resolve(o, givenOf("judge", "slice"), cfg, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	es, err := p.JudgeEntries()
	if err != nil || p.JudgesFromFile || len(es) != 2 || es[0].BaseURL != "http://a/v1" || es[1].BaseURL != "" {
		t.Errorf("--judge with tables: %+v %v", es, err)
	}
	if p.Filter.Sample != 7 || p.Filter.Seed != 9 || p.Filter.Limit != 0 {
		t.Errorf("--slice small: %+v", p.Filter)
	}
	o.Filter.Slice = "big"
	if _, err := Resolve(o, givenOf("judge", "slice"), cfg, noEnv); err == nil || err.Error() != "--slice big: "+cfg.Path+" has no [slices.big]; it has: small" {
		t.Errorf("unknown slice: %v", err)
	}
	// The out pattern names the run's directory when it starts.
	o = defaults()
	p, err = Resolve(o, givenOf(), cfg, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 10, 15, 0, 0, time.UTC)
	s := p.Start(now)
	if !strings.HasPrefix(s.RunID, "20261201T101500Z-") || s.Out != filepath.Join(dir, "runs", "2026-12-01", s.RunID) {
		t.Errorf("run %s in %s", s.RunID, s.Out)
	}
}

func TestResolveShard(t *testing.T) {
	t.Parallel()
	o := defaults()
	o.Shard = "2/4"
	p, err := Resolve(o, givenOf(), noFile(), noEnv)
	if err != nil || p.ShardOf != (replay.Shard{Index: 2, Count: 4}) || p.Shard != "2/4" {
		t.Errorf("2/4: %+v %v", p.ShardOf, err)
	}
	o.Shard, o.ShardCount = "auto", 3
	env := map[string]string{"JOB_COMPLETION_INDEX": "1"}
	p, err = Resolve(o, givenOf(), noFile(), func(k string) string { return env[k] })
	if err != nil || p.Shard != "2/3" || p.ShardFrom == "" {
		t.Errorf("auto: %q from %q, %v", p.Shard, p.ShardFrom, err)
	}
	if o.Shard != "auto" {
		t.Error("Resolve changed its options")
	}
	p, err = Resolve(o, givenOf(), noFile(), noEnv)
	if err == nil {
		t.Errorf("auto without a scheduler: %+v", p)
	}
}

func TestStartStateAndRunJSON(t *testing.T) {
	t.Parallel()
	o := defaults()
	o.RunID, o.Out, o.OutLayout = "r1", "out", "hive"
	o.Judge.Retries, o.Timeout = 2, 3*time.Second
	o.Judge.Options = []string{"temperature=0.1", "api_key=sk-abcdefghijklmnopqrstuvwxyz123456"}
	o.Budget.BudgetUSD = 1
	o.Repeat = Repeat{Repeat: 3, ShuffleRules: true}
	o.Filter.Seed = 7
	o.Datasets, o.Policy = []string{"s3://bucket/cases.jsonl?aws_session_token=AbC123dEf456", "local.jsonl"}, "p.toml"
	p, err := Resolve(o, givenOf(), noFile(), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	s := p.Start(time.Now())
	if s.RunID != "r1" || s.Out != filepath.Join("out", "run_id=r1") || s.Budget == nil {
		t.Errorf("state: %s %s %v", s.RunID, s.Out, s.Budget)
	}
	// The replay's deadline is a backstop for every attempt of a call.
	ro := s.ReplayOptions()
	if ro.Timeout != 3*(5*time.Second)+5*time.Second || ro.Repeat != 3 || !ro.ShuffleRules || ro.ShuffleSeed != 7 || ro.RunID != "r1" {
		t.Errorf("replay options: %+v", ro)
	}
	// --budget-usd needs a live judge's prices; they reach run.json.
	j, err := judge.Open(t.Context(), "exec:true", judge.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Limit(j, "exec:true", config.Prices{}); err == nil || !strings.Contains(err.Error(), "--budget-usd: judge exec:true has no prices") {
		t.Errorf("no prices: %v", err)
	}
	in := 2.5
	if _, err := s.Limit(j, "exec:true", config.Prices{In: &in}); err != nil {
		t.Fatal(err)
	}
	entries := []config.JudgeEntry{{Spec: "exec:true"}, {Spec: "openai:m", BaseURL: "http://u:pw12345678@h/v1"}}
	info := s.Info(Run{Version: "v", Entries: entries, Baseline: "exec/true",
		Judges: []rundir.JudgeInfo{{Identity: j.Identity().String()}}})
	if info.RunID != "r1" || info.Layout != rundir.LayoutHive || info.Judges[0].PriceIn == nil || *info.Judges[0].PriceIn != 2.5 || info.Criteria == nil {
		t.Errorf("info: %+v", info)
	}
	st := info.Settings
	if st.Repeat != 3 || st.ShuffleSeed == nil || *st.ShuffleSeed != 7 || st.BudgetUSD != 1 || st.Retries != 2 || st.Out != s.Out {
		t.Errorf("settings: %+v", st)
	}
	all := strings.Join(st.Datasets, " ") + strings.Join(st.Judges, " ") + strings.Join(st.JudgeOptions["exec:true"], " ")
	for _, secret := range []string{"AbC123dEf456", "pw12345678", "sk-abcdefghijklmnopqrstuvwxyz123456"} {
		if strings.Contains(all, secret) {
			t.Errorf("run.json settings show %s: %s", secret, all)
		}
	}
	if len(st.JudgeEntries) != 2 || st.JudgeEntries[1].APIKeyEnv != "" {
		t.Errorf("judge entries: %+v", st.JudgeEntries)
	}
	// The defaults are not written.
	s2 := (&Plan{Options: defaults()}).Start(time.Now())
	if st := s2.Settings(nil, ""); st.Repeat != 0 || st.Datasets[0] != datasets.SampleName || st.Policy != "sample:policy.toml" || st.JudgeEntries != nil {
		t.Errorf("default settings: %+v", st)
	}
	var wi rundir.RunInfo
	if n := s2.Finish(&wi, Counted{Interrupted: true, Time: 1500 * time.Microsecond}); n != 0 || wi.Budget != nil || wi.Partial != "" || !wi.Interrupted || wi.ReplayMS != 1.5 {
		t.Errorf("finish without a budget: %d %+v", n, wi)
	}
}

func TestExpandRecorded(t *testing.T) {
	t.Parallel()
	st := &datasets.Stats{Judges: map[string]datasets.JudgeStats{"ollama/a": {}, "ollama/b": {}}}
	got, err := ExpandRecorded(nil, st)
	if err != nil || len(got) != 2 || got[0].Spec != "recorded:ollama/a" || got[1].Spec != "recorded:ollama/b" {
		t.Errorf("no judges: %+v %v", got, err)
	}
	got, err = ExpandRecorded([]config.JudgeEntry{{Spec: "none"}, {Spec: "recorded", Options: []string{"x=1"}}}, st)
	if err != nil || len(got) != 3 || got[2].Options[0] != "x=1" {
		t.Errorf("bare recorded: %+v %v", got, err)
	}
	if _, err := ExpandRecorded([]config.JudgeEntry{{Spec: "recorded:ollama/c"}}, st); err == nil ||
		err.Error() != "--judge recorded:ollama/c matches no recording in the dataset; the recorded judges are: ollama/a, ollama/b" {
		t.Errorf("unknown recording: %v", err)
	}
	empty := &datasets.Stats{}
	if got, err := ExpandRecorded(nil, empty); err != nil || len(got) != 1 || got[0].Spec != "none" {
		t.Errorf("no recordings: %+v %v", got, err)
	}
	if _, err := ExpandRecorded([]config.JudgeEntry{{Spec: "recorded"}}, empty); err == nil || err.Error() != "--judge recorded: the dataset holds no recorded decisions" {
		t.Errorf("recorded without recordings: %v", err)
	}
	if !NeedsRecordedNames(nil) || NeedsRecordedNames([]config.JudgeEntry{{Spec: "none"}}) || !NeedsRecordedNames([]config.JudgeEntry{{Spec: "recorded:x"}}) {
		t.Error("NeedsRecordedNames")
	}
}

// --resume DIR: its settings fill what the command line left unset; a
// judge on another server than this invocation gives it is refused.
func TestResolveResume(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	seed := uint64(5)
	info := rundir.RunInfo{RunID: "old", Created: time.Now().UTC(), Judges: []rundir.JudgeInfo{{Identity: "openai/m"}},
		Filter: &rundir.Filter{Limit: 3},
		Settings: &rundir.Settings{Datasets: []string{"c.jsonl"}, Policy: "p.toml", Concurrency: 2, Timeout: rundir.Duration(time.Second),
			Judges: []string{"openai:m@http://a/v1"}, Repeat: 3, ShuffleRules: true, ShuffleSeed: &seed, Retries: 1,
			JudgeOptions: map[string][]string{"openai:m@http://a/v1": {"temperature=0"}}}}
	w, err := rundir.CreateRun(dir, info)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w.Release()

	o := defaults()
	o.Resume, o.Concurrency = dir, 8
	// The server comes from this invocation: without it, the run is refused.
	_, err = Resolve(o, givenOf("resume", "concurrency"), noFile(), noEnv)
	if err == nil || err.Error() != "--resume "+dir+": its run.json names the server http://a/v1 for judge openai:m, this invocation the default (--openai-base-url or apeval.toml); a resumed run sends only to the servers you give: give the same server again, or start a new run" {
		t.Fatalf("another server: %v", err)
	}
	o.Judge.OpenAIBaseURL = "http://a/v1"
	p, err := Resolve(o, givenOf("resume", "concurrency", "openai-base-url"), noFile(), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if p.Concurrency != 8 || p.Timeout != time.Second || p.Datasets[0] != "c.jsonl" || p.Policy != "p.toml" || p.Repeat.Repeat != 3 ||
		!p.Repeat.ShuffleRules || p.Filter.Seed != 5 || p.Filter.Limit != 3 || p.Judge.Retries != 1 || p.Resuming == nil {
		t.Errorf("resumed plan: %+v", p)
	}
	es, err := p.JudgeEntries()
	if err != nil || len(es) != 1 || es[0].Spec != "openai:m" || es[0].Options[0] != "temperature=0" || es[0].BaseURL != "" {
		t.Errorf("resumed judges: %+v %v", es, err)
	}
}

func TestLoadPolicy(t *testing.T) {
	t.Parallel()
	o := defaults()
	p, err := Resolve(o, givenOf(), noFile(), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	pol, err := p.LoadPolicy()
	if err != nil {
		t.Fatal(err)
	}
	all := pol.RuleIDs()
	if len(all) < 2 || pol.Ref.Name == "" || pol.Ref.SHA256 == "" || pol.CriteriaFrom != replay.SamplePolicyName {
		t.Fatalf("sample policy: %d rules, ref %+v, criteria from %q", len(all), pol.Ref, pol.CriteriaFrom)
	}
	// --rule keeps one rule; --batch-size overrides max_rules_per_call;
	// --criteria replaces the policy's criteria and says so.
	crit := filepath.Join(t.TempDir(), "crit.toml")
	if err := os.WriteFile(crit, []byte("[kill_criteria]\nprecision_min = 0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o.Filter.Rules, o.Repeat.BatchSize, o.Criteria = []string{all[0]}, 1, crit
	p, err = Resolve(o, givenOf(), noFile(), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	pol, err = p.LoadPolicy()
	if err != nil {
		t.Fatal(err)
	}
	if ids := pol.RuleIDs(); len(ids) != 1 || ids[0] != all[0] || pol.MaxRulesPerCall != 1 || pol.CriteriaFrom != crit+" (--criteria)" {
		t.Errorf("filtered policy: %v, max %d, from %q", ids, pol.MaxRulesPerCall, pol.CriteriaFrom)
	}
	o.Filter.Rules = []string{"no-such-rule"}
	p, _ = Resolve(o, givenOf(), noFile(), noEnv)
	if _, err := p.LoadPolicy(); err == nil || !strings.Contains(err.Error(), "no-such-rule") {
		t.Errorf("unknown --rule: %v", err)
	}
}

func TestOutcome(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	if _, err := Outcome(ctx, &replay.Feed{}, nil); err == nil || err.Error() != "the dataset has no cases" {
		t.Errorf("no cases: %v", err)
	}
	in := &replay.Feed{Invalid: datasets.InvalidLines{Skip: true, Count: 2}}
	if _, err := Outcome(ctx, in, nil); err == nil || err.Error() != "the dataset has no valid case (2 invalid line(s) skipped)" {
		t.Errorf("no valid case: %v", err)
	}
	in = &replay.Feed{Valid: 3}
	boom := errors.New("boom")
	if _, err := Outcome(ctx, in, boom); !errors.Is(err, boom) {
		t.Errorf("replay error: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	// Interrupted: what finished is kept, even with no case yet.
	if intr, err := Outcome(cctx, &replay.Feed{}, context.Canceled); !intr || err != nil {
		t.Errorf("interrupted: %v %v", intr, err)
	}
	if intr, err := Outcome(ctx, in, nil); intr || err != nil {
		t.Errorf("a good run: %v %v", intr, err)
	}
}

func TestResolveBaselineAndFeed(t *testing.T) {
	t.Parallel()
	ids := []string{"ollama/qwen2.5:3b+p1", "ollama/qwen2.5:7b+p1"}
	p := &Plan{Options: defaults()}
	if id, err := p.ResolveBaseline(ids); id != "" || err != nil {
		t.Errorf("no baseline: %q %v", id, err)
	}
	p.Baseline = "ollama/qwen2.5:7b"
	if id, err := p.ResolveBaseline(ids); id != ids[1] || err != nil {
		t.Errorf("prefix: %q %v", id, err)
	}
	p.Baseline, p.BaselineFromConfig, p.Config = "openai/x", true, "proj/apeval.toml"
	if _, err := p.ResolveBaseline(ids); err == nil || !strings.Contains(err.Error(), "--baseline") ||
		!strings.HasSuffix(err.Error(), "(the baseline comes from proj/apeval.toml; pass --baseline to choose another)") {
		t.Errorf("unknown baseline from the file: %v", err)
	}
	if err := p.CheckResumed(ids); err != nil {
		t.Errorf("no --resume: %v", err)
	}

	o := defaults()
	o.SkipInvalid, o.WeakLabels, o.Shard = true, true, "1/2"
	p, err := Resolve(o, givenOf(), noFile(), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	s := p.Start(time.Now())
	in := s.Feed(nil, nil, nil)
	if !in.Invalid.Skip || in.Weak == nil || in.Shard != p.ShardOf || in.Stop != &s.Stopped {
		t.Errorf("feed: %+v", in)
	}
}
