package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/apeval/apeval/metrics"
)

// apeval gate --sequential's outputs: the standing of every criterion over
// the history of runs (metrics.SequentialResult) as a table or JSON.

// WriteSequentialJSON writes the sequential standing as JSON.
func WriteSequentialJSON(w io.Writer, res *metrics.SequentialResult) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// sequentialNA is the criteria with nothing to decide (or not decided
// sequentially), grouped by judge, criterion and reason in the order met,
// with the rules each group covers.
type sequentialNA struct {
	judge, name, reason string
	rules               []string
}

// sequentialGrid is the table of the sequential standing: a row per
// judge, rule and criterion that has data; the N/A criteria are returned
// apart, grouped.
func sequentialGrid(res *metrics.SequentialResult) (*grid, []*sequentialNA) {
	g := &grid{header: []string{"judge", "rule", "criterion", "status", "decided", "estimate [interval]", "sessions"},
		right: []bool{6: true}, plain: true}
	var na []*sequentialNA
	group := map[[3]string]*sequentialNA{}
	// A policy criterion is the same for every judge: shown once, as
	// "(policy)", when every judge holding it shows the same standing (a
	// judge whose broken runs left sessions out can differ: then each
	// judge's row stays).
	type key struct{ rule, name string }
	policy := map[key][]string{}
	var policyOrder []key
	cells := func(c metrics.SequentialCrit) []string {
		return []string{sequentialStatus(c), sequentialDecided(c), sequentialEstimate(c), fmt.Sprint(c.Sessions)}
	}
	for _, j := range res.Judges {
		for _, row := range j.Rows {
			for _, c := range row.Criteria {
				if c.Status == metrics.StatusNA || !metrics.IsPolicyCriterion(c.Name) {
					continue
				}
				k, v := key{row.RuleID, c.Name}, strings.Join(cells(c), "\x00")
				switch prev, seen := policy[k]; {
				case !seen:
					policy[k] = []string{v}
					policyOrder = append(policyOrder, k)
				case prev != nil && prev[0] != v:
					policy[k] = nil // judges differ: per judge
				}
			}
		}
	}
	shared := map[key]bool{}
	for _, k := range policyOrder {
		if policy[k] == nil {
			continue
		}
		shared[k] = true
		rule := k.rule
		if rule == metrics.AllRules {
			rule = "all rules"
		}
		for _, j := range res.Judges {
			if c, ok := seqCrit(j, k.rule, k.name); ok {
				g.add(append([]string{"(policy)", rule, sequentialCriterion(c)}, cells(c)...)...)
				break
			}
		}
	}
	for _, j := range res.Judges {
		name := j.Judge
		if j.Baseline {
			name += " (baseline)"
		}
		for _, row := range j.Rows {
			rule := row.RuleID
			if rule == metrics.AllRules {
				rule = "all rules"
			}
			for _, c := range row.Criteria {
				if c.Status == metrics.StatusNA {
					k := [3]string{name, c.Name, c.Reason}
					if group[k] == nil {
						group[k] = &sequentialNA{judge: name, name: c.Name, reason: c.Reason}
						na = append(na, group[k])
					}
					group[k].rules = append(group[k].rules, rule)
					continue
				}
				if shared[key{row.RuleID, c.Name}] {
					continue
				}
				g.add(append([]string{name, rule, sequentialCriterion(c)}, cells(c)...)...)
			}
		}
	}
	return g, na
}

// seqCrit is judge j's criterion name on rule, if it has one with data.
func seqCrit(j metrics.SequentialJudge, rule, name string) (metrics.SequentialCrit, bool) {
	for _, row := range j.Rows {
		if row.RuleID != rule {
			continue
		}
		for _, c := range row.Criteria {
			if c.Name == name && c.Status != metrics.StatusNA {
				return c, true
			}
		}
	}
	return metrics.SequentialCrit{}, false
}

// sequentialCriterion names a criterion: a policy criterion says so, the
// latency criterion what the sequence bounds.
func sequentialCriterion(c metrics.SequentialCrit) string {
	switch {
	case metrics.IsPolicyCriterion(c.Name):
		return c.Name + " (policy)"
	case c.Name == metrics.CriterionJudgeP95Max:
		return c.Name + fmt.Sprintf(" (share > %g ms ≤ 0.05)", c.Threshold)
	}
	return c.Name
}

// sequentialStatus is PASS or FAIL, or "open" while undecided.
func sequentialStatus(c metrics.SequentialCrit) string {
	if c.Status == metrics.StatusInconclusive {
		return "open"
	}
	return string(c.Status)
}

func sequentialDecided(c metrics.SequentialCrit) string {
	if c.DecidedAfter == nil {
		return "-"
	}
	if c.Withdrawn != "" {
		return fmt.Sprintf("withdrawn (was %s after %d sessions, run %d; drift)", c.Withdrawn, *c.DecidedAfter, c.DecidedLook)
	}
	return fmt.Sprintf("after %d sessions, run %d (%s)", *c.DecidedAfter, c.DecidedLook, c.DecidedRun)
}

