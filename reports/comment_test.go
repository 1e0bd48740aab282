package reports

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/rundir"
)

// commentReport is the fixture's two judges (judge-v1 the base, judge-v2
// the head) under criteria chosen so the head is GO, NO-GO or
// INCONCLUSIVE; ERROR is the NO-GO run whose head judge's calls mostly
// failed. The head reports token usage and has a price, so the cost table
// has figures.
func commentReport(t *testing.T, verdict metrics.Verdict) (*Report, *metrics.Comparison) {
	t.Helper()
	crit := replay.DefaultKillCriteria()
	switch verdict {
	case metrics.VerdictGo, metrics.VerdictInconclusive:
		// 90 calls in 20 sessions cannot bound a P95 from above (the
		// sessions' spread reaches past the slowest call): no latency limit.
		crit = replay.KillCriteria{PrecisionMin: 0.1, JudgeRequiredRateMax: 0.95,
			UnknownRateMax: 0.5, ApprovalRejectRateMax: 1, FireRateChangeMax: 0.5, Confidence: 0.95}
		if verdict == metrics.VerdictInconclusive {
			crit.UnknownRateMax = 0.06
		}
	}
	acc := metrics.New(metrics.Config{Criteria: crit, Baseline: "recorded/judge-v1"})
	toks := Tokens{}
	fails := NewFailures()
	lax := verdict == metrics.VerdictGo || verdict == metrics.VerdictInconclusive
	for ci, r := range summaryResults() {
		if lax && ci%8 < 2 {
			// Every other case decided without the judge, so the
			// judge-required rate can pass.
			r.JudgeCalled, r.RulesJudged, r.LatencyMS, r.Status, r.Calls = false, 0, nil, "", nil
			for i := range r.Rules {
				rr := &r.Rules[i]
				rr.Source, rr.Call, rr.Confidence = replay.SourceDeterministic, -1, nil
				if rr.Result == "unknown" {
					rr.Result, rr.Status = "no_match", "ok"
				}
			}
		}
		if r.Judge == "recorded/judge-v2" {
			for i := range r.Calls {
				r.Calls[i].PromptTokens, r.Calls[i].CompletionTokens = ip(640), ip(24)
			}
			// ERROR: the head's server refused 9 calls in 10.
			if verdict == VerdictError && len(r.Calls) > 0 && ci%20 != 1 {
				r.Calls[0] = replay.Call{Rules: r.Calls[0].Rules, Status: judge.StatusError, LatencyMS: 2,
					Error: "dial tcp 127.0.0.1:11434: connect: connection refused", Attempts: 1}
				for i := range r.Rules {
					rr := &r.Rules[i]
					rr.Source, rr.Result, rr.Status, rr.Error, rr.Fired = replay.SourceFailure, "unknown", judge.StatusError, r.Calls[0].Error, false
				}
				r.Status = judge.StatusError
			}
		}
		fails.Add(r)
		acc.Add(r)
		toks.Add(r)
	}
	info := testInfo()
	info.RunID = "run-head"
	price := 0.15
	info.Judges = []rundir.JudgeInfo{{Identity: "recorded/judge-v1", Backend: "recorded", Model: "judge-v1"},
		{Identity: "recorded/judge-v2", Backend: "recorded", Model: "judge-v2", PriceIn: &price, PriceOut: fp(0.6)}}
	sum := acc.Close()
	exit := map[metrics.Verdict]int{metrics.VerdictGo: 0, metrics.VerdictNoGo: 1, metrics.VerdictInconclusive: 3}
	exit[VerdictError] = 2
	rep := &Report{Run: info, Summary: sum, Tokens: toks, Exit: exit[sum.Judge("recorded/judge-v2").Verdict], Failures: fails.Summary()}
	c := sum.Compare("recorded/judge-v1", "recorded/judge-v2")
	if c == nil {
		t.Fatal("no comparison")
	}
	if got := rep.CommentVerdict(c.Candidate); got != verdict {
		t.Fatalf("fixture for %s has verdict %s", verdict, got)
	}
	return rep, c
}

// TestCommentGolden: the pull-request comment of a GO, a NO-GO, an
// INCONCLUSIVE and an ERROR run. testdata/comment-*.md are also what
// .ci/comment-check.sh renders in Chromium at 800 px.
func TestCommentGolden(t *testing.T) {
	t.Parallel()
	for _, v := range []metrics.Verdict{metrics.VerdictGo, metrics.VerdictNoGo, metrics.VerdictInconclusive, VerdictError} {
		t.Run(string(v), func(t *testing.T) {
			rep, c := commentReport(t, v)
			var b bytes.Buffer
			if err := rep.WriteComment(&b, c, CommentOptions{Marker: "evals/apeval.toml",
				ReportURL: "https://github.com/o/r/actions/runs/42/artifacts/7"}); err != nil {
				t.Fatal(err)
			}
			got := b.String()
			if !strings.HasPrefix(got, "<!-- apeval:evals/apeval.toml -->\n## ") {
				t.Fatalf("the comment does not start with its marker and verdict:\n%.200s", got)
			}
			if !strings.Contains(got, "apeval: "+string(v)+"\n") {
				t.Errorf("the verdict line does not say %s", v)
			}
			golden(t, "comment-"+strings.ToLower(string(v))+".md", b.Bytes())
		})
	}
}

