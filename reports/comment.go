package reports

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/apeval/apeval/metrics"
)

// CommentLimit is the most a pull-request comment may hold: GitHub rejects
// a body over 65,536 characters. WriteComment counts bytes, which are never
// fewer than characters, so a body that fits here fits there.
const CommentLimit = 65536

// VerdictError is the comment's verdict when the head judge's setup is
// broken (metrics' ERROR, or at least half of its calls failed:
// JudgeFailures.Broken): its figures then describe the server, URL, key
// or plugin, not the judge.
const VerdictError = metrics.VerdictError

// CommentOptions frames a pull-request comment (apeval compare --comment).
type CommentOptions struct {
	// Marker names the evaluation in the hidden first line
	// `<!-- apeval:MARKER -->` (the project file's path), by which a CI job
	// finds its own comment to update instead of adding one per push.
	Marker string
	// ReportURL links the uploaded report.html (the run's artifact); ""
	// leaves the link out.
	ReportURL string
	// Limit is the largest body in bytes; 0 means CommentLimit.
	Limit int
	// Banner, when set, is the first visible line (after the marker): a
	// partial overlap of the two runs' cases (reports/diff.Overlap).
	Banner string
	// Changes is the "what changes" block (Markdown, reports/diff's
	// Summary.CommentBlock) shown after the Δ table; "" leaves it out.
	Changes string
}

// CommentMarker is the hidden first line of the comment for an evaluation
// named marker (a `-->` inside it could end the comment early, so dashes
// are spaced out of it).
func CommentMarker(marker string) string {
	if marker == "" {
		marker = "apeval.toml"
	}
	marker = strings.ReplaceAll(marker, "--", "-\u200b-")
	marker = strings.ReplaceAll(marker, "\n", " ")
	return "<!-- apeval:" + marker + " -->"
}

// commentSection is one part of the comment: head and tail are always
// written; the lines between them are cut from the end when the body would
// not fit, and cut then says so.
type commentSection struct {
	head  string
	lines []string
	tail  string
	// cuttable sections lose lines, in the order they come, last first.
	cuttable bool
}

// CommentVerdict is the verdict the comment leads with: ERROR when the
// head judge's setup is broken, else the head judge's verdict.
func (rep *Report) CommentVerdict(candidate string) metrics.Verdict {
	for _, f := range rep.Failures {
		if f.Judge == candidate && f.Broken {
			return VerdictError
		}
	}
	if j := rep.Summary.Judge(candidate); j != nil {
		if j.Verdict == VerdictError {
			return VerdictError
		}
		return j.Verdict
	}
	return metrics.VerdictInconclusive
}

// WriteComment writes the pull-request comment of a comparison, base (the
// target branch's run, c.Baseline) vs head (c.Candidate): the hidden
// marker, the verdict and what holds it back, the Δ head − base of each
// figure over all rules with its interval, the rules whose status changed,
// cost per 1,000 tool calls, the link to report.html, then the per-rule
// figures and the warnings folded in <details>. It fits opts.Limit: the
// folded detail is cut first, row by row from the end, then the changed
// rules, each cut said in a note.
func (rep *Report) WriteComment(w io.Writer, c *metrics.Comparison, opts CommentOptions) error {
	plain := *rep
	plain.Color = false
	rep = &plain
	limit := opts.Limit
	if limit <= 0 {
		limit = CommentLimit
	}
	secs := []commentSection{
		{head: CommentMarker(opts.Marker) + "\n" + commentBanner(opts.Banner) + rep.commentHead(c)},
		rep.commentHoldBacks(c),
		rep.commentDeltas(c),
		{head: opts.Changes},
		rep.commentChanges(c),
		rep.commentCost(c),
		{head: commentLink(opts.ReportURL)},
		rep.commentRuleDetails(c),
		rep.commentWarnings(c),
	}
	if rep.Weak() {
		markWeakSections(secs)
	}
	_, err := io.WriteString(w, fitComment(secs, limit))
	return err
}

// commentBanner is the first visible line when the runs share only some
// of their cases.
func commentBanner(b string) string {
	if b == "" {
		return ""
	}
	return "**⚠️ " + b + "**\n\n"
}

// cutNote replaces the lines cut from a section.
func cutNote(n int) string {
	return fmt.Sprintf("\n*… %d more line(s) cut to fit GitHub's 65,536-character comment limit: the full tables are in report.html.*\n", n)
}

