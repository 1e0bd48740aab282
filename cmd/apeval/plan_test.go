package main

import (
	"encoding/json"
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
	if code != 0 || !strings.Contains(out, "precision_min  0.93") || !strings.Contains(out, "sessions for 80%") {
		t.Errorf("exit %d: %s%s", code, out, errOut)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate", "precision=1.2"}, "rate 1.2 is outside [0, 1]"},
		{[]string{"--rate", "precision=0.9", "--icc", "-0.1"}, "--icc: ICC -0.1 is outside [0, 1)"},
		{[]string{"--rate", "precision=0.9", "--session-size", "0"}, "--session-size: session size 0 is below 1"},
		{[]string{"--rate", "precision=0.9", "--sessions", "0"}, "--sessions 0"},
		{[]string{"--rate", "recall=0.9"}, "plan covers"},
		{nil, "at least one --rate"},
	} {
		code, _, errOut := apeval(t, "", append([]string{"plan"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q (want %q)", tc.args, code, errOut, tc.want)
		}
	}
}
