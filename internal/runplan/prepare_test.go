package runplan

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/config"
	"github.com/apeval/apeval/internal/progress"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/rundir"
)

func testEnv(st *State, notes *[]string) Env {
	return Env{Version: "test", Judge: judgeCfg(st), Note: func(m string) { *notes = append(*notes, m) }}
}

// The embedded sample through its recorded judges: the dataset is scanned
// for their names (so the progress total is its case count), every result
// is written and handed to the sink, run.json is committed with what the
// replay counted.
func TestPrepareAndReplayTheSample(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	st := planFor(t, func(o *Options) { o.Out, o.NoCache = out, true })
	var notes []string
	p, err := st.Prepare(t.Context(), testEnv(st, &notes))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Stats == nil || p.Selection != nil || p.Total() != int64(p.Stats.Cases) || p.Total() == 0 {
		t.Errorf("total %d, stats %v, selection %v", p.Total(), p.Stats, p.Selection)
	}
	if len(p.Judges.List) < 2 || !strings.HasPrefix(p.Judges.IDs()[0], "recorded/") {
		t.Errorf("judges: %v", p.Judges.IDs())
	}
	var results int64
	var line strings.Builder
	prog := progress.New(&line, false, p.Total(), st.Created)
	res, err := p.Replay(t.Context(), func(*replay.Result) { results++ }, prog)
	if err != nil {
		t.Fatal(err)
	}
	nj := int64(len(p.Judges.List))
	if res.Stats.Cases != p.Total() || results != res.Stats.Cases*nj || res.Dropped != 0 || res.Interrupted || res.Invalid != 0 {
		t.Errorf("replayed %+v, %d results for %d judges", res, results, nj)
	}
	// The last progress line comes whatever the interval.
	if !strings.Contains(line.String(), "apeval: "+itoa(p.Total())+"/"+itoa(p.Total())+" cases (100%)") {
		t.Errorf("progress: %q", line.String())
	}
	if p.Stopped(res, out) != "" || len(notes) != 0 {
		t.Errorf("stopped %q, notes %q", p.Stopped(res, out), notes)
	}
	var written int64
	info, err := rundir.ReadRun(out, func(*replay.Result) error { written++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if written != results {
		t.Errorf("decisions.parquet holds %d results, the sink got %d", written, results)
	}
	if info.Cases != res.Stats.Cases || len(info.Judges) != int(nj) || len(info.Datasets) != 1 || info.Datasets[0].SHA256 == "" || info.Version != "test" {
		t.Errorf("run.json: cases %d, judges %d, datasets %+v, version %q", info.Cases, len(info.Judges), info.Datasets, info.Version)
	}
}

// --limit picks whole sessions: the total is theirs (not the scanned
// dataset's), and only their results are reported; a budget that stopped
// the run is said with the finished and the left-out cases.
func TestPrepareSelectsAndSaysStopped(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	st := planFor(t, func(o *Options) {
		o.Out, o.NoCache, o.Filter.Limit = out, true, 2
		o.Judges = []string{"recorded:ollama/qwen2.5:3b"}
	})
	var notes []string
	p, err := st.Prepare(t.Context(), testEnv(st, &notes))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Selection == nil || p.Stats == nil || p.Total() != p.Selection.Cases || p.Total() == int64(p.Stats.Cases) || p.Total() == 0 {
		t.Fatalf("selection %+v, total %d", p.Selection, p.Total())
	}
	var results int64
	res, err := p.Replay(t.Context(), func(*replay.Result) { results++ }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if results != p.Total() || res.Stats.Cases != p.Total() {
		t.Errorf("%d results, %d cases, want %d", results, res.Stats.Cases, p.Total())
	}
	p.Writer.Info().Partial = "budget --max-calls 10"
	res.Dropped = 3
	want := "stopped: budget --max-calls 10; the " + itoa(p.Total()-3) + " finished cases are in " + out +
		", marked partial (3 left out: their calls were not sent); rerun with the same cache to continue where it stopped"
	if got := p.Stopped(res, out); got != want {
		t.Errorf("stopped:\n got %q\nwant %q", got, want)
	}
}

// A project file without datasets says it evaluates the sample; an error
// after the judges opened (here: --labels' reader) leaves no run
// directory behind.
func TestPrepareNotesAndCleansUp(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	o := defaults()
	o.Out, o.NoCache = out, true
	p, err := Resolve(o, givenOf(), &config.Project{Path: "apeval.toml"}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	st := p.Start(time.Now())
	var notes []string
	env := testEnv(st, &notes)
	bad := errors.New("labels.jsonl:3: no such rule")
	env.Labels = func() (*metrics.LabeledSample, error) { return nil, bad }
	if _, err := st.Prepare(t.Context(), env); !errors.Is(err, bad) {
		t.Fatalf("labels error: %v", err)
	}
	if len(notes) != 1 || notes[0] != `apeval.toml names no dataset (datasets = ["cases.jsonl"]) and no --dataset was given: evaluating the embedded sample dataset` {
		t.Errorf("notes: %q", notes)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("run directory left behind: %v", err)
	}
	// A bad --baseline fails after the judges opened, naming the flag.
	st = planFor(t, func(o *Options) { o.Out, o.NoCache, o.Baseline = out, true, "nosuch" })
	if _, err := st.Prepare(t.Context(), Env{Judge: judgeCfg(st), Stdin: io.MultiReader()}); err == nil || !strings.HasPrefix(err.Error(), "--baseline") {
		t.Errorf("baseline: %v", err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// After the replay the run says what --skip-invalid skipped (the first
// line named) and warns of labels naming no rule; the evaluation gets the
// run's judges and thresholds.
func TestReplayNotesAndEvaluation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first, _, _ := strings.Cut(sampleText(t), "\n")
	stray := strings.Replace(first, `"labels":{`, `"labels":{"no-such-rule":"match",`, 1)
	cases := filepath.Join(dir, "cases.jsonl")
	if err := os.WriteFile(cases, []byte(stray+"\n{not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pol := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(pol, datasets.SamplePolicy(), 0o644); err != nil {
		t.Fatal(err)
	}
	st := planFor(t, func(o *Options) {
		o.Out, o.NoCache, o.SkipInvalid = filepath.Join(dir, "run"), true, true
		o.Datasets, o.Policy, o.Judges = []string{cases}, pol, []string{"none"}
	})
	p, err := st.Prepare(t.Context(), Env{Judge: judgeCfg(st)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ev := p.Evaluation()
	res, err := p.Replay(t.Context(), ev.Add, nil)
	if err != nil {
		t.Fatal(err)
	}
	notes := p.Notes(res)
	if len(notes) != 2 || !strings.HasPrefix(notes[0], "skipped 1 invalid line(s) (--skip-invalid); the first: "+cases+":2") ||
		notes[1] != "warning: "+p.Warning() || !strings.Contains(p.Warning(), `"no-such-rule" (1 case(s), first c0001)`) {
		t.Errorf("notes %q", notes)
	}
	rep, err := ev.Finish(*p.Writer.Info())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rep.Summary.Release() }()
	if len(rep.Summary.Judges) != 1 || rep.Summary.Judges[0].Judge != "none" || rep.Summary.Thresholds != metrics.ThresholdsOf(p.Policy.Criteria) {
		t.Errorf("summary: judges %d, thresholds %+v", len(rep.Summary.Judges), rep.Summary.Thresholds)
	}
}

func sampleText(t *testing.T) string {
	t.Helper()
	b, err := io.ReadAll(datasets.SampleCases())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