// fitComment joins the sections, cutting lines from the cuttable ones (the
// last section first) until the body fits limit bytes.
func fitComment(secs []commentSection, limit int) string {
	size := func() int {
		n := 0
		for _, s := range secs {
			n += len(s.head) + len(s.tail)
			for _, l := range s.lines {
				n += len(l)
			}
		}
		return n
	}
	cut := make([]int, len(secs))
	total := size()
	for i := len(secs) - 1; i >= 0 && total > limit; i-- {
		s := &secs[i]
		if !s.cuttable || len(s.lines) == 0 {
			continue
		}
		note := len(cutNote(len(s.lines))) // the longest the note gets
		for len(s.lines) > 0 && total+note > limit {
			total -= len(s.lines[len(s.lines)-1])
			s.lines = s.lines[:len(s.lines)-1]
			cut[i]++
		}
		total += len(cutNote(cut[i]))
	}
	var b strings.Builder
	for i, s := range secs {
		b.WriteString(s.head)
		for _, l := range s.lines {
			b.WriteString(l)
		}
		if cut[i] > 0 {
			b.WriteString(cutNote(cut[i]))
		}
		b.WriteString(s.tail)
	}
	out := b.String()
	if len(out) > limit {
		// Only the fixed parts are left and they do not fit: cut at a line
		// boundary and say so (a limit this small is a test's).
		note := "\n*… cut to fit the comment limit.*\n"
		keep := max(0, limit-len(note))
		if j := strings.LastIndexByte(out[:keep], '\n'); j >= 0 {
			keep = j + 1
		}
		out = out[:keep] + note
		if len(out) > limit {
			out = out[:limit]
		}
	}
	return out
}

// commentHead: the verdict, which judges were compared and the run's facts.
func (rep *Report) commentHead(c *metrics.Comparison) string {
	v := rep.CommentVerdict(c.Candidate)
	var b strings.Builder
	fmt.Fprintf(&b, "## %s apeval: %s\n\n", verdictMark[v], v)
	fmt.Fprintf(&b, "head %s vs base %s", code(c.Candidate), code(c.Baseline))
	// The head's facts: rep.Run is the head's run (cmd sets it so).
	if rep.Run.RunID != "" {
		b.WriteString(" · run " + code(rep.Run.RunID))
	}
	if f := rep.Run.Filter.String(); f != "" {
		b.WriteString(" · ⚠️ " + f)
	}
	if j := rep.Summary.Judge(c.Candidate); j != nil && j.Total != nil {
		fmt.Fprintf(&b, " · %d cases", j.Total.Cases)
	}
	var names []string
	for _, d := range rep.Run.Datasets {
		names = append(names, code(d.Name))
	}
	if len(names) > 0 {
		b.WriteString(" · dataset " + strings.Join(names, ", "))
	}
	if rep.Run.Policy != nil {
		b.WriteString(" · policy " + code(rep.Run.Policy.Name))
	}
	fmt.Fprintf(&b, " · exit %d", rep.Exit)
	if v == metrics.VerdictInconclusive && rep.Inconclusive != "" {
		b.WriteString(" (--inconclusive=" + rep.Inconclusive + ")")
	}
	b.WriteString("\n")
	return b.String()
}

// maxHoldBacks bounds the criteria listed under the verdict; the rest are
// counted and left to the per-rule tables and report.html.
const maxHoldBacks = 10

