package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/judge/internal/fake"
)

func openOllama(t *testing.T, f *fake.Server, cfg judge.Config) *Judge {
	t.Helper()
	cfg.OllamaHost = f.URL
	j, err := judge.Open(context.Background(), "ollama:qwen2.5:3b", cfg)
	if err != nil {
		t.Fatal(err)
	}
	return j.(*Judge)
}

func TestOllamaJudge(t *testing.T) {
	t.Parallel()
	f := fake.NewOllama(t, fake.EchoReply)
	var log bytes.Buffer
	o := openOllama(t, f, judge.Config{Log: &log})
	if got, want := o.Identity().String(), "ollama/qwen2.5:3b@a6990ed6be41+p1"; got != want {
		t.Fatalf("identity %q, want %q", got, want)
	}
	d := o.Details()
	for k, want := range map[string]string{"digest": fake.Digest, "family": "qwen2", "parameter_size": "3.1B",
		"quantization_level": "Q4_K_M", "capabilities": "completion,tools", "structured_output": judge.ModeJSONSchema} {
		if d[k] != want {
			t.Errorf("details[%s] = %q, want %q", k, d[k], want)
		}
	}
	resp := o.Judge(context.Background(), fake.TwoRules())
	want := []judge.Decision{{RuleID: "rule-12", Result: judge.Match, Confidence: fake.Ptr(0.75)}, {RuleID: "rule-18", Result: judge.NoMatch, Confidence: fake.Ptr(0.75)}}
	if resp.Status != judge.StatusOK || !fake.EqualDecisions(resp.Decisions, want) || resp.Attempts != 1 {
		t.Fatalf("response %+v", resp)
	}
	wantServer := judge.ServerTimings{Total: 412500 * time.Microsecond, Load: 12 * time.Millisecond,
		PromptEval: 150 * time.Millisecond, Eval: 240 * time.Millisecond, PromptTokens: 231, CompletionTokens: 48}
	if resp.Server != wantServer {
		t.Fatalf("server timings %+v, want %+v", resp.Server, wantServer)
	}
	if resp.Latency <= 0 {
		t.Fatalf("latency %v", resp.Latency)
	}
	bodies := f.Requests()
	if len(bodies) != 1 {
		t.Fatalf("%d chat calls", len(bodies))
	}
	var body struct {
		Model     string
		Stream    *bool
		KeepAlive string `json:"keep_alive"`
		Format    json.RawMessage
		Options   map[string]json.RawMessage
		Messages  []struct{ Role, Content string }
	}
	if err := json.Unmarshal(bodies[0], &body); err != nil {
		t.Fatal(err)
	}
	if body.Model != "qwen2.5:3b" || body.Stream == nil || *body.Stream || body.KeepAlive != "10m0s" {
		t.Fatalf("model/stream/keep_alive wrong: %s", bodies[0])
	}
	if string(body.Options["temperature"]) != "0" || string(body.Options["seed"]) != "42" {
		t.Fatalf("options must carry temperature 0 and seed 42: %s", bodies[0])
	}
	if !bytes.Equal(body.Format, judge.TupleOutputSchema([]string{"rule-12", "rule-18"})) {
		t.Fatalf("format is not the output schema: %s", body.Format)
	}
	if len(body.Messages) != 2 || body.Messages[0].Role != "system" || body.Messages[0].Content != judge.DefaultPrompt().System {
		t.Fatalf("messages: %+v", body.Messages)
	}
	if log.Len() != 0 {
		t.Fatalf("unexpected log: %s", log.String())
	}
}

func TestOllamaOptionsOverride(t *testing.T) {
	t.Parallel()
	f := fake.NewOllama(t, fake.EchoReply)
	o := openOllama(t, f, judge.Config{Options: map[string]string{"temperature": "0.3", "num_ctx": "4096", "keep_alive": "1m", "think": "false"}})
	if r := o.Judge(context.Background(), fake.TwoRules()); r.Status != judge.StatusOK {
		t.Fatalf("response %+v", r)
	}
	var body struct {
		KeepAlive string `json:"keep_alive"`
		Think     *bool
		Options   map[string]any
	}
	if err := json.Unmarshal(f.Requests()[0], &body); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"temperature": 0.3, "num_ctx": 4096.0, "seed": 42.0}
	if !reflect.DeepEqual(body.Options, want) || body.KeepAlive != "1m0s" || body.Think == nil || *body.Think {
		t.Fatalf("options %v keep_alive %q think %v: %s", body.Options, body.KeepAlive, body.Think, f.Requests()[0])
	}
}

