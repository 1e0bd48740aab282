package otlp

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/internal/fixture"
	"github.com/apeval/apeval/reports/rundir"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// OTLPReceiver is a loopback OTLP/HTTP trace receiver: it decodes each
// ExportTraceServiceRequest (protobuf, gzipped or not) sent to /v1/traces
// and keeps its spans.
type OTLPReceiver struct {
	URL   string
	mu    sync.Mutex
	spans []*tracepb.Span
	res   []*commonpb.KeyValue
	posts int
}

func newOTLPReceiver(t *testing.T) *OTLPReceiver {
	rc := &OTLPReceiver{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			t.Errorf("OTLP receiver: %s %s (%s)", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
			http.Error(w, "not OTLP/HTTP traces", http.StatusBadRequest)
			return
		}
		body := io.Reader(r.Body)
		if r.Header.Get("Content-Encoding") == "gzip" {
			gz, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = gz
		}
		data, err := io.ReadAll(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var req collectortrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(data, &req); err != nil {
			t.Errorf("OTLP receiver: not an ExportTraceServiceRequest: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rc.mu.Lock()
		rc.posts++
		for _, rs := range req.ResourceSpans {
			rc.res = rs.GetResource().GetAttributes()
			for _, ss := range rs.ScopeSpans {
				rc.spans = append(rc.spans, ss.Spans...)
			}
		}
		rc.mu.Unlock()
		out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	rc.URL = srv.URL
	return rc
}

// attrs flattens OTLP attributes into Go values.
func attrs(kvs []*commonpb.KeyValue) map[string]any {
	m := map[string]any{}
	for _, kv := range kvs {
		switch v := kv.Value.Value.(type) {
		case *commonpb.AnyValue_StringValue:
			m[kv.Key] = v.StringValue
		case *commonpb.AnyValue_IntValue:
			m[kv.Key] = v.IntValue
		case *commonpb.AnyValue_DoubleValue:
			m[kv.Key] = v.DoubleValue
		case *commonpb.AnyValue_BoolValue:
			m[kv.Key] = v.BoolValue
		}
	}
	return m
}

// TestTracerOTLP: the fixture's results and report through a Tracer to a
// real OTLP/HTTP receiver on loopback: one run span and one span per live
// judge call (cache hits are none), GenAI attributes equal to the calls'
// model, tokens and latency, and one evaluation event per rule × judge
// whose figures and statuses are the summary's.
func TestTracerOTLP(t *testing.T) {
	t.Parallel()
	rc := newOTLPReceiver(t)
	rep := fixtureReport()
	info := fixture.Info()
	info.Judges = []rundir.JudgeInfo{{Identity: "ollama/qwen2.5:3b@sha256:abc+p1", Backend: "ollama", Model: "qwen2.5:3b"},
		{Identity: "recorded/judge-v2", Backend: "recorded", Model: "judge-v2"}}
	tr, err := NewTracer(context.Background(), rc.URL, info, "test")
	if err != nil {
		t.Fatal(err)
	}
	tr.Providers = map[string]string{"ollama": "ollama"} // what the command passes from the registry
	results := fixture.Results()
	live := 0
	for _, r := range results {
		tr.Add(r)
		for _, c := range r.Calls {
			if !c.Cached {
				live++
			}
		}
	}
	if err := tr.Finish(rep); err != nil {
		t.Fatal(err)
	}
	if len(rc.spans) != 1+live {
		t.Fatalf("the receiver got %d spans, want 1 run span + %d call spans", len(rc.spans), live)
	}
	if attrs(rc.res)["service.name"] != "apeval" {
		t.Errorf("resource %v", attrs(rc.res))
	}
	var run *tracepb.Span
	var calls []*tracepb.Span
	for _, s := range rc.spans {
		if s.Name == RunSpanName {
			run = s
		} else {
			calls = append(calls, s)
		}
	}
	if run == nil {
		t.Fatal("no run span")
	}
	// The first fixture result's call: ollama, 812/40 tokens, 412.5 ms.
	first := calls[0]
	a := attrs(first.Attributes)
	want := map[string]any{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "ollama", "gen_ai.request.model": "qwen2.5:3b",
		"gen_ai.usage.input_tokens": int64(812), "gen_ai.usage.output_tokens": int64(40), "apeval.latency_ms": 412.5,
		"apeval.case_id": "c-1", "apeval.call.status": "ok"}
	for k, v := range want {
		if a[k] != v {
			t.Errorf("call span %s = %v (%T), want %v", k, a[k], a[k], v)
		}
	}
	if first.ParentSpanId == nil || string(first.ParentSpanId) != string(run.SpanId) || first.Kind != tracepb.Span_SPAN_KIND_CLIENT {
		t.Errorf("call span: parent %x (run %x), kind %v", first.ParentSpanId, run.SpanId, first.Kind)
	}
	if d := first.EndTimeUnixNano - first.StartTimeUnixNano; d != 412_500_000 {
		t.Errorf("call span lasts %d ns, want the call's 412.5 ms", d)
	}
	// The timed-out call is an error span.
	var timedOut bool
	for _, s := range calls {
		if attrs(s.Attributes)["apeval.call.status"] == "timeout" {
			timedOut = s.Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR && attrs(s.Attributes)["error.type"] == "timeout"
		}
	}
	if !timedOut {
		t.Error("the timed-out call is not an error span with error.type timeout")
	}

	// One evaluation event per judge × (total + rules), equal to the summary.
	n := 0
	for _, j := range rep.Summary.Judges {
		n += 1 + len(j.Rules)
	}
	if len(run.Events) != n {
		t.Fatalf("%d events on the run span, want %d", len(run.Events), n)
	}
	if ra := attrs(run.Attributes); ra["apeval.verdict"] != string(rep.Summary.Verdict) || ra["gen_ai.operation.name"] != "evaluate" {
		t.Errorf("run span attributes %v", ra)
	}
	checked := 0
	for _, ev := range run.Events {
		if ev.Name != EvaluationEvent {
			t.Fatalf("event %q", ev.Name)
		}
		a := attrs(ev.Attributes)
		j := rep.Summary.Judge(a["apeval.judge"].(string))
		r := j.Rule(a["apeval.rule_id"].(string))
		if r == nil {
			t.Fatalf("event for unknown rule %v", a)
		}
		if a["gen_ai.evaluation.score.label"] != string(r.Verdict) || a["apeval.labeled"] != r.Labeled {
			t.Errorf("%s × %s: event %v, row verdict %s", j.Judge, r.RuleID, a, r.Verdict)
		}
		for name, v := range map[string]*float64{"apeval.precision": r.Precision, "apeval.precision.lo": r.PrecisionLo,
			"apeval.precision.hi": r.PrecisionHi, "apeval.recall": r.Recall, "apeval.recall.lo": r.RecallLo, "gen_ai.evaluation.score.value": r.Precision} {
			if v == nil {
				if _, ok := a[name]; ok {
					t.Errorf("%s × %s: %s set without a figure", j.Judge, r.RuleID, name)
				}
				continue
			}
			if a[name] != *v {
				t.Errorf("%s × %s: %s = %v, want %v", j.Judge, r.RuleID, name, a[name], *v)
			}
			checked++
		}
		for _, c := range r.Criteria {
			if a["apeval.criterion."+c.Name+".status"] != string(c.Status) {
				t.Errorf("%s × %s: %s status %v, want %s", j.Judge, r.RuleID, c.Name, a["apeval.criterion."+c.Name+".status"], c.Status)
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d figures compared", checked)
	}
}

func TestTracerBadEndpoint(t *testing.T) {
	t.Parallel()
	for _, e := range []string{"localhost:4318", "ftp://x", "http://"} {
		if _, err := NewTracer(context.Background(), e, rundir.RunInfo{}, "test"); err == nil {
			t.Errorf("NewTracer(%q): no error", e)
		}
	}
	if Enabled("", func(string) string { return "" }) || !Enabled("", func(k string) string {
		if k == "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" {
			return "http://x:4318/v1/traces"
		}
		return ""
	}) {
		t.Error("Enabled does not follow the standard variables")
	}
}

// TestTracerCollectorRefuses: a collector that rejects the export is
// reported by Finish, and no spans are made after the first failure.
func TestTracerCollectorRefuses(t *testing.T) {
	t.Parallel()
	var posts int
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		posts++
		mu.Unlock()
		http.Error(w, "no", http.StatusBadRequest)
	}))
	defer srv.Close()
	tr, err := NewTracer(context.Background(), srv.URL, fixture.Info(), "test")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range fixture.Results() {
		tr.Add(r)
	}
	err = tr.Finish(fixtureReport())
	if err == nil || !strings.Contains(err.Error(), "OTLP export failed") || !strings.Contains(err.Error(), "400") {
		t.Fatalf("Finish: %v", err)
	}
	if posts == 0 {
		t.Error("nothing was sent")
	}
}

// A collector that quotes the headers apeval sent (OTEL_EXPORTER_OTLP_HEADERS)
// back in its error never gets their values into the error apeval prints:
// they are known secrets, masked by value (issue 35 point 7).
func TestTracerHeaderValuesMasked(t *testing.T) {
	const bearer, honeycomb = "sk-proj-Zq81kLm0pQr7sTu2vWx9yAb3", "hcaik_01hq3examplekeyvalue00000000"
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer%20"+bearer+",x-honeycomb-team="+honeycomb+",x-api-key=plainvalue9876543210")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, fmt.Sprintf("unauthorized: Authorization: %s; x-honeycomb-team: %s; x-api-key: %s",
			r.Header.Get("Authorization"), r.Header.Get("X-Honeycomb-Team"), r.Header.Get("X-Api-Key")), http.StatusUnauthorized)
	}))
	defer srv.Close()
	tr, err := NewTracer(context.Background(), srv.URL, fixture.Info(), "test")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range fixture.Results() {
		tr.Add(r)
	}
	err = tr.Finish(fixtureReport())
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("Finish: %v", err)
	}
	for _, secret := range []string{bearer, honeycomb, "plainvalue9876543210"} {
		if strings.Contains(err.Error(), secret) {
			t.Fatalf("the error quotes a header value: %v", err)
		}
	}
	if !strings.Contains(err.Error(), "[MASKED]") {
		t.Fatalf("the error shows no mask: %v", err)
	}
}

