package datasets_test

import (
	"bytes"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/BurntSushi/toml"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/datasets/internal/samplegen"
)

// samplePolicy is the part of apeval.policy/v1 the sample test looks at.
type samplePolicy struct {
	Schema      string `toml:"schema"`
	Permissions *struct {
		DefaultAction string `toml:"default_action"`
		Rule          []struct {
			Tool, Pattern, Action string
		} `toml:"rule"`
	} `toml:"permissions"`
	Rule []struct {
		ID          string   `toml:"id"`
		Version     int      `toml:"version"`
		Condition   string   `toml:"condition"`
		Action      string   `toml:"action"`
		Class       string   `toml:"class"`
		Instruction string   `toml:"instruction"`
		HookPoints  []string `toml:"hook_points"`
		Categories  []string `toml:"categories"`
		Pieces      []string `toml:"pieces"`
		MaxFires    int      `toml:"max_fires"`
		When        *matcher `toml:"when"`
		Baseline    *matcher `toml:"baseline"`
		Boundary    *struct {
			Kind     string `toml:"kind"`
			ReviewAt int    `toml:"review_at"`
			PauseAt  int    `toml:"pause_at"`
		} `toml:"boundary"`
	} `toml:"rule"`
	KillCriteria map[string]any `toml:"kill_criteria"`
}

// matcher has the deterministic matcher keys of docs/policy.md.
type matcher struct {
	CommandPrefix        []string          `toml:"command_prefix"`
	CommandRegex         []string          `toml:"command_regex"`
	ArgGlob              map[string]string `toml:"arg_glob"`
	PathOutsideWorkspace *bool             `toml:"path_outside_workspace"`
	Network              *bool             `toml:"network"`
	Tool                 []string          `toml:"tool"`
	Category             []string          `toml:"category"`
	MinNonASCIIRatio     *float64          `toml:"min_non_ascii_ratio"`
	MaxNonASCIIRatio     *float64          `toml:"max_non_ascii_ratio"`
	ArgumentsValid       *bool             `toml:"arguments_valid"`
	ApprovalState        []string          `toml:"approval_state"`
}