// commentHoldBacks says what holds the verdict back: the head judge's broken
// setup (ERROR), else its failing criteria, then its open ones, each with
// the sentence metrics wrote about it.
func (rep *Report) commentHoldBacks(c *metrics.Comparison) commentSection {
	v := rep.CommentVerdict(c.Candidate)
	var b strings.Builder
	if v == VerdictError {
		b.WriteString("\n> [!CAUTION]\n")
		setup := ""
		if j := rep.Summary.Judge(c.Candidate); j != nil {
			setup = j.SetupError
		}
		head := "the head judge's setup is broken"
		if setup != "" {
			head += ": " + setup
		}
		fmt.Fprintf(&b, "> **What holds it back:** %s. Its figures describe the setup, not the judge: fix the cause and rerun (`apeval judges check` helps).\n", mdEscape(head))
		for _, f := range rep.Failures {
			if f.Judge != c.Candidate {
				continue
			}
			for i, l := range f.Lines() {
				if i == 0 {
					if setup == "" {
						fmt.Fprintf(&b, "> %s.\n", mdEscape(l))
					}
					continue
				}
				fmt.Fprintf(&b, "> - %s\n", mdEscape(l))
			}
		}
		return commentSection{head: b.String()}
	}
	var fail, open []criterionResult
	for _, cr := range criteriaResults(rep.Summary) {
		if cr.judge != c.Candidate {
			continue
		}
		switch cr.c.Status {
		case metrics.StatusFail:
			fail = append(fail, cr)
		case metrics.StatusInconclusive:
			open = append(open, cr)
		}
	}
	// Open criteria as gate and compare list them (holdBacks): the
	// judge-level and policy ones first, then nearest to a decision
	// (fewest more samples), those without a count last. They came in
	// rule order, so the first ten were the alphabetically first rules'.
	sort.SliceStable(open, func(a, b int) bool {
		ja, jb := open[a].rule == metrics.AllRules, open[b].rule == metrics.AllRules
		if ja != jb {
			return ja
		}
		ma, mb := int64(-1), int64(-1)
		if m := open[a].c.MoreSamples; m != nil {
			ma = *m
		}
		if m := open[b].c.MoreSamples; m != nil {
			mb = *m
		}
		if (ma < 0) != (mb < 0) {
			return ma >= 0
		}
		return ma < mb
	})
	if len(fail)+len(open) == 0 {
		return commentSection{head: "\n**Nothing holds it back:** every criterion of the head judge passed or had no data (N/A).\n"}
	}
	fmt.Fprintf(&b, "\n**What holds it back** (%d failing, %d inconclusive):\n\n", len(fail), len(open))
	n := 0
	for _, cr := range append(fail, open...) {
		if n == maxHoldBacks {
			break
		}
		n++
		mark := "❌ FAIL"
		if cr.c.Status == metrics.StatusInconclusive {
			mark = "⚠️ INCONCLUSIVE"
		}
		rule, also := ruleLabel(cr.rule), ""
		if metrics.IsPolicyCriterion(cr.c.Name) {
			rule = policyRule
			also = " (a policy criterion: it blocks the feature whatever judge is chosen)"
		}
		if base := rep.Summary.Judge(c.Baseline); cr.c.Status == metrics.StatusFail && base != nil {
			br := base.Total
			if cr.rule != metrics.AllRules {
				br = base.Rule(cr.rule)
			}
			if br != nil && br.Status(cr.c.Name) == metrics.StatusFail {
				also += " (the baseline fails it too)"
			}
		}
		fmt.Fprintf(&b, "- %s %s · %s — %s%s\n", mark, code(rule), criterionLabel[cr.c.Name], mdEscape(cr.c.Reason), also)
	}
	if rest := len(fail) + len(open) - n; rest > 0 {
		fmt.Fprintf(&b, "- … and %d more, in the per-rule figures below and in report.html\n", rest)
	}
	return commentSection{head: b.String()}
}

// commentDeltas: per figure, over all rules, base and head with the head's
// interval where it has one, Δ head − base with its interval, p and n.
func (rep *Report) commentDeltas(c *metrics.Comparison) commentSection {
	conf := rep.Summary.Thresholds.Confidence
	g := &grid{header: []string{"all rules", "base", "head", fmt.Sprintf("Δ head − base [%g%% CI]", conf*100), "p", "n"},
		right: []bool{false, true, true, true, true, true}}
	t := c.Total
	if t == nil {
		return commentSection{}
	}
	for _, ft := range figureTables([]*metrics.RuleComparison{t}, conf) {
		x := ft.rows[0]
		g.add(ft.label, x.base, x.head, x.delta, x.p, x.n)
	}
	fc := t.FireRateChange
	legend := MarkLegend(conf) + " Tests: docs/statistics.md."
	if n := weightedMarkNote(c); n != "" {
		legend += " " + n
	}
	g.notes = []string{legend,
		fmt.Sprintf("Fire-rate drift %s: %s, %s (n=%d). It counts only the fire-rate changes the labels do not explain, "+
			"so it differs from the fire rate row, the raw difference (docs/statistics.md).", thresholdText(metrics.CriterionFireRateChangeMax, rep.Summary.Thresholds),
			fmtCISigned(fc.Estimate, fc.Lo, fc.Hi, 3), fc.Status, fc.N)}
	var b strings.Builder
	b.WriteString("\n### Figures, head vs base\n\n")
	_ = g.render(&b, FormatMarkdown)
	return commentSection{head: b.String()}
}

