// Package otlp is the OpenTelemetry sink of a run, beside the run
// directory's writer (reports/rundir) and the replay's other sinks: fed
// every result with Add and closed with Finish, it sends the run to an
// OTLP/HTTP endpoint as traces (a span per run and per live judge call,
// the GenAI semantic conventions' attributes, one evaluation event per
// rule × judge). Only the command links it, so the OpenTelemetry SDK stays
// out of the statistics and the renderers. Not a stable Go API: apeval is a
// command, its packages serve it.
//
// Where to look:
//
//	otlp.go        Enabled, NewTracer, Tracer (Add, Finish), the attribute names
//	otlp_test.go   against an httptest OTLP/HTTP collector (the protobuf decoded)
package otlp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/judge/core"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/rundir"
)

// OTLP attribute and event names. The gen_ai.* ones are OpenTelemetry's
// GenAI semantic conventions; apeval.* are apeval's own (docs/reports.md,
// "OpenTelemetry").
const (
	// EvaluationEvent is the GenAI conventions' evaluation result event,
	// one per rule × judge on the run span.
	EvaluationEvent = "gen_ai.evaluation.result"
	// RunSpanName is the name of the span of the whole run.
	RunSpanName = "apeval run"
)

// Enabled says whether a run exports traces: --otlp-endpoint was given,
// or the standard OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT variable is set.
func Enabled(endpoint string, getenv func(string) string) bool {
	return endpoint != "" || getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Tracer sends a run to an OTLP/HTTP endpoint as traces: one span for the
// run, a child span per live judge call (cache hits are no calls) with the
// GenAI conventions' attributes, and, when the run is evaluated, one
// gen_ai.evaluation.result event per rule × judge on the run span. It is a
// result sink: feed it every result with Add, then Finish. Spans are
// batched and sent while the run goes on; Finish flushes them.
type Tracer struct {
	tp     *sdktrace.TracerProvider
	tr     trace.Tracer
	ctx    context.Context
	run    trace.Span
	judges map[string]rundir.JudgeInfo
	// Providers maps a judge backend to its gen_ai.provider.name (the
	// registry's judge.Backend.Provider, which the command passes; set it
	// before the first Add). A backend without one is apeval.BACKEND.
	Providers map[string]string
	start     time.Time
	// failed is set by the first export error: no more spans are made (a
	// dead collector must not stall the run), and Finish reports it.
	failed   atomic.Bool
	mu       sync.Mutex
	firstErr error
	errs     int
	// headers are the values of the headers the exporter sends
	// (OTEL_EXPORTER_OTLP_HEADERS): known secrets, masked by value in
	// every error, as the judge's API key is.
	headers []string
}

// otlpHeaderVars hold the headers the OpenTelemetry exporter sends.
var otlpHeaderVars = []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"}

// headerValues are the values of the headers in OTEL_EXPORTER_OTLP_*HEADERS
// ("k1=v1,k2=v2", values URL-escaped), as sent and, for a scheme and a
// credential ("Bearer sk-…"), the credential alone.
func headerValues(getenv func(string) string) []string {
	var out []string
	for _, name := range otlpHeaderVars {
		for _, kv := range strings.Split(getenv(name), ",") {
			_, v, ok := strings.Cut(kv, "=")
			if !ok {
				continue
			}
			if u, err := url.PathUnescape(strings.TrimSpace(v)); err == nil {
				v = u
			}
			v = strings.TrimSpace(v)
			out = append(out, v)
			if f := strings.Fields(v); len(f) > 1 {
				out = append(out, f[len(f)-1])
			}
		}
	}
	// Longest first, so a whole value is replaced before a part of it.
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// maskErr hides the header values, and whatever the masking pass finds,
// in an exporter error.
func (t *Tracer) maskErr(err error) error {
	s := err.Error()
	for _, v := range t.headers {
		s = mask.Secret(s, v)
	}
	return errors.New(mask.String(s))
}

// Handle records an export error of this tracer's exporter.
func (t *Tracer) Handle(err error) {
	t.failed.Store(true)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.firstErr == nil {
		t.firstErr = err
	}
	t.errs++
}

// NewTracer starts the run span. endpoint is the collector's base URL
// (http://host:4318; the traces go to its /v1/traces); "" leaves the
// endpoint, and everything else (headers, timeout, compression,
// certificates), to the standard OTEL_EXPORTER_OTLP_* variables, which the
// OpenTelemetry SDK reads.
func NewTracer(ctx context.Context, endpoint string, info rundir.RunInfo, version string) (*Tracer, error) {
	var opts []otlptracehttp.Option
	if endpoint != "" {
		u, err := url.Parse(endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("--otlp-endpoint %q: want an http:// or https:// URL of an OTLP/HTTP collector (http://localhost:4318)", endpoint)
		}
		u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/traces"
		opts = append(opts, otlptracehttp.WithEndpointURL(u.String()))
	}
	// Retries end after 10 s: past that the collector counts as down.
	opts = append(opts, otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: true,
		InitialInterval: 500 * time.Millisecond, MaxInterval: 2 * time.Second, MaxElapsedTime: 10 * time.Second}))
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("OTLP exporter: %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "apeval"), attribute.String("service.version", version)),
		resource.WithFromEnv())
	if err != nil {
		res = resource.Default()
	}
	t := &Tracer{judges: map[string]rundir.JudgeInfo{}, start: time.Now(), headers: headerValues(os.Getenv)}
	// Blocking: a slow collector slows the run rather than losing spans.
	// Export errors are this tracer's (its exporter reports them); the
	// SDK's global handler, which would log them unmasked, drops its copy.
	silenceOTelErrors()
	t.tp = sdktrace.NewTracerProvider(sdktrace.WithResource(res),
		sdktrace.WithBatcher(errExporter{exp, t}, sdktrace.WithBlocking(), sdktrace.WithMaxQueueSize(8192), sdktrace.WithMaxExportBatchSize(1024)))
	t.tr = t.tp.Tracer("github.com/apeval/apeval")
	for _, j := range info.Judges {
		t.judges[j.Identity] = j
	}
	t.ctx, t.run = t.tr.Start(ctx, RunSpanName, trace.WithSpanKind(trace.SpanKindInternal), trace.WithTimestamp(t.start),
		trace.WithAttributes(
			attribute.String("gen_ai.operation.name", "evaluate"),
			attribute.String("apeval.run_id", info.RunID),
		))
	return t, nil
}