func TestOllamaFailures(t *testing.T) {
	t.Parallel()
	ok := func(n int, body map[string]any) fake.Reply { return fake.EchoReply(n, body) }
	tests := []struct {
		name     string
		reply    fake.ReplyFunc
		timeout  time.Duration
		retries  int
		status   judge.Status
		errPart  string
		attempts int
	}{
		{name: "http 500", reply: func(int, map[string]any) fake.Reply {
			return fake.Reply{Status: 500, Raw: `{"error":"model runner crashed"}`}
		}, status: judge.StatusError, errPart: "HTTP 500: model runner crashed", attempts: 1},
		{name: "non-JSON answer", reply: func(int, map[string]any) fake.Reply {
			return fake.Reply{Content: "I think rule-12 matches."}
		}, status: judge.StatusInvalid, errPart: "not a JSON object", attempts: 1},
		{name: "unasked rule", reply: func(int, map[string]any) fake.Reply {
			return fake.Reply{Content: `{"version":1,"decisions":[{"rule_id":"rule-12","result":"match","confidence":1},{"rule_id":"rule-18","result":"match","confidence":1},{"rule_id":"rule-7","result":"match","confidence":1}]}`}
		}, status: judge.StatusInvalid, errPart: `"rule-7" that was not asked`, attempts: 1},
		{name: "missing rule", reply: func(int, map[string]any) fake.Reply {
			return fake.Reply{Content: `{"version":1,"decisions":[{"rule_id":"rule-12","result":"match","confidence":1}]}`}
		}, status: judge.StatusInvalid, errPart: `no decision for rule "rule-18"`, attempts: 1},
		{name: "version 2", reply: func(int, map[string]any) fake.Reply {
			return fake.Reply{Content: `{"version":2,"decisions":[{"rule_id":"rule-12","result":"match","confidence":1},{"rule_id":"rule-18","result":"match","confidence":1}]}`}
		}, status: judge.StatusInvalid, errPart: "unsupported answer version 2", attempts: 1},
		{name: "invalid answers are not retried", retries: 2, reply: func(int, map[string]any) fake.Reply {
			return fake.Reply{Content: "nope"}
		}, status: judge.StatusInvalid, attempts: 1},
		{name: "500 retried until it works", retries: 2, reply: func(n int, body map[string]any) fake.Reply {
			if n < 2 {
				return fake.Reply{Status: 503, Raw: `{"error":"busy"}`}
			}
			return ok(n, body)
		}, status: judge.StatusOK, attempts: 3},
		{name: "400 not retried", retries: 2, reply: func(int, map[string]any) fake.Reply {
			return fake.Reply{Status: 404, Raw: `{"error":"model 'x' not found"}`}
		}, status: judge.StatusError, errPart: "HTTP 404", attempts: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fake.NewOllama(t, tt.reply)
			o := openOllama(t, f, judge.Config{Timeout: tt.timeout, Retries: tt.retries})
			resp := o.Judge(context.Background(), fake.TwoRules())
			if resp.Status != tt.status || !strings.Contains(resp.Error, tt.errPart) || resp.Attempts != tt.attempts {
				t.Fatalf("got status %q error %q attempts %d; want %q containing %q, %d attempts",
					resp.Status, resp.Error, resp.Attempts, tt.status, tt.errPart, tt.attempts)
			}
			if tt.status != judge.StatusOK && resp.Decisions != nil {
				t.Fatalf("failed call returned decisions %v", resp.Decisions)
			}
			if len(f.Requests()) != tt.attempts {
				t.Fatalf("%d requests for %d attempts", len(f.Requests()), tt.attempts)
			}
		})
	}
}

