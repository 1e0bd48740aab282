// Package fake holds the test doubles the judge backends' tests share:
// httptest servers speaking Ollama's and OpenAI's wire formats with
// scripted replies and faults (resets, slow and huge bodies, headers), and
// small helpers. Tests only. judge/judgetest is the other fake: a judge
// that decides by a function, for tests outside judge (the command's);
// this one scripts the wire, call by call, for the backends' own tests.
package fake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apeval/apeval/judge/core"
)

// Reply is what a fake server answers to one chat call: an HTTP status, the
// model's answer text (wrapped in the backend's envelope) or a raw body, and
// a delay before answering.
type Reply struct {
	Status  int
	Content string // model answer text, wrapped in the wire envelope
	Raw     string // sent as is instead of an envelope
	Delay   time.Duration
	// Faults: send half the body and cut the connection; send the body in
	// small pieces, pausing Slow between them; send Huge bytes of padding
	// instead of the body; extra response headers.
	Reset  bool
	Slow   time.Duration
	Huge   int
	Header map[string]string
}

// writeBody sends body as rep says: whole, cut off, slowly or as a flood.
func writeBody(w http.ResponseWriter, r *http.Request, rep Reply, body string) {
	switch {
	case rep.Reset:
		// Cut after the status and the complete lines of the first half:
		// what a connection reset after a 200 leaves a line reader.
		if fl, ok := w.(http.Flusher); ok {
			half := body[:len(body)/2]
			io.WriteString(w, half[:strings.LastIndexByte(half, '\n')+1])
			fl.Flush()
		}
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
			}
		}
	case rep.Huge > 0:
		chunk := strings.Repeat("x", 64<<10)
		for sent := 0; sent < rep.Huge && r.Context().Err() == nil; sent += len(chunk) {
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
	case rep.Slow > 0:
		fl, _ := w.(http.Flusher)
		for i := 0; i < len(body); i += 8 {
			io.WriteString(w, body[i:min(i+8, len(body))])
			if fl != nil {
				fl.Flush()
			}
			wait(r, rep.Slow)
			if r.Context().Err() != nil {
				return
			}
		}
	default:
		io.WriteString(w, body)
	}
}

// ReplyFunc decides the Reply to the n-th chat call (0-based) given its
// decoded request body.
type ReplyFunc func(n int, body map[string]any) Reply

// Server records every request body of its chat endpoint.
type Server struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
	// Auth lists each chat call's Authorization header.
	Auth  []string
	reply ReplyFunc
}

func (f *Server) record(r *http.Request) ([]byte, int, map[string]any, error) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, 0, nil, err
	}
	f.mu.Lock()
	n := len(f.bodies)
	f.bodies = append(f.bodies, b)
	f.Auth = append(f.Auth, r.Header.Get("Authorization"))
	f.mu.Unlock()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return b, n, nil, err
	}
	return b, n, m, nil
}

// Requests returns the chat request bodies received so far.
func (f *Server) Requests() [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]byte(nil), f.bodies...)
}

// wait sleeps for d unless the client goes away first.
func wait(r *http.Request, d time.Duration) {
	if d <= 0 {
		return
	}
	select {
	case <-time.After(d):
	case <-r.Context().Done():
	}
}

// EchoAnswer answers every asked rule: rules whose condition contains
// "delete" match, the others do not.
func EchoAnswer(user string) string {
	_, rest, _ := strings.Cut(user, "<data>")
	inner, _, _ := strings.Cut(rest, "</data>")
	var in core.Input
	if err := json.Unmarshal([]byte(inner), &in); err != nil {
		return "cannot read data: " + err.Error()
	}
	out := core.Output{Version: 1, Decisions: []core.Decision{}}
	for _, r := range in.Rules {
		res := core.NoMatch
		if strings.Contains(r.Condition, "delete") {
			res = core.Match
		}
		out.Decisions = append(out.Decisions, core.Decision{RuleID: r.ID, Result: res, Confidence: Ptr(0.75)})
	}
	b, _ := json.Marshal(out) // Output always encodes
	return string(b)
}

// UserMessage returns the user message of a chat request body.
func UserMessage(body map[string]any) string {
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		if mm["role"] == "user" {
			s, _ := mm["content"].(string)
			return s
		}
	}
	return ""
}

// EchoReply answers with EchoAnswer of the user message.
func EchoReply(_ int, body map[string]any) Reply {
	return Reply{Content: EchoAnswer(UserMessage(body))}
}

// Digest is the fake Ollama's model digest.
const Digest = "a6990ed6be412c6a986e8f5f9c3a1f1a4d1a42c4b1a6a0d6d0e1d2c3b4a59687"