// commentChanges: the rules whose verdict or criteria changed status
// between base and head (fire-rate drift, which only the head has, aside).
func (rep *Report) commentChanges(c *metrics.Comparison) commentSection {
	g := &grid{header: []string{"rule", "base", "head", "what changed"}}
	for _, rc := range c.Rules {
		bv, hv := "–", "–"
		if rc.Baseline != nil {
			bv = string(rc.Baseline.Verdict)
		}
		if rc.Candidate != nil {
			hv = string(rc.Candidate.Verdict)
		}
		var what []string
		switch {
		case rc.Baseline == nil:
			what = append(what, "new in head")
		case rc.Candidate == nil:
			what = append(what, "not in head")
		default:
			for _, name := range metrics.CriterionNames {
				if name == metrics.CriterionFireRateChangeMax {
					continue
				}
				bs, hs := rc.Baseline.Status(name), rc.Candidate.Status(name)
				if bs != hs && bs != "" && hs != "" {
					what = append(what, fmt.Sprintf("%s %s → %s", criterionLabel[name], bs, hs))
				}
			}
		}
		if bv == hv && len(what) == 0 {
			continue
		}
		g.add(rc.RuleID, bv, hv, strings.Join(what, "; "))
	}
	if len(g.rows) == 0 {
		return commentSection{head: "\n### Rules that changed status\n\nNone: every rule has the same verdict and criteria statuses in base and head.\n"}
	}
	head, lines := g.markdownLines()
	head = fmt.Sprintf("\n### Rules that changed status (%d)\n\n", len(lines)) + head
	return commentSection{head: head, lines: lines, cuttable: true}
}

// commentCost: tokens and judging cost per 1,000 tool calls of both judges.
func (rep *Report) commentCost(c *metrics.Comparison) commentSection {
	var b strings.Builder
	b.WriteString("\n### Cost per 1,000 tool calls\n\n")
	// compare's cost table (costGrid), its per-1k columns under the
	// comment's shorter headings.
	full := rep.costGrid(c.Baseline, c.Candidate)
	if full == nil {
		b.WriteString("No judge reported token counts, so there is no cost to show (docs/reports.md#cost).\n")
		return commentSection{head: b.String()}
	}
	keep := make([]bool, len(full.header))
	for _, i := range columnsNamed(full.header, "judge", "tokens/1k tool calls in / out", "cost/1k tool calls", "P95 ms") {
		keep[i] = true
	}
	g := full.only(keep)
	g.header = []string{"", "tokens in / out", "cost", "P95 ms"}
	g.rows[0][0], g.rows[1][0] = "base", "head"
	g.notes, g.width, g.weak = nil, 0, false
	_ = g.render(&b, FormatMarkdown)
	return commentSection{head: b.String()}
}

func commentLink(url string) string {
	if url == "" {
		return "\nThe full report is `report.html` in the run directory.\n"
	}
	return fmt.Sprintf("\n📄 **[report.html](%s)**: the full report, charts and tables (the run directory's artifact).\n", url)
}

// commentRuleDetails: the per-rule Δ of every figure, folded.
func (rep *Report) commentRuleDetails(c *metrics.Comparison) commentSection {
	conf := rep.Summary.Thresholds.Confidence
	var lines []string
	for _, t := range figureTables(c.Rules, conf) {
		g := &grid{header: []string{t.label, "base", "head", "Δ head − base [CI] (p, n)"}, right: []bool{false, true, true, true}}
		for _, x := range t.rows {
			g.add(x.rc.RuleID, x.base, x.head, x.vsBase)
		}
		head, rows := g.markdownLines()
		lines = append(append(lines, "\n"+head), rows...)
	}
	return commentSection{
		head:     fmt.Sprintf("\n<details><summary>Per-rule figures (%d rules)</summary>\n", len(c.Rules)),
		lines:    lines,
		tail:     "\n</details>\n",
		cuttable: true,
	}
}

// commentWarnings: the comparison's and the run's warnings, folded.
func (rep *Report) commentWarnings(c *metrics.Comparison) commentSection {
	ws := append([]string(nil), c.Warnings...)
	for _, w := range rep.footnoteTexts() {
		// The summary lifts each comparison's warnings as "base vs head: w".
		lifted := false
		for _, cw := range c.Warnings {
			lifted = lifted || strings.HasSuffix(w, ": "+cw)
		}
		if !lifted {
			ws = append(ws, w)
		}
	}
	if len(ws) == 0 {
		return commentSection{}
	}
	lines := make([]string, len(ws))
	for i, w := range ws {
		lines[i] = "- " + mdEscape(w) + "\n"
	}
	return commentSection{
		head:     fmt.Sprintf("\n<details><summary>⚠️ %d warning(s)</summary>\n\n", len(ws)),
		lines:    lines,
		tail:     "\n</details>\n",
		cuttable: true,
	}
}
