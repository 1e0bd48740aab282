// Package judgetest runs fake judge servers that speak the real wire formats
// (Ollama /api/tags, /api/show, /api/chat; OpenAI-compatible /v1/models and
// /v1/chat/completions), for end-to-end tests and benchmarks of the judge
// stage without a model. They decode the judge input from the prompt's
// <data> block and answer with a decision function.
//
// Not a stable Go API: apeval is a command, and this package serves it;
// its exported names change with the command, without a compatibility
// promise between versions.
package judgetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apeval/apeval/judge"
)

// Reply overrides the answer to one call.
type Reply struct {
	Status  int           // HTTP status; 0 means 200
	Content string        // the model's answer text, wrapped in the wire envelope
	Raw     string        // sent as the body instead of an envelope
	Delay   time.Duration // added to Options.Delay
}

// Options configure a fake server.
type Options struct {
	// Model is the model name served; default "fake-judge" (Ollama lists it
	// as "fake-judge:latest" when it has no tag).
	Model string
	// Digest is the Ollama model digest (64 hex digits); a fixed default.
	Digest string
	// Delay is how long every call takes.
	Delay time.Duration
	// Decide answers a decoded input; default Keywords.
	Decide func(judge.Input) judge.Output
	// Reply, when set and returning non-nil, replaces the answer to call n
	// (0-based): failures, slow calls, malformed answers.
	Reply func(n int, in judge.Input) *Reply
	// Record keeps every chat request body (Bodies); off by default so a
	// benchmark server stays lean.
	Record bool
}

// DefaultDigest is the digest a fake Ollama reports unless told otherwise.
const DefaultDigest = "5f2b3e5d6a7c8b9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f"

// Fake is a fake judge API as an http.Handler, to serve on any listener.
type Fake struct {
	http.Handler
	calls  atomic.Int64
	mu     sync.Mutex
	bodies [][]byte
	opts   Options
}

// Server is a fake judge API running on a local test server.
type Server struct {
	*httptest.Server
	*Fake
}

// Calls is the number of chat calls received so far.
func (s *Fake) Calls() int64 { return s.calls.Load() }

// Bodies returns the recorded chat request bodies (Options.Record).
func (s *Fake) Bodies() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.bodies...)
}

func newFake(opts Options) *Fake {
	if opts.Model == "" {
		opts.Model = "fake-judge"
	}
	if opts.Digest == "" {
		opts.Digest = DefaultDigest
	}
	if opts.Decide == nil {
		opts.Decide = Keywords
	}
	return &Fake{opts: opts}
}

// chatRequest is the part of both backends' request bodies a fake reads.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
}

// answer reads a chat request and decides the reply.
func (s *Fake) answer(w http.ResponseWriter, r *http.Request) (Reply, bool) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return Reply{}, false
	}
	n := s.calls.Add(1) - 1
	if s.opts.Record {
		s.mu.Lock()
		s.bodies = append(s.bodies, body)
		s.mu.Unlock()
	}
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return Reply{Status: http.StatusBadRequest, Raw: fmt.Sprintf(`{"error":%q}`, err.Error())}, true
	}
	var in judge.Input
	for _, m := range req.Messages {
		if m.Role == "user" {
			in, err = InputFromPrompt(m.Content)
		}
	}
	var rep Reply
	if s.opts.Reply != nil {
		if over := s.opts.Reply(int(n), in); over != nil {
			rep = *over
		}
	}
	if rep.Content == "" && rep.Raw == "" && (rep.Status == 0 || rep.Status == http.StatusOK) {
		if err != nil {
			rep.Content = "I could not read the data: " + err.Error()
		} else {
			out, merr := json.Marshal(s.opts.Decide(in))
			if merr != nil {
				rep.Content = merr.Error()
			} else {
				rep.Content = string(out)
			}
		}
	}
	if d := s.opts.Delay + rep.Delay; d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return Reply{}, false
		}
	}
	return rep, true
}

// InputFromPrompt decodes the judge input from a user message's <data> block.
func InputFromPrompt(user string) (judge.Input, error) {
	_, rest, ok := strings.Cut(user, "<data>")
	if !ok {
		return judge.Input{}, fmt.Errorf("no <data> block")
	}
	inner, _, ok := strings.Cut(rest, "</data>")
	if !ok {
		return judge.Input{}, fmt.Errorf("unclosed <data> block")
	}
	var in judge.Input
	err := json.Unmarshal([]byte(inner), &in)
	return in, err
}

