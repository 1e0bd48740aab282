package importers

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	gojson "github.com/goccy/go-json"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/trunc"
)

func init() {
	register(format{"claude-code-otel", 3, func(Options) importer { return claudeOTel{} },
		func(r sniffed) bool { return r.has("resourceLogs") }, 2})
	register(format{"otel-genai-spans", 8, func(Options) importer { return &otelSpans{} },
		func(r sniffed) bool { return r.has("resourceSpans") || jaegerSniff(r) || sdkSpanSniff(r) }, 1})
}

// OpenTelemetry files in OTLP JSON: one ExportTraceServiceRequest or
// ExportLogsServiceRequest a line (the collector's file exporter), a
// pretty-printed one, or several. They are read with the collector's pdata
// module, so every OTLP JSON detail (hex ids, int64 as strings, any-value
// attributes) is read as the collector reads it.

// otelSpans imports GenAI execute_tool spans (OpenTelemetry semantic
// conventions for generative AI): a span whose gen_ai.operation.name is
// execute_tool (or whose name starts "execute_tool ") is one tool call.
type otelSpans struct {
	convos map[string]*convo
	// seen holds the execute_tool spans read (trace and span id): a span
	// written twice (the SDK's console exporter behind two processors)
	// is one call.
	seen map[[24]byte]bool
}

const noteSDKSpans = "OpenTelemetry SDK span JSON (ConsoleSpanExporter), read as its OTLP spans"

// otherSpanShapes are the span documents read besides OTLP, in the order
// they are tried. spanPerRecord: each record is one span (the SDK's).
// wholeTraces: each record holds its traces whole (Jaeger's query API
// answers with every span of a trace), so a chat span's tool call can be
// told apart from an execute_tool span of the same call (chatOnlyCalls).
var otherSpanShapes = []struct {
	name, note    string
	read          func([]byte) (ptrace.Traces, bool, error)
	spanPerRecord bool
	wholeTraces   bool
}{
	{"Jaeger JSON trace export", "Jaeger JSON (query API / UI download), read as its OTLP spans", jaegerTraces, false, true},
	{"OpenTelemetry SDK span JSON", noteSDKSpans, sdkSpanTraces, true, false},
}

func (otelSpans) stream() bool { return true }

func otelMatch(p string) bool {
	q := stripCompression(p)
	return strings.HasSuffix(q, ".json") || strings.HasSuffix(q, ".jsonl")
}

func (otelSpans) match(p string) bool { return otelMatch(p) }

type spanRef struct {
	span ptrace.Span
	res  pcommon.Map
	// call, when not nil, is a tool call the chat span asked for that no
	// execute_tool span records (chatOnlyCalls): its case, at the chat
	// span's end.
	call *chatCall
}

// at is when the entry happened: a span's start, a chat's call at the
// chat span's end (the model's answer).
func (r spanRef) at() pcommon.Timestamp {
	if r.call != nil {
		return r.span.EndTimestamp()
	}
	return r.span.StartTimestamp()
}

// isToolSpan: a GenAI execute_tool span.
func isToolSpan(sp ptrace.Span) bool {
	return attrStr(sp.Attributes(), "gen_ai.operation.name") == "execute_tool" || strings.HasPrefix(sp.Name(), "execute_tool")
}

// spanSession is the conversation a span belongs to:
// gen_ai.conversation.id, else session.id (span, then resource), else the
// trace id.
func spanSession(sr spanRef) string {
	return cmpOr(ownSession(sr), sr.span.TraceID().String())
}

// ownSession is the session id a span or its resource carries
// (gen_ai.conversation.id, else session.id), "" when none.
func ownSession(sr spanRef) string {
	return cmpOr(attrStr(sr.span.Attributes(), "gen_ai.conversation.id", "session.id"),
		attrStr(sr.res, "gen_ai.conversation.id", "session.id"))
}