func TestSamplePolicy(t *testing.T) {
	t.Parallel()
	var p samplePolicy
	md, err := toml.Decode(string(datasets.SamplePolicy()), &p)
	if err != nil {
		t.Fatal(err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		t.Errorf("keys outside docs/policy.md's matchers: %v", u)
	}
	if p.Schema != "apeval.policy/v1" {
		t.Errorf("schema = %q", p.Schema)
	}
	if p.Permissions == nil || p.Permissions.DefaultAction == "" || len(p.Permissions.Rule) == 0 {
		t.Errorf("want a [permissions] table with default_action and rules, got %+v", p.Permissions)
	}
	if len(p.Rule) < 8 {
		t.Errorf("%d rules, want at least 8", len(p.Rule))
	}
	actions, classes, boundaries := map[string]bool{}, map[string]bool{}, map[string]bool{}
	var ja, en, maxFires, dangerousWithWhenAndBaseline bool
	for _, r := range p.Rule {
		if r.Boundary != nil {
			boundaries[r.Boundary.Kind] = true
			actions["request_approval"] = actions["request_approval"] || r.Boundary.ReviewAt > 0
			actions["stop_task"] = actions["stop_task"] || r.Boundary.PauseAt > 0
		} else {
			actions[r.Action] = true
		}
		classes[r.Class] = true
		if r.Condition != "" {
			if strings.ContainsFunc(r.Condition, func(c rune) bool { return unicode.In(c, unicode.Hiragana, unicode.Katakana, unicode.Han) }) {
				ja = true
			} else {
				en = true
			}
		}
		maxFires = maxFires || r.MaxFires > 0
		if r.Class == "dangerous" && r.When != nil && r.Baseline != nil {
			dangerousWithWhenAndBaseline = true
		}
	}
	for _, a := range datasets.Actions[1:] {
		if !actions[string(a)] {
			t.Errorf("no rule with action %s", a)
		}
	}
	for _, c := range []string{"always", "style", "audit", "dangerous", "approval", "stop"} {
		if !classes[c] {
			t.Errorf("no rule of class %s", c)
		}
	}
	if !boundaries["network"] || !boundaries["workspace"] {
		t.Errorf("boundary rules: %v, want network and workspace", boundaries)
	}
	if !ja || !en {
		t.Errorf("conditions in Japanese %v, English %v: want both", ja, en)
	}
	if !maxFires || !dangerousWithWhenAndBaseline {
		t.Errorf("max_fires used %v, dangerous rule with when and baseline %v", maxFires, dangerousWithWhenAndBaseline)
	}
	want := map[string]any{"precision_min": 0.9, "dangerous_recall_must_beat_baseline": true, "judge_p95_max": "1s",
		"judge_required_rate_max": 0.2, "unknown_rate_max": 0.1, "approval_reject_rate_max": 0.5,
		"fire_rate_change_max": 0.05, "confidence": 0.95}
	for k, v := range want {
		if p.KillCriteria[k] != v {
			t.Errorf("kill_criteria.%s = %v, want %v", k, p.KillCriteria[k], v)
		}
	}
}

func TestSampleCases(t *testing.T) {
	t.Parallel()
	r := datasets.Open([]string{"-"}, datasets.SampleCases())
	r.StdinName = datasets.SampleName
	st := datasets.NewStats()
	var injection, secretKinds, japanese int
	secrets := []string{"sk-", "AKIA", "Bearer ", "password", "token=", "_SECRET=", "PRIVATE KEY"}
	found := map[string]bool{}
	for r.Scan() {
		rec := r.Record()
		if rec.Err != nil {
			t.Fatalf("sample: %v", rec.Err)
		}
		c := rec.Case
		if !strings.HasPrefix(c.Source, "sample:") {
			t.Fatalf("source %q, want sample:LINE", c.Source)
		}
		st.Add(c)
		if c.ExpectedAction == "" {
			t.Errorf("%s: no expected_action", c.ID)
		}
		raw, err := c.Raw()
		if err != nil {
			t.Fatal(err)
		}
		s := string(raw)
		if slices.Contains(c.Tags, "injection") && strings.Contains(strings.ToLower(s), "no_match") {
			injection++
		}
		for _, k := range secrets {
			if strings.Contains(s, k) {
				found[k] = true
			}
		}
		if slices.Contains(c.Tags, "ja") && strings.ContainsFunc(s, func(c rune) bool { return unicode.In(c, unicode.Hiragana, unicode.Katakana) }) {
			japanese++
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	secretKinds = len(found)
	if st.Cases < 400 || st.Sessions < 60 {
		t.Errorf("%d cases in %d sessions, want ≥ 400 in ≥ 60", st.Cases, st.Sessions)
	}
	// Every tool.before case has rules in scope, and each of them a label.
	if st.LabeledCases != st.HookPoints["tool.before"] || st.LabeledCases == st.Cases {
		t.Errorf("%d of %d cases labeled, %d at tool.before: want exactly the tool.before ones, and some others",
			st.LabeledCases, st.Cases, st.HookPoints["tool.before"])
	}
	for _, c := range datasets.Categories {
		if st.Categories[c] == 0 {
			t.Errorf("no case of category %s", c)
		}
	}
	if names := st.RecordedJudgeNames(); len(names) < 2 {
		t.Errorf("recorded judges %v, want two", names)
	}
	for _, o := range datasets.ApprovalOutcomes {
		if st.ApprovalOutcomes[string(o)] == 0 {
			t.Errorf("no approval outcome %s", o)
		}
	}
	for _, a := range datasets.Actions {
		if st.ExpectedActions[string(a)] == 0 {
			t.Errorf("no case expects %s", a)
		}
	}
	if injection == 0 || st.InvalidArguments == 0 || japanese == 0 {
		t.Errorf("injection cases %d, invalid-argument cases %d, Japanese cases %d: want each ≥ 1", injection, st.InvalidArguments, japanese)
	}
	if secretKinds != len(secrets) {
		t.Errorf("secret kinds found %v, want all of %v", found, secrets)
	}
	if st.Tags["boundary-network"] == 0 || st.Tags["boundary-workspace"] == 0 {
		t.Errorf("tags %v: want sessions crossing both boundaries", st.Tags)
	}
}

// TestSampleIsGenerated checks the committed sample is exactly what the
// generator writes, so the files can be reviewed through the generator.
func TestSampleIsGenerated(t *testing.T) {
	t.Parallel()
	files, err := samplegen.Generate()
	if err != nil {
		t.Fatal(err)
	}
	cases, err := io.ReadAll(datasets.SampleCases())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(files.Cases, cases) {
		t.Error("sample/cases.jsonl differs from the generator's output; run go generate in datasets/sample")
	}
	if !bytes.Equal(files.Policy, datasets.SamplePolicy()) {
		t.Error("sample/policy.toml differs from the generator's output; run go generate in datasets/sample")
	}
	again, err := samplegen.Generate()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Cases, files.Cases) {
		t.Error("two generator runs differ")
	}
	if _, err := os.Stat("sample/README.md"); err != nil {
		t.Errorf("sample/README.md: %v", err)
	}
}

// TestSampleConfigNamesTheSample: the project file apeval init writes is
// TOML naming the sample's files and two judges whose recordings the
// sample holds (whether apeval reads it is cmd's TestInitThenRunWithNoFlags).
func TestSampleConfigNamesTheSample(t *testing.T) {
	var c struct {
		Schema   string   `toml:"schema"`
		Datasets []string `toml:"datasets"`
		Policy   string   `toml:"policy"`
		Judge    []struct {
			Spec string `toml:"spec"`
		} `toml:"judge"`
	}
	if _, err := toml.Decode(string(datasets.SampleConfig()), &c); err != nil {
		t.Fatal(err)
	}
	if c.Schema != "apeval.config/v1" || !slices.Equal(c.Datasets, []string{"cases.jsonl"}) || c.Policy != "policy.toml" || len(c.Judge) != 2 {
		t.Fatalf("config %+v", c)
	}
	cases, _ := io.ReadAll(datasets.SampleCases())
	for _, j := range c.Judge {
		rec := strings.TrimPrefix(j.Spec, "recorded:")
		if !bytes.Contains(cases, []byte(`"`+rec+`"`)) {
			t.Errorf("judge %s: the sample records no %q", j.Spec, rec)
		}
	}
}

// TestSampleFiles: datasets sample writes cases then policy, init the
// project file first; unlabeled empties every case's labels and keeps the
// line count.
func TestSampleFiles(t *testing.T) {
	files, err := datasets.SampleFiles(false, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0].Name != "cases.jsonl" || files[1].Name != "policy.toml" {
		t.Fatalf("files %v, want cases.jsonl, policy.toml", names(files))
	}
	want, _ := io.ReadAll(datasets.SampleCases())
	if !bytes.Equal(files[0].Data, want) || !bytes.Equal(files[1].Data, datasets.SamplePolicy()) {
		t.Error("labeled sample files differ from the embedded sample")
	}
	proj, err := datasets.SampleFiles(true, "apeval.toml")
	if err != nil {
		t.Fatal(err)
	}
	if got := names(proj); !slices.Equal(got, []string{"apeval.toml", "cases.jsonl", "policy.toml"}) {
		t.Fatalf("project files %v", got)
	}
	if !bytes.Equal(proj[0].Data, datasets.SampleConfig()) {
		t.Error("apeval.toml is not SampleConfig")
	}
	un := string(proj[1].Data)
	if strings.Count(un, "\n") != strings.Count(string(want), "\n") || strings.Contains(un, `"labels":{"`) || !strings.Contains(un, `"labels":{}`) {
		t.Errorf("unlabeled cases: %d lines (want %d), labels left or not emptied", strings.Count(un, "\n"), strings.Count(string(want), "\n"))
	}
}

func names(files []datasets.SampleFile) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Name)
	}
	return out
}