// TestCommentFitsLimit: a comparison of 4,000 rules does not fit GitHub's
// 65,536 characters; the comment keeps its marker, verdict, figures, cost
// and link, cuts the folded per-rule rows from the end with a note, and
// closes its <details>.
func TestCommentFitsLimit(t *testing.T) {
	t.Parallel()
	rep, c := commentReport(t, metrics.VerdictNoGo)
	big := *c
	big.Rules = nil
	for i := range 1000 {
		for _, rc := range c.Rules {
			cp := *rc
			cp.RuleID = fmt.Sprintf("%s-copy-%04d", rc.RuleID, i)
			big.Rules = append(big.Rules, &cp)
		}
	}
	var full bytes.Buffer
	if err := rep.WriteComment(&full, &big, CommentOptions{Limit: 1 << 30}); err != nil {
		t.Fatal(err)
	}
	if full.Len() <= CommentLimit {
		t.Fatalf("the uncut comment is only %d bytes: the test proves nothing", full.Len())
	}
	for _, limit := range []int{0, 20000} {
		var b bytes.Buffer
		if err := rep.WriteComment(&b, &big, CommentOptions{Marker: "apeval.toml", ReportURL: "https://example.test/r", Limit: limit}); err != nil {
			t.Fatal(err)
		}
		got := b.String()
		want := limit
		if want == 0 {
			want = CommentLimit
		}
		if len(got) > want || len(got) < want-2000 {
			t.Errorf("limit %d: the comment is %d bytes", want, len(got))
		}
		for _, s := range []string{"<!-- apeval:apeval.toml -->\n", "apeval: NO-GO", "### Figures, head vs base", "### Cost per 1,000 tool calls",
			"(https://example.test/r)", "cut to fit GitHub's 65,536-character comment limit", "<details><summary>Per-rule figures (4000 rules)"} {
			if !strings.Contains(got, s) {
				t.Errorf("limit %d: the cut comment lacks %q", want, s)
			}
		}
		if strings.Count(got, "<details>") != strings.Count(got, "</details>") {
			t.Errorf("limit %d: a <details> is left open", want)
		}
	}
}

func TestCommentMarker(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                  "<!-- apeval:apeval.toml -->",
		"evals/apeval.toml": "<!-- apeval:evals/apeval.toml -->",
		"x-->y":             "<!-- apeval:x-\u200b->y -->",
	} {
		if got := CommentMarker(in); got != want {
			t.Errorf("CommentMarker(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCommentCellsBalanced: no table cell of the comment carries an
// unbalanced parenthesis (the latency rows' p cell once ended in a stray
// ")" left from "(p=… n=120+120)"), the figures table's n of a latency
// row says base+head, and the fire-rate drift note says why its interval
// is not the fire rate row's.
func TestCommentCellsBalanced(t *testing.T) {
	t.Parallel()
	rep, c := commentReport(t, metrics.VerdictNoGo)
	var b bytes.Buffer
	if err := rep.WriteComment(&b, c, CommentOptions{Marker: "m"}); err != nil {
		t.Fatal(err)
	}
	latency := 0
	for _, line := range strings.Split(b.String(), "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for _, cell := range cells {
			if strings.Count(cell, "(") != strings.Count(cell, ")") {
				t.Errorf("unbalanced parenthesis in cell %q of\n%s", cell, line)
			}
		}
		if name := strings.TrimSpace(cells[0]); name == "P95 ms" && len(cells) == 6 {
			latency++
			if n := strings.TrimSpace(cells[5]); n != "120+120" {
				t.Errorf("P95 ms row's n = %q, want 120+120 (base+head calls):\n%s", n, line)
			}
			if p := cells[4]; strings.Contains(p, "n=") {
				t.Errorf("P95 ms row's p cell repeats n: %q", p)
			}
		}
	}
	if latency != 1 {
		t.Errorf("found %d P95 ms rows in the figures table, want 1", latency)
	}
	if !strings.Contains(b.String(), "counts only the fire-rate changes the labels do not explain") {
		t.Errorf("the fire-rate drift note does not say why its interval differs from the fire rate row:\n%s", b.String())
	}
}