// TestTracerOTLPWeakLabels: on a run on weak labels the run span and every
// evaluation event (each carries precision and recall) say label_source
// weak; on another run none does.
func TestTracerOTLPWeakLabels(t *testing.T) {
	t.Parallel()
	for _, weak := range []bool{true, false} {
		rc := newOTLPReceiver(t)
		rep := fixtureReport()
		info := fixture.Info()
		if weak {
			rep.Run.LabelSource, info.LabelSource = "weak", "weak"
		}
		tr, err := NewTracer(context.Background(), rc.URL, info, "test")
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.Finish(rep); err != nil {
			t.Fatal(err)
		}
		var run *tracepb.Span
		for _, s := range rc.spans {
			if s.Name == RunSpanName {
				run = s
			}
		}
		if run == nil || len(run.Events) == 0 {
			t.Fatal("no run span with events")
		}
		want := any(nil)
		if weak {
			want = "weak"
		}
		if got := attrs(run.Attributes)["apeval.label_source"]; got != want {
			t.Errorf("weak=%v: run span label_source %v, want %v", weak, got, want)
		}
		for _, ev := range run.Events {
			if got := attrs(ev.Attributes)["apeval.label_source"]; got != want {
				t.Errorf("weak=%v: event %v label_source %v, want %v", weak, attrs(ev.Attributes)["apeval.rule_id"], got, want)
			}
		}
	}
}

// gen_ai.provider.name uses the well-known value a backend registered,
// apeval.BACKEND for the others.
func TestProviderName(t *testing.T) {
	t.Parallel()
	tr := &Tracer{Providers: map[string]string{"ollama": "ollama", "openai": "openai", "anthropic": "anthropic"}}
	for backend, want := range map[string]string{"ollama": "ollama", "openai": "openai", "anthropic": "anthropic", "exec": "apeval.exec", "recorded": "apeval.recorded"} {
		if got := tr.providerName(backend); got != want {
			t.Errorf("providerName(%q) = %q, want %q", backend, got, want)
		}
	}
}

// fixtureReport is reports' fixture report: the summary fixture, NO-GO.
func fixtureReport() *reports.Report {
	info := fixture.Info()
	info.RunID = "run-fixture"
	return &reports.Report{Run: info, Summary: fixture.Summary(), Inconclusive: "fail", Exit: 1}
}