// NewOllama serves /api/tags, /api/show and /api/chat like Ollama: every
// body compact and on one line, because the client reads line by line.
func NewOllama(t testing.TB, rf ReplyFunc) *Server {
	t.Helper()
	f := &Server{reply: rf}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/tags", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"models":[{"name":"qwen2.5:3b","model":"qwen2.5:3b","modified_at":"2026-07-01T10:00:00Z","size":1929912432,"digest":"%s","details":{"parent_model":"","format":"gguf","family":"qwen2","families":["qwen2"],"parameter_size":"3.1B","quantization_level":"Q4_K_M"}},{"name":"llama3:latest","model":"llama3:latest","digest":"365c0bd3c000a25d28ddbf732fe1c6add414de7275464c4e4d1c3b5fcb5d8ad1","details":{"family":"llama"}}]}`+"\n", Digest)
	})
	mux.HandleFunc("POST /api/show", func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Model string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, `{"modelfile":"FROM %s","parameters":"stop \"<|im_end|>\"","template":"{{ .Prompt }}","details":{"parent_model":"","format":"gguf","family":"qwen2","families":["qwen2"],"parameter_size":"3.1B","quantization_level":"Q4_K_M"},"model_info":{"general.architecture":"qwen2"},"capabilities":["completion","tools"],"modified_at":"2026-07-01T10:00:00Z"}`+"\n", req.Model)
	})
	mux.HandleFunc("POST /api/chat", func(w http.ResponseWriter, r *http.Request) {
		_, n, body, err := f.record(r)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":%q}`+"\n", err.Error())
			return
		}
		rep := f.reply(n, body)
		wait(r, rep.Delay)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		for k, v := range rep.Header {
			w.Header().Set(k, v)
		}
		if rep.Status != 0 && rep.Status != http.StatusOK {
			w.WriteHeader(rep.Status)
		}
		if rep.Raw != "" {
			writeBody(w, r, rep, rep.Raw+"\n")
			return
		}
		content, _ := json.Marshal(rep.Content) // a string always encodes
		writeBody(w, r, rep, fmt.Sprintf(`{"model":"qwen2.5:3b","created_at":"2026-07-24T10:00:00.123Z","message":{"role":"assistant","content":%s},"done_reason":"stop","done":true,"total_duration":412500000,"load_duration":12000000,"prompt_eval_count":231,"prompt_eval_duration":150000000,"eval_count":48,"eval_duration":240000000}`+"\n", content))
	})
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}

// NewOpenAI serves /v1/chat/completions and /v1/models like an
// OpenAI-compatible server.
func NewOpenAI(t testing.TB, rf ReplyFunc) *Server {
	t.Helper()
	f := &Server{reply: rf}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"object":"list","data":[{"id":"judge-small","object":"model","created":1753351200,"owned_by":"vllm"},{"id":"judge-large","object":"model","created":1753351200,"owned_by":"vllm"}]}`)
	})
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		_, n, body, err := f.record(r)
		w.Header().Set("Content-Type", "application/json")
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error"}}`, err.Error())
			return
		}
		rep := f.reply(n, body)
		wait(r, rep.Delay)
		for k, v := range rep.Header {
			w.Header().Set(k, v)
		}
		if rep.Status != 0 && rep.Status != http.StatusOK {
			w.WriteHeader(rep.Status)
		}
		if rep.Raw != "" {
			writeBody(w, r, rep, rep.Raw)
			return
		}
		content, _ := json.Marshal(rep.Content) // a string always encodes
		writeBody(w, r, rep, fmt.Sprintf(`{"id":"chatcmpl-%d","object":"chat.completion","created":1753351200,"model":%q,"system_fingerprint":"fp_44709d6fcb","choices":[{"index":0,"message":{"role":"assistant","content":%s,"refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":231,"completion_tokens":48,"total_tokens":279}}`, n, body["model"], content))
	})
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}

// TwoRules is a request asking two rules about `rm -rf build`.
func TwoRules() core.Request {
	return core.Request{Input: core.Input{Version: 1, Rules: []core.Rule{
		{ID: "rule-12", Condition: "is about to delete something hard to restore"},
		{ID: "rule-18", Condition: "sends data outside the company"},
	}, Current: core.Current{HookPoint: "tool.before", Tool: core.Tool{Name: "Bash", Category: "command_execution",
		Arguments: map[string]any{"command": "rm -rf build"}}}}}
}

// Ptr returns a pointer to f (a decision's confidence).
func Ptr(f float64) *float64 { return &f }

// EqualDecisions compares decisions by their JSON.
func EqualDecisions(a, b []core.Decision) bool { return JS(a) == JS(b) }

// JS renders v as JSON, or the encoding error.
func JS(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// SyncBuffer is a bytes.Buffer safe for concurrent writers.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Within checks a wall-clock upper bound: d ≤ limit. Only `make bench`
// (-tags timing) fails on it; `make test` logs it, since no unit test may
// depend on how loaded the machine is. Lower bounds (a call waited at least
// its server's delay) hold under any load and are asserted directly.
func Within(t testing.TB, what string, d, limit time.Duration) {
	t.Helper()
	if d <= limit {
		return
	}
	if timingChecks {
		t.Errorf("%s took %v, over %v", what, d, limit)
		return
	}
	t.Logf("%s took %v, over %v (asserted only under -tags timing: make bench)", what, d, limit)
}

// KeyEnv is an environment holding k in APEVAL_TEST_KEY.
func KeyEnv(k string) func(string) string {
	return func(name string) string {
		if name == "APEVAL_TEST_KEY" {
			return k
		}
		return ""
	}
}

// dataOf extracts and decodes the <data> block of a rendered user message.
func DataOf(t testing.TB, user string) core.Input {
	t.Helper()
	if strings.Count(user, "<data>") != 1 || strings.Count(user, "</data>") != 1 {
		t.Fatalf("user message must hold exactly one data fence:\n%s", user)
	}
	_, rest, _ := strings.Cut(user, "<data>")
	inner, _, _ := strings.Cut(rest, "</data>")
	var in core.Input
	if err := json.Unmarshal([]byte(inner), &in); err != nil {
		t.Fatalf("data block is not the input JSON: %v\n%s", err, inner)
	}
	return in
}
