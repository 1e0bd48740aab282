package metrics

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/replay"
)

// TestAgreementWarnsWhenPeopleAgreeLessThanTheJudge: two labelers who
// agree no better than chance (κ 0) while the judge equals the first
// labels (κ 1) give the warning that the labels are the problem; two
// labelers who agree perfectly with each other and the judge give none;
// nor do people who rated fewer than MinKappaItems pairs twice, whose κ
// has no interval (label agreement warned, for every judge, on one pair
// two people labeled apart: "κ 0.00 on 1 pairs").
func TestAgreementWarnsWhenPeopleAgreeLessThanTheJudge(t *testing.T) {
	t.Parallel()
	first := []bool{true, true, true, true, true, true, false, false, false, false, false, false}
	noisy := []bool{false, true, false, true, false, true, false, true, false, true, false, true} // 6 of 12 agree, marginals 1/2: κ 0
	table := NewPairTable([]string{"J"}, nil)
	for i, m := range first {
		res := judge.NoMatch
		if m {
			res = judge.Match
		}
		table.Add(&replay.Result{CaseID: fmt.Sprintf("c%d", i), SessionID: fmt.Sprintf("s%d", i), Judge: "J",
			Rules: []replay.RuleResult{{RuleID: "R", Result: res, Status: judge.StatusOK}}})
	}
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	lines := func(second []bool) []datasets.SampleLabel {
		var out []datasets.SampleLabel
		for who, labels := range map[string][]bool{"ann": first, "bob": second} {
			for i, m := range labels {
				lab := datasets.LabelNoMatch
				if m {
					lab = datasets.LabelMatch
				}
				at := t0.Add(time.Duration(i) * time.Minute)
				if who == "bob" {
					at = at.Add(time.Hour) // ann's labels are first by time
				}
				out = append(out, datasets.SampleLabel{CaseID: fmt.Sprintf("c%d", i), RuleID: "R", Stratum: "J:x",
					StratumSize: 8, Order: i + 1, Label: lab, Labeler: who, Time: &at})
			}
		}
		return out
	}

	rep, err := LabelAgreement(lines(noisy), table, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rules) != 1 || rep.Rules[0].People.Kappa == nil || len(rep.Rules[0].Judges) != 1 {
		t.Fatalf("report %+v", rep)
	}
	nearW(t, "people kappa", *rep.Rules[0].People.Kappa, 0, 1e-12)
	nearW(t, "judge kappa", *rep.Rules[0].Judges[0].Kappa.Kappa, 1, 1e-12)
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "people agree less with each other") {
		t.Errorf("warnings %q, want one saying people agree less than the judge", rep.Warnings)
	}

	rep, err = LabelAgreement(lines(first), table, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Warnings) != 0 {
		t.Errorf("labelers in full agreement: warnings %q, want none", rep.Warnings)
	}

	// The same disagreement on 4 pairs only: κ 0 against the judge's 1,
	// but no interval (N/A below 10), so no warning.
	var few []datasets.SampleLabel
	for _, l := range lines(noisy) {
		if l.Order >= 5 && l.Order <= 8 { // first T T F F, noisy F T F T
			few = append(few, l)
		}
	}
	rep, err = LabelAgreement(few, table, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if p := rep.Rules[0].People; p.Items != 4 || p.Kappa == nil || *p.Kappa >= 1 || p.IntervalNA == "" {
		t.Fatalf("4 pairs: people %+v, want κ below the judge's and an N/A interval", p)
	}
	if len(rep.Warnings) != 0 {
		t.Errorf("4 pairs rated twice: warnings %q, want none", rep.Warnings)
	}
}
