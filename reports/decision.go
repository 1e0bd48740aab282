package reports

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/apeval/apeval/metrics"
)

// verdictRule is the verdict rule in one sentence, said wherever a page
// explains a verdict (see docs/statistics.md).
const verdictRule = "A criterion FAILs only when its whole interval lies on the bad side of the threshold; " +
	"it is INCONCLUSIVE while the interval straddles the threshold, and PASSes when it lies wholly on the good side."

// critFigure names what a criterion measures (metrics.Criteria).
var critFigure = func() map[string]struct{ what string } {
	m := map[string]struct{ what string }{}
	for _, c := range metrics.Criteria {
		m[c.Name] = struct{ what string }{c.Figure}
	}
	return m
}()

// policyRule is the rule column of a policy criterion (metrics.CriterionSpec.Policy).
const policyRule = "policy, every judge"

// holdBack is one criterion that keeps a judge from GO, in plain words.
type holdBack struct {
	Rule   string // "all rules" for judge-level criteria, policyRule for policy ones
	Name   string // the criterion (a [kill_criteria] key)
	Status metrics.Status
	Text   string // figure, interval, n and threshold, then what decides it
	plain  string // Explain's words alone, without the policy and baseline notes
	more   int64  // samples that would decide an open criterion; -1 unknown
}

// Explain is the one explanation of a criterion's status — PASS, FAIL,
// INCONCLUSIVE or N/A — that every page shows: the terminal, summary.md,
// report.html, junit.xml and gate. It is the sentence metrics wrote when
// it decided the status (the estimate, its interval and n, the threshold,
// and for an open criterion what would decide it), so no page can tell a
// different story from the one the verdict followed.
func Explain(c metrics.Criterion) string {
	if c.Reason != "" {
		return c.Reason
	}
	cf, ok := critFigure[c.Name]
	if !ok {
		cf.what = c.Name
	}
	return fmt.Sprintf("%s: %s", cf.what, c.Status)
}

// holdBacks lists what keeps a judge from GO: failing criteria first, then
// open ones, the judge-level ones first, then nearest to a decision first
// (fewest more samples); rules in ID order otherwise.
//
// A policy criterion (the judge-required rate: no judge controls it) is
// labeled policyRule and its text says it blocks whatever judge is
// chosen; a failure the baseline judge base (nil: none) has on the same
// rule and criterion says "the baseline fails it too".
func holdBacks(j *metrics.JudgeSummary, base *metrics.JudgeSummary) []holdBack {
	rows := j.Rules
	if j.Total != nil {
		rows = append([]*metrics.Row{j.Total}, rows...)
	}
	var fail, open []holdBack
	for _, r := range rows {
		for _, c := range r.Criteria {
			h := holdBack{Rule: ruleLabel(r.RuleID), Name: c.Name, Status: c.Status, Text: Explain(c), more: -1}
			h.plain = h.Text
			if metrics.IsPolicyCriterion(c.Name) {
				h.Rule = policyRule
				h.Text += " (a policy criterion: the same for every judge, it blocks the feature whatever judge is chosen)"
			}
			if c.Status == metrics.StatusFail && base != nil && base != j {
				br := base.Total
				if r.RuleID != metrics.AllRules {
					br = base.Rule(r.RuleID)
				}
				if br != nil && br.Status(c.Name) == metrics.StatusFail {
					h.Text += " (the baseline fails it too)"
				}
			}
			if c.MoreSamples != nil {
				h.more = *c.MoreSamples
			}
			switch c.Status {
			case metrics.StatusFail:
				fail = append(fail, h)
			case metrics.StatusInconclusive:
				open = append(open, h)
			}
		}
	}
	sort.SliceStable(open, func(a, b int) bool {
		// The judge-level and policy criteria first: they hold back every rule.
		judgeLevel := func(h holdBack) bool { return h.Rule == ruleLabel(metrics.AllRules) || h.Rule == policyRule }
		if ja, jb := judgeLevel(open[a]), judgeLevel(open[b]); ja != jb {
			return ja
		}
		ma, mb := open[a].more, open[b].more
		if (ma < 0) != (mb < 0) {
			return ma >= 0
		}
		return ma < mb
	})
	return append(fail, open...)
}

// countHoldBacks splits hold-backs into failing and open criteria.
func countHoldBacks(hb []holdBack) (fail, open int) {
	for _, h := range hb {
		if h.Status == metrics.StatusFail {
			fail++
		} else {
			open++
		}
	}
	return fail, open
}

// verdictSummary says in a sentence how a judge's verdict came about.
func verdictSummary(j *metrics.JudgeSummary, hb []holdBack) string {
	fail, open := countHoldBacks(hb)
	crit := func(n int, one, many string) string {
		if n == 1 {
			return fmt.Sprintf("1 criterion %s", one)
		}
		return fmt.Sprintf("%d criteria %s", n, many)
	}
	switch {
	case fail > 0 && open > 0:
		isAre := "are"
		if open == 1 {
			isAre = "is"
		}
		return fmt.Sprintf("%s and %d %s still open.", crit(fail, "fails", "fail"), open, isAre)
	case fail > 0:
		return crit(fail, "fails", "fail") + "."
	case open > 0:
		return fmt.Sprintf("Nothing fails, but %s: more data decides %s.", crit(open, "is still open", "are still open"),
			map[bool]string{true: "it", false: "them"}[open == 1])
	}
	return "Every criterion passed or had no data (N/A)."
}

