package importers

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	gojson "github.com/goccy/go-json"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// The OpenTelemetry Python SDK's span JSON: what ConsoleSpanExporter
// prints (ReadableSpan.to_json(), one pretty-printed object a span,
// written as each span ends), the usual way to see a Python agent's
// spans without a collector: {name, context {trace_id "0x…", span_id
// "0x…"}, kind "SpanKind.INTERNAL", parent_id, start_time and end_time
// (RFC 3339), status {status_code UNSET|OK|ERROR, description},
// attributes, events, links, resource {attributes}}. A public project's
// Microsoft Agent Framework runs saved this way (traces.jsonl of
// Josh-Weston/microsoft-agent-framework-samples, checked 2026-12-07, not
// kept: no licence) held 22 execute_tool spans that the OTLP reader
// skipped as "export without execute_tool spans"; each span was printed
// twice (two processors), which the span importer now reads once.

type sdkSpan struct {
	Name    string `json:"name"`
	Context struct {
		TraceID string `json:"trace_id"`
		SpanID  string `json:"span_id"`
	} `json:"context"`
	ParentID  *string `json:"parent_id"`
	StartTime *string `json:"start_time"`
	EndTime   *string `json:"end_time"`
	Status    struct {
		Code        string `json:"status_code"`
		Description string `json:"description"`
	} `json:"status"`
	Attributes map[string]any `json:"attributes"`
	Resource   struct {
		Attributes map[string]any `json:"attributes"`
	} `json:"resource"`
}

// sdkSpanTraces reads rec as one SDK span. ok is false when rec is not
// that shape; err names a bad id or time.
func sdkSpanTraces(rec []byte) (td ptrace.Traces, ok bool, err error) {
	var s sdkSpan
	dec := gojson.NewDecoder(strings.NewReader(string(rec)))
	dec.UseNumber()
	if dec.Decode(&s) != nil || s.Context.TraceID == "" || s.Context.SpanID == "" || s.StartTime == nil {
		return td, false, nil
	}
	td = ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	putSDKAttributes(rs.Resource().Attributes(), s.Resource.Attributes)
	sp := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	var tid pcommon.TraceID
	if err := jaegerID(tid[:], strings.TrimPrefix(s.Context.TraceID, "0x")); err != nil {
		return td, true, fmt.Errorf("span %q: context.trace_id: %v", s.Name, err)
	}
	var sid pcommon.SpanID
	if err := jaegerID(sid[:], strings.TrimPrefix(s.Context.SpanID, "0x")); err != nil {
		return td, true, fmt.Errorf("span %q: context.span_id: %v", s.Name, err)
	}
	sp.SetTraceID(tid)
	sp.SetSpanID(sid)
	if s.ParentID != nil {
		var pid pcommon.SpanID
		if jaegerID(pid[:], strings.TrimPrefix(*s.ParentID, "0x")) == nil {
			sp.SetParentSpanID(pid)
		}
	}
	sp.SetName(s.Name)
	start, err := time.Parse(time.RFC3339Nano, *s.StartTime)
	if err != nil {
		return td, true, fmt.Errorf("span %q: start_time: %v", s.Name, err)
	}
	sp.SetStartTimestamp(pcommon.NewTimestampFromTime(start))
	if s.EndTime != nil {
		if end, err := time.Parse(time.RFC3339Nano, *s.EndTime); err == nil {
			sp.SetEndTimestamp(pcommon.NewTimestampFromTime(end))
		}
	}
	putSDKAttributes(sp.Attributes(), s.Attributes)
	if s.Status.Code == "ERROR" {
		sp.Status().SetCode(ptrace.StatusCodeError)
		sp.Status().SetMessage(s.Status.Description)
	}
	return td, true, nil
}

// putSDKAttributes adds JSON attribute values: strings, booleans, whole
// numbers as ints, other numbers as doubles, anything else as its JSON.
func putSDKAttributes(m pcommon.Map, attrs map[string]any) {
	for k, v := range attrs {
		switch v := v.(type) {
		case string:
			m.PutStr(k, v)
		case bool:
			m.PutBool(k, v)
		case gojson.Number:
			if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
				m.PutInt(k, n)
			} else if f, err := v.Float64(); err == nil {
				m.PutDouble(k, f)
			}
		case nil:
		default:
			b, _ := gojson.Marshal(v)
			m.PutStr(k, string(b))
		}
	}
}

// sdkSpanSniff tells the SDK's span JSON from one record.
func sdkSpanSniff(r sniffed) bool {
	if !r.has("context", "start_time", "attributes", "resource") {
		return false
	}
	var c struct {
		TraceID string `json:"trace_id"`
	}
	return gojson.Unmarshal(r.m["context"], &c) == nil && c.TraceID != ""
}
