package reports

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/metrics/simulate"
	"github.com/apeval/apeval/reports/rundir"
)

// Report is what the renderers format: the run's metadata and what metrics
// computed. Renderers never compute statistics; they only lay out Summary.
type Report struct {
	Run     rundir.RunInfo
	Summary *metrics.Summary
	// Gates, when set, adds the gate-action summary to summary.md and
	// report.html (the terminal prints it with GateSummary.Render).
	Gates *GateSummary
	// Inconclusive is the --inconclusive policy ("pass", "fail", or "" to
	// keep INCONCLUSIVE as exit code 3); JUnit and the headline follow it.
	Inconclusive string
	// Exit is the process exit code the command maps the verdict to; the
	// headlines, summary.md and summary.json show it. The mapping itself
	// lives in cmd.
	Exit int
	// Color enables ANSI colour on verdict and status words (terminals only).
	Color bool
	// Tokens, when set, holds each judge's token counts for the cost rows
	// and summary.json's "cost" (see cost.go).
	Tokens Tokens
	// Width is the terminal width the tables must fit (0: no limit, as
	// when piped or with --wide); see fit.go.
	Width int
	// Failures lists the judges whose calls failed, with the top error
	// messages (Failures.Summary); summary.json, summary.md and report.html
	// show them, loudly when most calls failed.
	Failures []JudgeFailures
	// Cases, when set, lists false positives and negatives per judge × rule
	// in summary.md and report.html.
	Cases *CaseLists
	// Simulation, when set (simulate.json in the run directory), adds the
	// "Simulated deployment" section to report.html.
	Simulation *simulate.Result
}

// criterionLabel is the short name of a criterion in tables, from the
// one table of criteria (metrics.Criteria).
var criterionLabel = func() map[string]string {
	m := map[string]string{}
	for _, c := range metrics.Criteria {
		m[c.Name] = c.Label
	}
	return m
}()

const na = "–" // a value that does not apply

// fmtNum formats v with d decimals, "–" when nil.
func fmtNum(v *float64, d int) string {
	if v == nil {
		return na
	}
	return strconv.FormatFloat(*v, 'f', d, 64)
}

// fmtCI formats "0.93 [0.88, 0.96]"; a bound the data cannot give shows as
// "–", and with neither bound only the estimate is shown.
func fmtCI(v, lo, hi *float64, d int) string {
	if v == nil {
		return na
	}
	if lo == nil && hi == nil {
		return fmtNum(v, d)
	}
	return fmt.Sprintf("%s [%s, %s]", fmtNum(v, d), fmtNum(lo, d), fmtNum(hi, d))
}

// fmtMS formats milliseconds: whole milliseconds from 1 ms up, two
// significant digits below (0.78, not 1), "–" when nil.
func fmtMS(v *float64) string {
	if v == nil {
		return na
	}
	if a := math.Abs(*v); a > 0 && a < 1 {
		return strconv.FormatFloat(*v, 'g', 2, 64)
	}
	return strconv.FormatFloat(*v, 'f', 0, 64)
}

// fmtCIMS is fmtCI for milliseconds.
func fmtCIMS(v, lo, hi *float64) string {
	if v == nil {
		return na
	}
	if lo == nil && hi == nil {
		return fmtMS(v)
	}
	return fmt.Sprintf("%s [%s, %s]", fmtMS(v), fmtMS(lo), fmtMS(hi))
}

// rowFigure is how one of a row's interval figures prints, declared once
// for every output that shows it (tables, slices, the cost table, compare,
// the pages' rule cards): its digits and its design effect (withDeff).
// Proportions of rare events (rates) keep three digits, precision and
// recall two.
type rowFigure struct {
	digits int
	get    func(r *metrics.Row) (v, lo, hi, deff *float64)
}

var (
	figPrecision = rowFigure{2, func(r *metrics.Row) (v, lo, hi, deff *float64) {
		return r.Precision, r.PrecisionLo, r.PrecisionHi, r.PrecisionDeff
	}}
	figRecall = rowFigure{2, func(r *metrics.Row) (v, lo, hi, deff *float64) {
		return r.Recall, r.RecallLo, r.RecallHi, r.RecallDeff
	}}
	figUnknownRate = rowFigure{3, func(r *metrics.Row) (v, lo, hi, deff *float64) {
		return r.UnknownRate, r.UnknownRateLo, r.UnknownRateHi, r.UnknownRateDeff
	}}
	figJudgeRequired = rowFigure{3, func(r *metrics.Row) (v, lo, hi, deff *float64) {
		return r.JudgeRequiredRate, r.JudgeRequiredRateLo, r.JudgeRequiredRateHi, r.JudgeRequiredRateDeff
	}}
	figFlipRate = rowFigure{3, func(r *metrics.Row) (v, lo, hi, deff *float64) {
		return r.FlipRate, r.FlipRateLo, r.FlipRateHi, r.FlipRateDeff
	}}
)

