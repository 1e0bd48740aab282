package reports

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
)

func TestRenderChecks(t *testing.T) {
	t.Parallel()
	reps := []judge.CheckReport{
		{Spec: "ollama:qwen", Identity: "ollama/qwen:latest@abc+p1", Reachable: true, ModelPresent: true, Digest: "abc",
			StructuredOutput: "json_schema", SampleStatus: judge.StatusOK, SampleLatency: 412500 * time.Microsecond},
		{Spec: "openai:x", Identity: "openai/x+p1", SampleStatus: judge.StatusError, SampleError: "connection refused",
			Models: []string{"b", "a"}, Error: "cannot list models"},
		// A refused key: reachable, the model neither listed nor denied.
		{Spec: "openai:gpt", Identity: "openai/gpt+p1", Reachable: true, ModelUnknown: judge.RefusedKey(401),
			SampleStatus: judge.StatusError, SampleError: "HTTP 401: Incorrect API key provided"},
		// A list without the model: no.
		{Spec: "openai:y", Identity: "openai/y+p1", Reachable: true, Models: []string{"z"}, SampleStatus: judge.StatusError},
	}
	var b bytes.Buffer
	if err := RenderChecks(&b, reps, FormatTSV); err != nil {
		t.Fatal(err)
	}
	want := "judge\treachable\tmodel\tdigest\tstructured output\tsample call\tlatency ms\tok\n" +
		"ollama/qwen:latest@abc+p1\tyes\tyes\tabc\tjson_schema\tok\t412.5\tyes\n" +
		"openai/x+p1\tno\tunknown\t–\t–\terror\t0.0\tno\n" +
		"openai/gpt+p1\tyes\tunknown\t–\t–\terror\t0.0\tno\n" +
		"openai/y+p1\tyes\tno\t–\t–\terror\t0.0\tno\n" +
		"# openai:x: cannot list models\n# openai:x: sample call: connection refused\n# openai:x: the server has a, b\n" +
		"# openai:gpt: model unknown: the endpoint refused the key (HTTP 401)\n# openai:gpt: sample call: HTTP 401: Incorrect API key provided\n" +
		"# openai:y: the server has z\n"
	if b.String() != want {
		t.Errorf("TSV:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := RenderChecks(&b, reps, FormatJSON); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	if err := json.Unmarshal(b.Bytes(), &out); err != nil || len(out) != 4 || out[0]["ok"] != true || out[1]["ok"] != false || out[0]["sample_latency_ms"] != 412.5 {
		t.Errorf("JSON: %v %s", err, b.String())
	}
	// Keys in snake_case like every other --json of apeval, the latency
	// once, in ms (the Go field names and a nanosecond SampleLatency leaked).
	keys := []string{"digest", "error", "identity", "model_present", "model", "model_unknown", "models", "notes", "ok", "reachable",
		"sample_error", "sample_latency_ms", "sample_status", "spec", "structured_output", "details"}
	for _, r := range out {
		for k := range r {
			if !slices.Contains(keys, k) {
				t.Errorf("JSON key %q is not one of %v", k, keys)
			}
		}
	}
	if out[2]["model"] != "unknown" || out[2]["model_unknown"] != "the endpoint refused the key (HTTP 401)" || out[3]["model"] != "no" || out[0]["model"] != "yes" {
		t.Errorf("JSON model: %s", b.String())
	}
	if out[1]["reachable"] != false || out[0]["structured_output"] != "json_schema" || out[0]["identity"] != "ollama/qwen:latest@abc+p1" {
		t.Errorf("JSON values: %s", b.String())
	}
}

func TestRenderStats(t *testing.T) {
	t.Parallel()
	st := datasets.NewStats()
	valid := false
	st.Add(&datasets.Case{ID: "a", SessionID: "s", Tool: datasets.Tool{Name: "Bash", Category: "command_execution"},
		Labels: map[string]datasets.Label{"r": "match"}, Tags: []string{"ja"}})
	st.Add(&datasets.Case{ID: "b", SessionID: "s", Tool: datasets.Tool{Name: "Write", Category: "file_change", ArgumentsValid: &valid},
		Labels: map[string]datasets.Label{"r": "no_match"}})
	var b bytes.Buffer
	if err := RenderStats(&b, st, FormatTSV); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cases\t2\n", "sessions\t1\n", "invalid arguments\t1\n", "command_execution\t1\n", "file_change\t1\n", "r\t1\t1\n", "ja\t1\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("stats TSV lacks %q:\n%s", want, b.String())
		}
	}
}
