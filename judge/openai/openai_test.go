package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/judge/internal/fake"
)

func openOpenAI(t *testing.T, f *fake.Server, cfg judge.Config) *Judge {
	t.Helper()
	cfg.OpenAIBaseURL = f.URL + "/v1"
	j, err := judge.Open(context.Background(), "openai:judge-small", cfg)
	if err != nil {
		t.Fatal(err)
	}
	return j.(*Judge)
}

func TestOpenAIJudge(t *testing.T) {
	t.Parallel()
	// The key comes from the injected environment, not the process's.
	env := map[string]string{"APEVAL_TEST_KEY": "sk-test-123"}
	f := fake.NewOpenAI(t, fake.EchoReply)
	o := openOpenAI(t, f, judge.Config{OpenAIKeyEnv: "APEVAL_TEST_KEY", Getenv: func(k string) string { return env[k] }})
	if got := o.Identity().String(); got != "openai/judge-small+p1" {
		t.Fatalf("identity %q", got)
	}
	resp := o.Judge(context.Background(), fake.TwoRules())
	want := []judge.Decision{{RuleID: "rule-12", Result: judge.Match, Confidence: fake.Ptr(0.75)}, {RuleID: "rule-18", Result: judge.NoMatch, Confidence: fake.Ptr(0.75)}}
	if resp.Status != judge.StatusOK || !fake.EqualDecisions(resp.Decisions, want) || resp.Attempts != 1 || resp.Latency <= 0 {
		t.Fatalf("response %+v", resp)
	}
	if resp.Server.PromptTokens != 231 || resp.Server.CompletionTokens != 48 {
		t.Fatalf("usage %+v", resp.Server)
	}
	if f.Auth[0] != "Bearer sk-test-123" {
		t.Fatalf("authorization %q", f.Auth[0])
	}
	var body struct {
		Model          string
		Temperature    *float64
		Seed           *int
		Stream         *bool
		ResponseFormat struct {
			Type       string
			JSONSchema struct {
				Name   string
				Strict bool
				Schema json.RawMessage
			} `json:"json_schema"`
		} `json:"response_format"`
		Messages []struct{ Role, Content string }
	}
	if err := json.Unmarshal(f.Requests()[0], &body); err != nil {
		t.Fatalf("%v: %s", err, f.Requests()[0])
	}
	if body.Model != "judge-small" || body.Temperature == nil || *body.Temperature != 0 ||
		body.Seed == nil || *body.Seed != 42 || body.Stream == nil || *body.Stream {
		t.Fatalf("model/temperature/seed/stream wrong: %s", f.Requests()[0])
	}
	rf := body.ResponseFormat
	if rf.Type != "json_schema" || rf.JSONSchema.Name != "judge_output" || !rf.JSONSchema.Strict {
		t.Fatalf("response_format %+v", rf)
	}
	var gotSchema, wantSchema any
	if err := json.Unmarshal(rf.JSONSchema.Schema, &gotSchema); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(judge.OutputSchema([]string{"rule-12", "rule-18"}), &wantSchema); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotSchema, wantSchema) {
		t.Fatalf("schema %s", rf.JSONSchema.Schema)
	}
	if d := o.Details(); d["system_fingerprint"] != "fp_44709d6fcb" || d["structured_output"] != judge.ModeJSONSchema || d["base_url"] != f.URL+"/v1" {
		t.Fatalf("details %v", d)
	}
	ids, err := o.ListModels(context.Background())
	if err != nil || !reflect.DeepEqual(ids, []string{"judge-small", "judge-large"}) {
		t.Fatalf("models %v %v", ids, err)
	}
}

func TestOpenAINoKey(t *testing.T) {
	t.Setenv("APEVAL_TEST_KEY", "sk-process-env")
	f := fake.NewOpenAI(t, fake.EchoReply)
	// The process has the variable; the injected environment (nil: empty)
	// does not, and only the injected one counts.
	o := openOpenAI(t, f, judge.Config{OpenAIKeyEnv: "APEVAL_TEST_KEY", Options: map[string]string{"temperature": "0.5", "max_tokens": "200"}})
	if r := o.Judge(context.Background(), fake.TwoRules()); r.Status != judge.StatusOK {
		t.Fatalf("%+v", r)
	}
	if f.Auth[0] != "" {
		t.Fatalf("authorization sent without a key: %q", f.Auth[0])
	}
	var body map[string]any
	if err := json.Unmarshal(f.Requests()[0], &body); err != nil {
		t.Fatal(err)
	}
	if body["temperature"] != 0.5 || body["max_tokens"] != 200.0 || body["seed"] != 42.0 {
		t.Fatalf("options not applied: %s", f.Requests()[0])
	}
	if _, err := judge.Open(context.Background(), "openai:m", judge.Config{Options: map[string]string{"messages": "x"}}); err == nil {
		t.Fatal("overriding messages accepted")
	}
}