// spanKey is a span's trace and span id, one key.
func spanKey(sp ptrace.Span) (k [24]byte) {
	t, s := sp.TraceID(), sp.SpanID()
	copy(k[:16], t[:])
	copy(k[16:], s[:])
	return k
}

// inheritedSessions: in a record that holds its traces whole (Jaeger's
// JSON), a span with no session id of its own belongs to its nearest
// ancestor's session (instrumentations often set the id on the agent's
// root span only), so one conversation's calls, and the chat context
// they read, stay in one session. The map is keyed by trace and span id;
// a span whose ancestors carry none is absent (spanSession: the trace id).
func inheritedSessions(spans []spanRef) map[[24]byte]string {
	key := func(t pcommon.TraceID, s pcommon.SpanID) (k [24]byte) {
		copy(k[:16], t[:])
		copy(k[16:], s[:])
		return k
	}
	byID := make(map[[24]byte]spanRef, len(spans))
	for _, sr := range spans {
		byID[spanKey(sr.span)] = sr
	}
	out := map[[24]byte]string{}
	for _, sr := range spans {
		if ownSession(sr) != "" {
			continue
		}
		t := sr.span.TraceID()
		p := sr.span.ParentSpanID()
		for hops := 0; !p.IsEmpty() && hops < len(spans); hops++ {
			anc, ok := byID[key(t, p)]
			if !ok {
				break
			}
			if s := ownSession(anc); s != "" {
				out[spanKey(sr.span)] = s
				break
			}
			p = anc.span.ParentSpanID()
		}
	}
	return out
}

// spanToolArgs are an execute_tool span's arguments: the map or JSON of
// gen_ai.tool.call.arguments (text that is not JSON as {"input": text}),
// LangChain's on_tool_start record unwrapped (unwrapped); has is false
// when the span carries none.
func spanToolArgs(at pcommon.Map) (args map[string]any, valid *bool, has, unwrapped bool) {
	v, has := at.Get("gen_ai.tool.call.arguments")
	if has {
		if v.Type() == pcommon.ValueTypeMap {
			args = v.Map().AsRaw()
		} else {
			args, valid = rawArgs(json.RawMessage(v.AsString()))
			if valid != nil { // a string that is not JSON
				args = map[string]any{"input": v.AsString()}
			}
		}
	}
	if a, ok := langchainToolInput(args); ok {
		args, valid, unwrapped = a, nil, true
	}
	return args, valid, has, unwrapped
}

func attrStr(m pcommon.Map, keys ...string) string {
	for _, k := range keys {
		if v, ok := m.Get(k); ok {
			if s := v.AsString(); s != "" {
				return s
			}
		}
	}
	return ""
}