// NewOpenAI starts a fake OpenAI-compatible server; its base URL for
// --openai-base-url is URL + "/v1".
func NewOpenAI(opts Options) *Server {
	f := OpenAIHandler(opts)
	return &Server{Server: httptest.NewServer(f), Fake: f}
}

// NewOllama starts a fake Ollama server; pass URL as --ollama-host.
func NewOllama(opts Options) *Server {
	f := OllamaHandler(opts)
	return &Server{Server: httptest.NewServer(f), Fake: f}
}

// OpenAIHandler is the fake OpenAI-compatible API (/v1/models,
// /v1/chat/completions).
func OpenAIHandler(opts Options) *Fake {
	s := newFake(opts)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"object":"list","data":[{"id":%q,"object":"model","created":1753351200,"owned_by":"judgetest"}]}`, s.opts.Model)
	})
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		rep, ok := s.answer(w, r)
		if !ok {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if rep.Status != 0 && rep.Status != http.StatusOK {
			w.WriteHeader(rep.Status)
		}
		if rep.Raw != "" {
			fmt.Fprint(w, rep.Raw)
			return
		}
		content, _ := json.Marshal(rep.Content) // a string always encodes
		fmt.Fprintf(w, `{"id":"chatcmpl-judgetest","object":"chat.completion","created":1753351200,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`,
			s.opts.Model, content, 200, len(rep.Content)/4, 200+len(rep.Content)/4)
	})
	s.Handler = mux
	return s
}

// NewAnthropic starts a fake Anthropic Messages API; pass URL as the
// judge's base (anthropic:MODEL@URL or $ANTHROPIC_BASE_URL).
func NewAnthropic(opts Options) *Server {
	f := AnthropicHandler(opts)
	return &Server{Server: httptest.NewServer(f), Fake: f}
}

// AnthropicHandler is the fake Anthropic Messages API (GET /v1/models,
// POST /v1/messages): it wants x-api-key and anthropic-version (401 / 400
// as the API answers without them) and answers with a tool_use block of
// the tool the request forces (tool_choice), whose input is the decision,
// as Anthropic's structured output through tool use does. A Reply's
// Content that is not a JSON object comes back as a text block instead
// (a model that did not call the tool).
func AnthropicHandler(opts Options) *Fake {
	s := newFake(opts)
	mux := http.NewServeMux()
	authed := func(w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("x-api-key") == "" {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"type":"error","error":{"type":"authentication_error","message":"x-api-key header is required"}}`)
			return false
		}
		if r.Header.Get("anthropic-version") == "" {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"type":"error","error":{"type":"invalid_request_error","message":"anthropic-version: header is required"}}`)
			return false
		}
		return true
	}
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		if !authed(w, r) {
			return
		}
		fmt.Fprintf(w, `{"data":[{"type":"model","id":%q,"display_name":%q,"created_at":"2026-05-01T00:00:00Z"}],"has_more":false,"first_id":%q,"last_id":%q}`,
			s.opts.Model, s.opts.Model, s.opts.Model, s.opts.Model)
	})
	mux.HandleFunc("POST /v1/messages", func(w http.ResponseWriter, r *http.Request) {
		if !authed(w, r) {
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var req struct {
			ToolChoice struct {
				Name string `json:"name"`
			} `json:"tool_choice"`
		}
		_ = json.Unmarshal(body, &req)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		rep, ok := s.answer(w, r)
		if !ok {
			return
		}
		if rep.Status != 0 && rep.Status != http.StatusOK {
			w.WriteHeader(rep.Status)
		}
		if rep.Raw != "" {
			fmt.Fprint(w, rep.Raw)
			return
		}
		block := ""
		if strings.HasPrefix(strings.TrimSpace(rep.Content), "{") && json.Valid([]byte(rep.Content)) && req.ToolChoice.Name != "" {
			name, _ := json.Marshal(req.ToolChoice.Name)
			block = `{"type":"tool_use","id":"toolu_01judgetest","name":` + string(name) + `,"input":` + rep.Content + `}`
		} else {
			text, _ := json.Marshal(rep.Content) // a string always encodes
			block = `{"type":"text","text":` + string(text) + `}`
		}
		stop := "tool_use"
		if strings.HasPrefix(block, `{"type":"text"`) {
			stop = "end_turn"
		}
		fmt.Fprintf(w, `{"id":"msg_01judgetest","type":"message","role":"assistant","model":%q,"content":[%s],"stop_reason":%q,"stop_sequence":null,"usage":{"input_tokens":%d,"output_tokens":%d}}`,
			s.opts.Model, block, stop, 200, len(rep.Content)/4)
	})
	s.Handler = mux
	return s
}

// OllamaHandler is the fake Ollama API (/api/tags, /api/show, /api/chat).
// Every body is one compact JSON line, as the Ollama client reads line by
// line.
func OllamaHandler(opts Options) *Fake {
	s := newFake(opts)
	name := s.opts.Model
	if !strings.Contains(name, ":") {
		name += ":latest"
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/tags", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		fmt.Fprintf(w, `{"models":[{"name":%q,"model":%q,"modified_at":"2026-07-01T10:00:00Z","size":1929912432,"digest":%q,"details":{"parent_model":"","format":"gguf","family":"fake","families":["fake"],"parameter_size":"0.1B","quantization_level":"Q8_0"}}]}`+"\n", name, name, s.opts.Digest)
	})
	mux.HandleFunc("POST /api/show", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		fmt.Fprint(w, `{"details":{"parent_model":"","format":"gguf","family":"fake","families":["fake"],"parameter_size":"0.1B","quantization_level":"Q8_0"},"model_info":{},"capabilities":["completion"]}`+"\n")
	})
	mux.HandleFunc("POST /api/chat", func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rep, ok := s.answer(w, r)
		if !ok {
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		if rep.Status != 0 && rep.Status != http.StatusOK {
			w.WriteHeader(rep.Status)
		}
		if rep.Raw != "" {
			fmt.Fprintln(w, rep.Raw)
			return
		}
		total := time.Since(start)
		content, _ := json.Marshal(rep.Content) // a string always encodes
		fmt.Fprintf(w, `{"model":%q,"created_at":"2026-07-24T10:00:00Z","message":{"role":"assistant","content":%s},"done_reason":"stop","done":true,"total_duration":%d,"load_duration":%d,"prompt_eval_count":200,"prompt_eval_duration":%d,"eval_count":%d,"eval_duration":%d}`+"\n",
			name, content, total.Nanoseconds(), int64(1000), total.Nanoseconds()/4, len(rep.Content)/4, total.Nanoseconds()/2)
	})
	s.Handler = mux
	return s
}

// Keywords is the default decision function: a rule whose condition speaks
// of deletion matches a command starting with rm, rmdir or shred (or a
// data_deletion call); one that speaks of sending data out matches curl,
// wget, scp, ssh or nc (or an external_send/web_search call); any other
// rule is no_match.
func Keywords(in judge.Input) judge.Output {
	out := judge.Output{Version: judge.SchemaVersion, Decisions: make([]judge.Decision, 0, len(in.Rules))}
	cmd, _ := in.Current.Tool.Arguments["command"].(string)
	first := ""
	if f := strings.Fields(cmd); len(f) > 0 {
		first = f[0]
	}
	cat := in.Current.Tool.Category
	for _, r := range in.Rules {
		cond := strings.ToLower(r.Condition)
		match := false
		switch {
		case containsAny(cond, "delet", "remov", "削除", "消去"):
			match = oneOf(first, "rm", "rmdir", "shred") || cat == "data_deletion"
		case containsAny(cond, "send", "upload", "external", "外部", "送信"):
			match = oneOf(first, "curl", "wget", "scp", "ssh", "nc") || cat == "external_send" || cat == "web_search"
		}
		res, c := judge.NoMatch, 0.8
		if match {
			res, c = judge.Match, 0.9
		}
		out.Decisions = append(out.Decisions, judge.Decision{RuleID: r.ID, Result: res, Confidence: &c})
	}
	return out
}

func containsAny(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func oneOf(s string, list ...string) bool {
	for _, x := range list {
		if s == x {
			return true
		}
	}
	return false
}