func TestOpenAIFailures(t *testing.T) {
	t.Parallel()
	content := func(s string) fake.ReplyFunc {
		return func(int, map[string]any) fake.Reply { return fake.Reply{Content: s} }
	}
	raw := func(status int, s string) fake.ReplyFunc {
		return func(int, map[string]any) fake.Reply { return fake.Reply{Status: status, Raw: s} }
	}
	tests := []struct {
		name     string
		reply    fake.ReplyFunc
		retries  int
		status   judge.Status
		errPart  string
		attempts int
	}{
		{name: "http 500", reply: raw(500, `{"error":{"message":"internal error","type":"server_error"}}`), status: judge.StatusError, errPart: "HTTP 500: internal error", attempts: 1},
		{name: "http 500 retried", reply: raw(500, `{"error":{"message":"internal error"}}`), retries: 2, status: judge.StatusError, attempts: 3},
		{name: "401 neither retried nor a format refusal", reply: raw(401, `{"error":{"message":"Incorrect API key provided"}}`), retries: 2, status: judge.StatusError, errPart: "HTTP 401: Incorrect API key", attempts: 1},
		{name: "non-JSON answer", reply: content("rule-12: match"), status: judge.StatusInvalid, errPart: "not a JSON object", attempts: 1},
		{name: "unasked rule", reply: content(`{"version":1,"decisions":[{"rule_id":"rule-12","result":"match","confidence":1},{"rule_id":"rule-18","result":"match","confidence":1},{"rule_id":"rule-99","result":"no_match","confidence":1}]}`), status: judge.StatusInvalid, errPart: `"rule-99" that was not asked`, attempts: 1},
		{name: "missing rule", reply: content(`{"version":1,"decisions":[{"rule_id":"rule-18","result":"match","confidence":1}]}`), status: judge.StatusInvalid, errPart: `no decision for rule "rule-12"`, attempts: 1},
		{name: "version 2", reply: content(`{"version":2,"decisions":[{"rule_id":"rule-12","result":"match","confidence":1},{"rule_id":"rule-18","result":"match","confidence":1}]}`), status: judge.StatusInvalid, errPart: "unsupported answer version 2", attempts: 1},
		{name: "fenced answer accepted", reply: content("```json\n" + `{"version":1,"decisions":[{"rule_id":"rule-12","result":"match","confidence":1},{"rule_id":"rule-18","result":"unknown","confidence":0.5}]}` + "\n```"), status: judge.StatusOK, attempts: 1},
		{name: "no choices", reply: raw(200, `{"id":"x","choices":[]}`), status: judge.StatusInvalid, errPart: "no choices", attempts: 1},
		{name: "refusal", reply: raw(200, `{"choices":[{"message":{"role":"assistant","content":null,"refusal":"I can't help"}}]}`), status: judge.StatusInvalid, errPart: "refused", attempts: 1},
		{name: "body not JSON", reply: raw(200, `{"choices": [`), status: judge.StatusError, errPart: "malformed completion", attempts: 1},
		{name: "an HTML page", reply: raw(200, `<html>bad gateway</html>`), status: judge.StatusError, errPart: "answered with an HTML page", attempts: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fake.NewOpenAI(t, tt.reply)
			o := openOpenAI(t, f, judge.Config{Retries: tt.retries})
			resp := o.Judge(context.Background(), fake.TwoRules())
			if resp.Status != tt.status || !strings.Contains(resp.Error, tt.errPart) || resp.Attempts != tt.attempts {
				t.Fatalf("got %q %q attempts %d; want %q containing %q, %d attempts", resp.Status, resp.Error, resp.Attempts, tt.status, tt.errPart, tt.attempts)
			}
			if len(f.Requests()) != tt.attempts {
				t.Fatalf("%d requests for %d attempts", len(f.Requests()), tt.attempts)
			}
			if o.StructuredMode() != judge.ModeJSONSchema {
				t.Fatalf("mode changed to %s", o.StructuredMode())
			}
		})
	}
}

