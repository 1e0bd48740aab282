package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/apeval/apeval/metrics"
)

// TestRunOTLP: apeval run --otlp-endpoint against a real OTLP/HTTP
// receiver on loopback, decoding the protobuf it gets: one run span and one
// span per live judge call (summary.json's calls), and the evaluation
// events' figures, intervals and statuses equal to summary.json's.
func TestRunOTLP(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var spans []*tracepb.Span
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		var req collectortrace.ExportTraceServiceRequest
		if r.URL.Path != "/v1/traces" || proto.Unmarshal(data, &req) != nil {
			t.Errorf("not an OTLP/HTTP trace export: %s %s", r.Method, r.URL)
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		mu.Lock()
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				spans = append(spans, ss.Spans...)
			}
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "run")
	code, _, stderr := apeval(t, "", "run", "--otlp-endpoint", srv.URL, "--sample", "40", "--out", out, "-q")
	if code != 1 && code != 3 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if strings.Contains(stderr, "OTLP export") || strings.Contains(stderr, "otlp") {
		t.Fatalf("the export warned: %s", stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum metrics.Summary
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	calls := int64(0)
	events := 0
	for _, j := range sum.Judges {
		calls += j.Total.Calls
		events += 1 + len(j.Rules)
	}
	if calls == 0 || int64(len(spans)) != 1+calls {
		t.Fatalf("the receiver got %d spans, want 1 + %d judge calls", len(spans), calls)
	}
	val := func(kvs []*commonpb.KeyValue) map[string]*commonpb.AnyValue {
		m := map[string]*commonpb.AnyValue{}
		for _, kv := range kvs {
			m[kv.Key] = kv.Value
		}
		return m
	}
	var run *tracepb.Span
	perJudge := map[string]int64{}
	for _, s := range spans {
		a := val(s.Attributes)
		if s.Name == "apeval run" {
			run = s
			continue
		}
		if a["gen_ai.operation.name"].GetStringValue() != "chat" || a["gen_ai.request.model"].GetStringValue() == "" ||
			a["apeval.latency_ms"].GetDoubleValue() <= 0 {
			t.Fatalf("call span %s: %v", s.Name, a)
		}
		perJudge[a["apeval.judge"].GetStringValue()]++
	}
	for _, j := range sum.Judges {
		if perJudge[j.Judge] != j.Total.Calls {
			t.Errorf("%s: %d call spans, summary.json says %d calls", j.Judge, perJudge[j.Judge], j.Total.Calls)
		}
	}
	if run == nil || len(run.Events) != events {
		t.Fatalf("run span %v with %d events, want %d", run != nil, len(run.GetEvents()), events)
	}
	if a := val(run.Attributes); a["apeval.verdict"].GetStringValue() != string(sum.Verdict) {
		t.Errorf("run span verdict %v, summary.json %s", a["apeval.verdict"], sum.Verdict)
	}
	compared := 0
	for _, ev := range run.Events {
		a := val(ev.Attributes)
		j := sum.Judge(a["apeval.judge"].GetStringValue())
		r := j.Rule(a["apeval.rule_id"].GetStringValue())
		if ev.Name != "gen_ai.evaluation.result" || r == nil || a["gen_ai.evaluation.score.label"].GetStringValue() != string(r.Verdict) {
			t.Fatalf("event %s %v", ev.Name, a)
		}
		for name, v := range map[string]*float64{"apeval.precision": r.Precision, "apeval.precision.lo": r.PrecisionLo,
			"apeval.precision.hi": r.PrecisionHi, "apeval.recall": r.Recall, "apeval.recall.hi": r.RecallHi,
			"apeval.unknown_rate": r.UnknownRate, "apeval.latency_p95_ms": r.LatencyP95MS} {
			if v == nil {
				continue
			}
			if got := a[name].GetDoubleValue(); got != *v {
				t.Errorf("%s × %s: %s = %v, summary.json %v", j.Judge, r.RuleID, name, got, *v)
			}
			compared++
		}
		for _, c := range r.Criteria {
			if got := a["apeval.criterion."+c.Name+".status"].GetStringValue(); got != string(c.Status) {
				t.Errorf("%s × %s: %s %s, summary.json %s", j.Judge, r.RuleID, c.Name, got, c.Status)
			}
		}
	}
	if compared < 20 {
		t.Errorf("only %d figures compared", compared)
	}
}
