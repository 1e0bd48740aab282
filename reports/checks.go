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
// sample call; notes and errors as footnotes. JSON is the reports as they are.
func RenderChecks(w io.Writer, reps []core.CheckReport, f Format) error {
	if f == FormatJSON {
		type out struct {
			core.CheckReport
			OK              bool    `json:"ok"`
			SampleLatencyMS float64 `json:"sample_latency_ms"`
		}
		all := make([]out, len(reps))
		for i, r := range reps {
			all[i] = out{CheckReport: r, OK: r.OK(), SampleLatencyMS: float64(r.SampleLatency) / float64(time.Millisecond)}
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
		g.add(name, yesNo(r.Reachable), yesNo(r.ModelPresent), orDash(r.Digest), orDash(r.StructuredOutput),
			orDash(string(r.SampleStatus)), lat, yesNo(r.OK()))
		if r.Error != "" {
			g.notes = append(g.notes, fmt.Sprintf("%s: %s", r.Spec, r.Error))
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