func TestOpenAITimeoutAndRefused(t *testing.T) {
	t.Parallel()
	f := fake.NewOpenAI(t, func(int, map[string]any) fake.Reply { return fake.Reply{Delay: 5 * time.Second} })
	o := openOpenAI(t, f, judge.Config{Timeout: 120 * time.Millisecond, Retries: 1})
	resp := o.Judge(context.Background(), fake.TwoRules())
	if resp.Status != judge.StatusTimeout || resp.Attempts != 2 {
		t.Fatalf("status %q attempts %d (%s)", resp.Status, resp.Attempts, resp.Error)
	}
	// Two timeouts and one 100 ms backoff.
	if resp.Latency < 340*time.Millisecond {
		t.Fatalf("latency %v, want ≈ 2×120ms + 100ms", resp.Latency)
	}
	fake.Within(t, "two timeouts and a backoff", resp.Latency, 1500*time.Millisecond)
	f.Close()
	r := o.Judge(context.Background(), fake.TwoRules())
	if r.Status != judge.StatusError || !strings.Contains(r.Error, "connect") {
		t.Fatalf("closed server: %q %q", r.Status, r.Error)
	}
}

func TestOpenAIFormatFallback(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		refuse  []string // response_format types the server refuses
		mode    string
		message string
	}{
		{name: "json_object", refuse: []string{"json_schema"}, mode: judge.ModeJSONObject, message: "response_format json_schema is not supported"},
		{name: "none", refuse: []string{"json_schema", "json_object"}, mode: judge.ModeNone, message: "response_format is not supported by this model"},
		{name: "first call with an unexplained 422", refuse: []string{"json_schema"}, mode: judge.ModeJSONObject, message: "Unprocessable Entity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fake.NewOpenAI(t, func(n int, body map[string]any) fake.Reply {
				rf, _ := body["response_format"].(map[string]any)
				for _, typ := range tt.refuse {
					if rf != nil && rf["type"] == typ {
						return fake.Reply{Status: http.StatusUnprocessableEntity, Raw: `{"error":{"message":"` + tt.message + `"}}`}
					}
				}
				return fake.EchoReply(n, body)
			})
			var log fake.SyncBuffer
			o := openOpenAI(t, f, judge.Config{Log: &log})
			// Concurrent first calls: the mode steps down once per level.
			var wg sync.WaitGroup
			for i := 0; i < 8; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if r := o.Judge(context.Background(), fake.TwoRules()); r.Status != judge.StatusOK {
						t.Errorf("%+v", r)
					}
				}()
			}
			wg.Wait()
			if o.StructuredMode() != tt.mode {
				t.Fatalf("mode %q, want %q", o.StructuredMode(), tt.mode)
			}
			if got := strings.Count(log.String(), "refused structured output"); got != len(tt.refuse) {
				t.Fatalf("%d fallback warnings, want %d: %s", got, len(tt.refuse), log.String())
			}
			before := len(f.Requests())
			if r := o.Judge(context.Background(), fake.TwoRules()); r.Status != judge.StatusOK {
				t.Fatalf("%+v", r)
			}
			bodies := f.Requests()
			if len(bodies) != before+1 {
				t.Fatal("a call after the fallback was refused again")
			}
			last := bodies[len(bodies)-1]
			hasRF := bytes.Contains(last, []byte(`"response_format"`))
			if (tt.mode == judge.ModeNone) == hasRF {
				t.Fatalf("mode %s but body %s", tt.mode, last)
			}
		})
	}
}

func TestOpenAIConfirmedModeKept(t *testing.T) {
	t.Parallel()
	f := fake.NewOpenAI(t, func(n int, body map[string]any) fake.Reply {
		if n == 1 {
			return fake.Reply{Status: 400, Raw: `{"error":{"message":"This model's maximum context length is 4096 tokens"}}`}
		}
		return fake.EchoReply(n, body)
	})
	o := openOpenAI(t, f, judge.Config{})
	if r := o.Judge(context.Background(), fake.TwoRules()); r.Status != judge.StatusOK {
		t.Fatalf("%+v", r)
	}
	if r := o.Judge(context.Background(), fake.TwoRules()); r.Status != judge.StatusError || !strings.Contains(r.Error, "HTTP 400") {
		t.Fatalf("%+v", r)
	}
	if o.StructuredMode() != judge.ModeJSONSchema {
		t.Fatalf("a 400 unrelated to the format dropped the mode to %s", o.StructuredMode())
	}
}