// errExporter hands its exporter's errors to the tracer that owns it.
type errExporter struct {
	sdktrace.SpanExporter
	t *Tracer
}

func (e errExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := e.SpanExporter.ExportSpans(ctx, spans)
	if err != nil {
		e.t.Handle(err)
	}
	return err
}

var silenceOnce sync.Once

// silenceOTelErrors makes the OpenTelemetry SDK's global error handler drop
// errors: each tracer records its own exporter's (errExporter), masked
// when reported, and the SDK's default would print them unmasked.
func silenceOTelErrors() {
	silenceOnce.Do(func() { otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) {})) })
}

// providerName is a judge backend's gen_ai.provider.name: the semantic
// conventions' well-known value the backend registered, else apeval.BACKEND
// (exec, recorded, none).
func (t *Tracer) providerName(backend string) string {
	if p := t.Providers[backend]; p != "" {
		return p
	}
	return "apeval." + backend
}

// Add emits a span per live judge call of the result: it ends now and
// started its latency ago.
func (t *Tracer) Add(r *replay.Result) {
	if len(r.Calls) == 0 || t.failed.Load() {
		return
	}
	end := time.Now()
	j := t.judges[r.Judge]
	model := r.Model
	if model == "" {
		model = j.Model
	}
	for i := range r.Calls {
		c := &r.Calls[i]
		if c.Cached {
			continue
		}
		attrs := []attribute.KeyValue{
			attribute.String("gen_ai.operation.name", "chat"),
			attribute.String("gen_ai.provider.name", t.providerName(j.Backend)),
			attribute.String("gen_ai.request.model", model),
			attribute.Float64("apeval.latency_ms", c.LatencyMS),
			attribute.String("apeval.judge", r.Judge),
			attribute.String("apeval.case_id", r.CaseID),
			attribute.String("apeval.session_id", r.SessionID),
			attribute.String("apeval.call.status", string(c.Status)),
			attribute.Int("apeval.call.rules", c.Rules),
			attribute.Int("apeval.call.attempts", c.Attempts),
		}
		if r.ModelDigest != "" {
			attrs = append(attrs, attribute.String("gen_ai.response.model", model+"@"+r.ModelDigest))
		}
		if c.PromptTokens != nil {
			attrs = append(attrs, attribute.Int64("gen_ai.usage.input_tokens", *c.PromptTokens))
		}
		if c.CompletionTokens != nil {
			attrs = append(attrs, attribute.Int64("gen_ai.usage.output_tokens", *c.CompletionTokens))
		}
		// A recorded judge's latency is the recording's, so its span may
		// start before the run did: the span says how long the call took.
		start := end.Add(-time.Duration(c.LatencyMS * float64(time.Millisecond)))
		_, sp := t.tr.Start(t.ctx, "chat "+model, trace.WithSpanKind(trace.SpanKindClient), trace.WithTimestamp(start), trace.WithAttributes(attrs...))
		if c.Status != core.StatusOK && c.Status != core.StatusUnknown {
			sp.SetAttributes(attribute.String("error.type", string(c.Status)))
			sp.SetStatus(codes.Error, c.Error)
		}
		sp.End(trace.WithTimestamp(end))
	}
}

