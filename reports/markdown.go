package reports

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/apeval/apeval/metrics"
)

var verdictMark = map[metrics.Verdict]string{
	metrics.VerdictGo:           "✅",
	metrics.VerdictNoGo:         "❌",
	metrics.VerdictInconclusive: "⚠️",
}

// code formats s as a Markdown code span.
func code(s string) string {
	if strings.Contains(s, "`") {
		return "`` " + s + " ``"
	}
	return "`" + s + "`"
}

// WriteMarkdown writes summary.md, fit for $GITHUB_STEP_SUMMARY or a pull
// request comment: the verdict first, the judges side by side, the
// per-rule table, then why the verdict is not GO, the criteria that were
// N/A and why, the comparison with the baseline, warnings as footnotes.
func (rep *Report) WriteMarkdown(w io.Writer) error {
	plain := *rep
	plain.Color = false // escape codes have no place in Markdown
	rep = &plain
	s := rep.Summary
	var b strings.Builder
	warnings := rep.footnoteTexts()
	refs := ""
	for i := range warnings {
		refs += fmt.Sprintf("[^%d]", i+1)
	}
	fmt.Fprintf(&b, "## %s apeval: %s\n\n", verdictMark[s.Verdict], s.Verdict)
	var facts []string
	if rep.Run.RunID != "" {
		facts = append(facts, "run "+code(rep.Run.RunID))
	}
	if len(s.Judges) > 0 && s.Judges[0].Total != nil {
		facts = append(facts, fmt.Sprintf("%d cases", s.Judges[0].Total.Cases))
	}
	var names []string
	for _, d := range rep.Run.Datasets {
		names = append(names, code(d.Name))
	}
	if len(names) > 0 {
		facts = append(facts, "dataset "+strings.Join(names, ", "))
	}
	if rep.Run.Policy != nil {
		facts = append(facts, "policy "+code(rep.Run.Policy.Name))
	}
	if s.Baseline != "" {
		facts = append(facts, "baseline "+code(s.Baseline))
	}
	exit := fmt.Sprintf("exit %d", rep.ExitCode())
	if s.Verdict == metrics.VerdictInconclusive && rep.Inconclusive != "" {
		exit += " (--inconclusive=" + rep.Inconclusive + ")"
	}
	facts = append(facts, exit)
	b.WriteString(strings.Join(facts, " · "))
	if len(warnings) > 0 {
		fmt.Fprintf(&b, " · ⚠️ %d warning(s)%s", len(warnings), refs)
	}
	if rep.Run.Interrupted {
		b.WriteString("\n\n> [!WARNING]\n> The run was interrupted: these figures cover only the cases replayed before it stopped.")
	}
	b.WriteString("\n\n### Judges\n\n")
	if err := rep.judgesGrid().render(&b, FormatMarkdown); err != nil {
		return err
	}
	b.WriteString("\n### Rules\n\n")
	rules := rep.rulesGrid(false)
	rules.notes = nil // warnings go to the footnotes below
	if err := rules.render(&b, FormatMarkdown); err != nil {
		return err
	}
	rep.writeCriteriaDetails(&b)
	for _, c := range s.Comparisons {
		fmt.Fprintf(&b, "\n<details><summary>%s vs baseline %s</summary>\n\n", mdEscape(c.Candidate), mdEscape(c.Baseline))
		for i, g := range rep.comparisonGrids(c) {
			if i > 0 {
				b.WriteString("\n")
			}
			if err := g.render(&b, FormatMarkdown); err != nil {
				return err
			}
		}
		b.WriteString("\n</details>\n")
	}
	if len(warnings) > 0 {
		b.WriteString("\n")
		for i, w := range warnings {
			fmt.Fprintf(&b, "[^%d]: %s\n", i+1, mdEscape(w))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// footnoteTexts are the run's and the judges' warnings, unnumbered.
func (rep *Report) footnoteTexts() []string {
	var notes []string
	notes = append(notes, rep.Summary.Warnings...)
	for _, j := range rep.Summary.Judges {
		for _, w := range j.Warnings {
			notes = append(notes, j.Judge+": "+w)
		}
	}
	return notes
}

// criterionResult is one evaluated criterion with where it was evaluated.
type criterionResult struct {
	judge, rule string
	c           metrics.Criterion
}

// criteriaResults lists every criterion of every row, judge totals first.
func criteriaResults(s *metrics.Summary) []criterionResult {
	var out []criterionResult
	for _, j := range s.Judges {
		rows := j.Rules
		if j.Total != nil {
			rows = append([]*metrics.Row{j.Total}, rows...)
		}
		for _, r := range rows {
			for _, c := range r.Criteria {
				out = append(out, criterionResult{j.Judge, r.RuleID, c})
			}
		}
	}
	return out
}

// writeCriteriaDetails explains the verdict: FAIL and INCONCLUSIVE
// criteria with their figures, then the N/A criteria grouped by reason.
func (rep *Report) writeCriteriaDetails(b *strings.Builder) {
	all := criteriaResults(rep.Summary)
	var open []criterionResult
	nFail, nOpen := 0, 0
	for _, cr := range all {
		switch cr.c.Status {
		case metrics.StatusFail:
			nFail++
			open = append(open, cr)
		case metrics.StatusInconclusive:
			nOpen++
			open = append(open, cr)
		}
	}
	if len(open) > 0 {
		fmt.Fprintf(b, "\n<details><summary>Why not GO: %d failing, %d inconclusive</summary>\n\n", nFail, nOpen)
		g := &grid{header: []string{"judge", "rule", "criterion", "status", "why"}}
		for _, cr := range open {
			g.add(cr.judge, ruleLabel(cr.rule), cr.c.Name, string(cr.c.Status), cr.c.Reason)
		}
		_ = g.render(b, FormatMarkdown)
		b.WriteString("\n</details>\n")
	}

	// N/A criteria, grouped by criterion and reason so "not a dangerous
	// rule" is said once with the rules it concerns.
	type key struct{ name, reason string }
	groups := map[key][]string{}
	var order []key
	for _, cr := range all {
		if cr.c.Status != metrics.StatusNA {
			continue
		}
		k := key{cr.c.Name, cr.c.Reason}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], cr.judge+" × "+ruleLabel(cr.rule))
	}
	if len(order) == 0 {
		return
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].name < order[j].name })
	fmt.Fprintf(b, "\n<details><summary>Not applicable (N/A): %d criteria, not counted in the verdict</summary>\n\n", countNA(all))
	for _, k := range order {
		fmt.Fprintf(b, "- %s — %s: %s\n", code(k.name), mdEscape(k.reason), mdEscape(strings.Join(groups[k], ", ")))
	}
	b.WriteString("\n</details>\n")
}

func countNA(all []criterionResult) int {
	n := 0
	for _, cr := range all {
		if cr.c.Status == metrics.StatusNA {
			n++
		}
	}
	return n
}
