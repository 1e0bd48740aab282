package reports

import (
	"io"

	"github.com/parquet-go/parquet-go"

	"github.com/apeval/apeval/metrics"
)

// CompareFile is the comparison's Parquet file: in the run directory when
// a baseline judge is set, and where `apeval compare --out DIR` says.
const CompareFile = "compare.parquet"

// compareRow is one compare.parquet row: a slice value × rule × figure of
// one baseline-vs-candidate comparison (slice "*" for the whole run, rule
// "*" for all rules).
type compareRow struct {
	Slice               string   `parquet:"slice,dict"`
	SliceValue          string   `parquet:"slice_value,dict"`
	BaselineJudge       string   `parquet:"baseline_judge,dict"`
	CandidateJudge      string   `parquet:"candidate_judge,dict"`
	RuleID              string   `parquet:"rule_id,dict"`
	Figure              string   `parquet:"figure,dict"`
	Baseline            *float64 `parquet:"baseline,optional"`
	Candidate           *float64 `parquet:"candidate,optional"`
	Delta               *float64 `parquet:"delta,optional"`
	DeltaLo             *float64 `parquet:"delta_lo,optional"`
	DeltaHi             *float64 `parquet:"delta_hi,optional"`
	PValue              *float64 `parquet:"p_value,optional"`
	PValueMCError       *float64 `parquet:"p_value_mc_error,optional"`
	QValue              *float64 `parquet:"q_value,optional"`
	Adjustment          string   `parquet:"adjustment,dict"`
	N                   int64    `parquet:"n"`
	NBaseline           *int64   `parquet:"n_baseline,optional"`
	NCandidate          *int64   `parquet:"n_candidate,optional"`
	Test                string   `parquet:"test,dict"`
	DiscordantBaseline  *int64   `parquet:"discordant_baseline,optional"`
	DiscordantCandidate *int64   `parquet:"discordant_candidate,optional"`
	Significant         bool     `parquet:"significant"`
	Confidence          float64  `parquet:"confidence"`
}

// WriteComparisonParquet writes compare.parquet: for each comparison, the
// rules then the total, figure by figure, then the same per slice value.
func WriteComparisonParquet(w io.Writer, cs []*metrics.Comparison, confidence float64) error {
	pw := parquet.NewGenericWriter[compareRow](w, parquet.Compression(&parquet.Zstd),
		parquet.CreatedBy("apeval", "", ""))
	var rows []compareRow
	for _, c := range cs {
		add := func(slice, value string, rcs []*metrics.RuleComparison) {
			for _, rc := range rcs {
				for _, f := range rc.Figures {
					rows = append(rows, compareRow{
						Slice: slice, SliceValue: value, BaselineJudge: c.Baseline, CandidateJudge: c.Candidate,
						RuleID: rc.RuleID, Figure: f.Figure, Baseline: f.Baseline, Candidate: f.Candidate,
						Delta: f.Delta, DeltaLo: f.DeltaLo, DeltaHi: f.DeltaHi, PValue: f.PValue, PValueMCError: f.PValueMCError,
						QValue: f.QValue, Adjustment: c.Adjustment, N: f.N, NBaseline: f.NBaseline, NCandidate: f.NCandidate, Test: f.Test,
						DiscordantBaseline: f.DiscordantBaseline, DiscordantCandidate: f.DiscordantCandidate,
						Significant: f.Significant(confidence), Confidence: confidence,
					})
				}
			}
		}
		add("*", "*", comparisonRows(c))
		for _, sc := range c.Slices {
			add(sc.Slice, sc.Value, sc.Rules)
		}
	}
	if _, err := pw.Write(rows); err != nil {
		return err
	}
	return pw.Close()
}
