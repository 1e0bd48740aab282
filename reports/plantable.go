package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

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
		LabelFirst  *metrics.FirstStage  `json:"label_first,omitempty"`
	}{v.Confidence, 0.8, v.Pilot, source, v.Plans, metrics.FirstStages(v.Plans)})
}

// WriteTable writes the plan as a table with its notes (Write in the
// table format).
func (v PlanView) WriteTable(out io.Writer) error { return v.Write(out, FormatTable) }

// Write writes the plan in format f: per criterion (from a pilot: per
// judge, rule and criterion) the sessions for an 80% chance of a decision
// and the shares at the budget; on the label path the labels instead.
// The table and Markdown forms add the notes under it (what the plan
// rests on, a line per judge and rule of the label path in words, why a
// criterion is not planned); TSV and CSV are the rows alone; JSON is
// WriteJSON.
func (v PlanView) Write(out io.Writer, f Format) error {
	if f == FormatJSON {
		return v.WriteJSON(out)
	}
	g := v.grid()
	if f != FormatTable {
		// The table form leaves out the cells a row lacks, as it always
		// has; the other forms keep every row as wide as the header.
		for i, r := range g.rows {
			for len(r) < len(g.header) {
				r = append(r, "–")
			}
			g.rows[i] = r
		}
	}
	if f != FormatTable {
		return g.render(out, f) // Markdown writes the notes itself
	}
	if err := g.render(out, f); err != nil {
		return err
	}
	_, err := io.WriteString(out, "\n"+strings.Join(g.notes, "\n")+"\n")
	return err
}

// grid is the plan's table and the notes under it.
func (v PlanView) grid() *grid {
	if v.Labels > 0 {
		return v.labelGrid()
	}
	g := &grid{header: []string{"criterion", "threshold", "guess", "sessions for 80%", "units", "decided"}, plain: true}
	if v.Pilot != "" {
		g.header = []string{"judge", "rule", "criterion", "threshold", "pilot", "sessions for 80%", "units", "decided"}
	}
	if v.Sessions > 0 {
		g.header = append(g.header, fmt.Sprintf("at %s: PASS", count(v.Sessions, "session")), "FAIL")
	}
	for _, p := range v.Plans {
		sess, units, rate := "–", "–", "–"
		if p.Sessions != nil {
			sess, units, rate = strconv.FormatInt(*p.Sessions, 10), "≈ "+strconv.FormatInt(*p.Units, 10), fmt.Sprintf("%.0f%%", *p.DecideRate*100)
		}
		var row []string
		if v.Pilot != "" {
			row = []string{planJudge(p.Judge), p.Rule, v.criterionCell(p), planThreshold(p), pilotCell(p), sess, units, rate}
		} else {
			row = []string{p.Criterion, planThreshold(p), guessCell(p), sess, units, rate}
		}
		if v.Sessions > 0 && p.BudgetPass != nil {
			row = append(row, fmt.Sprintf("%.0f%%", *p.BudgetPass*100), fmt.Sprintf("%.0f%%", *p.BudgetFail*100))
		}
		g.add(row...)
	}
	if v.Pilot != "" {
		g.notes = append(g.notes, fmt.Sprintf("From the pilot %s: rates fitted (ICC and session sizes as seen), P95, recall vs baseline and drift by resampling its sessions; %.0f%% intervals, %d simulated data sets per size (seed %d).", v.Pilot, v.Confidence*100, v.Reps, v.Seed))
		g.notes = append(g.notes, v.weakNote()...)
	} else {
		g.notes = append(g.notes, fmt.Sprintf("ICC %g, %g units per session, %.0f%% intervals, %d simulated data sets per size (seed %d).", v.ICC, v.SessionSize, v.Confidence*100, v.Reps, v.Seed))
	}
	for _, p := range v.Plans {
		if p.Sessions == nil {
			g.notes = append(g.notes, fmt.Sprintf("%s: %s", p.Criterion, p.Reason))
		}
	}
	return g
}

// planJudge names a plan's judge; a policy criterion has none.
func planJudge(j string) string {
	if j == "" {
		return "(policy)"
	}
	return j
}

