package samplegen_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/datasets/internal/samplegen"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/judge/recorded"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
)

// TestSampleShowsComparison replays the sample with its two recorded
// judges under the default kill criteria: the sample exists to show a
// meaningful comparison, so the newer judge must not be NO-GO on any rule
// (it is GO or INCONCLUSIVE), the older one must be NO-GO overall and on
// several rules, and at least one rule must reach GO.
func TestSampleShowsComparison(t *testing.T) {
	files, err := samplegen.Generate()
	if err != nil {
		t.Fatal(err)
	}
	pol, err := replay.ParsePolicy(files.Policy, "policy.toml")
	if err != nil {
		t.Fatal(err)
	}
	if pol.KillCriteria != replay.DefaultKillCriteria() {
		t.Errorf("sample kill criteria %+v are not the defaults", pol.KillCriteria)
	}
	r := datasets.Open([]string{"-"}, bytes.NewReader(files.Cases))
	defer r.Close()
	next := func() (*datasets.Case, bool) {
		if !r.Scan() {
			return nil, false
		}
		rec := r.Record()
		if rec.Err != nil {
			t.Error(rec.Err) // next runs on a replay goroutine: no t.Fatal
			return nil, false
		}
		return rec.Case, true
	}
	acc := metrics.New(metrics.Config{Criteria: pol.KillCriteria})
	judges := []judge.Judge{recorded.New(samplegen.JudgeOld), recorded.New(samplegen.JudgeNew)}
	if _, err := replay.Run(context.Background(), pol, next, judges, replay.Options{}, func(res *replay.Result) error {
		acc.Add(res)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s := acc.Close()
	verdicts := map[string]map[string]metrics.Verdict{}
	for _, j := range s.Judges {
		v := map[string]metrics.Verdict{"*": j.Verdict}
		for _, row := range j.Rules {
			v[row.RuleID] = row.Verdict
		}
		verdicts[j.Model] = v
		t.Logf("%s: %v", j.Judge, v)
	}
	old, cur := verdicts[samplegen.JudgeOld], verdicts[samplegen.JudgeNew]
	if old == nil || cur == nil {
		t.Fatalf("judges in the summary: %v", verdicts)
	}
	if old["*"] != metrics.VerdictNoGo {
		t.Errorf("%s overall = %s, want NO-GO", samplegen.JudgeOld, old["*"])
	}
	noGo, goRules := 0, 0
	for rule, v := range old {
		if rule != "*" && v == metrics.VerdictNoGo {
			noGo++
		}
	}
	for rule, v := range cur {
		if v == metrics.VerdictNoGo {
			t.Errorf("%s is NO-GO on %s", samplegen.JudgeNew, rule)
		}
		if rule != "*" && v == metrics.VerdictGo {
			goRules++
		}
	}
	// Two since the session-clustered intervals: irreversible-delete's
	// precision interval under the beta-binomial method reaches 0.90, so
	// that rule is open (INCONCLUSIVE), not failed; commit-message-style and
	// one more stay NO-GO on evidence.
	if noGo < 2 {
		t.Errorf("%s is NO-GO on %d rules, want at least 2", samplegen.JudgeOld, noGo)
	}
	if goRules == 0 {
		t.Errorf("no rule is GO for %s", samplegen.JudgeNew)
	}
}
