package core

import (
	"fmt"
	"time"

	"github.com/apeval/apeval/internal/mask"
)

// CheckReport is what `apeval judges check SPEC` prints for one judge.
type CheckReport struct {
	Spec     string
	Identity string
	// Reachable: the server (or plugin) answered at all.
	Reachable bool
	// ModelPresent: the server lists the model (or, for an OpenAI-compatible
	// server without a model list, answered the sample call).
	ModelPresent bool
	// ModelUnknown says why the check cannot tell whether the server has
	// the model ("" when it can): a server that refused the key (HTTP 401,
	// 403) or failed the sample call without saying the model is missing
	// neither lists nor denies it. Model() is then "unknown", not "no".
	ModelUnknown string
	Models       []string // what the server lists, when it lists anything
	Digest       string
	// StructuredOutput is the mode the sample call ended in: json_schema,
	// json_object or none (exec plugins: "plugin").
	StructuredOutput string
	Details          map[string]string
	SampleStatus     Status
	SampleLatency    time.Duration
	SampleError      string
	Notes            []string
	// Error says why the check stopped early ("" when it ran to the end).
	Error string
}

// The three answers of Model.
const (
	ModelYes     = "yes"
	ModelNo      = "no"
	ModelUnknown = "unknown"
)

// Model is whether the server has the judge's model: ModelYes, ModelNo, or
// ModelUnknown when the check could not tell (ModelUnknown says why, or the
// server was not reached).
func (r CheckReport) Model() string {
	switch {
	case r.ModelPresent:
		return ModelYes
	case r.ModelUnknown != "" || !r.Reachable:
		return ModelUnknown
	}
	return ModelNo
}

// RefusedKey is ModelUnknown's reason when the server refused the key
// with HTTP code.
func RefusedKey(code int) string {
	return fmt.Sprintf("the endpoint refused the key (HTTP %d)", code)
}

// OK reports whether the judge is usable: reachable, model present and the
// sample call answered validly.
func (r CheckReport) OK() bool {
	return r.Error == "" && r.Reachable && r.ModelPresent && r.SampleStatus == StatusOK
}

// Masked is r with its texts put through the masking pass: its errors
// and notes quote what servers and plugins said.
func (r CheckReport) Masked() CheckReport {
	r.Error = mask.Lines(r.Error)
	r.SampleError = mask.Lines(r.SampleError)
	r.ModelUnknown = mask.Lines(r.ModelUnknown)
	notes := make([]string, len(r.Notes))
	for i, n := range r.Notes {
		notes[i] = mask.Lines(n)
	}
	if r.Notes != nil {
		r.Notes = notes
	}
	return r
}

// BudgetReport is what a budget spent, for run.json.
type BudgetReport struct {
	MaxCalls int64   `json:"max_calls,omitempty"`
	MaxUSD   float64 `json:"max_usd,omitempty"`
	Calls    int64   `json:"calls_sent"`
	USD      float64 `json:"usd_spent"`
	// Unmetered counts calls whose judge reported no token counts: their
	// cost is the estimate from the input's size.
	Unmetered int64 `json:"calls_without_usage"`
	// Stopped says which limit stopped the run; "" when none was reached.
	Stopped string `json:"stopped,omitempty"`
}
