package reports

import (
	"encoding/json"
	"io"

	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/reports/rundir"
)

// SummarySchema versions summary.json; see SUMMARY_JSON.md for its keys.
const SummarySchema = "apeval.summary/v1"

// summaryJSON is summary.json: the run, the exit code the verdict maps to,
// and metrics.Summary's own keys at the top level.
type summaryJSON struct {
	Schema       string          `json:"schema"`
	Run          *rundir.RunInfo `json:"run"`
	ExitCode     int             `json:"exit_code"`
	Inconclusive string          `json:"inconclusive"`
	// Filtered is true when --rule, --tag, --limit or --sample narrowed the
	// run (run.filter says how): its figures are not the full dataset's.
	Filtered bool `json:"filtered"`
	// Cost is each judge's tokens and judging cost beside its latency
	// (cost.go), keyed by judge identity; absent when no judge had calls.
	Cost map[string]*JudgeCost `json:"cost,omitempty"`
	// JudgeFailures: judges with failed calls and their top error messages.
	JudgeFailures []JudgeFailures `json:"judge_failures"`
	// LabelSource is "weak" when the figures on labels rest on weak labels
	// (run --weak-labels); absent otherwise.
	LabelSource string `json:"label_source,omitempty"`
	*metrics.Summary
}

// WriteJSON writes summary.json: stable keys (SUMMARY_JSON.md), full
// precision, null where a metric does not apply.
func (rep *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	run := rep.Run
	if run.Schema == "" {
		run.Schema = rundir.RunSchema
	}
	return enc.Encode(summaryJSON{Schema: SummarySchema, Run: &run, ExitCode: rep.Exit,
		Inconclusive: rep.Inconclusive, Filtered: rep.Run.Filter != nil, Cost: rep.costs(),
		JudgeFailures: nonNil(rep.Failures), LabelSource: rep.Run.LabelSource, Summary: rep.Summary})
}

func nonNil(f []JudgeFailures) []JudgeFailures {
	if f == nil {
		return []JudgeFailures{}
	}
	return f
}