// planThreshold is the criterion's threshold as the tables say it
// (metrics.CriterionSpec.Bound).
func planThreshold(p metrics.PlanResult) string {
	spec, ok := metrics.SpecOf(p.Criterion)
	if !ok {
		return fmt.Sprintf("%g", p.Threshold)
	}
	return spec.Bound(p.Threshold)
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

// count is "1 session", "300 sessions".
func count(n int64, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
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
	switch g := p.Guess; {
	case g != nil && d.Estimate != nil && (*d.Estimate == 0 || *d.Estimate == 1) && g.Rate != *d.Estimate:
		// No event (or only events): the plan simulates (Y + ½)/(M + 1),
		// not the pilot's 0 (1); say so, or "1" beside "FAIL 18%" reads
		// as a contradiction.
		est += fmt.Sprintf(" (planned at %.4g, ICC %.2f)", g.Rate, g.ICC)
	case g != nil:
		est += fmt.Sprintf(" (ICC %.2f)", g.ICC)
	}
	if d.TrafficSessions > d.Sessions {
		return fmt.Sprintf("%s over %d of %d sessions, %d %s", est, d.Sessions, d.TrafficSessions, d.Units, d.Unit)
	}
	return fmt.Sprintf("%s over %d sessions, %d %s", est, d.Sessions, d.Units, d.Unit)
}

// labelGrid is a plan of the label path: per judge and rule the labels
// for an 80% chance of a decision and the shares at --labels N; under
// it one line per judge and rule in words ("with 300 labels: precision
// decided 85%, recall vs baseline 40%") and what the plan rests on.
func (v PlanView) labelGrid() *grid {
	g := &grid{header: []string{"judge", "rule", "criterion", "threshold", "labels for 80%", "decided", fmt.Sprintf("at %s: PASS", count(int64(v.Labels), "label")), "FAIL"}, plain: true}
	for _, p := range v.Plans {
		n, rate, pass, fail := "–", "–", "–", "–"
		if p.Labels != nil {
			n, rate = strconv.FormatInt(*p.Labels, 10), fmt.Sprintf("%.0f%%", *p.DecideRate*100)
		}
		if p.BudgetPass != nil {
			pass, fail = fmt.Sprintf("%.0f%%", *p.BudgetPass*100), fmt.Sprintf("%.0f%%", *p.BudgetFail*100)
		}
		g.add(p.Judge, p.Rule, v.criterionCell(p), planThreshold(p), n, rate, pass, fail)
	}
	type key struct{ judge, rule string }
	var order []key
	said := map[key][]string{}
	for _, p := range v.Plans {
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
		g.notes = append(g.notes, fmt.Sprintf("%s, %s: with %d labels: %s", k.judge, k.rule, v.Labels, strings.Join(said[k], ", ")))
	}
	g.notes = append(g.notes, "", fmt.Sprintf("Labels from `apeval label queue %s --budget N`, every judge of the run as strata; the pilot's own labels (else the --rate guesses) stand for what the labels will show; %.0f%% intervals, %d simulated queues per size (seed %d).", v.Pilot, v.Confidence*100, v.Reps, v.Seed))
	g.notes = append(g.notes, v.weakNote()...)
	if f := metrics.FirstStages(v.Plans); f != nil {
		// One queue for every rule whose plan rests on few labels where
		// the judges disagree, rather than one command per rule below.
		per := make([]string, len(f.PerRule))
		for i, r := range f.PerRule {
			per[i] = fmt.Sprintf("%s %d", r.Rule, r.Labels)
		}
		g.notes = append(g.notes, fmt.Sprintf("Label first, for the %d rules below whose plans rest on under %d labels of a stratum where the judges disagree, one queue: `%s` queues %d labels (%s); add them to the pilot's labels and plan again.",
			len(f.Rules), f.Reach, f.Command, f.Labels, strings.Join(per, ", ")))
	}
	for _, p := range v.Plans {
		// Not planned, no number of labels decides it (the reason says
		// what would: more sessions of traffic), or the plan rests on a
		// few pilot labels where the judges disagree (the reason says
		// which).
		if p.BudgetPass == nil || p.Labels == nil || p.Thin != nil {
			g.notes = append(g.notes, fmt.Sprintf("%s %s %s: %s", p.Judge, p.Rule, p.Criterion, p.Reason))
		}
	}
	return g
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
func (v PlanView) weakNote() []string {
	if !v.Weak {
		return nil
	}
	return []string{"The pilot's labels are weak labels (run --weak-labels: users' overrides, a signal, not ground truth): its precision, recall vs baseline and drift are planned on them; label a slice (apeval label queue --weak-labels) and correct them (apeval label correct)."}
}