// cell is the figure of r with its interval and, where shown, its deff.
func (f rowFigure) cell(r *metrics.Row) string {
	v, lo, hi, deff := f.get(r)
	return withDeff(fmtCI(v, lo, hi, f.digits), deff)
}

// withDeff appends " deff 1.85" to an interval cell when the design effect
// the data show (the sessions' variance over independent units') is shown
// (metrics.DeffNote, the rule reasons follow too); with few sessions the
// interval is wider still (its criterion's reason says by how much).
func withDeff(cell string, deff *float64) string {
	if deff == nil {
		return cell
	}
	if n := metrics.DeffNote(*deff); n != "" {
		return cell + " " + n
	}
	return cell
}

// full formats a value at full precision for machine formats, "" when nil.
func full(v *float64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'g', -1, 64)
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// ANSI colours for verdict and status words.
const (
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiReset  = "\x1b[0m"
)

// paint colours a verdict or status word when colour is on.
func paint(word string, color bool) string {
	if !color {
		return word
	}
	switch word {
	case string(metrics.VerdictGo), string(metrics.StatusPass):
		return ansiGreen + word + ansiReset
	case string(metrics.VerdictNoGo), string(metrics.StatusFail), string(metrics.VerdictError):
		return ansiRed + word + ansiReset
	case string(metrics.VerdictInconclusive):
		return ansiYellow + word + ansiReset
	}
	return word
}

// judgeHeader names a judge in a column header.
func judgeHeader(j *metrics.JudgeSummary) string {
	if j.IsBaseline {
		return j.Judge + " (baseline)"
	}
	return j.Judge
}

