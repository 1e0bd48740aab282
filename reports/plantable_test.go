package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/apeval/apeval/metrics"
)

// TestPlanViewTable: a plan from guesses prints each criterion's
// threshold as the tables say it, its guess, the sessions and units for
// 80 %, the shares at the budget, and, under the table, why a criterion
// no number of sessions decides stays open; JSON carries the plans.
func TestPlanViewTable(t *testing.T) {
	t.Parallel()
	n, u, r, pass, fail := int64(48), int64(144), 0.815, 0.46, 0.01
	v := PlanView{Confidence: 0.95, Sessions: 24, ICC: 0.1, SessionSize: 3, Reps: 400, Seed: 1, Plans: []metrics.PlanResult{
		{Criterion: metrics.CriterionDangerousRecall, RecallGuess: &metrics.RecallGuess{Recall: 0.85, BaselineRecall: 0.7},
			Sessions: &n, Units: &u, DecideRate: &r, BudgetPass: &pass, BudgetFail: &fail},
		{Criterion: metrics.CriterionJudgeP95Max, Threshold: 1000, LatencyGuess: &metrics.LatencyGuess{P50MS: 400, P95MS: 1000},
			BudgetPass: &fail, BudgetFail: &fail, Reason: "even 100000 sessions decide judge_p95_max with probability 0.05"},
		{Criterion: metrics.CriterionFireRateChangeMax, Threshold: 0.05, DriftGuess: &metrics.DriftGuess{Change: -0.01, Disagree: 0.06, BaselineFire: 0.1},
			Sessions: &n, Units: &u, DecideRate: &r, BudgetPass: &pass, BudgetFail: &fail},
	}}
	var b bytes.Buffer
	if err := v.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"criterion                            threshold     guess                                            sessions for 80%  units  decided  at 24 sessions: PASS  FAIL\n",
		"dangerous_recall_must_beat_baseline  > baseline    recall 0.85 vs baseline 0.7                      48                ≈ 144  82%      46%                   1%\n",
		"judge_p95_max                        ≤ 1000 ms     P50 400 ms, P95 1000 ms                          –                 –      –        1%                    1%\n",
		"fire_rate_change_max                 within ±0.05  drift -0.01, differ on 0.06, baseline fires 0.1  48",
		"ICC 0.1, 3 units per session, 95% intervals, 400 simulated data sets per size (seed 1).\n",
		"judge_p95_max: even 100000 sessions decide judge_p95_max with probability 0.05\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := v.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Target float64 `json:"target"`
		Plans  []struct {
			RecallGuess *struct {
				Recall float64 `json:"recall"`
			} `json:"recall_guess"`
		} `json:"plans"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil || got.Target != 0.8 || len(got.Plans) != 3 || got.Plans[0].RecallGuess == nil || got.Plans[0].RecallGuess.Recall != 0.85 {
		t.Errorf("json %v: %s", err, b.String())
	}
}

// TestPlanViewFormats: the table form of a pilot plan is what
// text/tabwriter printed (a row without budget shares is shorter, and
// ends the column blocks it lacks); Markdown has the same rows and the
// notes; CSV and TSV are the rows alone, every row as wide as the header.
func TestPlanViewFormats(t *testing.T) {
	t.Parallel()
	n, u, r, pass, fail, est := int64(233), int64(2406), 0.9, 0.55, 0.1, 0.1572
	v := PlanView{Confidence: 0.95, Sessions: 300, Pilot: "runs/pilot", Reps: 20, Seed: 1, Weak: true, Plans: []metrics.PlanResult{
		{Judge: "J", Rule: "*", Criterion: metrics.CriterionPrecisionMin, Threshold: 0.9, Sessions: &n, Units: &u, DecideRate: &r, BudgetPass: &pass, BudgetFail: &fail,
			Pilot: &metrics.PilotData{Estimate: &est, Sessions: 154, TrafficSessions: 154, Units: 1590, Unit: "cases"}},
		{Judge: "J", Rule: "r1", Criterion: metrics.CriterionUnknownRateMax, Threshold: 0.1, Reason: "no judged pair"},
		{Judge: "J", Rule: "r2", Criterion: metrics.CriterionUnknownRateMax, Threshold: 0.1, Sessions: &n, Units: &u, DecideRate: &r, BudgetPass: &pass, BudgetFail: &fail},
	}}
	var b bytes.Buffer
	if err := v.Write(&b, FormatTable); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	tw := tabwriter.NewWriter(&want, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "judge\trule\tcriterion\tthreshold\tpilot\tsessions for 80%\tunits\tdecided\tat 300 sessions: PASS\tFAIL")
	fmt.Fprintln(tw, "J\t*\tprecision_min (weak labels)\t≥ 0.9\t0.1572 over 154 sessions, 1590 cases\t233\t≈ 2406\t90%\t55%\t10%")
	fmt.Fprintln(tw, "J\tr1\tunknown_rate_max\t< 0.1\t–\t–\t–\t–")
	fmt.Fprintln(tw, "J\tr2\tunknown_rate_max\t< 0.1\t–\t233\t≈ 2406\t90%\t55%\t10%")
	_ = tw.Flush()
	want.WriteString("\nFrom the pilot runs/pilot: rates fitted (ICC and session sizes as seen), P95, recall vs baseline and drift by resampling its sessions; 95% intervals, 20 simulated data sets per size (seed 1).\n")
	want.WriteString("The pilot's labels are weak labels (run --weak-labels: users' overrides, a signal, not ground truth): its precision, recall vs baseline and drift are planned on them; label a slice (apeval label queue --weak-labels) and correct them (apeval label correct).\n")
	want.WriteString("unknown_rate_max: no judged pair\n")
	if b.String() != want.String() {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want.String())
	}
	b.Reset()
	if err := v.Write(&b, FormatCSV); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(b.String(), "\n"); len(lines) != 5 || lines[2] != "J,r1,unknown_rate_max,< 0.1,–,–,–,–,–,–" {
		t.Errorf("csv:\n%s", b.String())
	}
	b.Reset()
	if err := v.Write(&b, FormatMarkdown); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"| judge | rule |", "| J     | r1   | unknown_rate_max", "\nunknown_rate_max: no judged pair  \n", "\nFrom the pilot runs/pilot: "} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("markdown lacks %q:\n%s", w, b.String())
		}
	}
}

// TestPlanViewLabelTable: the label path's table form is what
// text/tabwriter printed, with a line per judge and rule in words under
// it, then what the plan rests on and why a criterion is not planned.
func TestPlanViewLabelTable(t *testing.T) {
	t.Parallel()
	n, r, pass, fail := int64(120), 0.85, 0.6, 0.2
	v := PlanView{Confidence: 0.95, Labels: 300, Pilot: "runs/p", Reps: 20, Seed: 1, Plans: []metrics.PlanResult{
		{Judge: "J", Rule: "r1", Criterion: metrics.CriterionPrecisionMin, Threshold: 0.9, Labels: &n, DecideRate: &r, BudgetPass: &pass, BudgetFail: &fail},
		{Judge: "J", Rule: "r1", Criterion: metrics.CriterionDangerousRecall, Reason: "no labeled positive"},
	}}
	var b bytes.Buffer
	if err := v.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	want := `judge  rule  criterion                            threshold   labels for 80%  decided  at 300 labels: PASS  FAIL
J      r1    precision_min                        ≥ 0.9       120             85%      60%                  20%
J      r1    dangerous_recall_must_beat_baseline  > baseline  –               –        –                    –

J, r1: with 300 labels: precision decided 80%, recall vs baseline not planned

Labels from ` + "`apeval label queue runs/p --budget N`" + `, every judge of the run as strata; the pilot's own labels (else the --rate guesses) stand for what the labels will show; 95% intervals, 20 simulated queues per size (seed 1).
J r1 dangerous_recall_must_beat_baseline: no labeled positive
`
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestPlanPilotCellSaysThePlannedRate: a pilot with only events (2 of 2
// match predictions true) is planned at (Y + ½)/(M + 1) = 0.8333, below
// precision_min; the pilot column says so beside the pilot's 1, so a
// FAIL share at the budget does not read as a contradiction.
func TestPlanPilotCellSaysThePlannedRate(t *testing.T) {
	t.Parallel()
	one, half := 1.0, 0.1
	all := metrics.PlanResult{Criterion: metrics.CriterionPrecisionMin, Guess: &metrics.PlanGuess{Rate: 2.5 / 3, ICC: 0},
		Pilot: &metrics.PilotData{Estimate: &one, Sessions: 1, TrafficSessions: 39, Units: 2, Unit: "match predictions"}}
	if got, want := pilotCell(all), "1 (planned at 0.8333, ICC 0.00) over 1 of 39 sessions, 2 match predictions"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	some := metrics.PlanResult{Criterion: metrics.CriterionUnknownRateMax, Guess: &metrics.PlanGuess{Rate: half, ICC: 0.2},
		Pilot: &metrics.PilotData{Estimate: &half, Sessions: 3, TrafficSessions: 3, Units: 10, Unit: "judged pairs"}}
	if got, want := pilotCell(some), "0.1 (ICC 0.20) over 3 sessions, 10 judged pairs"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestPlanViewBudgetOfOne: a budget of one session (or label) is "at 1
// session", not "at 1 sessions".
func TestPlanViewBudgetOfOne(t *testing.T) {
	t.Parallel()
	n, r, pass, fail := int64(60), 0.83, 0.0, 0.04
	v := PlanView{Confidence: 0.95, Sessions: 1, ICC: 0.3, SessionSize: 1.5, Reps: 200, Seed: 1, Plans: []metrics.PlanResult{
		{Criterion: metrics.CriterionPrecisionMin, Threshold: 0.9, Guess: &metrics.PlanGuess{Rate: 0.95}, Sessions: &n, Units: &n, DecideRate: &r, BudgetPass: &pass, BudgetFail: &fail}}}
	var b bytes.Buffer
	if err := v.Write(&b, FormatCSV); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), ",at 1 session: PASS,FAIL\n") {
		t.Errorf("header: %s", b.String())
	}
	if got := count(300, "label"); got != "300 labels" {
		t.Errorf("count(300) = %q", got)
	}
}

// TestPlanViewLabelTableSaysAThinPilot: a label plan resting on a few
// pilot labels where the judges disagree prints its reason under the
// table, though it has a size.
func TestPlanViewLabelTableSaysAThinPilot(t *testing.T) {
	t.Parallel()
	n, r, pass, fail := int64(40), 0.85, 0.6, 0.2
	v := PlanView{Confidence: 0.95, Labels: 300, Pilot: "runs/p", Reps: 20, Seed: 1, Plans: []metrics.PlanResult{
		{Judge: "J", Rule: "r1", Criterion: metrics.CriterionPrecisionMin, Threshold: 0.9, Labels: &n, DecideRate: &r, BudgetPass: &pass, BudgetFail: &fail,
			Thin: &metrics.ThinStratum{Results: "J match, K no_match", Pairs: 48, Labels: 5}, Reason: "about 40 labels ... (a guess: the pilot labels 5 of the 48 pairs where J match, K no_match ...)"},
	}}
	var b bytes.Buffer
	if err := v.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\nJ r1 precision_min: about 40 labels ... (a guess: the pilot labels 5 of the 48 pairs") {
		t.Errorf("table:\n%s", b.String())
	}
}

// TestPlanViewOneFirstQueue: where two rules' plans rest on few labels
// where the judges disagree, the table names one `label queue` with both
// --rule and its length (the rules' first stages added), and --json has
// it as label_first; one rule's own command stays in its reason.
func TestPlanViewOneFirstQueue(t *testing.T) {
	t.Parallel()
	first := func(rule string, n int64) *metrics.LabelFirst {
		return &metrics.LabelFirst{Rule: rule, Labels: n, Reach: 40, Command: "apeval label queue runs/p --rule " + rule + " --reach 40 --labels a.jsonl"}
	}
	thin := &metrics.ThinStratum{Results: "J match, K no_match", Pairs: 30, Labels: 2}
	v := PlanView{Confidence: 0.95, Labels: 300, Pilot: "runs/p", Reps: 20, Seed: 1, Plans: []metrics.PlanResult{
		{Judge: "J", Rule: "r1", Criterion: metrics.CriterionPrecisionMin, Reason: "r1's reason", Thin: thin, First: first("r1", 18)},
		{Judge: "K", Rule: "r1", Criterion: metrics.CriterionPrecisionMin, Reason: "r1's reason", Thin: thin, First: first("r1", 18)},
		{Judge: "J", Rule: "r2", Criterion: metrics.CriterionPrecisionMin, Reason: "r2's reason", Thin: thin, First: first("r2", 7)},
	}}
	var b bytes.Buffer
	if err := v.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	want := "Label first, for the 2 rules below whose plans rest on under 40 labels of a stratum where the judges disagree, one queue: `apeval label queue runs/p --rule r1 --rule r2 --reach 40 --labels a.jsonl` queues 25 labels (r1 18, r2 7); add them to the pilot's labels and plan again.\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("table lacks %q:\n%s", want, b.String())
	}
	b.Reset()
	if err := v.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"command": "apeval label queue runs/p --rule r1 --rule r2 --reach 40 --labels a.jsonl"`) || !strings.Contains(b.String(), `"labels": 25`) {
		t.Errorf("json:\n%s", b.String())
	}
	v.Plans = v.Plans[:2]
	b.Reset()
	if err := v.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "Label first") {
		t.Errorf("one rule: its own command is the queue:\n%s", b.String())
	}
}
