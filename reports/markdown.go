package reports

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/apeval/apeval/judge/core"
	"github.com/apeval/apeval/metrics"
)

// verdictMark is the mark before a verdict in summary.md and the PR
// comment.
var verdictMark = map[metrics.Verdict]string{
	metrics.VerdictGo:           "✅",
	metrics.VerdictNoGo:         "❌",
	metrics.VerdictInconclusive: "⚠️",
	metrics.VerdictError:        "🛑",
}

// WriteMarkdown writes summary.md, fit for $GITHUB_STEP_SUMMARY or a pull
// request comment: the verdict first, the judges side by side, the
// per-rule table, then why the verdict is not GO, the criteria that were
// N/A and why, the comparison with the baseline folded away, and warnings
// as footnotes.
func (rep *Report) WriteMarkdown(w io.Writer) error {
	plain := *rep
	plain.Color = false // escape codes have no place in Markdown
	rep = &plain
	s := rep.Summary
	var b strings.Builder
	warnings := rep.footnoteTexts()
	fmt.Fprintf(&b, "## %s apeval: %s\n\n", verdictMark[s.Verdict], s.Verdict)
	b.WriteString(strings.Join(rep.facts(code), " · "))
	if len(warnings) > 0 {
		fmt.Fprintf(&b, " · ⚠️ %d warning(s)", len(warnings))
		for i := range warnings {
			fmt.Fprintf(&b, "[^%d]", i+1)
		}
	}
	if rep.Weak() {
		b.WriteString("\n\n> [!WARNING]\n> " + WeakBanner)
	}
	if rep.Run.Interrupted {
		b.WriteString("\n\n> [!WARNING]\n> The run was interrupted: these figures cover only the cases replayed before it stopped.")
	}
	if rep.Run.Partial != "" {
		fmt.Fprintf(&b, "\n\n> [!WARNING]\n> Partial run, stopped by the %s: these figures cover only the finished cases, and no verdict gates on them (exit 2). A rerun with the same cache continues where it stopped.", mdEscape(rep.Run.Partial))
	}
	if bu := rep.Run.Budget; bu != nil && bu.Unmetered > 0 {
		fmt.Fprintf(&b, "\n\n> [!NOTE]\n> --budget-usd: %d call(s) reported no token counts; each was counted at its estimate from the input's size (not as free). Spent: $%s of $%s.", bu.Unmetered, core.USD(bu.USD), core.USD(bu.MaxUSD))
	}
	for _, l := range rep.setupErrors() {
		fmt.Fprintf(&b, "\n\n> [!CAUTION]\n> %s", mdEscape(l))
	}
	for _, f := range rep.Failures {
		kind := "NOTE"
		if f.Broken {
			kind = "CAUTION"
		}
		fmt.Fprintf(&b, "\n\n> [!%s]", kind)
		for i, l := range f.Lines() {
			if i == 0 {
				fmt.Fprintf(&b, "\n> %s:", mdEscape(l))
			} else {
				fmt.Fprintf(&b, "\n> - %s", mdEscape(l))
			}
		}
	}
	if rep.Gates != nil {
		b.WriteString("\n\n### Gate actions\n\n")
		if err := rep.Gates.grid(false).render(&b, FormatMarkdown); err != nil {
			return err
		}
		b.WriteString("\n### Judges\n\n")
	} else {
		b.WriteString("\n\n### Judges\n\n")
	}
	if err := rep.judgesGrid().render(&b, FormatMarkdown); err != nil {
		return err
	}
	b.WriteString("\n### Rules\n\n")
	rules := rep.rulesGrid(false)
	rules.notes = []string{rep.openLegend()} // warnings go to the footnotes below
	if err := rules.render(&b, FormatMarkdown); err != nil {
		return err
	}
	if g := rep.sampleGrid(); g != nil {
		b.WriteString("\n### Labeled sample\n\n")
		if err := g.render(&b, FormatMarkdown); err != nil {
			return err
		}
	}
	if why := rep.whyGrid(); why != nil {
		fmt.Fprintf(&b, "\n<details><summary>Why not GO: %s</summary>\n\n", rep.whyCounts())
		why.notes = []string{verdictRule}
		if err := why.render(&b, FormatMarkdown); err != nil {
			return err
		}
		b.WriteString("\n</details>\n")
	}
	if na, n := rep.naLines(); len(na) > 0 {
		fmt.Fprintf(&b, "\n<details><summary>Not applicable (N/A): %d criteria, not counted in the verdict</summary>\n\n", n)
		for _, l := range na {
			b.WriteString("- " + mdEscape(l) + "\n")
		}
		b.WriteString("\n</details>\n")
	}
	for _, c := range s.Comparisons {
		if err := rep.markdownComparison(&b, c, warnings); err != nil {
			return err
		}
	}
	if err := rep.markdownSlices(&b); err != nil {
		return err
	}
	var cases strings.Builder
	if err := rep.markdownCases(&cases); err != nil {
		return err
	}
	if rep.Weak() {
		b.WriteString(weakText(cases.String())) // the labels that make them false are weak
	} else {
		b.WriteString(cases.String())
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

// code formats s as a Markdown code span.
func code(s string) string {
	if strings.Contains(s, "`") {
		return "`` " + s + " ``"
	}
	return "`" + s + "`"
}

// facts is the one-line description of the run under the verdict; name
// formats identifiers (code spans in Markdown).
func (rep *Report) facts(name func(string) string) []string {
	s := rep.Summary
	var facts []string
	if rep.Run.RunID != "" {
		facts = append(facts, "run "+name(rep.Run.RunID))
	}
	if f := rep.Run.Filter.String(); f != "" {
		facts = append(facts, "⚠️ "+f)
	}
	if len(s.Judges) > 0 && s.Judges[0].Total != nil {
		facts = append(facts, fmt.Sprintf("%d cases", s.Judges[0].Total.Cases))
	}
	// A run with --skip-invalid left dataset lines out: its figures rest
	// on fewer cases than the dataset holds, and run.json alone said so.
	if n := rep.Run.InvalidLines; n > 0 {
		facts = append(facts, fmt.Sprintf("⚠️ %d invalid dataset line(s) skipped (--skip-invalid)", n))
	}
	var names []string
	for _, d := range rep.Run.Datasets {
		names = append(names, name(d.Name))
	}
	if len(names) > 0 {
		facts = append(facts, "dataset "+strings.Join(names, ", "))
	}
	if rep.Run.Policy != nil {
		facts = append(facts, "policy "+name(rep.Run.Policy.Name))
	}
	if s.Baseline != "" {
		facts = append(facts, "baseline "+name(s.Baseline))
	}
	if rep.Run.Partial != "" {
		facts = append(facts, "⚠️ partial: "+rep.Run.Partial)
	}
	exit := fmt.Sprintf("exit %d", rep.Exit)
	if s.Verdict == metrics.VerdictInconclusive && rep.Inconclusive != "" {
		exit += " (--inconclusive=" + rep.Inconclusive + ")"
	}
	return append(facts, exit)
}

// footnoteTexts are the run's and the judges' warnings, unnumbered, each
// once: metrics copies a judge's warnings into the run's as "judge: text".
func (rep *Report) footnoteTexts() []string {
	var notes []string
	notes = append(notes, rep.Summary.Warnings...)
	for _, j := range rep.Summary.Judges {
		for _, w := range j.Warnings {
			if w = j.Judge + ": " + w; !slices.Contains(rep.Summary.Warnings, w) {
				notes = append(notes, w)
			}
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

// whyGrid lists the FAIL and INCONCLUSIVE criteria with the sentence
// metrics wrote about each; nil when every criterion passed or was N/A.
func (rep *Report) whyGrid() *grid {
	g := &grid{header: []string{"judge", "rule", "criterion", "status", "why"}, weak: rep.Weak()}
	for _, cr := range criteriaResults(rep.Summary) {
		if cr.c.Status == metrics.StatusFail || cr.c.Status == metrics.StatusInconclusive {
			g.add(cr.judge, ruleLabel(cr.rule), cr.c.Name, string(cr.c.Status), Explain(cr.c))
		}
	}
	if len(g.rows) == 0 {
		return nil
	}
	return g
}

// whyCounts says "3 failing, 2 inconclusive".
func (rep *Report) whyCounts() string {
	var fail, open int
	for _, cr := range criteriaResults(rep.Summary) {
		switch cr.c.Status {
		case metrics.StatusFail:
			fail++
		case metrics.StatusInconclusive:
			open++
		}
	}
	return fmt.Sprintf("%d failing, %d inconclusive", fail, open)
}

// naLines groups the N/A criteria by criterion and reason, so "not a
// dangerous rule" is said once with the judge × rule pairs it concerns; n
// counts the N/A criteria.
func (rep *Report) naLines() (lines []string, n int) {
	type key struct{ name, reason string }
	groups := map[key][]string{}
	var order []key
	for _, cr := range criteriaResults(rep.Summary) {
		if cr.c.Status != metrics.StatusNA {
			continue
		}
		n++
		k := key{cr.c.Name, Explain(cr.c)}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], cr.judge+" × "+ruleLabel(cr.rule))
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].name < order[j].name })
	lines = make([]string, len(order))
	for i, k := range order {
		lines[i] = fmt.Sprintf("%s — %s: %s", k.name, k.reason, strings.Join(groups[k], ", "))
	}
	if rep.Weak() {
		for i := range lines {
			lines[i] = weakMark(lines[i])
		}
	}
	return lines, n
}
