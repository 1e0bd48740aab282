package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/metrics"
)

// PlanView is what `apeval plan` prints: the plans and what they were
// made from (docs/planning.md, "Output").
type PlanView struct {
	Plans      []metrics.PlanResult
	Confidence float64
	// Pilot is the pilot run directory ("" from guesses); Weak: its labels
	// are weak labels, so the figures on labels say so.
	Pilot string
	Weak  bool
	// Sessions is the budget of sessions (0: none); Labels the label
	// budget of a plan of the label path (0: not the label path).
	Sessions    int64
	Labels      int
	ICC         float64
	SessionSize float64
	Reps        int
	Seed        uint64
}

// WriteJSON writes the plan as JSON.
func (v PlanView) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	var source string
	if v.Weak {
		source = datasets.LabelSourceWeak
	}
	return enc.Encode(struct {
		Confidence  float64              `json:"confidence"`
		Target      float64              `json:"target"`
		Pilot       string               `json:"pilot,omitempty"`
		LabelSource string               `json:"label_source,omitempty"`
		Plans       []metrics.PlanResult `json:"plans"`
	}{v.Confidence, 0.8, v.Pilot, source, v.Plans})
}

// WriteTable writes the plan as a table with its notes: per criterion
// (from a pilot: per judge, rule and criterion) the sessions for an 80%
// chance of a decision and the shares at the budget; on the label path
// the labels instead, and a line per judge and rule in words.
func (v PlanView) WriteTable(out io.Writer) error {
	if v.Labels > 0 {
		return v.writeLabels(out)
	}
	plans := v.Plans
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	head := "criterion\tthreshold\tguess\tsessions for 80%\tunits\tdecided"
	if v.Pilot != "" {
		head = "judge\trule\tcriterion\tthreshold\tpilot\tsessions for 80%\tunits\tdecided"
	}
	if v.Sessions > 0 {
		head += fmt.Sprintf("\tat %d sessions: PASS\tFAIL", v.Sessions)
	}
	fmt.Fprintln(tw, head)
	for _, p := range plans {
		sess, units, rate := "–", "–", "–"
		if p.Sessions != nil {
			sess, units, rate = strconv.FormatInt(*p.Sessions, 10), "≈ "+strconv.FormatInt(*p.Units, 10), fmt.Sprintf("%.0f%%", *p.DecideRate*100)
		}
		var line string
		if v.Pilot != "" {
			line = fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s", planJudge(p.Judge), p.Rule, v.criterionCell(p), planThreshold(p), pilotCell(p), sess, units, rate)
		} else {
			line = fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s", p.Criterion, planThreshold(p), guessCell(p), sess, units, rate)
		}
		if v.Sessions > 0 && p.BudgetPass != nil {
			line += fmt.Sprintf("\t%.0f%%\t%.0f%%", *p.BudgetPass*100, *p.BudgetFail*100)
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if v.Pilot != "" {
		fmt.Fprintf(out, "\nFrom the pilot %s: rates fitted (ICC and session sizes as seen), P95, recall vs baseline and drift by resampling its sessions; %.0f%% intervals, %d simulated data sets per size (seed %d).\n", v.Pilot, v.Confidence*100, v.Reps, v.Seed)
		v.weakNote(out)
	} else {
		fmt.Fprintf(out, "\nICC %g, %g units per session, %.0f%% intervals, %d simulated data sets per size (seed %d).\n", v.ICC, v.SessionSize, v.Confidence*100, v.Reps, v.Seed)
	}
	for _, p := range plans {
		if p.Sessions == nil {
			fmt.Fprintf(out, "%s: %s\n", p.Criterion, p.Reason)
		}
	}
	return nil
}

// planJudge names a plan's judge; a policy criterion has none.
func planJudge(j string) string {
	if j == "" {
		return "(policy)"
	}
	return j
}

// planThreshold is the criterion's threshold as the tables say it: a
// latency in ms, drift as ±max, the recall gain as > 0.
func planThreshold(p metrics.PlanResult) string {
	switch p.Criterion {
	case metrics.CriterionJudgeP95Max:
		return fmt.Sprintf("%g ms", p.Threshold)
	case metrics.CriterionFireRateChangeMax:
		return fmt.Sprintf("±%g", p.Threshold)
	case metrics.CriterionDangerousRecall:
		return "gain > 0"
	}
	return fmt.Sprintf("%g", p.Threshold)
}

// guessCell is what a plan from guesses drew its data from.
func guessCell(p metrics.PlanResult) string {
	switch {
	case p.Guess != nil:
		return fmt.Sprintf("%g", p.Guess.Rate)
	case p.RecallGuess != nil:
		r := p.RecallGuess
		s := fmt.Sprintf("recall %g vs baseline %g", r.Recall, r.BaselineRecall)
		if r.BaselineOnly != nil {
			s += fmt.Sprintf(", baseline only %g", *r.BaselineOnly)
		}
		return s
	case p.LatencyGuess != nil:
		return fmt.Sprintf("P50 %g ms, P95 %g ms", p.LatencyGuess.P50MS, p.LatencyGuess.P95MS)
	case p.DriftGuess != nil:
		d := p.DriftGuess
		return fmt.Sprintf("drift %+g, differ on %g, baseline fires %.3g", d.Change, d.Disagree, d.BaselineFire)
	}
	return "–"
}

// pilotCell is the pilot's estimate with the data it rests on.
func pilotCell(p metrics.PlanResult) string {
	d := p.Pilot
	if d == nil {
		return "–"
	}
	est := "–"
	if d.Estimate != nil {
		est = fmt.Sprintf("%.4g", *d.Estimate)
	}
	if p.Guess != nil {
		est += fmt.Sprintf(" (ICC %.2f)", p.Guess.ICC)
	}
	if d.TrafficSessions > d.Sessions {
		return fmt.Sprintf("%s over %d of %d sessions, %d %s", est, d.Sessions, d.TrafficSessions, d.Units, d.Unit)
	}
	return fmt.Sprintf("%s over %d sessions, %d %s", est, d.Sessions, d.Units, d.Unit)
}

// writeLabels prints a plan of the label path: per judge and rule
// the labels for an 80% chance of a decision and the shares at --labels
// N, then one line per judge and rule in words ("with 300 labels:
// precision decided 85%, recall vs baseline 40%").
func (v PlanView) writeLabels(out io.Writer) error {
	plans := v.Plans
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "judge\trule\tcriterion\tthreshold\tlabels for 80%%\tdecided\tat %d labels: PASS\tFAIL\n", v.Labels)
	for _, p := range plans {
		n, rate, pass, fail := "–", "–", "–", "–"
		if p.Labels != nil {
			n, rate = strconv.FormatInt(*p.Labels, 10), fmt.Sprintf("%.0f%%", *p.DecideRate*100)
		}
		if p.BudgetPass != nil {
			pass, fail = fmt.Sprintf("%.0f%%", *p.BudgetPass*100), fmt.Sprintf("%.0f%%", *p.BudgetFail*100)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.Judge, p.Rule, v.criterionCell(p), planThreshold(p), n, rate, pass, fail)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(out)
	type key struct{ judge, rule string }
	var order []key
	said := map[key][]string{}
	for _, p := range plans {
		k := key{p.Judge, p.Rule}
		if said[k] == nil {
			order = append(order, k)
		}
		what := "precision"
		if p.Criterion == metrics.CriterionDangerousRecall {
			what = "recall vs baseline"
		}
		if p.BudgetPass == nil {
			said[k] = append(said[k], what+" not planned")
			continue
		}
		said[k] = append(said[k], fmt.Sprintf("%s decided %.0f%%", what, 100*(*p.BudgetPass+*p.BudgetFail)))
	}
	for _, k := range order {
		fmt.Fprintf(out, "%s, %s: with %d labels: %s\n", k.judge, k.rule, v.Labels, strings.Join(said[k], ", "))
	}
	fmt.Fprintf(out, "\nLabels from `apeval label queue %s --budget N`, every judge of the run as strata; the pilot's own labels (else the --rate guesses) stand for what the labels will show; %.0f%% intervals, %d simulated queues per size (seed %d).\n", v.Pilot, v.Confidence*100, v.Reps, v.Seed)
	v.weakNote(out)
	for _, p := range plans {
		// Not planned, or no number of labels decides it (the reason says
		// what would: more sessions of traffic).
		if p.BudgetPass == nil || p.Labels == nil {
			fmt.Fprintf(out, "%s %s %s: %s\n", p.Judge, p.Rule, p.Criterion, p.Reason)
		}
	}
	return nil
}

// criterionCell names a plan's criterion; on a weak pilot a criterion on
// labels says so.
func (v PlanView) criterionCell(p metrics.PlanResult) string {
	if v.Weak && metrics.OnLabels(p.Criterion) {
		return p.Criterion + " (weak labels)"
	}
	return p.Criterion
}

// weakNote says, under a plan from a pilot on weak labels, what its
// figures on labels rest on.
func (v PlanView) weakNote(out io.Writer) {
	if v.Weak {
		fmt.Fprintf(out, "The pilot's labels are weak labels (run --weak-labels: users' overrides, a signal, not ground truth): its precision, recall vs baseline and drift are planned on them; label a slice (apeval label queue --weak-labels) and correct them (apeval label correct).\n")
	}
}
