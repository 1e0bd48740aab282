package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/trunc"
	"github.com/apeval/apeval/metrics"
)

// The label verbs' outputs: apeval label agreement's table and apeval
// label correct's tables and JSON.

// WriteAgreement prints the agreement of labels files as a table: per
// rule, people, each judge vs the people, weak labels vs people and each
// judge vs the weak labels, with κ and its interval.
func WriteAgreement(w io.Writer, a *metrics.LabelsAgreement) error {
	g := &grid{header: []string{"rule", "between", "method", "pairs", "agree", "kappa", fmt.Sprintf("%g%% CI", a.Confidence*100)}, plain: true}
	row := func(rule, between string, k metrics.Kappa) {
		g.add(rule, between, k.Method, strconv.Itoa(k.Items), fmt.Sprintf("%.3f", k.Observed), kappaText(k.Kappa), kappaCI(k))
	}
	for _, r := range a.Rules {
		row(r.RuleID, "people", r.People)
		for _, k := range r.Judges {
			row(r.RuleID, k.Between, k.Kappa)
		}
	}
	for _, r := range a.Weak {
		row(r.RuleID, metrics.WeakLabeler+" vs people", r.People)
	}
	for _, r := range a.JudgesWeak {
		for _, k := range r.Judges {
			row(r.RuleID, k.Between, k.Kappa)
		}
	}
	return g.render(w, FormatTable)
}

func kappaText(v *float64) string {
	if v == nil {
		return "—"
	}
	// Observed agreement equal to chance's computes as -1e-17: that is no
	// agreement beyond chance, 0.000, not a negative one.
	if s := fmt.Sprintf("%.3f", *v); s != "-0.000" {
		return s
	}
	return "0.000"
}

// kappaCI is a kappa's interval, or N/A with the item count below the
// minimum.
func kappaCI(k metrics.Kappa) string {
	if k.IntervalNA != "" {
		return fmt.Sprintf("N/A (n=%d < %d)", k.Items, metrics.MinKappaItems)
	}
	if k.Lo == nil || k.Hi == nil {
		return "—"
	}
	return fmt.Sprintf("[%.3f, %.3f]", *k.Lo, *k.Hi)
}

// CorrectionLabelSource names corrected figures in the machine forms: on
// weak labels, corrected from people's labels.
const CorrectionLabelSource = "weak_corrected"

// ratioJSON is a weighted ratio as the JSON of label correct shows it.
type ratioJSON struct {
	Estimate *float64 `json:"estimate"`
	Lo       *float64 `json:"lo"`
	Hi       *float64 `json:"hi"`
	NEff     float64  `json:"n_eff"`
	Units    int64    `json:"units"`
}

func ratioOf(r metrics.WeightedRatio) ratioJSON {
	return ratioJSON{Estimate: r.Estimate, Lo: r.Lo, Hi: r.Hi, NEff: r.NEff, Units: r.Units}
}

