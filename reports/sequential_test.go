package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/apeval/apeval/metrics"
)

func sequentialFixture() *metrics.SequentialResult {
	f := func(v float64) *float64 { return &v }
	n := 47
	crit := func(name string, st metrics.Status, reason string) metrics.SequentialCrit {
		return metrics.SequentialCrit{Name: name, Status: st, Reason: reason, Threshold: 0.9, Sessions: 51}
	}
	pass := crit(metrics.CriterionPrecisionMin, metrics.StatusPass, "")
	pass.DecidedAfter, pass.DecidedLook, pass.DecidedRun = &n, 2, "hist/b"
	pass.Estimate, pass.Lo, pass.Hi = f(1), f(0.909), f(1)
	lat := crit(metrics.CriterionJudgeP95Max, metrics.StatusInconclusive, "")
	lat.Threshold = 1000
	na := crit(metrics.CriterionDangerousRecall, metrics.StatusNA, "not a dangerous rule")
	req := crit("judge_required_rate_max", metrics.StatusFail, "")
	rows := []metrics.SequentialRow{{RuleID: metrics.AllRules, Criteria: []metrics.SequentialCrit{lat, req}}}
	for _, r := range []string{"r1", "r2", "r3", "r4"} {
		rows = append(rows, metrics.SequentialRow{RuleID: r, Criteria: []metrics.SequentialCrit{pass, na}})
	}
	return &metrics.SequentialResult{Runs: []string{"hist/a", "hist/b"}, Alpha: 0.05, Verdict: metrics.VerdictNoGo,
		Judges: []metrics.SequentialJudge{
			{Judge: "base", Baseline: true, Sessions: 10, Verdict: metrics.VerdictGo, JudgeVerdict: metrics.VerdictGo, PolicyVerdict: metrics.VerdictGo,
				Rows: []metrics.SequentialRow{{RuleID: "r1", Criteria: []metrics.SequentialCrit{na}}}},
			{Judge: "cand", Sessions: 154, DuplicateSessions: 60, DuplicateCases: 823, BrokenRuns: []string{"hist/a"},
				Verdict: metrics.VerdictNoGo, JudgeVerdict: metrics.VerdictInconclusive, PolicyVerdict: metrics.VerdictNoGo, Rows: rows},
		}}
}

// TestWriteSequential: the table form is what gate --sequential printed
// with text/tabwriter (every row with data, the N/A criteria grouped by
// reason, more than 3 rules counted, the judges' lines, the verdict);
// Markdown says the same as lists; TSV and CSV are the rows alone.
func TestWriteSequential(t *testing.T) {
	t.Parallel()
	res := sequentialFixture()
	var b bytes.Buffer
	if err := WriteSequential(&b, res, FormatTable); err != nil {
		t.Fatal(err)
	}
	want := `sequential gate over 2 runs: 95% confidence sequences over sessions (a wrong decision on any criterion at most 0.05, however many runs)

judge     rule       criterion                               status  decided                            estimate [interval]  sessions
(policy)  all rules  judge_required_rate_max (policy)        FAIL    -                                  -                    51
cand      all rules  judge_p95_max (share > 1000 ms ≤ 0.05)  open    -                                  -                    51
cand      r1         precision_min                           PASS    after 47 sessions, run 2 (hist/b)  1 [0.909, 1]         51
cand      r2         precision_min                           PASS    after 47 sessions, run 2 (hist/b)  1 [0.909, 1]         51
cand      r3         precision_min                           PASS    after 47 sessions, run 2 (hist/b)  1 [0.909, 1]         51
cand      r4         precision_min                           PASS    after 47 sessions, run 2 (hist/b)  1 [0.909, 1]         51

N/A (nothing to decide, or not decided sequentially):
  base (baseline), dangerous_recall_must_beat_baseline on r1: not a dangerous rule
  cand, dangerous_recall_must_beat_baseline on 4 rules: not a dangerous rule

base: 10 sessions counted; verdict GO (judge GO, policy GO)
cand: 154 sessions counted; 60 sessions (823 cases) that an earlier run had already counted were left out; broken setup, sessions left out: hist/a; verdict NO-GO (judge INCONCLUSIVE, policy NO-GO)
verdict	NO-GO
`
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteSequential(&b, res, FormatMarkdown); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"| judge    | rule      | criterion ",
		"\n- cand, dangerous_recall_must_beat_baseline on 4 rules: not a dangerous rule\n",
		"\n- cand: 154 sessions counted; 60 sessions",
		"\nverdict: **NO-GO**\n",
	} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("markdown lacks %q:\n%s", w, b.String())
		}
	}
	b.Reset()
	if err := WriteSequential(&b, res, FormatCSV); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 7 || lines[0] != "judge,rule,criterion,status,decided,estimate [interval],sessions" ||
		lines[3] != `cand,r1,precision_min,PASS,"after 47 sessions, run 2 (hist/b)","1 [0.909, 1]",51` {
		t.Errorf("csv:\n%s", b.String())
	}
}

// TestWriteSequentialNotes: the warnings, the weak banner, the broken
// setup's ERROR and --inconclusive's mapping, each only when it applies.
func TestWriteSequentialNotes(t *testing.T) {
	t.Parallel()
	res := &metrics.SequentialResult{Verdict: metrics.VerdictInconclusive, Warnings: []string{"J, all rules, unknown_rate_max: drifts"}}
	var b bytes.Buffer
	WriteSequentialNotes(&b, res, true, "pass", 0)
	want := "apeval: warning: J, all rules, unknown_rate_max: drifts\napeval: " + WeakBanner + "\napeval: INCONCLUSIVE mapped to exit 0 by --inconclusive=pass\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	WriteSequentialNotes(&b, &metrics.SequentialResult{Verdict: metrics.VerdictError}, false, "pass", 2)
	if b.String() != "apeval: ERROR: a judge's setup is broken in the latest run, so there is no verdict (exit 2); fix the cause and rerun (apeval judges check helps)\n" {
		t.Errorf("ERROR: %q", b.String())
	}
	b.Reset()
	WriteSequentialNotes(&b, &metrics.SequentialResult{Verdict: metrics.VerdictInconclusive}, false, "", 3)
	if b.Len() != 0 {
		t.Errorf("nothing to say: %q", b.String())
	}
}