// A server that quotes the key back in its error must not get the key into
// any error text: the key apeval sends is masked by its value.
func TestKeyQuotedBackIsMasked(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+key+`. You can find your key at https://example.com/keys?k=`+key+`"}}`)
	}))
	defer srv.Close()
	var log bytes.Buffer
	j, err := New("m", judge.DefaultPrompt(), judge.Config{OpenAIBaseURL: srv.URL + "/v1", OpenAIKeyEnv: "APEVAL_TEST_KEY", Getenv: fake.KeyEnv(testKey), Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	resp := j.Judge(context.Background(), fake.TwoRules())
	if resp.Status != judge.StatusError || strings.Contains(resp.Error, testKey) || strings.Contains(resp.Error, "3f9Kq82") {
		t.Fatalf("key in the call's error: %+v", resp)
	}
	if !strings.Contains(resp.Error, "Incorrect API key provided: [MASKED]") {
		t.Fatalf("error lost its message: %q", resp.Error)
	}
	err = j.StartupCheck(context.Background())
	if err == nil || strings.Contains(err.Error(), testKey) {
		t.Fatalf("startup check: %v", err)
	}
	_, err = j.ListModels(context.Background())
	if err == nil || strings.Contains(err.Error(), testKey) {
		t.Fatalf("list models: %v", err)
	}
	if strings.Contains(log.String(), testKey) {
		t.Fatalf("key in the log: %s", log.String())
	}
}

// The API key never follows a redirect to another scheme, host or port;
// the redirect is followed without it, with a warning.
func TestKeyNotForwardedAcrossRedirects(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var otherAuth []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		otherAuth = append(otherAuth, r.Header.Get("Authorization"))
		mu.Unlock()
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"message":"no key"}}`)
	}))
	defer other.Close()
	// Same host (127.0.0.1), another port.
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer first.Close()
	// https → http on the same host and port is covered by sameOrigin below.
	var log bytes.Buffer
	j, err := New("m", judge.DefaultPrompt(), judge.Config{OpenAIBaseURL: first.URL + "/v1", OpenAIKeyEnv: "APEVAL_TEST_KEY", Getenv: fake.KeyEnv(testKey), Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	j.Judge(context.Background(), fake.TwoRules())
	j.Judge(context.Background(), fake.TwoRules())
	_, _ = j.ListModels(context.Background())
	mu.Lock()
	defer mu.Unlock()
	if len(otherAuth) != 3 {
		t.Fatalf("redirect not followed: %d requests", len(otherAuth))
	}
	for _, a := range otherAuth {
		if a != "" {
			t.Fatalf("the key went to another port: %q", a)
		}
	}
	if n := strings.Count(log.String(), "not sending the API key"); n != 1 {
		t.Fatalf("want one warning, got %d: %s", n, log.String())
	}
}

func TestSameOrigin(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		from, to string
		same     bool
	}{
		{"https://api.example.com/v1/chat", "https://api.example.com/v2/chat", true},
		{"https://api.example.com/v1", "https://API.example.com:443/v1", true},
		{"http://127.0.0.1:8000/v1", "http://127.0.0.1:8001/v1", false},
		{"https://api.example.com/v1", "http://api.example.com/v1", false},
		{"https://api.example.com/v1", "https://evil.example.com/v1", false},
		{"https://api.example.com/v1", "https://sub.api.example.com/v1", false},
	} {
		f, _ := http.NewRequest("GET", c.from, nil)
		to, _ := http.NewRequest("GET", c.to, nil)
		if got := sameOrigin(f.URL, to.URL); got != c.same {
			t.Errorf("%s → %s: same %v, want %v", c.from, c.to, got, c.same)
		}
	}
}

// Control and escape sequences in an error body reach no terminal or
// report raw: they are quoted as the invalid-answer path quotes.
func TestErrorBodyControlSequencesQuoted(t *testing.T) {
	t.Parallel()
	body := "bad gateway \x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2K\r done\x9b1m"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, body)
	}))
	defer srv.Close()
	j, err := New("m", judge.DefaultPrompt(), judge.Config{OpenAIBaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	resp := j.Judge(context.Background(), fake.TwoRules())
	for _, r := range resp.Error {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			t.Fatalf("raw control %U in %q", r, resp.Error)
		}
	}
	if !strings.Contains(resp.Error, `\x1b]52;c;`) || !strings.Contains(resp.Error, "bad gateway") {
		t.Fatalf("error %q", resp.Error)
	}
	if got := judge.BriefError("a\u202eb\u2028c"); strings.ContainsAny(got, "\u202e\u2028") {
		t.Fatalf("bidi/line separators kept: %q", got)
	}
}

const testKey = "gw-live-3f9Kq82LmZpXw7RtY"