// WriteCorrectionJSON prints apeval label correct's report as JSON:
// labels is the number of people's labels, missing those naming pairs
// the run lacks.
func WriteCorrectionJSON(w io.Writer, rep *metrics.WeakReport, labels, missing int) error {
	type row struct {
		Judge            string             `json:"judge"`
		RuleID           string             `json:"rule_id"`
		WeakPrecision    metrics.WeakFigure `json:"precision_on_weak_labels"`
		WeakRecall       metrics.WeakFigure `json:"recall_on_weak_labels"`
		Precision        ratioJSON          `json:"precision_corrected"`
		Recall           ratioJSON          `json:"recall_corrected"`
		WeakMatchWrong   ratioJSON          `json:"weak_match_wrong"`
		WeakNoMatchWrong ratioJSON          `json:"weak_no_match_wrong"`
		NA               string             `json:"na,omitempty"`
		Labels           int64              `json:"labels"`
		Dropped          int                `json:"labels_dropped"`
	}
	out := struct {
		LabelSource string                `json:"label_source"`
		Method      string                `json:"method"`
		Post        bool                  `json:"post_stratified"`
		Confidence  float64               `json:"confidence"`
		Labels      int                   `json:"labels"`
		NotInRun    int                   `json:"labels_not_in_run"`
		Rows        []row                 `json:"rows"`
		Strata      []metrics.WeakStratum `json:"strata"`
	}{LabelSource: CorrectionLabelSource, Method: rep.Method(), Post: rep.PostStratified, Confidence: rep.Confidence, Labels: labels, NotInRun: missing, Strata: rep.Strata}
	for _, r := range rep.Rows {
		out.Rows = append(out.Rows, row{r.Judge, r.RuleID, r.WeakPrecision, r.WeakRecall, ratioOf(r.Precision), ratioOf(r.Recall),
			ratioOf(r.WeakMatchWrong), ratioOf(r.WeakNoMatchWrong), r.NA, r.Labels, r.Dropped})
	}
	if out.Strata == nil {
		out.Strata = []metrics.WeakStratum{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// WriteCorrectionTables prints apeval label correct's report as tables:
// per judge and rule the figures on weak labels beside the corrected
// ones, then the weak labels' error per stratum.
func WriteCorrectionTables(w io.Writer, rep *metrics.WeakReport, labels, missing int) error {
	pct := fmt.Sprintf("%g%%", rep.Confidence*100)
	fmt.Fprintf(w, "Figures on weak labels (users' overrides, a signal, not ground truth) corrected from %d people's labels: %s.\n\n", labels, rep.Method())
	g := &grid{header: []string{"judge", "rule", "precision on weak labels", "precision corrected [" + pct + "]",
		"recall on weak labels", "recall corrected [" + pct + "]", "weak match wrong", "weak no_match wrong", "labels"}, plain: true}
	var na []string
	for _, r := range rep.Rows {
		p, rc := ratioText(r.Precision), ratioText(r.Recall)
		if r.NA != "" {
			p, rc = "N/A", "N/A"
			na = append(na, fmt.Sprintf("%s, rule %s: corrected figures N/A: %s", r.Judge, r.RuleID, r.NA))
		}
		g.add(r.Judge, r.RuleID, weakFigureText(r.WeakPrecision), p,
			weakFigureText(r.WeakRecall), rc, ratioText(r.WeakMatchWrong), ratioText(r.WeakNoMatchWrong), itoa(r.Labels))
	}
	if err := g.render(w, FormatTable); err != nil {
		return err
	}
	for _, n := range na {
		fmt.Fprintln(w, n)
	}
	if missing > 0 {
		fmt.Fprintf(w, "%d of the labels name pairs this run does not have in scope and are left out.\n", missing)
	}
	fmt.Fprintf(w, "\nWeak labels' error per stratum (people's label differs from the weak label; W:undecided: share of people's match labels), %s interval, sessions as clusters:\n", pct)
	strata := &grid{header: []string{"rule", "stratum", "pairs", "labeled", "disagree", "rate"}, plain: true}
	for _, s := range rep.Strata {
		r := metrics.WeightedRatio{Estimate: s.Rate, Lo: s.RateLo, Hi: s.RateHi}
		strata.add(s.RuleID, s.Stratum, itoa(s.Size), itoa(s.Labeled), itoa(s.Disagree), ratioText(r))
	}
	return strata.render(w, FormatTable)
}

func weakFigureText(f metrics.WeakFigure) string {
	if f.Value == nil {
		return "N/A (0 weak)"
	}
	return fmt.Sprintf("%.3f (%d/%d weak)", *f.Value, f.Num, f.Den)
}

func ratioText(r metrics.WeightedRatio) string {
	if r.Estimate == nil {
		return "N/A"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%.3f", *r.Estimate)
	if r.Lo != nil && r.Hi != nil {
		fmt.Fprintf(&b, " [%.3f, %.3f]", *r.Lo, *r.Hi)
	}
	return b.String()
}

// WriteQueueSummary prints what apeval label queue drew: the letters'
// legend (names[i] is letters[i]), per rule and stratum the pairs, the
// queued and the prior, the census pairs the dataset already labels per
// rule, a note when the budget was below the minimums, and a total line
// (unlabeled pairs in scope, where the queue went).
func WriteQueueSummary(w io.Writer, q *metrics.Queue, letters, names []string, census map[string]int, unlabeled int, dest string) error {
	for i, j := range names {
		fmt.Fprintf(w, "%s = %s\n", letters[i], j)
	}
	g := &grid{header: []string{"rule", "stratum", "pairs", "queued", "prior p"}, plain: true}
	counted := q.Reach > 0 || q.Matches != ""
	if counted {
		g.header = []string{"rule", "stratum", "pairs", "labeled", "queued"}
	}
	for _, s := range q.Strata {
		if counted {
			g.add(s.RuleID, s.Name, itoa(s.Size), strconv.Itoa(s.Labeled), strconv.Itoa(s.Allocated))
			continue
		}
		g.add(s.RuleID, s.Name, itoa(s.Size), strconv.Itoa(s.Allocated), fmt.Sprintf("%.2f", s.Prior))
	}
	if err := g.render(w, FormatTable); err != nil {
		return err
	}
	rules := slices.Sorted(maps.Keys(census))
	for _, r := range rules {
		fmt.Fprintf(w, "%s: %s labeled in the dataset (census, not queued)\n", r, nounCount(census[r], "pair", "pairs"))
	}
	if q.Reach > 0 {
		fmt.Fprintf(w, "--reach %d: each stratum where the judges disagree queued up to %d labels counting those already labeled (labeled: the dataset's and --labels'), or all its pairs; none where they agree\n", q.Reach, q.Reach)
	}
	if q.Matches != "" {
		fmt.Fprintf(w, "--matches: every unlabeled pair %s called match queued (each stratum where %s says match, whatever the others say; labeled: the dataset's and --labels', not queued again); none elsewhere\n", q.Matches, q.Matches)
	}
	if !counted && q.MinTotal > q.Budget {
		fmt.Fprintf(w, "--budget %d is below the minimum of 5 per stratum: queued the minimum, %d pairs\n", q.Budget, q.MinTotal)
	}
	_, err := fmt.Fprintf(w, "%s queued from %s in %s; written to %s\n", nounCount(len(q.Items), "pair", "pairs"),
		nounCount(unlabeled, "unlabeled pair", "unlabeled pairs"), nounCount(len(q.Strata), "stratum", "strata"), dest)
	return err
}

// nounCount is n with its noun agreeing in number: "1 pair", "7 pairs".
func nounCount(n int, one, many string) string {
	if n == 1 {
		return strconv.Itoa(n) + " " + one
	}
	return strconv.Itoa(n) + " " + many
}

// WriteLabelMerge prints what apeval datasets label-import did: the
// labels read and what became of them, the cases updated and lines
// written to dest, the labels-file lines that carried no label, and the
// ids skipped because the dataset lacks them (the first 20).
func WriteLabelMerge(w io.Writer, l *datasets.Labels, st datasets.MergeStats, dest string) {
	fmt.Fprintf(w, "%d labels for %d cases: %d added, %d changed, %d already there; %d cases updated, %d lines written to %s\n",
		l.Count(), l.Cases(), st.Added, st.Changed, st.Kept, st.Updated, st.Lines, dest)
	if n := l.Empty(); n > 0 {
		fmt.Fprintf(w, "%d labels-file line(s) carried no label and were skipped\n", n)
	}
	if len(st.Unknown) > 0 {
		fmt.Fprintf(w, "skipped labels for %d id(s) not in the dataset: %s\n", len(st.Unknown), trunc.List(st.Unknown, 20))
	}
}
