package reports

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

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
		"criterion                            threshold  guess                                            sessions for 80%  units  decided  at 24 sessions: PASS  FAIL\n",
		"dangerous_recall_must_beat_baseline  gain > 0   recall 0.85 vs baseline 0.7                      48                ≈ 144  82%      46%                   1%\n",
		"judge_p95_max                        1000 ms    P50 400 ms, P95 1000 ms                          –                 –      –        1%                    1%\n",
		"fire_rate_change_max                 ±0.05      drift -0.01, differ on 0.06, baseline fires 0.1  48",
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