func (o *otelSpans) file(r io.Reader, sum *SourceSummary, out *output) error {
	const format = "otel-genai-spans"
	if o.convos == nil {
		o.convos = map[string]*convo{}
		o.seen = map[[24]byte]bool{}
	}
	var um ptrace.JSONUnmarshaler
	noArgs := 0 // execute_tool spans without gen_ai.tool.call.arguments
	err := eachLine(r, sum, func(line []byte, n int) error {
		sdk, whole := false, false
		td, err := um.UnmarshalTraces(line)
		if err != nil || td.ResourceSpans().Len() == 0 {
			// The same spans in other shapes: Jaeger's JSON (jaeger.go), the
			// Python SDK's span JSON (otelsdk.go), tried in turn.
			for _, alt := range otherSpanShapes {
				at, ok, aerr := alt.read(line)
				if aerr != nil {
					sum.errorf(n, "%s: %v", alt.name, aerr)
					return nil
				}
				if ok {
					td, err, sdk, whole = at, nil, alt.spanPerRecord, alt.wholeTraces
					sum.note(alt.note)
					break
				}
			}
		}
		if err != nil {
			sum.errorf(n, "not an OTLP JSON trace export: %s", otlpError(line, err))
			return nil
		}
		var spans []spanRef
		rss := td.ResourceSpans()
		for i := 0; i < rss.Len(); i++ {
			rs := rss.At(i)
			sss := rs.ScopeSpans()
			for j := 0; j < sss.Len(); j++ {
				ss := sss.At(j).Spans()
				for k := 0; k < ss.Len(); k++ {
					spans = append(spans, spanRef{span: ss.At(k), res: rs.Resource().Attributes()})
				}
			}
		}
		nspans, chatOnly := len(spans), 0
		var inherited map[[24]byte]string
		if whole {
			inherited = inheritedSessions(spans)
			calls := chatOnlyCalls(spans, sum, n)
			chatOnly = len(calls)
			spans = append(spans, calls...)
		}
		// An export batches spans as they end; the calls are replayed in
		// the order they started.
		sort.SliceStable(spans, func(a, b int) bool { return spans[a].at() < spans[b].at() })
		tools := 0
		for _, sr := range spans {
			sp, at := sr.span, sr.span.Attributes()
			session := spanSession(sr)
			if s, ok := inherited[spanKey(sp)]; ok {
				session = s
			}
			cv := o.convos[session]
			if cv == nil {
				cv = &convo{}
				o.convos[session] = cv
			}
			if sr.call != nil {
				if err := out.add(sr.call.toCase(sr, session, cv, sum.Source, n)); err != nil {
					return err
				}
				continue
			}
			if !isToolSpan(sp) {
				// A chat or agent span: its input messages (opt-in) are the
				// context of the calls after it.
				if msgs := attrStr(at, "gen_ai.input.messages"); msgs != "" {
					otelMessages(msgs, cv, out)
				}
				continue
			}
			tools++
			key, sid := spanKey(sp), sp.SpanID()
			if !sid.IsEmpty() && o.seen[key] {
				sum.skip("execute_tool span written again")
				continue
			}
			o.seen[key] = true
			name := attrStr(at, "gen_ai.tool.name")
			if name == "" {
				name = strings.TrimSpace(strings.TrimPrefix(sp.Name(), "execute_tool"))
			}
			if name == "" {
				sum.errorf(n, "span %s: gen_ai.tool.name: required for an execute_tool span", sp.SpanID())
				continue
			}
			c := &datasets.Case{SessionID: session, Context: cv.context()}
			c.Tool.Name = name
			args, valid, hasArgs, unwrapped := spanToolArgs(at)
			c.Tool.Arguments, c.Tool.ArgumentsValid = args, valid
			if !hasArgs {
				noArgs++
			}
			if unwrapped {
				sum.note(noteLangChainInput)
			}
			callID := attrStr(at, "gen_ai.tool.call.id")
			if callID != "" {
				c.ID = "otel-" + callID
			} else {
				c.ID = "otel-" + sp.TraceID().String() + "-" + sp.SpanID().String()
			}
			if ts := sp.StartTimestamp(); ts != 0 {
				t := ts.AsTime().UTC()
				c.Time = &t
			}
			c.Provenance = provenance(format, sum.Source, n)
			c.Provenance["trace_id"] = sp.TraceID().String()
			c.Provenance["span_id"] = sp.SpanID().String()
			if callID != "" {
				c.Provenance["tool_use_id"] = callID
			}
			if unwrapped {
				c.Provenance["arguments_from"] = "langchain on_tool_start (inputs, else input_str)"
			}
			for _, k := range []string{"gen_ai.tool.type", "gen_ai.agent.name", "gen_ai.provider.name"} {
				if s := attrStr(at, k); s != "" {
					c.Provenance[strings.ReplaceAll(strings.TrimPrefix(k, "gen_ai."), ".", "_")] = s
				}
			}
			if sp.Status().Code() == ptrace.StatusCodeError {
				c.Provenance["tool_result_error"] = trunc.Runes(cmpOr(sp.Status().Message(), attrStr(at, "error.type")), 500)
			}
			if err := out.add(c); err != nil {
				return err
			}
		}
		switch {
		case tools == 0 && chatOnly == 0 && sdk:
			sum.skip("span other than execute_tool")
		case tools == 0 && chatOnly == 0:
			sum.skip("export without execute_tool spans")
		}
		if other := nspans - tools; other > 0 {
			sum.note(fmt.Sprintf("other spans (chat, agent, …): %d", other))
		}
		return nil
	})
	if noArgs > 0 {
		sum.warnf("%d execute_tool spans carry no gen_ai.tool.call.arguments (most instrumentations record them only when told to capture content): their cases have the tool's name and no arguments", noArgs)
	}
	return err
}

