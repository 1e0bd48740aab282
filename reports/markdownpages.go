package reports

import (
	"fmt"
	"strings"

	"github.com/apeval/apeval/metrics"
)

// markdownComparison writes summary.md's baseline-vs-candidate section: the
// all-rules figures table in benchstat style with its warnings as footnote
// references, the per-rule tables folded, and a table per slice kind.
// Without paired figures (metrics gave none) it falls back to the
// comparison tables of `apeval compare`.
func (rep *Report) markdownComparison(b *strings.Builder, c *metrics.Comparison, warnings []string) error {
	conf := rep.Summary.Thresholds.Confidence
	fmt.Fprintf(b, "\n### Baseline vs candidate: %s vs %s\n\n", mdEscape(c.Candidate), mdEscape(c.Baseline))
	total := totalFiguresGrid(c, conf)
	if total != nil {
		total.weak = rep.Weak()
	}
	if total == nil {
		for i, g := range rep.comparisonGrids(c) {
			if i > 0 {
				b.WriteString("\n")
			}
			if err := g.render(b, FormatMarkdown); err != nil {
				return err
			}
		}
	} else {
		if refs := warningRefs(warnings, c); len(refs) > 0 {
			var marks []string
			for _, r := range refs {
				marks = append(marks, fmt.Sprintf("[^%d]", r))
			}
			total.notes = append(total.notes, "Warnings about this comparison: "+strings.Join(marks, ""))
		}
		if err := total.render(b, FormatMarkdown); err != nil {
			return err
		}
		b.WriteString("\n<details><summary>Per rule, one table per figure</summary>\n\n")
		for i, g := range ruleFiguresGrids(c, conf) {
			if i > 0 {
				b.WriteString("\n")
			}
			g.weak = rep.Weak()
			if err := g.render(b, FormatMarkdown); err != nil {
				return err
			}
		}
		b.WriteString("\n</details>\n")
	}
	kinds := sliceKinds(c)
	if len(kinds) == 0 {
		return nil
	}
	b.WriteString("\n#### The comparison by slice\n\n")
	if t := largestSliceText(c, conf, code); t != "" {
		b.WriteString("**" + t + "**\n\n")
	}
	for i, kind := range kinds {
		if i > 0 {
			b.WriteString("\n")
		}
		sg := sliceGrid(c, kind, conf)
		sg.weak = rep.Weak()
		if err := sg.render(b, FormatMarkdown); err != nil {
			return err
		}
	}
	return nil
}

// markdownSlices writes a section per slice kind (--by) with each value's
// metrics per judge (the tables of the terminal report); the baseline
// comparison per value is in the comparison section.
func (rep *Report) markdownSlices(b *strings.Builder) error {
	for _, g := range rep.sliceGrids() {
		fmt.Fprintf(b, "\n### %s\n\n", strings.ToUpper(g.header[0][:1])+g.header[0][1:])
		if err := g.render(b, FormatMarkdown); err != nil {
			return err
		}
	}
	return nil
}

// markdownCases writes the false positives and negatives a reviewer can
// open, per judge × rule, each folded.
func (rep *Report) markdownCases(b *strings.Builder) error {
	cl := rep.Cases
	if cl == nil {
		return nil
	}
	var any bool
	for _, j := range rep.Summary.Judges {
		for _, re := range cl.Rules(j.Judge) {
			if !any {
				b.WriteString("\n### Cases to review\n\n")
				fmt.Fprintf(b, "Per judge and rule, up to %d false positives and %d false negatives, the first in case order (session, seq); arguments are masked.", MaxListedCases, MaxListedCases)
				if cl.Note != "" {
					b.WriteString(" " + mdEscape(cl.Note) + ".")
				}
				b.WriteString("\n")
				any = true
			}
			fmt.Fprintf(b, "\n<details><summary>%s · %s: %d false positive(s), %d false negative(s)</summary>\n",
				mdEscape(j.Judge), mdEscape(re.RuleID), re.FPTotal, re.FNTotal)
			for _, part := range []struct {
				title string
				list  []ErrorCase
				total int64
			}{
				{"False positives (result match, label no_match)", re.FalsePositives, re.FPTotal},
				{"False negatives (label match, result not match)", re.FalseNegatives, re.FNTotal},
			} {
				if len(part.list) == 0 {
					continue
				}
				fmt.Fprintf(b, "\n**%s**", part.title)
				if part.total > int64(len(part.list)) {
					fmt.Fprintf(b, ": the first %d of %d", len(part.list), part.total)
				}
				b.WriteString("\n\n")
				if err := caseGrid(part.list).render(b, FormatMarkdown); err != nil {
					return err
				}
			}
			b.WriteString("\n</details>\n")
		}
	}
	return nil
}

// caseGrid lays out listed cases.
func caseGrid(list []ErrorCase) *grid {
	g := &grid{header: []string{"case", "session", "tags", "tool", "arguments (masked)", "result", "status"}}
	for _, e := range list {
		tool, args := e.Tool, e.Arguments
		if tool == "" {
			tool = na
		}
		if args == "" {
			args = na
		} else {
			args = code(args)
		}
		status := e.Status
		if e.Error != "" {
			status += ": " + e.Error
		}
		tags := strings.Join(e.Tags, ", ")
		if tags == "" {
			tags = na
		}
		g.add(code(e.CaseID), fmt.Sprintf("%s #%d", e.SessionID, e.Seq), tags, tool, args, e.Result, status)
	}
	return g
}