// sequentialEstimate is the estimate and its interval, or, where the
// sessions' mean lies outside the sequence's interval (drift), the two
// as what they are: "mean 0.2139, outside [0.0985, 0.1365]"; where the
// sessions excluded every rate (no interval left), the mean alone:
// "mean 0.25, every rate excluded". Where Lo and Hi are not one
// two-sided interval (the recall gain's two one-sided bounds) the cell
// names them as --json's bounds does: "0.4722, one-sided 95% bounds
// [0.042, 0.646]".
func sequentialEstimate(c metrics.SequentialCrit) string {
	if c.Estimate == nil {
		return "-"
	}
	// A negative figure takes a true minus, as the other tables print one.
	g := func(v float64) string { return strings.Replace(fmt.Sprintf("%.4g", v), "-", "−", 1) }
	if c.Excluded {
		return fmt.Sprintf("mean %s, every rate excluded", g(*c.Estimate))
	}
	if c.Outside {
		if c.Bounds != "" {
			return fmt.Sprintf("mean %s, outside %s [%s, %s]", g(*c.Estimate), c.Bounds, g(*c.Lo), g(*c.Hi))
		}
		return fmt.Sprintf("mean %s, outside [%s, %s]", g(*c.Estimate), g(*c.Lo), g(*c.Hi))
	}
	if c.Bounds != "" {
		return fmt.Sprintf("%s, %s [%s, %s]", g(*c.Estimate), c.Bounds, g(*c.Lo), g(*c.Hi))
	}
	return fmt.Sprintf("%s [%s, %s]", g(*c.Estimate), g(*c.Lo), g(*c.Hi))
}

// WriteSequential prints the sequential standing in format f: a header,
// one row per judge, rule and criterion that has data, the criteria with
// nothing to decide grouped by reason, the judges' duplicate counts, the
// verdict. TSV and CSV print the rows alone (JSON has everything);
// Markdown the same as the table, the lists as lists; JSON is
// WriteSequentialJSON.
func WriteSequential(w io.Writer, res *metrics.SequentialResult, f Format) error {
	if f == FormatJSON {
		return WriteSequentialJSON(w, res)
	}
	g, na := sequentialGrid(res)
	if f.Machine() {
		return g.render(w, f)
	}
	md := f == FormatMarkdown
	item, text := "  ", func(s string) string { return s }
	if md {
		item, text = "- ", mdEscape
	}
	ew := &errWriter{w: w}
	ew.printf("%s\n\n", text(fmt.Sprintf("sequential gate over %d runs: %.0f%% confidence sequences over sessions (a wrong decision on any criterion at most %.2g, however many runs)",
		len(res.Runs), (1-res.Alpha)*100, res.Alpha)))
	if ew.err != nil {
		return ew.err
	}
	if err := g.render(w, f); err != nil {
		return err
	}
	if len(na) > 0 {
		ew.printf("\n%s\n", text("N/A (nothing to decide, or not decided sequentially):"))
		if md {
			ew.printf("\n")
		}
	}
	for _, n := range na {
		where := strings.Join(n.rules, ", ")
		if len(n.rules) > 3 {
			where = fmt.Sprintf("%d rules", len(n.rules))
		}
		ew.printf("%s%s\n", item, text(fmt.Sprintf("%s, %s on %s: %s", n.judge, n.name, where, n.reason)))
	}
	ew.printf("\n")
	for _, j := range res.Judges {
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %d sessions counted", j.Judge, j.Sessions)
		if j.DuplicateSessions > 0 {
			fmt.Fprintf(&b, "; %d sessions (%d cases) that an earlier run had already counted were left out", j.DuplicateSessions, j.DuplicateCases)
		}
		for _, r := range j.BrokenRuns {
			fmt.Fprintf(&b, "; broken setup, sessions left out: %s", r)
		}
		fmt.Fprintf(&b, "; verdict %s (judge %s, policy %s)", j.Verdict, j.JudgeVerdict, j.PolicyVerdict)
		if md {
			ew.printf("- %s\n", text(b.String()))
		} else {
			ew.printf("%s\n", b.String())
		}
	}
	if md {
		ew.printf("\nverdict: **%s**\n", res.Verdict)
	} else {
		ew.printf("verdict\t%s\n", res.Verdict)
	}
	return ew.err
}

// WriteSequentialNotes writes what gate --sequential says on stderr
// beside the standing: the criteria whose sessions do not look like
// draws of one rate, the weak-labels banner (weak), why there is no
// verdict (ERROR) and that --inconclusive (inconclusive) mapped the exit
// code to code.
func WriteSequentialNotes(errOut io.Writer, res *metrics.SequentialResult, weak bool, inconclusive string, code int) {
	for _, w := range res.Warnings {
		fmt.Fprintf(errOut, "apeval: warning: %s\n", w)
	}
	if weak {
		fmt.Fprintf(errOut, "apeval: %s\n", WeakBanner)
	}
	if res.Verdict == metrics.VerdictError {
		fmt.Fprintf(errOut, "apeval: ERROR: a judge's setup is broken in the latest run, so there is no verdict (exit %d); fix the cause and rerun (apeval judges check helps)\n", code)
	}
	if res.Verdict == metrics.VerdictInconclusive && inconclusive != "" {
		fmt.Fprintf(errOut, "apeval: INCONCLUSIVE mapped to exit %d by --inconclusive=%s\n", code, inconclusive)
	}
}
