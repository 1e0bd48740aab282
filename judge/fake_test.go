package judge

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// reply is what a fake server answers to one chat call: an HTTP status, the
// model's answer text (wrapped in the backend's envelope) or a raw body, and
// a delay before answering.
type reply struct {
	status  int
	content string // model answer text, wrapped in the wire envelope
	raw     string // sent as is instead of an envelope
	delay   time.Duration
	// Faults (fault_test.go): send half the body and cut the connection;
	// send the body in small pieces, pausing slow between them; send huge
	// bytes of padding instead of the body; extra response headers.
	reset  bool
	slow   time.Duration
	huge   int
	header map[string]string
}

// writeBody sends body as rep says: whole, cut off, slowly or as a flood.
func writeBody(w http.ResponseWriter, r *http.Request, rep reply, body string) {
	switch {
	case rep.reset:
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
	case rep.huge > 0:
		chunk := strings.Repeat("x", 64<<10)
		for sent := 0; sent < rep.huge && r.Context().Err() == nil; sent += len(chunk) {
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
	case rep.slow > 0:
		fl, _ := w.(http.Flusher)
		for i := 0; i < len(body); i += 8 {
			io.WriteString(w, body[i:min(i+8, len(body))])
			if fl != nil {
				fl.Flush()
			}
			wait(r, rep.slow)
			if r.Context().Err() != nil {
				return
			}
		}
	default:
		io.WriteString(w, body)
	}
}

// replyFunc decides the reply to the n-th chat call (0-based) given its
// decoded request body.
type replyFunc func(n int, body map[string]any) reply

// fakeServer records every request body of its chat endpoint.
type fakeServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
	auth   []string
	reply  replyFunc
}

func (f *fakeServer) record(r *http.Request) ([]byte, int, map[string]any, error) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, 0, nil, err
	}
	f.mu.Lock()
	n := len(f.bodies)
	f.bodies = append(f.bodies, b)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.mu.Unlock()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return b, n, nil, err
	}
	return b, n, m, nil
}

func (f *fakeServer) requests() [][]byte {
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

// echoAnswer answers every asked rule: rules whose condition contains
// "delete" match, the others do not.
func echoAnswer(user string) string {
	_, rest, _ := strings.Cut(user, "<data>")
	inner, _, _ := strings.Cut(rest, "</data>")
	var in Input
	if err := json.Unmarshal([]byte(inner), &in); err != nil {
		return "cannot read data: " + err.Error()
	}
	out := Output{Version: 1, Decisions: []Decision{}}
	for _, r := range in.Rules {
		res := NoMatch
		if strings.Contains(r.Condition, "delete") {
			res = Match
		}
		out.Decisions = append(out.Decisions, Decision{RuleID: r.ID, Result: res, Confidence: ptr(0.75)})
	}
	b, _ := json.Marshal(out) // Output always encodes
	return string(b)
}

// userMessage returns the user message of a chat request body.
func userMessage(body map[string]any) string {
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

func echoReply(_ int, body map[string]any) reply {
	return reply{content: echoAnswer(userMessage(body))}
}

const fakeDigest = "a6990ed6be412c6a986e8f5f9c3a1f1a4d1a42c4b1a6a0d6d0e1d2c3b4a59687"

// newFakeOllama serves /api/tags, /api/show and /api/chat like Ollama: every
// body compact and on one line, because the client reads line by line.
func newFakeOllama(t testing.TB, rf replyFunc) *fakeServer {
	t.Helper()
	f := &fakeServer{reply: rf}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/tags", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"models":[{"name":"qwen2.5:3b","model":"qwen2.5:3b","modified_at":"2026-07-01T10:00:00Z","size":1929912432,"digest":"%s","details":{"parent_model":"","format":"gguf","family":"qwen2","families":["qwen2"],"parameter_size":"3.1B","quantization_level":"Q4_K_M"}},{"name":"llama3:latest","model":"llama3:latest","digest":"365c0bd3c000a25d28ddbf732fe1c6add414de7275464c4e4d1c3b5fcb5d8ad1","details":{"family":"llama"}}]}`+"\n", fakeDigest)
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
		wait(r, rep.delay)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		for k, v := range rep.header {
			w.Header().Set(k, v)
		}
		if rep.status != 0 && rep.status != http.StatusOK {
			w.WriteHeader(rep.status)
		}
		if rep.raw != "" {
			writeBody(w, r, rep, rep.raw+"\n")
			return
		}
		content, _ := json.Marshal(rep.content) // a string always encodes
		writeBody(w, r, rep, fmt.Sprintf(`{"model":"qwen2.5:3b","created_at":"2026-07-24T10:00:00.123Z","message":{"role":"assistant","content":%s},"done_reason":"stop","done":true,"total_duration":412500000,"load_duration":12000000,"prompt_eval_count":231,"prompt_eval_duration":150000000,"eval_count":48,"eval_duration":240000000}`+"\n", content))
	})
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}

// newFakeOpenAI serves /v1/chat/completions and /v1/models like an
// OpenAI-compatible server.
func newFakeOpenAI(t testing.TB, rf replyFunc) *fakeServer {
	t.Helper()
	f := &fakeServer{reply: rf}
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
		wait(r, rep.delay)
		for k, v := range rep.header {
			w.Header().Set(k, v)
		}
		if rep.status != 0 && rep.status != http.StatusOK {
			w.WriteHeader(rep.status)
		}
		if rep.raw != "" {
			writeBody(w, r, rep, rep.raw)
			return
		}
		content, _ := json.Marshal(rep.content) // a string always encodes
		writeBody(w, r, rep, fmt.Sprintf(`{"id":"chatcmpl-%d","object":"chat.completion","created":1753351200,"model":%q,"system_fingerprint":"fp_44709d6fcb","choices":[{"index":0,"message":{"role":"assistant","content":%s,"refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":231,"completion_tokens":48,"total_tokens":279}}`, n, body["model"], content))
	})
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}