// Finish adds the evaluation events of rep (nil for a replay without
// metrics), ends the run span and sends what is left, waiting at most the
// exporter's timeout.
func (t *Tracer) Finish(rep *reports.Report) error {
	if rep != nil && rep.Summary != nil {
		s := rep.Summary
		t.run.SetAttributes(attribute.String("apeval.verdict", string(s.Verdict)))
		// Figures on weak labels say so here too: the run span and every
		// evaluation event carry apeval.label_source = "weak".
		weak := rep.Weak()
		if weak {
			t.run.SetAttributes(attribute.String("apeval.label_source", "weak"))
		}
		for _, j := range s.Judges {
			rows := append([]*metrics.Row{j.Total}, j.Rules...)
			for _, r := range rows {
				if r == nil {
					continue
				}
				a := evaluationAttrs(j, r, t.judges[j.Judge])
				if weak {
					a = append(a, attribute.String("apeval.label_source", "weak"))
				}
				t.run.AddEvent(EvaluationEvent, trace.WithAttributes(a...))
			}
		}
		if s.Verdict == metrics.VerdictNoGo {
			t.run.SetStatus(codes.Error, string(metrics.VerdictNoGo))
		}
	}
	t.run.End()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := t.tp.Shutdown(ctx)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.firstErr != nil {
		return fmt.Errorf("OTLP export failed %d time(s), spans after the first failure were not sent: %w", t.errs, t.maskErr(t.firstErr))
	}
	if err != nil {
		return fmt.Errorf("OTLP export: %w", t.maskErr(err))
	}
	return nil
}

// evaluationAttrs: one rule × judge's figures, intervals and statuses.
func evaluationAttrs(j *metrics.JudgeSummary, r *metrics.Row, info rundir.JudgeInfo) []attribute.KeyValue {
	model := j.Model
	if model == "" {
		model = info.Model
	}
	a := []attribute.KeyValue{
		attribute.String("gen_ai.evaluation.name", "apeval.rule"),
		attribute.String("gen_ai.evaluation.score.label", string(r.Verdict)),
		attribute.String("gen_ai.request.model", model),
		attribute.String("apeval.judge", j.Judge),
		attribute.String("apeval.rule_id", r.RuleID),
		attribute.String("apeval.verdict", string(r.Verdict)),
		attribute.Int64("apeval.labeled", r.Labeled),
		attribute.Int64("apeval.calls", r.Calls),
	}
	if r.Precision != nil {
		// The score is the figure a judge is first judged on.
		a = append(a, attribute.Float64("gen_ai.evaluation.score.value", *r.Precision))
	}
	fig := func(name string, v, lo, hi *float64) {
		if v == nil {
			return
		}
		a = append(a, attribute.Float64("apeval."+name, *v))
		if lo != nil && hi != nil {
			a = append(a, attribute.Float64("apeval."+name+".lo", *lo), attribute.Float64("apeval."+name+".hi", *hi))
		}
	}
	fig("precision", r.Precision, r.PrecisionLo, r.PrecisionHi)
	fig("recall", r.Recall, r.RecallLo, r.RecallHi)
	fig("unknown_rate", r.UnknownRate, r.UnknownRateLo, r.UnknownRateHi)
	fig("judge_required_rate", r.JudgeRequiredRate, r.JudgeRequiredRateLo, r.JudgeRequiredRateHi)
	fig("fire_rate", r.FireRate, nil, nil)
	fig("latency_p50_ms", r.LatencyP50MS, r.LatencyP50LoMS, r.LatencyP50HiMS)
	fig("latency_p95_ms", r.LatencyP95MS, r.LatencyP95LoMS, r.LatencyP95HiMS)
	for _, c := range r.Criteria {
		a = append(a, attribute.String("apeval.criterion."+c.Name+".status", string(c.Status)))
	}
	return a
}
