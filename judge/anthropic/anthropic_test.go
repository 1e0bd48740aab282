package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apeval/apeval/judge"
)

// fakeAPI is an httptest server speaking the Messages API's wire format:
// POST /v1/messages with x-api-key and anthropic-version, answers and
// error objects as the API sends them.
type fakeAPI struct {
	*httptest.Server
	mu    sync.Mutex
	reqs  []map[string]any
	heads []http.Header
	times []time.Time
}

// answer is what the fake sends for request n: a status, extra headers and
// a body.
type answer struct {
	status int
	header map[string]string
	body   string
}

func newFakeAPI(t *testing.T, reply func(n int, req map[string]any) answer) *fakeAPI {
	t.Helper()
	f := &fakeAPI{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"type":"error","error":{"type":"not_found_error","message":"Not found"}}`)
			return
		}
		b, _ := io.ReadAll(r.Body)
		var req map[string]any
		if err := json.Unmarshal(b, &req); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","message":%q}}`, err.Error())
			return
		}
		f.mu.Lock()
		n := len(f.reqs)
		f.reqs, f.heads, f.times = append(f.reqs, req), append(f.heads, r.Header.Clone()), append(f.times, time.Now())
		f.mu.Unlock()
		a := reply(n, req)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("request-id", fmt.Sprintf("req_%04d", n))
		for k, v := range a.header {
			w.Header().Set(k, v)
		}
		if a.status == 0 {
			a.status = http.StatusOK
		}
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
	}))
	t.Cleanup(f.Close)
	return f
}

// toolUse is a 200 message whose content is a tool_use block with input.
func toolUse(input string) answer {
	return answer{body: `{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"claude-haiku-4-5",` +
		`"content":[{"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9","name":"judge_output","input":` + input + `}],` +
		`"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":812,"output_tokens":41}}`}
}

func apiError(status int, typ, msg string, header map[string]string) answer {
	return answer{status: status, header: header, body: fmt.Sprintf(`{"type":"error","error":{"type":%q,"message":%q},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}`, typ, msg)}
}

const twoDecisions = `{"version":1,"decisions":[{"rule_id":"del","result":"match","confidence":0.9},{"rule_id":"send","result":"no_match","confidence":0.8}]}`

func request() judge.Request {
	return judge.Request{Input: judge.Input{Version: judge.SchemaVersion,
		Rules:   []judge.Rule{{ID: "del", Condition: "deletes files"}, {ID: "send", Condition: "sends data out"}},
		Current: judge.Current{Tool: judge.Tool{Name: "Bash", ArgumentsSummary: "rm -rf build"}}}}
}

// open opens the backend through the registry, as `--judge anthropic:MODEL@URL` does.
func open(t *testing.T, f *fakeAPI, cfg judge.Config) judge.Judge {
	t.Helper()
	cfg.Server = f.URL
	if cfg.Getenv == nil {
		cfg.Getenv = func(k string) string {
			if k == "ANTHROPIC_API_KEY" {
				return "sk-ant-api03-EXAMPLEKEYabcdefghijklmnop"
			}
			return ""
		}
	}
	j, err := judge.Open(context.Background(), "anthropic:claude-haiku-4-5", cfg)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func TestRegistered(t *testing.T) {
	t.Parallel()
	b, ok := judge.Lookup("anthropic")
	if !ok || !b.Server || !b.Live || !b.Prompt || b.KeyEnv != "ANTHROPIC_API_KEY" {
		t.Fatalf("registry entry %+v, %v", b, ok)
	}
	if !strings.Contains(judge.SpecForms(), "anthropic:MODEL") {
		t.Errorf("spec forms %q lack anthropic:MODEL", judge.SpecForms())
	}
}

func TestMessagesRequestAndAnswer(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t, func(int, map[string]any) answer { return toolUse(twoDecisions) })
	j := open(t, f, judge.Config{Options: map[string]string{"max_tokens": "512"}})
	if got := j.Identity().String(); !strings.HasPrefix(got, "anthropic/claude-haiku-4-5+") {
		t.Errorf("identity %q", got)
	}
	r := j.Judge(context.Background(), request())
	if r.Status != judge.StatusOK || len(r.Decisions) != 2 || r.Decisions[0].Result != judge.Match || r.Decisions[1].Result != judge.NoMatch {
		t.Fatalf("response %+v", r)
	}
	if r.Server.PromptTokens != 812 || r.Server.CompletionTokens != 41 || r.Attempts != 1 {
		t.Errorf("usage %+v, attempts %d", r.Server, r.Attempts)
	}
	h, req := f.heads[0], f.reqs[0]
	if h.Get("x-api-key") != "sk-ant-api03-EXAMPLEKEYabcdefghijklmnop" || h.Get("anthropic-version") != "2023-06-01" || h.Get("Authorization") != "" {
		t.Errorf("headers %v", h)
	}
	if req["model"] != "claude-haiku-4-5" || req["max_tokens"] != float64(512) || req["temperature"] != float64(0) || req["system"] == "" {
		t.Errorf("body %v", req)
	}
	msgs, _ := req["messages"].([]any)
	if len(msgs) != 1 || msgs[0].(map[string]any)["role"] != "user" {
		t.Errorf("messages %v", req["messages"])
	}
	tc, _ := req["tool_choice"].(map[string]any)
	tools, _ := req["tools"].([]any)
	if tc["type"] != "tool" || tc["name"] != "judge_output" || len(tools) != 1 {
		t.Fatalf("tool_choice %v tools %v", tc, tools)
	}
	schema, _ := tools[0].(map[string]any)["input_schema"].(map[string]any)
	if schema["type"] != "object" || !strings.Contains(fmt.Sprint(schema), "del") {
		t.Errorf("input_schema %v", schema)
	}
}