// TestWriteSequentialPolicyOnce: the judge-required rate, a policy
// criterion, is one row "(policy)" when every judge shows the same
// standing (gate --sequential over two judges printed it twice); when a
// judge's sessions differ (a broken run left some out) each judge keeps
// its own row.
func TestWriteSequentialPolicyOnce(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	req := metrics.SequentialCrit{Name: metrics.CriterionJudgeRequiredRateMax, Status: metrics.StatusInconclusive, Threshold: 0.2,
		Estimate: f(0.2139), Lo: f(0.1545), Hi: f(0.274), Sessions: 154}
	p95 := metrics.SequentialCrit{Name: metrics.CriterionJudgeP95Max, Status: metrics.StatusInconclusive, Threshold: 1000, Sessions: 130}
	judge := func(name string, req metrics.SequentialCrit) metrics.SequentialJudge {
		return metrics.SequentialJudge{Judge: name, Sessions: 154, Rows: []metrics.SequentialRow{{RuleID: metrics.AllRules, Criteria: []metrics.SequentialCrit{p95, req}}}}
	}
	res := &metrics.SequentialResult{Runs: []string{"a"}, Alpha: 0.05, Judges: []metrics.SequentialJudge{judge("j1", req), judge("j2", req)}}
	var b bytes.Buffer
	if err := WriteSequential(&b, res, FormatCSV); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Count(b.String(), "judge_required_rate_max"), 1; got != want ||
		!strings.Contains(b.String(), "\n(policy),all rules,judge_required_rate_max (policy),open,-,\"0.2139 [0.1545, 0.274]\",154\n") {
		t.Errorf("shared policy criterion, want one (policy) row:\n%s", b.String())
	}
	other := req
	other.Sessions, other.Estimate = 120, f(0.25)
	res.Judges[1] = judge("j2", other)
	b.Reset()
	if err := WriteSequential(&b, res, FormatCSV); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\nj1,all rules,judge_required_rate_max (policy),") || !strings.Contains(b.String(), "\nj2,all rules,judge_required_rate_max (policy),") ||
		strings.Contains(b.String(), "(policy),all rules") {
		t.Errorf("differing standings, want a row per judge:\n%s", b.String())
	}
}

// TestSequentialEstimateOutside: where the sessions' mean lies outside the
// sequence's interval (drift), the table prints the two as what they are,
// not as an estimate and its interval (it printed "0.2139 [0.0985,
// 0.1365]" on the sample, the judge-required rate's policy row).
func TestSequentialEstimateOutside(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	c := metrics.SequentialCrit{Name: metrics.CriterionJudgeRequiredRateMax, Status: metrics.StatusInconclusive,
		Estimate: f(0.2139), Lo: f(0.0985), Hi: f(0.1365), Outside: true}
	if got, want := sequentialEstimate(c), "mean 0.2139, outside [0.0985, 0.1365]"; got != want {
		t.Errorf("outside: %q, want %q", got, want)
	}
	c.Outside, c.Estimate = false, f(0.12)
	if got, want := sequentialEstimate(c), "0.12 [0.0985, 0.1365]"; got != want {
		t.Errorf("inside: %q, want %q", got, want)
	}
	// Every rate excluded: the interval is the mean itself, [m, m]; it
	// printed "0.25 [0.25, 0.25]".
	c.Excluded, c.Estimate, c.Lo, c.Hi = true, f(0.25), f(0.25), f(0.25)
	if got, want := sequentialEstimate(c), "mean 0.25, every rate excluded"; got != want {
		t.Errorf("excluded: %q, want %q", got, want)
	}
}

// TestSequentialEstimateNamesOneSidedBounds: the recall gain's Lo and Hi
// are two one-sided bounds, not an interval; its cell says so as --json's
// bounds does, while a two-sided interval keeps "estimate [lo, hi]".
func TestSequentialEstimateNamesOneSidedBounds(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	gain := metrics.SequentialCrit{Name: metrics.CriterionDangerousRecall, Status: metrics.StatusPass,
		Estimate: f(0.4722), Lo: f(0.042), Hi: f(0.646), Bounds: metrics.BoundsLabel(0.05)}
	two := metrics.SequentialCrit{Name: metrics.CriterionPrecisionMin, Status: metrics.StatusPass,
		Estimate: f(1), Lo: f(0.909), Hi: f(1)}
	drift := gain
	drift.Outside, drift.Estimate = true, f(0.7)
	// A negative bound takes a true minus, as gate's reasons and the
	// other tables print one.
	open := gain
	open.Estimate, open.Lo, open.Hi = f(0.25), f(-0.13), f(0.682)
	for _, tc := range []struct {
		c    metrics.SequentialCrit
		want string
	}{
		{gain, "0.4722, one-sided 95% bounds [0.042, 0.646]"},
		{two, "1 [0.909, 1]"},
		{drift, "mean 0.7, outside one-sided 95% bounds [0.042, 0.646]"},
		{open, "0.25, one-sided 95% bounds [−0.13, 0.682]"},
	} {
		if got := sequentialEstimate(tc.c); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.c.Name, got, tc.want)
		}
	}
}
