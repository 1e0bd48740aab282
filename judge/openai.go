package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// DefaultOpenAIBaseURL is used when --openai-base-url is not given.
const DefaultOpenAIBaseURL = "https://api.openai.com/v1"

// OpenAI is the `openai:MODEL` backend for any OpenAI-compatible
// /chat/completions endpoint (vLLM, llama.cpp server, LM Studio, hosted
// APIs). It is a small net/http client: one POST per attempt, the request
// body encoded straight from the rendered prompt, no SDK.
type OpenAI struct {
	client  *http.Client
	base    string
	model   string
	key     string
	id      Identity
	prompt  *Prompt
	timeout time.Duration
	retries int
	log     io.Writer
	// fields is the constant tail of every request body: temperature, seed,
	// stream and the user's options, encoded once.
	fields []byte
	scope  string
	modes  *modeLadder

	mu          sync.Mutex
	fingerprint string // last system_fingerprint seen; per response, so never in the identity
}

// reservedOpenAIFields are set by the backend and cannot be overridden by
// --judge-option.
var reservedOpenAIFields = map[string]bool{"model": true, "messages": true, "response_format": true, "stream": true}

// NewOpenAI opens an OpenAI-compatible judge. It contacts no server: hosted
// APIs need no warm-up and `apeval judges check` lists the server's models.
func NewOpenAI(model string, prompt *Prompt, cfg Config) (*OpenAI, error) {
	base := strings.TrimRight(strings.TrimSpace(cfg.OpenAIBaseURL), "/")
	if base == "" {
		base = DefaultOpenAIBaseURL
	}
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		return nil, fmt.Errorf("openai base URL %q must start with http:// or https://", base)
	}
	keyEnv := cfg.OpenAIKeyEnv
	if keyEnv == "" {
		keyEnv = "OPENAI_API_KEY"
	}
	opts := map[string]any{"temperature": 0, "seed": DefaultSeed, "stream": false}
	for k, v := range parseOptions(cfg.Options) {
		if reservedOpenAIFields[k] {
			return nil, fmt.Errorf("judge option %s is set by apeval and cannot be overridden", k)
		}
		opts[k] = v
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var fields bytes.Buffer
	for _, k := range keys {
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		vb, err := json.Marshal(opts[k])
		if err != nil {
			return nil, fmt.Errorf("judge option %s: %v", k, err)
		}
		fields.WriteByte(',')
		fields.Write(kb)
		fields.WriteByte(':')
		fields.Write(vb)
	}
	o := &OpenAI{
		client:  cfg.httpClient(),
		base:    base,
		model:   model,
		key:     cfg.getenv(keyEnv),
		id:      Identity{Backend: "openai", Model: model, PromptVersion: prompt.Version},
		prompt:  prompt,
		timeout: cfg.Timeout,
		retries: cfg.Retries,
		log:     cfg.log(),
		fields:  fields.Bytes(),
		scope:   base + "|" + canonicalOptions(opts),
	}
	o.modes = newModeLadder(o.id.String(), o.log)
	return o, nil
}

// Identity is openai/MODEL+PROMPT: OpenAI-compatible servers expose no model
// digest, and a per-response system_fingerprint cannot name a whole run.
func (o *OpenAI) Identity() Identity { return o.id }

// Details reports the base URL, the structured-output mode in use and the
// last system_fingerprint the server sent.
func (o *OpenAI) Details() map[string]string {
	o.mu.Lock()
	fp := o.fingerprint
	o.mu.Unlock()
	d := map[string]string{"base_url": o.base, "options": strings.SplitN(o.scope, "|", 2)[1], "structured_output": o.modes.current()}
	if fp != "" {
		d["system_fingerprint"] = fp
	}
	return d
}

// StructuredMode is the response_format in use: json_schema, then
// json_object, then none once the server has refused the stricter ones. A
// refusal is HTTP 400 or 422 whose message mentions the format or schema, or
// any 400/422 before a call has succeeded in that mode; 401, 403, 404 and
// 429 never change the mode.
func (o *OpenAI) StructuredMode() string { return o.modes.current() }

func (o *OpenAI) cacheScope() string { return o.scope }

// Judge asks the model about the input's rules in one chat completion.
func (o *OpenAI) Judge(ctx context.Context, req Request) Response {
	asked := askedIDs(req.Input)
	system, user, err := o.prompt.Render(req.Input)
	if err != nil {
		return Response{Status: StatusError, Error: err.Error()}
	}
	return runAttempts(ctx, o.timeout, o.retries, func(ctx context.Context) (Response, bool) {
		for {
			mode := o.modes.current()
			resp, retry, refused := o.complete(ctx, system, user, asked, mode)
			if refused && o.modes.stepDown(mode, resp.Error) {
				continue
			}
			if resp.Status == StatusOK || resp.Status == StatusInvalid {
				o.modes.worked(mode)
			}
			return resp, retry
		}
	})
}

type openAIMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type openAIResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
			Refusal string  `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	SystemFingerprint string `json:"system_fingerprint"`
}

type openAIError struct {
	Error struct {
		Message string `json:"message"`
	} `json:"error"`
	Message string `json:"message"`
	Detail  any    `json:"detail"`
}

// body encodes the request: model, messages and response_format, then the
// constant fields.
func (o *OpenAI) body(system, user string, asked []string, mode string) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(len(system) + len(user) + 512)
	b.WriteString(`{"model":`)
	enc := json.NewEncoder(&b)
	if err := enc.Encode(o.model); err != nil {
		return nil, err
	}
	b.WriteString(`,"messages":`)
	if err := enc.Encode([2]openAIMessage{{Role: "system", Content: system}, {Role: "user", Content: user}}); err != nil {
		return nil, err
	}
	switch mode {
	case ModeJSONSchema:
		b.WriteString(`,"response_format":{"type":"json_schema","json_schema":{"name":"judge_output","strict":true,"schema":`)
		b.Write(OutputSchema(asked))
		b.WriteString(`}}`)
	case ModeJSONObject:
		b.WriteString(`,"response_format":{"type":"json_object"}`)
	}
	b.Write(o.fields)
	b.WriteByte('}')
	return b.Bytes(), nil
}

// complete makes one POST; refused reports that the server rejected the
// response_format.
func (o *OpenAI) complete(ctx context.Context, system, user string, asked []string, mode string) (resp Response, retry, refused bool) {
	body, err := o.body(system, user, asked, mode)
	if err != nil {
		return Response{Status: StatusError, Error: "encode request: " + err.Error()}, false, false
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, o.base+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return Response{Status: StatusError, Error: err.Error()}, false, false
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	if o.key != "" {
		hreq.Header.Set("Authorization", "Bearer "+o.key)
	}
	hresp, err := o.client.Do(hreq)
	if err != nil {
		resp, retry = failed(ctx, err)
		return resp, retry, false
	}
	raw, err := io.ReadAll(hresp.Body)
	if cerr := hresp.Body.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		resp, retry = failed(ctx, err)
		return resp, retry, false
	}
	if hresp.StatusCode != http.StatusOK {
		msg := errorMessage(raw)
		if hresp.StatusCode == http.StatusNotFound && !strings.HasSuffix(o.base, "/v1") {
			msg += " (does --openai-base-url need a /v1 suffix?)"
		}
		resp, retry = httpFailed(hresp.StatusCode, msg)
		code := hresp.StatusCode
		refused = mode != ModeNone && (code == http.StatusBadRequest || code == http.StatusUnprocessableEntity) &&
			(mentionsFormat(msg) || !o.modes.confirmedIn(mode))
		return resp, retry, refused
	}
	var r openAIResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		return Response{Status: StatusError, Error: "server sent a malformed completion: " + err.Error()}, false, false
	}
	if r.SystemFingerprint != "" {
		o.mu.Lock()
		o.fingerprint = r.SystemFingerprint
		o.mu.Unlock()
	}
	if len(r.Choices) == 0 {
		return Response{Status: StatusInvalid, Error: "completion has no choices"}, false, false
	}
	msg := r.Choices[0].Message
	switch {
	case msg.Content != nil:
		resp = answered([]byte(*msg.Content), asked)
	case msg.Refusal != "":
		resp = Response{Status: StatusInvalid, Error: "model refused: " + msg.Refusal}
	default:
		resp = Response{Status: StatusInvalid, Error: "completion has no content"}
	}
	if r.Usage != nil {
		resp.Server.PromptTokens = r.Usage.PromptTokens
		resp.Server.CompletionTokens = r.Usage.CompletionTokens
	}
	return resp, false, false
}

// errorMessage pulls the message out of an OpenAI-style (or FastAPI-style)
// error body, else returns a short snippet of it.
func errorMessage(raw []byte) string {
	var e openAIError
	if json.Unmarshal(raw, &e) == nil {
		switch {
		case e.Error.Message != "":
			return e.Error.Message
		case e.Message != "":
			return e.Message
		case e.Detail != nil:
			b, err := json.Marshal(e.Detail)
			if err == nil {
				return string(b)
			}
		}
	}
	s := strings.TrimSpace(string(raw))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// ListModels returns the model IDs the server offers (GET {base}/models).
func (o *OpenAI) ListModels(ctx context.Context) ([]string, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, o.base+"/models", nil)
	if err != nil {
		return nil, err
	}
	if o.key != "" {
		hreq.Header.Set("Authorization", "Bearer "+o.key)
	}
	hresp, err := o.client.Do(hreq)
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(hresp.Body)
	if cerr := hresp.Body.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if hresp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s/models: HTTP %d: %s", o.base, hresp.StatusCode, errorMessage(raw))
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("GET %s/models: %v", o.base, err)
	}
	ids := make([]string, len(list.Data))
	for i, m := range list.Data {
		ids[i] = m.ID
	}
	return ids, nil
}