// otelMessages takes the last user text of gen_ai.input.messages
// ([{role, parts: [{type: text, content}]}]) and the assistant texts.
func otelMessages(raw string, cv *convo, out *output) {
	var msgs []struct {
		Role  string `json:"role"`
		Parts []struct {
			Type    string `json:"type"`
			Content any    `json:"content"`
		} `json:"parts"`
	}
	if gojson.Unmarshal([]byte(raw), &msgs) != nil {
		return
	}
	*cv = convo{}
	for _, m := range msgs {
		var texts []string
		for _, p := range m.Parts {
			if s, ok := p.Content.(string); ok && p.Type == "text" {
				texts = append(texts, s)
			}
		}
		t := strings.Join(texts, "\n")
		switch m.Role {
		case "user":
			if t != "" {
				cv.user(out.text(t))
			}
		case "assistant":
			cv.turn("assistant", out.text(t))
		}
	}
}

// otlpError says why a record is not an OTLP export.
func otlpError(line []byte, err error) string {
	var probe map[string]json.RawMessage
	if e := gojson.Unmarshal(line, &probe); e != nil {
		return jsonError(line, e)
	}
	return err.Error()
}

// claudeOTel imports Claude Code's OpenTelemetry log events (OTLP JSON,
// service.name claude-code): a tool_decision event — the permission
// decision before a call runs, decision accept or reject, source config,
// hook, user_temporary, user_permanent, user_abort or user_reject — is one
// case, its approval_outcome what the person answered when one was asked.
// The arguments come from the call's tool_result event (tool_parameters,
// tool_input), when one follows; user_prompt events (prompt, when
// OTEL_LOG_USER_PROMPTS is on) are the request.
type claudeOTel struct{}

func (claudeOTel) stream() bool        { return true }
func (claudeOTel) match(p string) bool { return otelMatch(p) }

type ccoPending struct {
	c        *datasets.Case
	session  string
	tool     string
	useID    string
	done     bool
	rejected bool
}

