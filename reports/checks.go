package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/apeval/apeval/judge/core"
)

// RenderChecks writes `apeval judges check`: one row per judge spec with
// reachability, model presence, digest, structured-output mode and the
// sample call; notes and errors as footnotes. The model column is yes, no or
// unknown (a refused key, a server that lists nothing and failed the sample
// call, an unreachable server), the reason as a footnote. JSON has the same fields in
// snake_case, the sample call's latency in ms.
func RenderChecks(w io.Writer, reps []core.CheckReport, f Format) error {
	if f == FormatJSON {
		type out struct {
			Spec             string            `json:"spec"`
			Identity         string            `json:"identity"`
			Reachable        bool              `json:"reachable"`
			ModelPresent     bool              `json:"model_present"`
			Model            string            `json:"model"`
			ModelUnknown     string            `json:"model_unknown"`
			Models           []string          `json:"models"`
			Digest           string            `json:"digest"`
			StructuredOutput string            `json:"structured_output"`
			Details          map[string]string `json:"details"`
			SampleStatus     core.Status       `json:"sample_status"`
			SampleLatencyMS  float64           `json:"sample_latency_ms"`
			SampleError      string            `json:"sample_error"`
			Notes            []string          `json:"notes"`
			Error            string            `json:"error"`
			OK               bool              `json:"ok"`
		}
		all := make([]out, len(reps))
		for i, r := range reps {
			all[i] = out{Spec: r.Spec, Identity: r.Identity, Reachable: r.Reachable, ModelPresent: r.ModelPresent,
				Model: r.Model(), ModelUnknown: r.ModelUnknown,
				Models: r.Models, Digest: r.Digest, StructuredOutput: r.StructuredOutput, Details: r.Details,
				SampleStatus: r.SampleStatus, SampleLatencyMS: float64(r.SampleLatency) / float64(time.Millisecond),
				SampleError: r.SampleError, Notes: r.Notes, Error: r.Error, OK: r.OK()}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(all)
	}
	g := &grid{
		header: []string{"judge", "reachable", "model", "digest", "structured output", "sample call", "latency ms", "ok"},
		right:  []bool{false, false, false, false, false, false, true, false},
	}
	for _, r := range reps {
		name := r.Identity
		if name == "" {
			name = r.Spec
		}
		lat := "–"
		if r.SampleStatus != "" {
			lat = fmt.Sprintf("%.1f", float64(r.SampleLatency)/float64(time.Millisecond))
		}
		g.add(name, yesNo(r.Reachable), r.Model(), orDash(r.Digest), orDash(r.StructuredOutput),
			orDash(string(r.SampleStatus)), lat, yesNo(r.OK()))
		if r.Error != "" {
			g.notes = append(g.notes, fmt.Sprintf("%s: %s", r.Spec, r.Error))
		}
		if r.ModelUnknown != "" {
			g.notes = append(g.notes, fmt.Sprintf("%s: model unknown: %s", r.Spec, r.ModelUnknown))
		}
		if r.SampleError != "" {
			g.notes = append(g.notes, fmt.Sprintf("%s: sample call: %s", r.Spec, r.SampleError))
		}
		for _, n := range r.Notes {
			g.notes = append(g.notes, fmt.Sprintf("%s: %s", r.Spec, n))
		}
		if !r.ModelPresent && len(r.Models) > 0 {
			models := append([]string(nil), r.Models...)
			sort.Strings(models)
			g.notes = append(g.notes, fmt.Sprintf("%s: the server has %s", r.Spec, strings.Join(models, ", ")))
		}
	}
	if err := g.render(w, f); err != nil {
		return err
	}
	// TSV and CSV carry no footnotes; a failed check must still say why.
	if f.Machine() {
		for _, n := range g.notes {
			if _, err := fmt.Fprintf(w, "# %s\n", n); err != nil {
				return err
			}
		}
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