func TestOverloadedAndRateLimitedAreRetried(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t, func(n int, _ map[string]any) answer {
		switch n {
		case 0:
			return apiError(529, "overloaded_error", "Overloaded", nil)
		case 1:
			return apiError(429, "rate_limit_error", "This request would exceed your rate limit.", map[string]string{"retry-after": "1"})
		}
		return toolUse(twoDecisions)
	})
	j := open(t, f, judge.Config{Retries: 2})
	r := j.Judge(context.Background(), request())
	if r.Status != judge.StatusOK || r.Attempts != 3 {
		t.Fatalf("status %s after %d attempts: %s", r.Status, r.Attempts, r.Error)
	}
	// The third attempt waited for the server's retry-after (a lower bound:
	// it holds under any load).
	if gap := f.times[2].Sub(f.times[1]); gap < time.Second {
		t.Errorf("retried %v after the 429, before its retry-after of 1 s", gap)
	}

	// Out of retries: the cause says why, and neither is a broken setup.
	g := newFakeAPI(t, func(int, map[string]any) answer { return apiError(529, "overloaded_error", "Overloaded", nil) })
	r = open(t, g, judge.Config{}).Judge(context.Background(), request())
	if r.Status != judge.StatusError || r.Cause != judge.CauseServer || r.Cause.Setup() != "" || !strings.Contains(r.Error, "HTTP 529: overloaded_error: Overloaded") {
		t.Fatalf("overloaded: %+v", r)
	}
	h := newFakeAPI(t, func(int, map[string]any) answer {
		return apiError(429, "rate_limit_error", "slow down", map[string]string{"retry-after": "30"})
	})
	r = open(t, h, judge.Config{}).Judge(context.Background(), request())
	if r.Cause != judge.CauseRateLimited || r.Cause.Setup() != "" {
		t.Fatalf("rate limited: %+v", r)
	}
}

func TestErrorShapes(t *testing.T) {
	t.Parallel()
	const key = "sk-ant-api03-EXAMPLEKEYabcdefghijklmnop"
	for _, tt := range []struct {
		name   string
		ans    answer
		status judge.Status
		cause  judge.Cause
		text   string
	}{
		{"bad key quoted back", apiError(401, "authentication_error", "invalid x-api-key "+key, nil), judge.StatusError, judge.CauseUnauthorized, "authentication_error"},
		{"no access", apiError(403, "permission_error", "Your API key does not have permission to use the specified resource.", nil), judge.StatusError, judge.CauseForbidden, "permission_error"},
		{"no such model", apiError(404, "not_found_error", "model: claude-typo", nil), judge.StatusError, judge.CauseNotFound, "not_found_error"},
		{"bad request", apiError(400, "invalid_request_error", "max_tokens: 99999999 > 64000", nil), judge.StatusError, judge.CauseClient, "invalid_request_error"},
		{"web page", answer{status: 200, header: map[string]string{"Content-Type": "text/html"}, body: "<!DOCTYPE html><html><head><title>Sign in</title></head><body></body></html>"}, judge.StatusError, judge.CauseNotTheAPI, "HTML page"},
		{"text, no tool call", answer{body: `{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"I think it matches."}],"stop_reason":"end_turn","usage":{"input_tokens":5,"output_tokens":6}}`}, judge.StatusInvalid, judge.CauseInvalid, "called no judge_output tool; it wrote: I think it matches."},
		{"cut at max_tokens", answer{body: `{"id":"msg_1","type":"message","role":"assistant","content":[],"stop_reason":"max_tokens","usage":{"input_tokens":5,"output_tokens":1024}}`}, judge.StatusInvalid, judge.CauseInvalid, "max_tokens"},
		{"schema broken", toolUse(`{"version":1,"decisions":[{"rule_id":"del","result":"maybe"}]}`), judge.StatusInvalid, judge.CauseInvalid, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t, func(int, map[string]any) answer { return tt.ans })
			r := open(t, f, judge.Config{Retries: 1}).Judge(context.Background(), request())
			if r.Status != tt.status || r.CauseOf() != tt.cause || !strings.Contains(r.Error, tt.text) {
				t.Fatalf("got %s %s %q, want %s %s containing %q", r.Status, r.CauseOf(), r.Error, tt.status, tt.cause, tt.text)
			}
			if r.Attempts != 1 {
				t.Errorf("%d attempts: a %s is not retried", r.Attempts, tt.cause)
			}
			if strings.Contains(r.Error, key) {
				t.Errorf("the key reached the message: %q", r.Error)
			}
		})
	}
}

// The API key never follows a redirect to another host.
func TestKeyNotSentAcrossRedirects(t *testing.T) {
	t.Parallel()
	var got string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Get("x-api-key") + "|seen"
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, toolUse(twoDecisions).body)
	}))
	t.Cleanup(other.Close)
	f := newFakeAPI(t, func(int, map[string]any) answer {
		return answer{status: http.StatusTemporaryRedirect, header: map[string]string{"Location": strings.Replace(other.URL, "127.0.0.1", "localhost", 1) + "/v1/messages"}}
	})
	r := open(t, f, judge.Config{}).Judge(context.Background(), request())
	if got != "|seen" {
		t.Fatalf("the other host got x-api-key %q (response %s %s)", got, r.Status, r.Error)
	}
}
