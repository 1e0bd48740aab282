package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanCommand: guesses in, per criterion the sessions for an 80%
// chance of a decision and the shares at a budget out, as a table and as
// JSON; the policy's thresholds are used; impossible guesses are exit 2
// naming the value.
func TestPlanCommand(t *testing.T) {
	t.Parallel()
	code, out, errOut := apeval(t, "", "plan", "--rate", "precision=0.95", "--rate", "unknown_rate_max=0.03", "--icc", "0.1",
		"--session-size", "5", "--sessions", "60", "--reps", "40", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Confidence float64 `json:"confidence"`
		Plans      []struct {
			Criterion  string   `json:"criterion"`
			Threshold  float64  `json:"threshold"`
			Sessions   *int64   `json:"sessions"`
			Units      *int64   `json:"units"`
			DecideRate *float64 `json:"decide_rate"`
			BudgetPass *float64 `json:"budget_pass"`
			BudgetFail *float64 `json:"budget_fail"`
		} `json:"plans"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got.Confidence != 0.95 || len(got.Plans) != 2 || got.Plans[0].Criterion != "precision_min" || got.Plans[1].Criterion != "unknown_rate_max" {
		t.Fatalf("plans %+v", got)
	}
	for _, p := range got.Plans {
		if p.Sessions == nil || *p.Sessions < 2 || *p.DecideRate < 0.8 || *p.Units < *p.Sessions || p.BudgetPass == nil || p.BudgetFail == nil {
			t.Errorf("%+v", p)
		}
	}
	// A stricter precision threshold from a criteria file needs more sessions.
	crit := filepath.Join(t.TempDir(), "criteria.toml")
	if err := os.WriteFile(crit, []byte("precision_min = 0.93\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = apeval(t, "", "plan", "--rate", "precision=0.95", "--icc", "0.1", "--session-size", "5", "--reps", "40", "--criteria", crit)
	if code != 0 || !strings.Contains(out, "precision_min  ≥ 0.93") || !strings.Contains(out, "sessions for 80%") {
		t.Errorf("exit %d: %s%s", code, out, errOut)
	}
	// --format: the same table as CSV (the rows alone) or Markdown (with
	// the notes); the table also when piped.
	code, out, errOut = apeval(t, "", "plan", "--rate", "precision=0.95", "--icc", "0.1", "--session-size", "5", "--reps", "40", "--criteria", crit, "--format", "csv")
	if code != 0 || !strings.HasPrefix(out, "criterion,threshold,guess,sessions for 80%,units,decided\nprecision_min,≥ 0.93,0.95,") || strings.Contains(out, "ICC 0.1") {
		t.Errorf("csv: exit %d: %s%s", code, out, errOut)
	}
	code, out, errOut = apeval(t, "", "plan", "--rate", "precision=0.95", "--icc", "0.1", "--session-size", "5", "--reps", "40", "--criteria", crit, "--format", "markdown")
	if code != 0 || !strings.HasPrefix(out, "| criterion     | threshold |") || !strings.Contains(out, "\nICC 0.1, 5 units per session, 95% intervals") {
		t.Errorf("markdown: exit %d: %s%s", code, out, errOut)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate", "precision=1.2"}, "rate 1.2 is outside [0, 1]"},
		{[]string{"--rate", "precision=0.9", "--format", "xml"}, `--format: unknown format "xml"`},
		{[]string{"--rate", "precision=0.9", "--icc", "-0.1"}, "--icc: ICC -0.1 is outside [0, 1)"},
		{[]string{"--rate", "precision=0.9", "--session-size", "0"}, "--session-size: session size 0 is below 1"},
		{[]string{"--rate", "precision=0.9", "--sessions", "0"}, "--sessions 0"},
		{[]string{"--rate", "recal=0.9"}, `"recal" is not a guess`},
		{[]string{"--rate", "recall=0.9"}, "recall=0.9 needs baseline-recall=R"},
		{[]string{"--rate", "recall=0.8", "--rate", "baseline-recall=0.7", "--rate", "baseline-only=0.4"}, "baseline-only=0.4 is impossible"},
		{[]string{"--rate", "drift=0.02"}, "drift=0.02 needs disagree=S"},
		{[]string{"--rate", "drift=-1.2", "--rate", "disagree=0.1"}, "drift: rate -1.2 is outside [-1, 1]"},
		{[]string{"--rate", "drift=0.2", "--rate", "disagree=0.1"}, "disagree=0.1 is below |drift=0.2|"},
		{[]string{"--latency-p95", "-5"}, "P95 latency -5 ms"},
		{[]string{"--latency-p95", "500", "--latency-p50", "900"}, "median latency 900 ms is not below the P95 500 ms"},
		{[]string{"--latency-p50", "300"}, "give the P95 too"},
		{[]string{"--latency-p95", "500", "--session-size", "0.5"}, "session size 0.5 is below 1"},
		{[]string{"--rate", "precision=0.9", "--session-size", "Inf"}, "--session-size: session size +Inf: a mean number of units per session is finite"},
		{[]string{"--rate", "precision=0.9", "--sessions", "100001"}, "--sessions 100001: a plan simulates at most 100000 sessions"},
		{nil, "a pilot run directory or at least one guess"},
	} {
		code, _, errOut := apeval(t, "", append([]string{"plan"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q (want %q)", tc.args, code, errOut, tc.want)
		}
	}
}

// TestPlanFromGuessesEveryKind: recall vs baseline, the P95 latency and
// the drift are planned from guesses too, each with its threshold, its
// guess and a size that decides with at least the target.
func TestPlanFromGuessesEveryKind(t *testing.T) {
	t.Parallel()
	code, out, errOut := apeval(t, "", "plan", "--rate", "recall=0.85", "--rate", "baseline-recall=0.7", "--latency-p95", "800", "--latency-p50", "400",
		"--rate", "drift=0.01", "--rate", "disagree=0.06", "--icc", "0.1", "--session-size", "4", "--reps", "40", "--sessions", "30")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"dangerous_recall_must_beat_baseline  > baseline    recall 0.85 vs baseline 0.7",
		"judge_p95_max                        ≤ 1000 ms     P50 400 ms, P95 800 ms",
		"fire_rate_change_max                 within ±0.05  drift +0.01, differ on 0.06, baseline fires 0.1",
		"at 30 sessions: PASS",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	code, out, errOut = apeval(t, "", "plan", "--rate", "recall=0.85", "--rate", "baseline-recall=0.7", "--latency-p95", "800",
		"--rate", "drift=0.01", "--rate", "disagree=0.06", "--session-size", "4", "--reps", "40", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Plans []struct {
			Criterion    string             `json:"criterion"`
			Sessions     *int64             `json:"sessions"`
			Units        *int64             `json:"units"`
			DecideRate   *float64           `json:"decide_rate"`
			RecallGuess  map[string]float64 `json:"recall_guess"`
			LatencyGuess map[string]float64 `json:"latency_guess"`
			DriftGuess   map[string]float64 `json:"drift_guess"`
		} `json:"plans"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(got.Plans) != 3 {
		t.Fatalf("%d plans: %s", len(got.Plans), out)
	}
	for _, p := range got.Plans {
		if p.Sessions == nil || *p.DecideRate < 0.8 || *p.Units < *p.Sessions {
			t.Errorf("%s: %+v", p.Criterion, p)
		}
	}
	if g := got.Plans[0].RecallGuess; g["recall"] != 0.85 || g["baseline_recall"] != 0.7 || g["session_size"] != 4 {
		t.Errorf("recall guess %v", g)
	}
	if g := got.Plans[1].LatencyGuess; g["p95_ms"] != 800 || g["p50_ms"] != 400 {
		t.Errorf("latency guess %v (the median defaults to half the P95)", g)
	}
	if g := got.Plans[2].DriftGuess; g["change"] != 0.01 || g["disagree"] != 0.06 || g["baseline_fire"] != 0.1 {
		t.Errorf("drift guess %v", g)
	}
}

// TestPlanFromPilot: a run of the embedded sample as the pilot; plan gives
// per judge and rule the fitted proportions, the P95 per judge, recall vs
// baseline per dangerous rule and, against a baseline judge, the drift;
// every planned size decides with at least the target; bad input is exit 2
// naming the value.
func TestPlanFromPilot(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "pilot")
	if code, _, errOut := apeval(t, "", "run", "--out", dir, "--format", "tsv", "--quiet"); code != 1 && code != 3 && code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	var info struct {
		Judges []struct {
			Identity string `json:"identity"`
		} `json:"judges"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil || json.Unmarshal(data, &info) != nil || len(info.Judges) < 2 {
		t.Fatalf("run.json: %v %s", err, data)
	}
	base := info.Judges[0].Identity
	code, out, errOut := apeval(t, "", "plan", dir, "--baseline", base, "--reps", "10", "--sessions", "50", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Pilot string `json:"pilot"`
		Plans []struct {
			Criterion  string   `json:"criterion"`
			Judge      string   `json:"judge"`
			Rule       string   `json:"rule"`
			Sessions   *int64   `json:"sessions"`
			DecideRate *float64 `json:"decide_rate"`
			BudgetPass *float64 `json:"budget_pass"`
			Guess      *struct {
				Rate, ICC float64
			} `json:"guess"`
			Pilot *struct {
				Sessions int64    `json:"sessions"`
				Units    int64    `json:"units"`
				Estimate *float64 `json:"estimate"`
			} `json:"pilot"`
		} `json:"plans"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	seen := map[string]int{}
	for _, p := range got.Plans {
		seen[p.Criterion]++
		if p.Pilot == nil || p.Pilot.Sessions < 1 || p.Pilot.Units < p.Pilot.Sessions || p.BudgetPass == nil {
			t.Errorf("%s %s %s: pilot %+v", p.Judge, p.Rule, p.Criterion, p.Pilot)
		}
		if p.Sessions != nil && *p.DecideRate < 0.8 {
			t.Errorf("%s %s %s: %d sessions decide %.2f", p.Judge, p.Rule, p.Criterion, *p.Sessions, *p.DecideRate)
		}
		if p.Criterion == "judge_required_rate_max" && p.Judge != "" {
			t.Errorf("the policy criterion is planned for judge %q", p.Judge)
		}
		if p.Judge == base && p.Criterion != "fire_rate_change_max" {
			t.Errorf("the baseline judge is planned for %s", p.Criterion)
		}
	}
	for _, c := range []string{"precision_min", "unknown_rate_max", "judge_required_rate_max", "judge_p95_max", "dangerous_recall_must_beat_baseline", "fire_rate_change_max"} {
		if seen[c] == 0 {
			t.Errorf("no plan for %s (%v)", c, seen)
		}
	}
	if seen["judge_required_rate_max"] != 1 || got.Pilot != dir {
		t.Errorf("plans %v, pilot %q", seen, got.Pilot)
	}
	// The table names judge, rule and what the pilot showed.
	code, out, errOut = apeval(t, "", "plan", "--pilot", dir, "--reps", "10")
	if code != 0 || !strings.Contains(out, "judge  ") || !strings.Contains(out, "(policy)") || !strings.Contains(out, "From the pilot "+dir) {
		t.Errorf("exit %d: %s%s", code, out, errOut)
	}
	// The label path: per candidate judge and rule, labels for 80% and
	// the shares at the budget, in a table and in words. From a pilot of
	// 40 of the sample's sessions: the simulated queues' cost grows with
	// the pilot's pairs (the whole sample's 6,400 took 5 CPU-s), and what
	// is checked here is the table's form and that every row no number of
	// labels decides has its reason (at 40 sessions, every row).
	small := filepath.Join(t.TempDir(), "small")
	if code, _, errOut := apeval(t, "", "run", "--out", small, "--sample", "40", "--format", "tsv", "--quiet"); code != 1 && code != 3 && code != 0 {
		t.Fatalf("run --sample 40: exit %d: %s", code, errOut)
	}
	code, out, errOut = apeval(t, "", "plan", small, "--baseline", base, "--labels", "300", "--reps", "10")
	if code != 0 || !strings.Contains(out, "labels for 80%") || !strings.Contains(out, "at 300 labels: PASS") ||
		!strings.Contains(out, ": with 300 labels: precision decided ") || !strings.Contains(out, "recall vs baseline decided ") || strings.Contains(out, base+"  ") {
		t.Errorf("labels: exit %d: %s%s", code, out, errOut)
	}
	// A row no number of labels decides ("–") has its reason under the
	// table: labeling every pair does not, and what would.
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 4 && f[4] == "–" && !strings.Contains(out, f[0]+" "+f[1]+" "+f[2]+": labeling all ") {
			t.Errorf("no reason under the table for %q:\n%s", line, out)
		}
	}
	// The label path's JSON, without the baseline's rows.
	code, out, errOut = apeval(t, "", "plan", small, "--baseline", base, "--labels", "50", "--reps", "10", "--json", "--rate", "precision=0.9", "--rate", "recall=0.8")
	var lp struct {
		Plans []struct {
			Path         string   `json:"path"`
			BudgetLabels int64    `json:"budget_labels"`
			BudgetPass   *float64 `json:"budget_pass"`
		} `json:"plans"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &lp) != nil || len(lp.Plans) == 0 || lp.Plans[0].Path != "labels" || lp.Plans[0].BudgetLabels != 50 || lp.Plans[0].BudgetPass == nil {
		t.Errorf("labels json: exit %d: %s%s", code, out, errOut)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--labels", "300", "--rate", "precision=0.9"}, "--labels 300: the label path is planned from a pilot run directory"},
		{[]string{dir, "--labels", "0"}, "--labels 0: a label budget needs at least 1 label"},
		// Bounds: a budget beyond the pilot's pairs, too many data sets.
		{[]string{dir, "--labels", "1000000000", "--reps", "10"}, "--labels 1000000000: the pilot has "},
		{[]string{dir, "--reps", "1000000"}, "--reps 1000000: at most 5000 simulated data sets"},
		{[]string{dir, "--labels", "10", "--rate", "precision=0.9"}, "give both precision=P and recall=R"},
		{[]string{dir, "--labels", "10", "--rate", "recall=0", "--rate", "precision=0.9"}, "recall=0 is not a rate in [0, 1]"},
		{[]string{dir, "--labels", "10", "--rate", "unknown=0.1"}, "with --labels, give --rate precision=P"},
		{[]string{dir, "--labels", "10", "--sessions", "5"}, "--sessions: a label plan counts labels"},
		{[]string{dir, "--rate", "precision=0.9"}, "--rate: a plan from a pilot run fits it"},
		{[]string{dir, "--pilot", dir}, "give the pilot run directory once"},
		{[]string{"--baseline", "x", "--rate", "precision=0.9"}, "--baseline \"x\": a baseline judge needs a pilot"},
		{[]string{filepath.Join(dir, "nope")}, "is not a run directory"},
		{[]string{dir, "--baseline", "nosuchjudge"}, "nosuchjudge"},
	} {
		code, _, errOut := apeval(t, "", append([]string{"plan"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q (want %q)", tc.args, code, errOut, tc.want)
		}
	}
}

// TestPlanInterrupted: Ctrl-C (or SIGTERM) during a plan's simulation ends
// the command with exit 130 and prints no plan; before, the search (up to
// 100,000 sessions, minutes near a threshold) ignored the signal.
func TestPlanInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// precision 0.9 against precision_min 0.9: the search runs to its bound.
	code, out, errOut := apevalCtx(t, ctx, "", "plan", "--rate", "precision=0.9", "--reps", "10")
	if code != exitInterrupted || out != "" || !strings.Contains(errOut, "plan interrupted") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// A signal while the simulation runs: interruptible returns at once,
	// not when the work ends.
	ctx, cancel = context.WithCancel(context.Background())
	block := make(chan struct{})
	defer close(block)
	err := interruptible(ctx, "plan", func() error {
		cancel()
		<-block
		return nil
	})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "plan interrupted before it finished") {
		t.Errorf("err %v", err)
	}
	// Work that ends first gives its own result.
	want := errors.New("boom")
	if err := interruptible(context.Background(), "plan", func() error { return want }); err != want {
		t.Errorf("err %v, want %v", err, want)
	}
}
