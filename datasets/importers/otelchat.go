package importers

import (
	"encoding/json"
	"strconv"
	"strings"

	gojson "github.com/goccy/go-json"

	"github.com/apeval/apeval/datasets"
)

// A tool call the model asked for in a chat span's output messages that no
// execute_tool span records. In the GenAI semantic conventions a chat
// span's gen_ai.output.messages (opt-in content) hold the model's answer,
// a tool call as a part {"type": "tool_call", "id", "name", "arguments"};
// the execute_tool span records the call being run. A framework that runs
// some tools outside its instrumented tool node leaves only the first: the
// public packet-panic traces (testdata/real/jaeger-genai) hold a LangGraph
// supervisor whose query_detector call, the hand-off to a second agent,
// is in its chat span's output and in the next chat span's input (its
// tool_call_response), never an execute_tool span; the second agent's own
// calls are both. Such a call is a call the agent made, which a judge
// must see: it becomes a case at the chat span's end. A part that an
// execute_tool span of the trace records (the same gen_ai.tool.call.id,
// else the same tool name and arguments, one span a part, else the same
// name where the span carries no arguments) is that span's case, not a
// second one. Only where a record holds its traces whole (Jaeger's JSON):
// an OTLP export batches spans as they end, so a trace's execute_tool
// span may come in a later record than the chat span that asked for it.

const noteChatOnlyCall = "tool calls taken from a chat span's gen_ai.output.messages (no execute_tool span records them)"

type chatCall struct {
	id, name string
	args     map[string]any
	valid    *bool
	part     int // the part's place among the chat span's tool calls
}

// chatOnlyCalls are the tool calls in spans' chat output messages that no
// execute_tool span among spans records, each as an entry of its chat
// span.
// A part without a tool name is an error of the record (line n), naming
// the span and the part; output messages that are not JSON (an attribute
// cut at a length limit) are noted: their calls cannot be read.
func chatOnlyCalls(spans []spanRef, sum *SourceSummary, n int) []spanRef {
	type key struct{ trace, name, args string }
	ids := map[string]bool{}
	byArgs, byName := map[key]int{}, map[key]int{}
	for _, sr := range spans {
		if !isToolSpan(sr.span) {
			continue
		}
		at := sr.span.Attributes()
		if id := attrStr(at, "gen_ai.tool.call.id"); id != "" {
			ids[id] = true
			continue
		}
		name := cmpOr(attrStr(at, "gen_ai.tool.name"), strings.TrimSpace(strings.TrimPrefix(sr.span.Name(), "execute_tool")))
		args, _, has, _ := spanToolArgs(at)
		if has {
			byArgs[key{sr.span.TraceID().String(), name, canonArgs(args)}]++
		} else {
			byName[key{trace: sr.span.TraceID().String(), name: name}]++
		}
	}
	var calls []spanRef
	for _, sr := range spans {
		if isToolSpan(sr.span) {
			continue
		}
		raw := attrStr(sr.span.Attributes(), "gen_ai.output.messages")
		if raw == "" {
			continue
		}
		var msgs []struct {
			Parts []struct {
				Type      string          `json:"type"`
				ID        string          `json:"id"`
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"parts"`
		}
		if gojson.Unmarshal([]byte(raw), &msgs) != nil {
			sum.note("chat spans whose gen_ai.output.messages are not JSON messages (cut at a length limit?): their tool calls cannot be read")
			continue
		}
		trace, k := sr.span.TraceID().String(), 0
		for i, m := range msgs {
			for j, p := range m.Parts {
				if p.Type != "tool_call" {
					continue
				}
				k++
				if p.Name == "" {
					sum.errorf(n, "span %s: gen_ai.output.messages[%d].parts[%d].name: required for a tool_call part", sr.span.SpanID(), i, j)
					continue
				}
				c := &chatCall{id: p.ID, name: p.Name, part: k}
				c.args, c.valid = partArgs(p.Arguments)
				ka := key{trace, p.Name, canonArgs(c.args)}
				kn := key{trace: trace, name: p.Name}
				switch {
				case p.ID != "" && ids[p.ID]:
				case byArgs[ka] > 0:
					byArgs[ka]--
				case byName[kn] > 0:
					byName[kn]--
				default:
					calls = append(calls, spanRef{span: sr.span, res: sr.res, call: c})
					sum.note(noteChatOnlyCall)
					continue
				}
				sum.note("chat tool_calls that an execute_tool span records (one case each)")
			}
		}
	}
	return calls
}

// partArgs are a tool_call part's arguments: an object, or a string
// holding JSON (as some instrumentations write them).
func partArgs(raw json.RawMessage) (map[string]any, *bool) {
	var s string
	if gojson.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(s)
	}
	args, valid := rawArgs(raw)
	if valid != nil && s != "" {
		args = map[string]any{"input": s}
	}
	return args, valid
}

// canonArgs is arguments as JSON with sorted keys ("{}" for none), to tell
// the same call's arguments in two spans.
func canonArgs(args map[string]any) string {
	if len(args) == 0 {
		return "{}"
	}
	b, err := json.Marshal(args)
	if err != nil {
		return ""
	}
	return string(b)
}

// toCase is the chat's call as a case: at the chat span's end, in the
// chat span's session, with the context the chat read.
func (c *chatCall) toCase(sr spanRef, session string, cv *convo, source string, line int) *datasets.Case {
	sp := sr.span
	k := &datasets.Case{SessionID: session, Context: cv.context()}
	k.Tool.Name = c.name
	k.Tool.Arguments, k.Tool.ArgumentsValid = c.args, c.valid
	if c.id != "" {
		k.ID = "otel-" + c.id
	} else {
		k.ID = "otel-" + sp.TraceID().String() + "-" + sp.SpanID().String() + "-" + strconv.Itoa(c.part)
	}
	if ts := sp.EndTimestamp(); ts != 0 {
		t := ts.AsTime().UTC()
		k.Time = &t
	}
	k.Provenance = provenance("otel-genai-spans", source, line)
	k.Provenance["trace_id"] = sp.TraceID().String()
	k.Provenance["span_id"] = sp.SpanID().String()
	k.Provenance["call_from"] = "gen_ai.output.messages"
	if c.id != "" {
		k.Provenance["tool_use_id"] = c.id
	}
	for _, a := range []string{"gen_ai.agent.name", "gen_ai.provider.name"} {
		if s := attrStr(sp.Attributes(), a); s != "" {
			k.Provenance[strings.ReplaceAll(strings.TrimPrefix(a, "gen_ai."), ".", "_")] = s
		}
	}
	return k
}
