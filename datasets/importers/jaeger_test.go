package importers

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A public project's GenAI traces as Jaeger's UI downloads them
// (testdata/real/jaeger-genai, trimmed to 11 of the trace's 188 spans; the
// spans themselves unchanged): they used to import as "export without
// execute_tool spans" (and --from auto could not tell the format), and
// each call's arguments were LangChain's on_tool_start record (input_str,
// tags, metadata with LangGraph's checkpoint ids, inputs, kwargs) instead
// of the tool's arguments. The supervisor's query_detector call, its
// hand-off to the detector agent, is only in its chat span's
// gen_ai.output.messages (and the next chat's input, as its response):
// it was no case. The detector's calls are in its chat spans' output and
// in execute_tool spans that carry no call id: one case each, from the
// execute_tool span.
func TestRealJaegerGenAITrace(t *testing.T) {
	const path = "testdata/real/jaeger-genai/interfaces-R1-status.json"
	for _, format := range []string{"auto", "otel-genai-spans"} {
		cases, sum, _ := importAll(t, format, Options{}, path)
		if len(cases) != 5 || sum.Errors != 0 {
			t.Fatalf("%s: %d cases, %d errors, want 5 and 0 (%+v)", format, len(cases), sum.Errors, sum.Sources)
		}
		hand, list, show := cases[0], cases[1], cases[2]
		if hand.Tool.Name != "query_detector" || hand.ID != "otel-toolu_01CucxmpLU5gWBbP1iKRMyv8" ||
			!strings.HasPrefix(fmt.Sprint(hand.Tool.Arguments["instruction"]), "Obtener el estado de todas las interfaces del equipo SW1") {
			t.Errorf("first call %s %s %v: want the supervisor's query_detector from its chat span's output", hand.ID, hand.Tool.Name, hand.Tool.Arguments)
		}
		// At the chat span's end: startTime 1782230738651457 + duration 5093956 µs.
		if hand.Time == nil || hand.Time.UnixMicro() != 1782230743745413 || hand.Provenance["span_id"] != "ad627f78b1635c04" ||
			hand.Provenance["call_from"] != "gen_ai.output.messages" || hand.Provenance["tool_use_id"] != "toolu_01CucxmpLU5gWBbP1iKRMyv8" {
			t.Errorf("query_detector: time %v provenance %v", hand.Time, hand.Provenance)
		}
		if hand.Context.LatestUserMessage != "Hazme un resumen del estado de las interfaces en mi equipo SW1" {
			t.Errorf("query_detector's latest user message %q: the operator's request the chat read", hand.Context.LatestUserMessage)
		}
		if list.Tool.Name != "pyats_list_devices" || len(list.Tool.Arguments) != 0 {
			t.Errorf("second call %s %v: want pyats_list_devices with no arguments (input_str \"{}\")", list.Tool.Name, list.Tool.Arguments)
		}
		if show.Tool.Name != "pyats_run_show_command" || len(show.Tool.Arguments) != 2 ||
			show.Tool.Arguments["device_name"] != "SW1" || show.Tool.Arguments["command"] != "show ip interface brief" {
			t.Errorf("third call %s %v: want the tool's own arguments (LangChain's inputs)", show.Tool.Name, show.Tool.Arguments)
		}
		var cmds []string
		for _, c := range cases[2:] {
			cmds = append(cmds, fmt.Sprint(c.Tool.Arguments["command"]))
			if c.Provenance["call_from"] != nil {
				t.Errorf("%s: from the chat's output, want its execute_tool span", c.ID)
			}
		}
		if got := strings.Join(cmds, "; "); got != "show ip interface brief; show interfaces; show interfaces status" {
			t.Errorf("show commands %q", got)
		}
		const session = "packetpanic.supervisor_61613c46-5963-4fcc-b849-e4a2d97edb71"
		for _, c := range cases {
			if c.SessionID != session {
				t.Errorf("%s: session %q, want the spans' session.id", c.ID, c.SessionID)
			}
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
		if src.Notes[noteLangChainInput] != 4 || src.Notes["Jaeger JSON (query API / UI download), read as its OTLP spans"] != 1 ||
			src.Notes[noteChatOnlyCall] != 1 || src.Notes["chat tool_calls that an execute_tool span records (one case each)"] != 4 || len(src.Skipped) != 0 {
			t.Errorf("notes %v skipped %v", src.Notes, src.Skipped)
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

// A chat span's tool calls: a part an execute_tool span records by its
// call id is that span's case; an id-less part none records becomes a case
// with the chat span's ids and its place; a part without a name is an
// error naming the file, its line, the span and the part, and the rest
// of the file is still imported.
func TestChatOnlyToolCalls(t *testing.T) {
	dir := t.TempDir()
	out := `[{"role":"assistant","parts":[{"type":"text","content":"ok"},` +
		`{"type":"tool_call","id":"call_1","name":"Bash","arguments":{"command":"ls"}},` +
		`{"type":"tool_call","name":"WebFetch","arguments":"{\"url\":\"https://example.com\"}"}]}]`
	chat := fmt.Sprintf(`{"traceID":"0af7651916cd43dd8448eb211c80319c","spanID":"b7ad6b7169203331","operationName":"chat m","startTime":1000000,"duration":500000,
		"tags":[{"key":"gen_ai.operation.name","type":"string","value":"chat"},{"key":"gen_ai.input.messages","type":"string","value":%q},{"key":"gen_ai.output.messages","type":"string","value":%q}],"processID":"p1"}`,
		`[{"role":"user","parts":[{"type":"text","content":"list and fetch"}]}]`, out)
	tool := `{"traceID":"0af7651916cd43dd8448eb211c80319c","spanID":"00f067aa0ba902b7","operationName":"execute_tool Bash","startTime":1600000,"duration":1000,
		"references":[{"refType":"CHILD_OF","spanID":"b7ad6b7169203331"}],
		"tags":[{"key":"gen_ai.operation.name","type":"string","value":"execute_tool"},{"key":"gen_ai.tool.name","type":"string","value":"Bash"},{"key":"gen_ai.tool.call.id","type":"string","value":"call_1"},{"key":"gen_ai.tool.call.arguments","type":"string","value":"{\"command\":\"ls\"}"}],"processID":"p1"}`
	doc := `{"data":[{"traceID":"0af7651916cd43dd8448eb211c80319c","spans":[` + tool + `,` + chat + `],"processes":{"p1":{"serviceName":"agent"}}}]}`
	p := filepath.Join(dir, "trace.json")
	doc = strings.NewReplacer("\n", "", "\t", "").Replace(doc) // one line, as the API answers
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	cases, sum, _ := importAll(t, "otel-genai-spans", Options{}, p)
	if len(cases) != 2 || sum.Errors != 0 {
		t.Fatalf("%d cases, %d errors, want 2 and 0: %+v", len(cases), sum.Errors, sum.Sources[0].Errors)
	}
	fetch, bash := cases[0], cases[1]
	if fetch.Tool.Name != "WebFetch" || fetch.Tool.Arguments["url"] != "https://example.com" ||
		fetch.ID != "otel-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-2" || fetch.Time.UnixMicro() != 1500000 ||
		fetch.Context.LatestUserMessage != "list and fetch" {
		t.Errorf("chat-only call: %s %s %v at %v, context %q", fetch.ID, fetch.Tool.Name, fetch.Tool.Arguments, fetch.Time, fetch.Context.LatestUserMessage)
	}
	if bash.ID != "otel-call_1" || bash.Provenance["span_id"] != "00f067aa0ba902b7" || bash.Provenance["call_from"] != nil {
		t.Errorf("Bash: %s %v, want the execute_tool span's case only", bash.ID, bash.Provenance)
	}

	bad := strings.Replace(doc, `\"name\":\"WebFetch\"`, `\"name\":\"\"`, 1)
	if err := os.WriteFile(p, []byte(bad+"\n"+doc), 0o644); err != nil {
		t.Fatal(err)
	}
	cases, sum, _ = importAll(t, "otel-genai-spans", Options{}, p)
	want := p + `:1: span b7ad6b7169203331: gen_ai.output.messages[0].parts[2].name: required for a tool_call part`
	if sum.Errors != 1 || len(sum.Sources[0].Errors) != 1 || sum.Sources[0].Errors[0] != want || len(cases) != 2 {
		t.Errorf("a nameless tool_call: %d cases, errors %q, want 2 cases (line 1's Bash, line 2's WebFetch; line 2's Bash a duplicate id) and %q",
			len(cases), sum.Sources[0].Errors, want)
	}
}

// TestJaegerSpanTakesItsAncestorsSession: in Jaeger's JSON (whole
// traces) a span with no gen_ai.conversation.id or session.id of its own
// belongs to its nearest ancestor's session. Here only the agent's root
// span carries session.id: the execute_tool span and the call found only
// in the chat span's output land in that session, with the chat's
// context, where both took the trace id as their session before.
func TestJaegerSpanTakesItsAncestorsSession(t *testing.T) {
	const trace = "0af7651916cd43dd8448eb211c80319c"
	root := `{"traceID":"` + trace + `","spanID":"a000000000000001","operationName":"invoke_agent supervisor","startTime":900000,"duration":2000000,
		"tags":[{"key":"gen_ai.operation.name","type":"string","value":"invoke_agent"},{"key":"session.id","type":"string","value":"conv-7"}],"processID":"p1"}`
	out := `[{"role":"assistant","parts":[{"type":"tool_call","name":"WebFetch","arguments":{"url":"https://example.com"}}]}]`
	chat := fmt.Sprintf(`{"traceID":"`+trace+`","spanID":"b7ad6b7169203331","operationName":"chat m","startTime":1000000,"duration":500000,
		"references":[{"refType":"CHILD_OF","spanID":"a000000000000001"}],
		"tags":[{"key":"gen_ai.operation.name","type":"string","value":"chat"},{"key":"gen_ai.input.messages","type":"string","value":%q},{"key":"gen_ai.output.messages","type":"string","value":%q}],"processID":"p1"}`,
		`[{"role":"user","parts":[{"type":"text","content":"list and fetch"}]}]`, out)
	tool := `{"traceID":"` + trace + `","spanID":"00f067aa0ba902b7","operationName":"execute_tool Bash","startTime":1600000,"duration":1000,
		"references":[{"refType":"CHILD_OF","spanID":"b7ad6b7169203331"}],
		"tags":[{"key":"gen_ai.operation.name","type":"string","value":"execute_tool"},{"key":"gen_ai.tool.name","type":"string","value":"Bash"},{"key":"gen_ai.tool.call.arguments","type":"string","value":"{\"command\":\"ls\"}"}],"processID":"p1"}`
	// A second trace with no session id anywhere keeps its trace id.
	lone := strings.NewReplacer(trace, "1bf7651916cd43dd8448eb211c80319d", `"spanID":"00f067aa0ba902b7"`, `"spanID":"00f067aa0ba902b8"`).Replace(tool)
	lone = strings.Replace(lone, `"references":[{"refType":"CHILD_OF","spanID":"b7ad6b7169203331"}],`, "", 1)
	doc := `{"data":[{"traceID":"` + trace + `","spans":[` + tool + `,` + chat + `,` + root + `],"processes":{"p1":{"serviceName":"agent"}}},` +
		`{"traceID":"1bf7651916cd43dd8448eb211c80319d","spans":[` + lone + `],"processes":{"p1":{"serviceName":"agent"}}}]}`
	doc = strings.NewReplacer("\n", "", "\t", "").Replace(doc)
	p := filepath.Join(t.TempDir(), "trace.json")
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	cases, sum, _ := importAll(t, "otel-genai-spans", Options{}, p)
	if len(cases) != 3 || sum.Errors != 0 {
		t.Fatalf("%d cases, %d errors, want 3 and 0: %+v", len(cases), sum.Errors, sum.Sources[0].Errors)
	}
	for _, c := range cases {
		want := "conv-7"
		if c.Provenance["trace_id"] == "1bf7651916cd43dd8448eb211c80319d" {
			want = "1bf7651916cd43dd8448eb211c80319d"
		} else if c.Context.LatestUserMessage != "list and fetch" {
			t.Errorf("%s (%s): context %q, want the chat's input", c.ID, c.Tool.Name, c.Context.LatestUserMessage)
		}
		if c.SessionID != want {
			t.Errorf("%s (%s): session %q, want %q", c.ID, c.Tool.Name, c.SessionID, want)
		}
	}
}