// WriteTables writes the terminal report: the judges side by side, the
// per-rule table, with a baseline judge the comparison tables of each
// candidate, and the verdict line; JSON writes summary.json instead.
func (rep *Report) WriteTables(w io.Writer, f Format) error {
	switch f {
	case FormatJSON:
		return rep.WriteJSON(w)
	case FormatTSV, FormatCSV:
		// Two tables in one stream would not parse as one TSV (or CSV); the
		// judge totals are the rows with rule_id "*".
		return rep.rulesGrid(true).render(w, f)
	}
	if err := rep.judgesGrid().render(w, f); err != nil {
		return err
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	if err := rep.rulesGrid(false).render(w, f); err != nil {
		return err
	}
	if g := rep.sampleGrid(); g != nil {
		if _, err := io.WriteString(w, "\nLabeled sample\n\n"); err != nil {
			return err
		}
		if err := g.render(w, f); err != nil {
			return err
		}
	}
	for _, g := range rep.sliceGrids() {
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
		if err := g.render(w, f); err != nil {
			return err
		}
	}
	for _, c := range rep.Summary.Comparisons {
		if _, err := fmt.Fprintf(w, "\n%s vs baseline %s\n\n", c.Candidate, c.Baseline); err != nil {
			return err
		}
		if err := rep.writeComparisonTables(w, c, f); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprintf(w, "\n%s\n", rep.headline(f == FormatMarkdown)); err != nil {
		return err
	}
	if f != FormatTable || rep.Summary.Verdict == metrics.VerdictGo {
		return nil
	}
	// Why, in the words every page uses (Explain): the nearest few per
	// judge; summary.md and apeval gate list them all.
	return rep.writeReasons(w, terminalReasons)
}

// terminalReasons is how many failing or open criteria per judge the
// terminal explains under the verdict line.
const terminalReasons = 3

// headline is the one-line verdict: "verdict: NO-GO (exit 1)".
func (rep *Report) headline(markdown bool) string {
	v := string(rep.Summary.Verdict)
	if markdown {
		v = "**" + v + "**"
	} else {
		v = paint(v, rep.Color)
	}
	s := fmt.Sprintf("verdict: %s (exit %d", v, rep.Exit)
	if rep.Summary.Verdict == metrics.VerdictInconclusive && rep.Inconclusive != "" {
		s += ", --inconclusive=" + rep.Inconclusive
	}
	s += ")"
	if rep.Weak() {
		s += " on weak labels: precision and recall (weak) rest on users' overrides, not reviews"
	}
	return s
}

// judgesGrid lays the judges out side by side: one column per judge, one
// row per figure, so two models read like a benchstat comparison.
func (rep *Report) judgesGrid() *grid {
	js := rep.Summary.Judges
	g := &grid{header: []string{""}, right: []bool{false}, weak: rep.Weak()}
	for _, j := range js {
		g.header = append(g.header, judgeHeader(j))
		g.right = append(g.right, true)
	}
	row := func(label string, cell func(j *metrics.JudgeSummary, t *metrics.Row) string) {
		cells := []string{label}
		for _, j := range js {
			if j.Total == nil {
				cells = append(cells, na)
				continue
			}
			cells = append(cells, cell(j, j.Total))
		}
		g.add(cells...)
	}
	th := rep.Summary.Thresholds
	row("cases", func(_ *metrics.JudgeSummary, t *metrics.Row) string { return itoa(t.Cases) })
	row("labeled pairs", func(_ *metrics.JudgeSummary, t *metrics.Row) string { return itoa(t.Labeled) })
	row("precision", func(_ *metrics.JudgeSummary, t *metrics.Row) string {
		return figPrecision.cell(t)
	})
	row("recall", func(_ *metrics.JudgeSummary, t *metrics.Row) string {
		return figRecall.cell(t)
	})
	row("unknown rate", func(_ *metrics.JudgeSummary, t *metrics.Row) string {
		return figUnknownRate.cell(t)
	})
	row("judge-required", func(_ *metrics.JudgeSummary, t *metrics.Row) string {
		return figJudgeRequired.cell(t)
	})
	row("calls (cached, failed)", func(_ *metrics.JudgeSummary, t *metrics.Row) string {
		return fmt.Sprintf("%d (%d, %d)", t.Calls, t.CachedCalls, t.FailedCalls)
	})
	if hasRepeats(rep.Summary) {
		row("flip rate", func(_ *metrics.JudgeSummary, t *metrics.Row) string {
			return figFlipRate.cell(t)
		})
		row("position effect", func(_ *metrics.JudgeSummary, t *metrics.Row) string {
			return fmtSignedCI(t.PositionEffect, t.PositionEffectLo, t.PositionEffectHi)
		})
	}
	row("P50 ms", func(_ *metrics.JudgeSummary, t *metrics.Row) string {
		return fmtCIMS(t.LatencyP50MS, t.LatencyP50LoMS, t.LatencyP50HiMS)
	})
	row("P95 ms", func(_ *metrics.JudgeSummary, t *metrics.Row) string {
		return fmtCIMS(t.LatencyP95MS, t.LatencyP95LoMS, t.LatencyP95HiMS)
	})
	row("P99 ms", func(_ *metrics.JudgeSummary, t *metrics.Row) string { return fmtMS(t.LatencyP99MS) })
	if costs := rep.costs(); rep.costNote() != "" {
		row("tokens/call in / out", func(j *metrics.JudgeSummary, _ *metrics.Row) string {
			if c := costs[j.Judge]; c != nil {
				return fmtTokens(c.PromptTokensPerCall, c.CompletionTokensPerCall)
			}
			return na
		})
		row("tokens/1k tool calls in / out", func(j *metrics.JudgeSummary, _ *metrics.Row) string {
			if c := costs[j.Judge]; c != nil {
				return fmtTokens(c.PromptTokensPer1k, c.CompletionTokensPer1k)
			}
			return na
		})
		row("cost/1k tool calls", func(j *metrics.JudgeSummary, _ *metrics.Row) string { return fmtCost(costs[j.Judge]) })
	}
	row("fire rate", func(_ *metrics.JudgeSummary, t *metrics.Row) string { return fmtNum(t.FireRate, 3) })
	for _, spec := range metrics.Criteria {
		if spec.Scope == "rule" {
			continue // judge-level rows only
		}
		name := spec.Name
		label := criterionLabel[name] + " " + thresholdText(name, th)
		if spec.Policy {
			label += " (policy)"
		}
		row(label, func(_ *metrics.JudgeSummary, t *metrics.Row) string {
			st := t.Status(name)
			if st == "" {
				return na
			}
			return paint(string(st), rep.Color)
		})
	}
	row("rules GO / NO-GO / INCONCLUSIVE", func(j *metrics.JudgeSummary, _ *metrics.Row) string {
		var ok, bad, open int
		for _, r := range j.Rules {
			switch r.Verdict {
			case metrics.VerdictGo:
				ok++
			case metrics.VerdictNoGo:
				bad++
			case metrics.VerdictInconclusive:
				open++
			}
		}
		return fmt.Sprintf("%d / %d / %d", ok, bad, open)
	})
	row("verdict", func(j *metrics.JudgeSummary, _ *metrics.Row) string { return paint(string(j.Verdict), rep.Color) })
	g.width, g.fit = rep.Width, fitOptions{judgeHeads: -1, transpose: true}
	conf := fmt.Sprintf("%g%%", th.Confidence*100)
	for _, spec := range metrics.Criteria {
		if spec.Policy {
			g.notes = append(g.notes, fmt.Sprintf("(policy): %s is a property of the policy and the traffic, the same for every judge; it blocks the feature whatever judge is chosen.", spec.Figure))
		}
	}
	// The methods as the criteria declare them (metrics.Criteria).
	rate, _ := metrics.SpecOf(metrics.CriterionUnknownRateMax)
	p95, _ := metrics.SpecOf(metrics.CriterionJudgeP95Max)
	g.notes = append(g.notes, fmt.Sprintf("Intervals: %s for proportions, clustered by session: the %s; deff shown where > %g. P50 and P95: %s, %s.", conf, rate.Method, metrics.DeffShown, conf, p95.Method))
	if n := rep.costNote(); n != "" {
		g.notes = append(g.notes, n)
	}
	if th.EffectiveRecallMin > 0 {
		g.notes = append(g.notes, fmt.Sprintf("effective_recall_min ≥ %g: decided by apeval simulate, which re-plays the run against a hook timeout (docs/simulate.md).", th.EffectiveRecallMin))
	}
	return g
}

// thresholdText renders a criterion's threshold for a row label
// (metrics.CriterionSpec.Bound).
func thresholdText(name string, th metrics.Thresholds) string {
	spec, ok := metrics.SpecOf(name)
	if !ok {
		return ""
	}
	return spec.Bound(spec.Threshold(th))
}

// ruleIDs is the union of the judges' rule IDs, sorted.
func ruleIDs(s *metrics.Summary) []string {
	seen := map[string]bool{}
	var ids []string
	for _, j := range s.Judges {
		for _, r := range j.Rules {
			if !seen[r.RuleID] {
				seen[r.RuleID] = true
				ids = append(ids, r.RuleID)
			}
		}
	}
	sort.Strings(ids)
	return ids
}

// statusNames lists the short labels of the row's criteria with status
// st; an INCONCLUSIVE one carries "+N" when metrics estimated that about N
// more units, brought by new sessions like these (or labels from the
// queue; "+N sessions" where only new sessions can), would decide it.
func statusNames(r *metrics.Row, st metrics.Status) string {
	var names []string
	for _, c := range r.Criteria {
		if c.Status != st {
			continue
		}
		name := criterionLabel[c.Name]
		switch {
		case st != metrics.StatusInconclusive:
		case newSessionsOnly(&c):
			// A labeled figure that more labels from the queue cannot
			// decide: only new sessions of traffic, labeled, would (its
			// label count, or none on a census-labeled run, is in the
			// reason and summary.json).
			name += fmt.Sprintf(" +%d sessions", *c.MoreSessions)
		case c.MoreSamples != nil && atLimit(&c):
			name += " +>100k"
		case c.MoreSamples != nil:
			name += fmt.Sprintf(" +%d", *c.MoreSamples)
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		return na
	}
	return strings.Join(names, ", ")
}

// atLimit reports whether a criterion's "+N" is at the limit
// (metrics.AtLimit); a count of labels from the queue never is (the queue
// bounds it).
func atLimit(c *metrics.Criterion) bool {
	return c.MoreSamples != nil && c.MoreUnit == "" && metrics.AtLimit(*c.MoreSamples, c.N)
}

// openLegend explains the "open" column of the per-rule table.
const openLegend = "open: INCONCLUSIVE criteria; +N: about N more units, brought by new sessions of the sizes seen, that would decide it with 80% probability (summary.json more_sessions counts the sessions): units of the rate for a rate (precision, unknown, judge-required, approval rejects), labeled positives for recall vs baseline, paired cases for fire-rate drift."

// openLegend is the legend of the "open" column: what +N counts, and with
// --labels what it counts on the figures from the labels; what "+>100k"
// means when a cell shows it.
func (rep *Report) openLegend() string {
	l := openLegend
	if rep.Summary.Sample != nil {
		l = strings.TrimSuffix(l, ".") + "; on precision and dangerous recall, which come from the labels (--labels), +N: about N more labels from the queue, spread like the ones given, would decide it with 80% probability."
		if censusOpen(rep.Summary) {
			l = strings.TrimSuffix(l, ".") + "; " + censusLegend
		}
		if sessionsOnly(rep.Summary) {
			l = strings.TrimSuffix(l, ".") + "; +N sessions: more labels from the queue would not decide it: about N more sessions of traffic (a new run), labeled at the queue's rate (the reason and summary.json say how many labels; none on pairs labeled in the dataset)."
		}
	}
	for _, j := range rep.Summary.Judges {
		for _, r := range j.Rules {
			for i := range r.Criteria {
				if c := &r.Criteria[i]; c.Status == metrics.StatusInconclusive && atLimit(c) {
					return l + " +>100k: at the limit: over 100,000 more and over ten times the data so far would be needed; the estimate is too close to its threshold for more data to decide it."
				}
			}
		}
	}
	return l
}

// newSessionsOnly reports whether an open labeled figure's hint asks for
// new sessions of traffic, not more labels from the queue: metrics set
// MoreSessions beside the labels (MoreUnit "labels"), or alone on a
// census-labeled run. On the unweighted path MoreSessions always stands
// beside MoreSamples, with no MoreUnit.
func newSessionsOnly(c *metrics.Criterion) bool {
	return c.MoreSessions != nil && (c.MoreUnit == "labels" || c.MoreSamples == nil)
}

// censusLegend says what "+N" counts on a labeled rule whose labels all
// weigh 1 (metrics decides it as the unweighted path does).
const censusLegend = "where every labeled pair of a rule weighs 1 (no stratum sampled; its reason says so), its +N counts units brought by new sessions, labeled the same way, as without --labels."

// censusOpen reports whether, with --labels, an open precision or
// dangerous-recall criterion's "+N" counts units, not labels: every
// labeled pair of its rule weighs 1 and it is decided as without labels.
func censusOpen(s *metrics.Summary) bool {
	for _, j := range s.Judges {
		for _, r := range j.Rules {
			for i := range r.Criteria {
				c := &r.Criteria[i]
				if (c.Name == metrics.CriterionPrecisionMin || c.Name == metrics.CriterionDangerousRecall) &&
					c.Status == metrics.StatusInconclusive && c.MoreSamples != nil && c.MoreUnit == "" {
					return true
				}
			}
		}
	}
	return false
}

// sessionsOnly reports whether an open criterion's cell reads "+N
// sessions" (newSessionsOnly).
func sessionsOnly(s *metrics.Summary) bool {
	for _, j := range s.Judges {
		for _, r := range j.Rules {
			for i := range r.Criteria {
				if c := &r.Criteria[i]; c.Status == metrics.StatusInconclusive && newSessionsOnly(c) {
					return true
				}
			}
		}
	}
	return false
}

// rulesGrid is the per-rule table, rules grouped so the judges of a rule
// sit on adjacent lines. The machine form (TSV) has full precision, one
// column per figure and per criterion status, and includes the judge
// totals as rule_id "*" rows.
func (rep *Report) rulesGrid(machine bool) *grid {
	s := rep.Summary
	if machine {
		return rep.machineRulesGrid()
	}

	// On the label path the counts are the sample's design-weighted
	// estimates of the whole population's, rounded: not counts of the
	// labeled column's pairs, and the header says so.
	counts := "TP/FP/FN/TN"
	if s.Sample != nil {
		counts = "TP/FP/FN/TN (weighted)"
	}
	g := &grid{
		header: []string{"rule", "class", "judge", "labeled", counts, "precision", "recall",
			"unknown", "fire rate", "baseline recall", "failing", "open", "verdict"},
		right: []bool{false, false, false, true, true, true, true, true, true, true, false, false, false},
		weak:  rep.Weak(),
	}
	repeats := hasRepeats(s)
	if repeats {
		// Beside the rule's other figures, before the criteria columns.
		n := len(g.header) - 3
		g.header = append(g.header[:n:n], append([]string{"flip rate", "pos Δ"}, g.header[n:]...)...)
		g.right = append(g.right[:n:n], append([]bool{true, true}, g.right[n:]...)...)
	}
	altered := hasAlteredEvidence(s)
	if altered {
		// The share of judge inputs that masked or cut what the rule
		// refers to, beside the rule's other figures, when any has some.
		n := len(g.header) - 3
		g.header = append(g.header[:n:n], append([]string{"evidence altered"}, g.header[n:]...)...)
		g.right = append(g.right[:n:n], append([]bool{true}, g.right[n:]...)...)
	}
	single := len(s.Judges) == 1
	if single {
		g.header = append(g.header[:2:2], g.header[3:]...)
		g.right = append(g.right[:2:2], g.right[3:]...)
	}
	for _, id := range ruleIDs(s) {
		for _, j := range s.Judges {
			r := j.Rule(id)
			if r == nil {
				continue
			}
			cells := []string{r.RuleID, string(r.Class)}
			if !single {
				cells = append(cells, j.Judge)
			}
			cells = append(cells, itoa(r.Labeled), fmt.Sprintf("%d/%d/%d/%d", r.TP, r.FP, r.FN, r.TN),
				figPrecision.cell(r),
				figRecall.cell(r),
				fmtNum(r.UnknownRate, 3), fmtNum(r.FireRate, 3), fmtNum(r.BaselineRecall, 2))
			if repeats {
				cells = append(cells, figFlipRate.cell(r),
					fmtSignedCI(r.PositionEffect, r.PositionEffectLo, r.PositionEffectHi))
			}
			if altered {
				cells = append(cells, fmtNum(r.EvidenceAlteredRate, 3))
			}
			cells = append(cells, statusNames(r, metrics.StatusFail), statusNames(r, metrics.StatusInconclusive),
				paint(string(r.Verdict), rep.Color))
			g.add(cells...)
		}
	}
	g.notes = append([]string{rep.openLegend()}, rep.footnotes()...)
	if s.Sample != nil {
		g.notes = append([]string{counts + ": the labeled sample's design-weighted estimates of the counts over every pair in scope, rounded (the labeled sample table gives them unrounded); labeled: the labels they rest on."}, g.notes...)
	}
	g.width = rep.Width
	if !single {
		g.fit.judgeCol = 3
	}
	g.fit.detail = columnsNamed(g.header, "failing", "open")
	g.fit.drop = columnsNamed(g.header, "baseline recall", "pos Δ", "evidence altered", "fire rate", "unknown", "class", "labeled", counts)
	return g
}

// hasAlteredEvidence reports whether a rule row of any judge has a judge
// input that masked or cut what the rule refers to.
func hasAlteredEvidence(s *metrics.Summary) bool {
	for _, j := range s.Judges {
		for _, r := range j.Rules {
			if r.EvidenceAltered > 0 {
				return true
			}
		}
	}
	return false
}

// tsvOrder is the per-rule TSV's columns as published (metricsColumns
// by name; the TSV calls rule_class "class"), tsvRepeats those it adds
// with --repeat or --shuffle-rules. A column added to metrics.Row since
// follows them, as in metrics.parquet.
var (
	tsvOrder = append([]string{"rule_id", "judge", "rule_class", "verdict", "cases", "in_scope", "judged",
		"labeled", "tp", "fp", "fn", "tn", "precision", "precision_lo", "precision_hi", "precision_deff", "recall", "recall_lo",
		"recall_hi", "recall_deff", "unknown_rate", "unknown_rate_lo", "unknown_rate_hi", "unknown_rate_deff", "judge_required_rate", "calls",
		"latency_p50_ms", "latency_p95_ms", "latency_p95_lo_ms", "latency_p95_hi_ms", "latency_p99_ms",
		"fire_rate", "baseline_recall", "approval_reject_rate"}, append(statusColumns(), "slice", "slice_value")...)
	tsvRepeats = []string{"flip_pairs", "flip_rate", "flip_rate_lo", "flip_rate_hi",
		"position_effect", "position_effect_lo", "position_effect_hi"}
	// tsvIntervals are intervals of figures the TSV prints that it
	// lacked at first; they come last, so no published column moves.
	tsvIntervals = []string{"judge_required_rate_lo", "judge_required_rate_hi", "judge_required_rate_deff",
		"approval_reject_rate_lo", "approval_reject_rate_hi", "approval_reject_rate_deff",
		"latency_p50_lo_ms", "latency_p50_hi_ms"}
)

func statusColumns() []string {
	var out []string
	for _, c := range metrics.CriterionNames {
		out = append(out, c+"_status")
	}
	return out
}

// tsvColumns are the per-rule TSV's columns.
func tsvColumns(repeats bool) []column[metricsRow] {
	names := tsvOrder
	if repeats {
		names = append(slices.Clip(names), tsvRepeats...)
	}
	cols := append(pick(metricsColumns, names), added(metricsColumns, metricsOrder)...)
	return append(cols, pick(metricsColumns, tsvIntervals)...)
}

// machineRulesGrid is the per-rule table's machine form (TSV): the judge
// totals as rule_id "*" rows, then the rules grouped so the judges of a
// rule sit on adjacent lines, then each slice value's totals and rules
// (--by); full precision, one column per figure and criterion status.
func (rep *Report) machineRulesGrid() *grid {
	s := rep.Summary
	cols := tsvColumns(hasRepeats(s))
	g := &grid{weak: rep.Weak()}
	for _, c := range cols {
		name := c.name
		if name == "rule_class" {
			name = "class"
		}
		g.header = append(g.header, name)
	}
	add := func(m metricsRow) {
		cells := make([]string, len(cols))
		for i, c := range cols {
			cells[i] = text(c.get(m))
		}
		g.add(cells...)
	}
	for _, j := range s.Judges {
		if j.Total != nil {
			add(metricsRow{j, j.Total, "*", "*", ""})
		}
	}
	for _, id := range ruleIDs(s) {
		for _, j := range s.Judges {
			if r := j.Rule(id); r != nil {
				add(metricsRow{j, r, "*", "*", ""})
			}
		}
	}
	for _, sl := range s.Slices {
		for _, j := range sl.Judges {
			if j.Total != nil {
				add(metricsRow{j, j.Total, sl.Slice, sl.Value, ""})
			}
			for _, r := range j.Rules {
				add(metricsRow{j, r, sl.Slice, sl.Value, ""})
			}
		}
	}
	return g
}

// hasRepeats reports whether any judge has repeat or rule-order figures
// (--repeat, --shuffle-rules): only then do the tables show them.
func hasRepeats(s *metrics.Summary) bool {
	for _, j := range s.Judges {
		if j.Total != nil && (j.Total.FlipPairs > 0 || j.Total.PositionFirst+j.Total.PositionLast > 0) {
			return true
		}
	}
	return false
}

// fmtSignedCI is a difference with its interval: "+0.44 [+0.36, +0.52]".
func fmtSignedCI(v, lo, hi *float64) string {
	if v == nil {
		return na
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
	sg := func(x float64) string {
		if x >= 0 {
			return "+" + f(x)
		}
		return f(x)
	}
	if lo == nil || hi == nil {
		return sg(*v)
	}
	return sg(*v) + " [" + sg(*lo) + ", " + sg(*hi) + "]"
}

// sliceGrids is one table per slice kind (--by): a line per slice value ×
// judge with the judge's figures on the cases of that value.
func (rep *Report) sliceGrids() []*grid {
	var gs []*grid
	var g *grid
	for _, sl := range rep.Summary.Slices {
		if g == nil || g.header[0] != "by "+sl.Slice {
			g = &grid{header: []string{"by " + sl.Slice, "judge", "cases", "precision", "recall", "unknown", "fire rate", "verdict"},
				right: []bool{false, false, true, true, true, true, true, false}, weak: rep.Weak()}
			g.notes = []string{"Slices describe where judges differ; their verdicts do not count in the run's."}
			gs = append(gs, g)
		}
		for _, j := range sl.Judges {
			t := j.Total
			if t == nil {
				continue
			}
			g.add(sl.Value, judgeHeader(j), itoa(t.Cases),
				figPrecision.cell(t),
				figRecall.cell(t),
				fmtNum(t.UnknownRate, 3), fmtNum(t.FireRate, 3), paint(string(j.Verdict), rep.Color))
		}
	}
	return gs
}

// footnotes are the warnings of the run and of each judge, numbered.
func (rep *Report) footnotes() []string { return numbered(rep.footnoteTexts()) }
