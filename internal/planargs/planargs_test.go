package planargs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
)

// opts are the options as parsed with the flags' defaults, and a set of
// flags given.
func opts() Options { return Options{SessionSize: 1, Reps: 200, Seed: 1} }

func given(flags ...string) func(string) bool {
	return func(f string) bool { return slices.Contains(flags, f) }
}

// TestResolveRefusesNamingTheValue: every impossible or conflicting
// flag is an error naming the flag and the value, as apeval plan prints
// it (exit 2).
func TestResolveRefusesNamingTheValue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		edit  func(*Options)
		flags []string
		want  string
	}{
		{"nothing", func(o *Options) {}, nil, "plan needs a pilot run directory or at least one guess"},
		{"no =", func(o *Options) { o.Rates = []string{"precision"} }, []string{"rate"}, `--rate "precision": want CRITERION=RATE`},
		{"nan", func(o *Options) { o.Rates = []string{"precision=x"} }, []string{"rate"}, `--rate "precision=x": "x" is not a number`},
		{"range", func(o *Options) { o.Rates = []string{"precision=1.5"} }, []string{"rate"}, "--rate precision=1.5: precision_min: rate 1.5 is outside [0, 1]"},
		{"key", func(o *Options) { o.Rates = []string{"nosuch=0.5"} }, []string{"rate"}, `--rate nosuch=0.5: "nosuch" is not a guess`},
		{"icc 1", func(o *Options) { o.Rates, o.ICC = []string{"precision=0.9"}, 1 }, []string{"rate", "icc"}, "--icc: ICC 1 is outside [0, 1)"},
		{"icc <0", func(o *Options) { o.Rates, o.ICC = []string{"precision=0.9"}, -0.1 }, []string{"rate", "icc"}, "--icc: ICC -0.1 is outside [0, 1)"},
		{"size", func(o *Options) { o.Rates, o.SessionSize = []string{"precision=0.9"}, 0.5 }, []string{"rate", "session-size"}, "--session-size: session size 0.5 is below 1"},
		{"sessions", func(o *Options) { o.Rates = []string{"precision=0.9"} }, []string{"rate", "sessions"}, "--sessions 0: a budget needs at least 1 session"},
		{"reps", func(o *Options) { o.Rates, o.Reps = []string{"precision=0.9"}, 5 }, []string{"rate", "reps"}, "--reps 5: at least 10 simulated data sets are needed"},
		{"criteria and policy", func(o *Options) { o.Rates, o.Criteria, o.Policy = []string{"precision=0.9"}, "c.toml", "p.toml" }, []string{"rate"}, "--criteria and --policy exclude each other"},
		{"p50 alone", func(o *Options) { o.LatencyP50 = 300 }, []string{"latency-p50"}, "--latency-p50 300: give the P95 too"},
		{"p50 0", func(o *Options) { o.LatencyP95 = 300 }, []string{"latency-p95", "latency-p50"}, "--latency-p50 0: a latency is a positive number of ms"},
		{"p95 < 0", func(o *Options) { o.LatencyP95 = -3 }, []string{"latency-p95"}, "--latency-p95/--latency-p50: P95 latency -3 ms: a latency is a positive number of ms"},
		{"median above", func(o *Options) { o.LatencyP95, o.LatencyP50 = 300, 400 }, []string{"latency-p95", "latency-p50"}, "--latency-p95/--latency-p50: median latency 400 ms is not below the P95 300 ms"},
		{"drift beyond", func(o *Options) { o.Rates = []string{"drift=0.1", "disagree=0.05"} }, []string{"rate"}, "--rate: disagree=0.05 is below |drift=0.1|"},
		{"recall alone", func(o *Options) { o.Rates = []string{"recall=0.8"} }, []string{"rate"}, "--rate: recall=0.8 needs baseline-recall=R too"},
		{"baseline without pilot", func(o *Options) { o.Rates, o.Baseline = []string{"precision=0.9"}, "x" }, []string{"rate", "baseline"}, `--baseline "x": a baseline judge needs a pilot run directory`},
		{"pilot and rate", func(o *Options) { o.Pilot, o.Rates = "runs/p", []string{"precision=0.9"} }, []string{"rate"}, "--rate: a plan from a pilot run fits it from runs/p; leave it out"},
		{"pilot and icc", func(o *Options) { o.Pilot = "runs/p" }, []string{"icc"}, "--icc: a plan from a pilot run fits it from runs/p"},
		{"pilot and latency", func(o *Options) { o.Pilot = "runs/p" }, []string{"latency-p95"}, "--latency-p95/--latency-p50: a plan from a pilot run resamples its calls' latencies"},
		{"labels without pilot", func(o *Options) { o.Labels = 10 }, []string{"labels"}, "--labels 10: the label path is planned from a pilot run directory"},
		{"labels 0", func(o *Options) { o.Pilot = "p" }, []string{"labels"}, "--labels 0: a label budget needs at least 1 label"},
		{"labels and icc", func(o *Options) { o.Pilot, o.Labels = "p", 10 }, []string{"labels", "icc"}, "--icc: a label plan counts labels (--labels N), not sessions; leave it out"},
		{"labels and sessions", func(o *Options) { o.Pilot, o.Labels = "p", 10 }, []string{"labels", "sessions"}, "--sessions: a label plan counts labels"},
		{"labels reps", func(o *Options) { o.Pilot, o.Labels, o.Reps = "p", 10, 3 }, []string{"labels", "reps"}, "--reps 3: at least 10 simulated data sets are needed"},
		{"reps bound", func(o *Options) { o.Rates, o.Reps = []string{"precision=0.9"}, 1_000_000 }, []string{"rate", "reps"}, "--reps 1000000: at most 5000 simulated data sets"},
		{"labels reps bound", func(o *Options) { o.Pilot, o.Labels, o.Reps = "p", 10, 5001 }, []string{"labels", "reps"}, "--reps 5001: at most 5000 simulated data sets"},
		{"labels no =", func(o *Options) { o.Pilot, o.Labels, o.Rates = "p", 10, []string{"precision"} }, []string{"labels", "rate"}, `--rate "precision": with --labels, give --rate precision=P and --rate recall=R`},
		{"labels nan", func(o *Options) { o.Pilot, o.Labels, o.Rates = "p", 10, []string{"precision=y"} }, []string{"labels", "rate"}, `--rate "precision=y": "y" is not a number`},
		{"labels key", func(o *Options) { o.Pilot, o.Labels, o.Rates = "p", 10, []string{"unknown=0.1"} }, []string{"labels", "rate"}, `--rate unknown=0.1: "unknown": with --labels`},
		{"format", func(o *Options) { o.Rates, o.Format = []string{"precision=0.9"}, "xml" }, []string{"rate", "format"}, `--format: unknown format "xml"`},
		{"labels one", func(o *Options) { o.Pilot, o.Labels, o.Rates = "p", 10, []string{"precision=0.9"} }, []string{"labels", "rate"}, "--rate: with --labels give both precision=P and recall=R, or neither"},
	} {
		o := opts()
		tc.edit(&o)
		_, err := Resolve(o, given(tc.flags...))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestResolveGuesses: the guesses of a plan without a pilot carry the
// ICC and session size; the latency median defaults to half the P95; a
// label plan's guess is both rates; a pilot plan has no guesses.
func TestResolveGuesses(t *testing.T) {
	t.Parallel()
	o := opts()
	o.Rates, o.ICC, o.SessionSize, o.LatencyP95 = []string{"precision=0.95", " unknown = 0.03", "recall=0.85", "baseline-recall=0.7"}, 0.1, 8, 800
	s, err := Resolve(o, given("rate", "icc", "session-size", "latency-p95"))
	if err != nil {
		t.Fatal(err)
	}
	g := s.Guesses
	if g.Rates["precision_min"] != 0.95 || g.Rates["unknown_rate_max"] != 0.03 || g.Recall == nil || g.Recall.Recall != 0.85 || g.Recall.BaselineRecall != 0.7 ||
		g.Recall.ICC != 0.1 || g.Recall.SessionSize != 8 || g.Latency == nil || g.Latency.P50MS != 400 || g.Latency.P95MS != 800 {
		t.Errorf("guesses %+v (recall %+v, latency %+v)", g, g.Recall, g.Latency)
	}
	if s.LabelOptions() != nil || s.PlanOptions().Reps != 200 || s.OutputFormat() != reports.FormatTable {
		t.Errorf("options: labels %v, plan %+v", s.LabelOptions(), s.PlanOptions())
	}
	o = opts()
	o.Pilot, o.Labels, o.Rates = "runs/p", 300, []string{"precision=0.9", "recall=0.8"}
	s, err = Resolve(o, given("labels", "rate"))
	if err != nil {
		t.Fatal(err)
	}
	if lo := s.LabelOptions(); lo == nil || lo.Budget != 300 || lo.Guess == nil || lo.Guess.Precision != 0.9 || lo.Guess.Recall != 0.8 {
		t.Errorf("label options %+v", lo)
	}
	if s.OutputFormat() != reports.FormatTable {
		t.Errorf("format %q", s.OutputFormat())
	}
	o = opts()
	o.Pilot, o.Sessions, o.Format = "runs/p", 300, "csv"
	s, err = Resolve(o, given("sessions", "format"))
	if err != nil || !s.Guesses.Empty() || s.PlanOptions().Budget != 300 || s.OutputFormat() != reports.FormatCSV {
		t.Errorf("pilot: %v, guesses %+v", err, s.Guesses)
	}
	o.JSON = true
	if s, err = Resolve(o, given("sessions", "format", "json")); err != nil || s.OutputFormat() != reports.FormatJSON {
		t.Errorf("--json: %v", err)
	}
}

// TestKillCriteria: --criteria FILE, --policy FILE's [kill_criteria], or
// the defaults; an unreadable file is an error naming it.
func TestKillCriteria(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	crit := filepath.Join(dir, "crit.toml")
	if err := os.WriteFile(crit, []byte("[kill_criteria]\nprecision_min = 0.93\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := (&Spec{Options: Options{Criteria: crit}}).KillCriteria()
	if err != nil || c.PrecisionMin != 0.93 {
		t.Errorf("--criteria: %v, %g", err, c.PrecisionMin)
	}
	c, err = (&Spec{}).KillCriteria()
	if err != nil || c != replay.DefaultKillCriteria() {
		t.Errorf("defaults: %v, %+v", err, c)
	}
	if _, err := (&Spec{Options: Options{Policy: filepath.Join(dir, "nosuch.toml")}}).KillCriteria(); err == nil || !strings.Contains(err.Error(), "nosuch.toml") {
		t.Errorf("missing policy: %v", err)
	}
}