func (claudeOTel) file(r io.Reader, sum *SourceSummary, out *output) error {
	const format = "claude-code-otel"
	var um plog.JSONUnmarshaler
	convos := map[string]*convo{}
	var pending []*ccoPending
	flush := func(all bool) error {
		for len(pending) > 0 && (all || pending[0].done || len(pending) > maxPending) {
			p := pending[0]
			pending = pending[1:]
			if err := out.add(p.c); err != nil {
				return err
			}
		}
		return nil
	}
	err := eachLine(r, sum, func(line []byte, n int) error {
		ld, err := um.UnmarshalLogs(line)
		if err != nil {
			sum.errorf(n, "not an OTLP JSON log export: %s", otlpError(line, err))
			return nil
		}
		index := 0
		rls := ld.ResourceLogs()
		for i := 0; i < rls.Len(); i++ {
			res := rls.At(i).Resource().Attributes()
			sls := rls.At(i).ScopeLogs()
			for j := 0; j < sls.Len(); j++ {
				lrs := sls.At(j).LogRecords()
				for k := 0; k < lrs.Len(); k++ {
					lr := lrs.At(k)
					at := lr.Attributes()
					index++
					event := strings.TrimPrefix(cmpOr(attrStr(at, "event.name"), lr.Body().AsString()), "claude_code.")
					session := cmpOr(attrStr(at, "session.id"), attrStr(res, "session.id"))
					cv := convos[session]
					if cv == nil {
						cv = &convo{}
						convos[session] = cv
					}
					switch event {
					case "user_prompt":
						if p := attrStr(at, "prompt"); p != "" {
							cv.user(out.text(p))
						}
						sum.skip("event user_prompt (context)")
					case "tool_decision":
						tool := attrStr(at, "tool_name")
						if tool == "" {
							sum.errorf(n, "log record %d: tool_name: required for tool_decision", index)
							continue
						}
						decision, source := attrStr(at, "decision"), attrStr(at, "source")
						c := &datasets.Case{SessionID: session, Context: cv.context()}
						c.Tool.Name = tool
						useID := attrStr(at, "tool_use_id")
						if useID != "" {
							c.ID = "cc-" + useID // the same call as in the transcript and the hook log
						} else {
							c.ID = "cco-" + cmpOr(session, "nosession") + "-" + fileTag(sum.Source) + "L" + strconv.Itoa(n) + "-" + strconv.Itoa(index)
						}
						c.Time = logTime(lr, at)
						c.ApprovalOutcome = approvalOutcome(decision, source)
						c.Provenance = provenance(format, sum.Source, n)
						c.Provenance["record"] = index
						c.Provenance["decision"] = decision
						c.Provenance["decision_source"] = source
						if useID != "" {
							c.Provenance["tool_use_id"] = useID
						}
						if pid := attrStr(at, "prompt.id"); pid != "" {
							c.Provenance["prompt_id"] = pid
						}
						if outcome := classifierDecision(c, decision, source, attrStr(res, "service.version")); outcome != "" {
							sum.note("auto mode: " + outcome)
						}
						// A rejected call never runs: no tool_result will
						// bring its arguments.
						pending = append(pending, &ccoPending{c: c, session: session, tool: tool, useID: useID, done: decision == "reject", rejected: decision == "reject"})
					case "tool_result":
						tool, useID := attrStr(at, "tool_name"), attrStr(at, "tool_use_id")
						for _, p := range pending {
							if p.done || p.session != session || (useID != "" && p.useID != "" && p.useID != useID) || (p.useID == "" && p.tool != tool) {
								continue
							}
							p.done = true
							for _, key := range []string{"tool_input", "tool_parameters"} {
								if s := attrStr(at, key); s != "" && p.c.Tool.Arguments == nil {
									p.c.Tool.Arguments, p.c.Tool.ArgumentsValid = rawArgs(json.RawMessage(s))
								}
							}
							if attrStr(at, "success") == "false" {
								p.c.Provenance["tool_result_error"] = trunc.Runes(attrStr(at, "error"), 500)
							}
							break
						}
						sum.skip("event tool_result (arguments)")
					default:
						sum.skip("event " + cmpOr(event, "without a name"))
					}
				}
			}
		}
		if index == 0 {
			sum.skip("export without log records")
		}
		return flush(false)
	})
	if ferr := flush(true); err == nil {
		err = ferr
	}
	return err
}

// approvalOutcome is what the person did when Claude Code asked: accept
// from user_temporary/user_permanent is approved, reject from user_reject
// or user_abort (Esc at the prompt) is denied. A decision the settings or
// a hook made (config, hook) asked nobody: no outcome.
func approvalOutcome(decision, source string) datasets.ApprovalOutcome {
	switch {
	case !strings.HasPrefix(source, "user_"):
		return ""
	case decision == "accept":
		return datasets.ApprovalApproved
	case decision == "reject":
		return datasets.ApprovalDenied
	}
	return ""
}

// logTime is a log record's time: event.timestamp, else the record's time.
func logTime(lr plog.LogRecord, at pcommon.Map) *time.Time {
	if t, err := time.Parse(time.RFC3339Nano, attrStr(at, "event.timestamp")); err == nil {
		return &t
	}
	for _, ts := range []pcommon.Timestamp{lr.Timestamp(), lr.ObservedTimestamp()} {
		if ts != 0 {
			t := ts.AsTime().UTC()
			return &t
		}
	}
	return nil
}