// ExitNote says how the verdict became the exit code when that is not the
// plain mapping: "INCONCLUSIVE mapped to exit 0 by --inconclusive=pass", or
// for a broken setup "ERROR: a judge's setup is broken (exit 2)"; "" else.
func (rep *Report) ExitNote() string {
	switch v := rep.Summary.Verdict; {
	case v == metrics.VerdictInconclusive && rep.Inconclusive != "":
		return fmt.Sprintf("INCONCLUSIVE mapped to exit %d by --inconclusive=%s", rep.Exit, rep.Inconclusive)
	case v == metrics.VerdictError:
		return fmt.Sprintf("ERROR: a judge's setup is broken, so there is no verdict (exit %d); fix the cause and rerun (apeval judges check helps)", rep.Exit)
	}
	return ""
}

// WriteReasons writes each judge's verdict and why each that is not GO is
// not: a broken setup's cause, then its failing and its open criteria,
// each in the words of Explain, tab-separated (apeval gate's output):
//
//	openai/x+p1	NO-GO
//	  FAIL	all rules	judge_p95_max	P95 1920 ms over 40 calls, lower bound …
//	  open	rm-rf	precision_min	precision 0.95 (…): the interval still reaches 0.9; …
//
// Gate writes them all, every judge's; the terminal (writeReasons with
// max > 0) the first max per candidate judge, counting the rest.
func (rep *Report) WriteReasons(w io.Writer) error { return rep.writeReasons(w, 0) }

func (rep *Report) writeReasons(w io.Writer, max int) error {
	candidates := 0
	for _, j := range rep.Summary.Judges {
		if !j.IsBaseline {
			candidates++
		}
	}
	terminal := max > 0
	for _, j := range rep.Summary.Judges {
		if terminal && (j.Verdict == metrics.VerdictGo || (j.IsBaseline && candidates > 0)) {
			continue // the terminal explains the judges the verdict is about
		}
		var lines []string
		if terminal {
			lines = append(lines, fmt.Sprintf("%s is %s:", j.Judge, j.Verdict))
		} else {
			lines = append(lines, fmt.Sprintf("%s\t%s", j.Judge, j.Verdict)) // gate's first column: the identity alone
		}
		line := func(status, rule, name, text string) {
			if rep.Weak() && onLabels(name+" "+text) {
				name += " (weak)"
			}
			if terminal {
				// Wrapped to the terminal (wrap indents continuation lines).
				for _, l := range wrap(fmt.Sprintf("%s %s, %s: %s", status, rule, name, text), rep.Width-2) {
					lines = append(lines, "  "+l)
				}
				return
			}
			lines = append(lines, fmt.Sprintf("  %s\t%s\t%s\t%s", status, rule, name, text))
		}
		if j.SetupError != "" {
			line("ERROR", "setup", "-", j.SetupError)
		}
		hb := holdBacks(j, rep.Summary.Judge(rep.Summary.Baseline))
		shown := hb
		if terminal && len(hb) > max {
			shown = hb[:max]
		}
		// A labeled rule whose every label weighs 1 is decided as
		// without --labels: said once per judge, with its rules, not at
		// the end of each of their reasons.
		var census []string
		for _, h := range shown {
			st := string(h.Status)
			if h.Status == metrics.StatusInconclusive {
				st = "open"
			}
			text := h.Text
			if strings.Contains(text, censusSuffix) {
				text = strings.Replace(text, censusSuffix, "", 1)
				if !slices.Contains(census, h.Rule) {
					census = append(census, h.Rule)
				}
			}
			line(st, h.Rule, h.Name, text)
		}
		if len(census) > 0 {
			slices.Sort(census)
			if terminal {
				for _, l := range wrap(fmt.Sprintf("every label weighs 1 on %s: decided as without --labels", strings.Join(census, ", ")), rep.Width-2) {
					lines = append(lines, "  "+l)
				}
			} else {
				lines = append(lines, fmt.Sprintf("  note	%s	-	every label of these rules weighs 1: decided as without --labels", strings.Join(census, ",")))
			}
		}
		if rest := len(hb) - len(shown); rest > 0 {
			lines = append(lines, fmt.Sprintf("  … %d more (summary.md and apeval gate list them all)", rest))
		}
		for _, l := range lines {
			if _, err := fmt.Fprintln(w, l); err != nil {
				return err
			}
		}
	}
	return nil
}

// censusSuffix is how a labeled criterion's reason ends (or, for the
// recall gain, its parenthesis) where every label of its rule weighs 1.
const censusSuffix = "; " + metrics.CensusNote

// setupErrors are the judges whose setup is broken, with the cause, for the
// pages' alerts.
func (rep *Report) setupErrors() []string {
	var out []string
	for _, j := range rep.Summary.Judges {
		if j.SetupError != "" {
			out = append(out, fmt.Sprintf("%s: ERROR, no verdict — %s. Fix the judge's setup and rerun (apeval judges check helps).", j.Judge, j.SetupError))
		}
	}
	return out
}