func TestOllamaTimeout(t *testing.T) {
	t.Parallel()
	f := fake.NewOllama(t, func(int, map[string]any) fake.Reply { return fake.Reply{Delay: 5 * time.Second, Content: "late"} })
	o := openOllama(t, f, judge.Config{Timeout: 150 * time.Millisecond})
	resp := o.Judge(context.Background(), fake.TwoRules())
	if resp.Status != judge.StatusTimeout {
		t.Fatalf("status %q (%s)", resp.Status, resp.Error)
	}
	if resp.Latency < 150*time.Millisecond {
		t.Fatalf("timeout latency %v, want ≈ 150ms", resp.Latency)
	}
	fake.Within(t, "the timed-out call", resp.Latency, time.Second)
	// A caller's own deadline is a timeout too; a cancelled caller is an error.
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	if r := o.Judge(ctx, fake.TwoRules()); r.Status != judge.StatusError || !strings.Contains(r.Error, "cancelled") {
		t.Fatalf("cancelled call: %q %q", r.Status, r.Error)
	}
}

func TestOllamaConnectionRefused(t *testing.T) {
	t.Parallel()
	f := fake.NewOllama(t, fake.EchoReply)
	o := openOllama(t, f, judge.Config{Retries: 1})
	f.Close()
	resp := o.Judge(context.Background(), fake.TwoRules())
	if resp.Status != judge.StatusError || !strings.Contains(resp.Error, "connect") || resp.Attempts != 2 {
		t.Fatalf("got %q %q attempts %d", resp.Status, resp.Error, resp.Attempts)
	}
}

func TestOllamaFormatFallback(t *testing.T) {
	t.Parallel()
	f := fake.NewOllama(t, func(n int, body map[string]any) fake.Reply {
		if _, isSchema := body["format"].(map[string]any); isSchema {
			return fake.Reply{Status: http.StatusBadRequest, Raw: `{"error":"invalid format: expected \"json\" or a JSON schema"}`}
		}
		return fake.EchoReply(n, body)
	})
	var log bytes.Buffer
	o := openOllama(t, f, judge.Config{Log: &log})
	for i := 0; i < 2; i++ {
		if r := o.Judge(context.Background(), fake.TwoRules()); r.Status != judge.StatusOK || r.Attempts != 1 {
			t.Fatalf("call %d: %+v", i, r)
		}
	}
	bodies := f.Requests()
	if len(bodies) != 3 {
		t.Fatalf("%d requests, want 3 (schema refused once, then json twice)", len(bodies))
	}
	for i, b := range bodies[1:] {
		if !bytes.Contains(b, []byte(`"format":"json"`)) {
			t.Fatalf("request %d does not ask for json: %s", i+1, b)
		}
	}
	if o.StructuredMode() != judge.ModeJSONObject || !strings.Contains(log.String(), "refused structured output json_schema") {
		t.Fatalf("mode %q log %q", o.StructuredMode(), log.String())
	}
}

func TestOllamaOpen(t *testing.T) {
	t.Parallel()
	f := fake.NewOllama(t, fake.EchoReply)
	_, err := judge.Open(context.Background(), "ollama:missing", judge.Config{OllamaHost: f.URL})
	if err == nil || !strings.Contains(err.Error(), `model "missing" not found`) || !strings.Contains(err.Error(), "llama3:latest, qwen2.5:3b") {
		t.Fatalf("err = %v", err)
	}
	j, err := judge.Open(context.Background(), "ollama:llama3", judge.Config{OllamaHost: f.URL})
	if err != nil {
		t.Fatal(err)
	}
	if got := j.Identity().String(); got != "ollama/llama3:latest@365c0bd3c000+p1" {
		t.Fatalf("identity %q", got)
	}
}

func TestOllamaHost(t *testing.T) {
	t.Parallel()
	tests := []struct{ flag, env, want string }{
		{"", "", "http://127.0.0.1:11434"},
		{"", "10.0.0.5", "http://10.0.0.5:11434"},
		{"", "https://ollama.example.com", "https://ollama.example.com"},
		{"gpu-box:8080", "10.0.0.5", "http://gpu-box:8080"},
		{"http://localhost:11434/", "", "http://localhost:11434"},
	}
	for _, tt := range tests {
		u, err := Host(tt.flag, tt.env)
		if err != nil || u.String() != tt.want {
			t.Errorf("Host(%q) with OLLAMA_HOST=%q = %v, %v; want %s", tt.flag, tt.env, u, err, tt.want)
		}
	}
}
