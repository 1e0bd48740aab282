package importers

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// A public project's GenAI traces as Jaeger's UI downloads them
// (testdata/real/jaeger-genai, trimmed to 4 of the trace's 188 spans; the
// spans themselves unchanged): they used to import as "export without
// execute_tool spans" (and --from auto could not tell the format), and
// each call's arguments were LangChain's on_tool_start record (input_str,
// tags, metadata with LangGraph's checkpoint ids, inputs, kwargs) instead
// of the tool's arguments.
func TestRealJaegerGenAITrace(t *testing.T) {
	const path = "testdata/real/jaeger-genai/interfaces-R1-status.json"
	for _, format := range []string{"auto", "otel-genai-spans"} {
		cases, sum, _ := importAll(t, format, Options{}, path)
		if len(cases) != 2 || sum.Errors != 0 {
			t.Fatalf("%s: %d cases, %d errors, want 2 and 0 (%+v)", format, len(cases), sum.Errors, sum.Sources)
		}
		list, show := cases[0], cases[1]
		if list.Tool.Name != "pyats_list_devices" || len(list.Tool.Arguments) != 0 {
			t.Errorf("first call %s %v: want pyats_list_devices with no arguments (input_str \"{}\")", list.Tool.Name, list.Tool.Arguments)
		}
		if show.Tool.Name != "pyats_run_show_command" || len(show.Tool.Arguments) != 2 ||
			show.Tool.Arguments["device_name"] != "SW1" || show.Tool.Arguments["command"] != "show ip interface brief" {
			t.Errorf("second call %s %v: want the tool's own arguments (LangChain's inputs)", show.Tool.Name, show.Tool.Arguments)
		}
		const session = "packetpanic.supervisor_61613c46-5963-4fcc-b849-e4a2d97edb71"
		if list.SessionID != session || show.SessionID != session {
			t.Errorf("sessions %q %q, want the spans' session.id", list.SessionID, show.SessionID)
		}
		if list.ID != "otel-affff7bb0994c3f16723bfb108b36304-4053c0ddc9c30476" || list.Provenance["span_id"] != "4053c0ddc9c30476" {
			t.Errorf("id %s provenance %v", list.ID, list.Provenance)
		}
		// startTime is microseconds: 1782230746201012 µs.
		if list.Time == nil || list.Time.UnixMicro() != 1782230746201012 {
			t.Errorf("time %v", list.Time)
		}
		if !strings.HasPrefix(list.Context.LatestUserMessage, "Obtener el estado de todas las interfaces del equipo SW1") {
			t.Errorf("latest user message %q: the chat span's input before the calls", list.Context.LatestUserMessage)
		}
		src := sum.Sources[0]
		if src.Notes[noteLangChainInput] != 2 || src.Notes["Jaeger JSON (query API / UI download), read as its OTLP spans"] != 1 {
			t.Errorf("notes %v", src.Notes)
		}
	}
	// A document larger than the sniffed head is told from its start.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if f := sniff(data[:2000]); f != "otel-genai-spans" {
		t.Errorf("sniff of a cut-off Jaeger document: %q", f)
	}
}

// LangChain's record is unwrapped only when it is that record: inputs, else
// input_str as JSON or a Python dict's repr, else the text itself; a tool
// whose own arguments include input_str keeps them.
func TestLangChainToolInput(t *testing.T) {
	for _, tc := range []struct {
		args map[string]any
		want string // "" = not unwrapped
	}{
		{map[string]any{"input_str": "{'a': 1}", "tags": nil, "metadata": map[string]any{}, "inputs": map[string]any{"a": float64(1)}, "kwargs": map[string]any{}}, "map[a:1]"},
		{map[string]any{"input_str": "{'path': '/tmp/x', 'force': True}", "tags": []any{}}, "map[force:true path:/tmp/x]"},
		{map[string]any{"input_str": `{"q": "news"}`, "inputs": nil}, "map[q:news]"},
		{map[string]any{"input_str": "ls -la", "inputs": map[string]any{}}, "map[input:ls -la]"},
		{map[string]any{"input_str": "x", "path": "/etc"}, ""},
		{map[string]any{"command": "ls"}, ""},
	} {
		got, ok := langchainToolInput(tc.args)
		if (tc.want == "") == ok || (ok && fmt.Sprint(got) != tc.want) {
			t.Errorf("%v: %v %v, want %q", tc.args, got, ok, tc.want)
		}
	}
}

// The Python SDK's console span JSON (testdata/otel-sdk-console, written
// for the test in the shape of a public Microsoft Agent Framework run's
// traces.jsonl: one pretty-printed span a record, each printed twice,
// "0x" ids, RFC 3339 times, end_time null on a span still open). The OTLP
// reader skipped every record as "export without execute_tool spans"
// (that run's 22 tool spans gave 0 cases); now each call is one case,
// however often it was printed.
func TestOTelSDKConsoleSpans(t *testing.T) {
	for _, format := range []string{"auto", "otel-genai-spans"} {
		cases, sum, _ := importAll(t, format, Options{}, "testdata/otel-sdk-console/spans.jsonl")
		if len(cases) != 2 {
			t.Fatalf("%s: %d cases, want 2", format, len(cases))
		}
		oslo, bergen := cases[0], cases[1]
		if oslo.ID != "otel-call_Oslo01" || oslo.Tool.Arguments["location"] != "Oslo" || oslo.SessionID != "5b8aa5a2d2c872e8321cf37308d69df2" {
			t.Errorf("first call %s %v session %s", oslo.ID, oslo.Tool.Arguments, oslo.SessionID)
		}
		if oslo.Time == nil || oslo.Time.Format("15:04:05.000000") != "23:37:32.798474" {
			t.Errorf("time %v", oslo.Time)
		}
		if oslo.Context.LatestUserMessage != "What is the weather in Oslo and in Bergen?" {
			t.Errorf("context %q: the chat span's input", oslo.Context.LatestUserMessage)
		}
		if bergen.Provenance["tool_result_error"] != "TimeoutError: weather service did not answer" || len(bergen.Tool.Arguments) != 0 {
			t.Errorf("second call: provenance %v arguments %v", bergen.Provenance, bergen.Tool.Arguments)
		}
		src := sum.Sources[0]
		if src.Skipped["execute_tool span written again"] != 2 || src.Skipped["span other than execute_tool"] != 2 {
			t.Errorf("skipped %v", src.Skipped)
		}
		if len(src.Errors) != 2 || !strings.Contains(src.Errors[0], `spans.jsonl:199: OpenTelemetry SDK span JSON: span "execute_tool get_weather": context.span_id: "nothex" is not 16 hex digits`) ||
			!strings.Contains(src.Errors[1], "spans.jsonl:224: truncated JSON object") {
			t.Errorf("errors %q", src.Errors)
		}
		if len(src.Warnings) != 1 || !strings.Contains(src.Warnings[0], "1 execute_tool spans carry no gen_ai.tool.call.arguments") {
			t.Errorf("warnings %q", src.Warnings)
		}
	}
}
