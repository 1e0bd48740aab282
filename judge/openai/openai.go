// Package openai is the `openai:MODEL` judge backend for any
// OpenAI-compatible chat-completions server (OpenAI, vLLM, llama.cpp,
// gateways): response_format (json_schema, then json_object, then none),
// the API key never sent across origins, GET /models at start and in
// `apeval judges check`. It registers itself with the judge registry;
// judge/all imports it. Not a stable Go API: apeval is a command, its
// packages serve it.
//
// Where to look:
//
//	openai.go        the backend: New, the completion call, StartupCheck, ListModels, the registry line
//	openai_test.go   against judge/internal/fake's OpenAI server
package openai

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/internal/trunc"
	"github.com/apeval/apeval/judge"
)

// DefaultBaseURL is used when --openai-base-url is not given.
const DefaultBaseURL = "https://api.openai.com/v1"

// The registry line: name, what it reads, how it opens.
func init() {
	judge.Register(judge.Backend{Name: "openai", Arg: "MODEL", Server: true, KeyEnv: "OPENAI_API_KEY", Prompt: true, Live: true, Order: 20, Provider: "openai",
		Help: "any OpenAI-compatible /v1/chat/completions (--openai-base-url)",
		Open: func(_ context.Context, arg string, p *judge.Prompt, cfg judge.Config) (judge.Judge, error) {
			return New(arg, p, cfg)
		}})
}

// Judge is the `openai:MODEL` backend for any OpenAI-compatible
// /chat/completions endpoint (vLLM, llama.cpp server, LM Studio, hosted
// APIs). It is a small net/http client: one POST per attempt, the request
// body encoded straight from the rendered prompt, no SDK.
type Judge struct {
	client  *http.Client
	baseURL *url.URL
	base    string // baseURL with its credentials masked, for messages and details
	keyEnv  string
	maxBody int64
	model   string
	key     string
	id      judge.Identity
	prompt  *judge.Prompt
	timeout time.Duration
	retries int
	log     io.Writer
	// fields is the constant tail of every request body: temperature, seed,
	// stream and the user's options, encoded once.
	fields []byte
	scope  string
	modes  *judge.ModeLadder

	mu          sync.Mutex
	fingerprint string // last system_fingerprint seen; per response, so never in the identity
	warnedHop   sync.Once
}

// reservedOpenAIFields are set by the backend and cannot be overridden by
// --judge-option.
var reservedOpenAIFields = map[string]bool{"model": true, "messages": true, "response_format": true, "stream": true}

// New opens an OpenAI-compatible judge. It contacts no server: hosted
// APIs need no warm-up and `apeval judges check` lists the server's models.
func New(model string, prompt *judge.Prompt, cfg judge.Config) (*Judge, error) {
	base := strings.TrimRight(strings.TrimSpace(cfg.OpenAIBaseURL), "/")
	if base == "" {
		base = DefaultBaseURL
	}
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		return nil, fmt.Errorf("openai base URL %q must start with http:// or https://", mask.URL(base))
	}
	baseURL, err := url.Parse(base)
	if err != nil || baseURL.Host == "" {
		return nil, fmt.Errorf("openai base URL %q is not a URL", mask.URL(base))
	}
	baseURL.Path = strings.TrimRight(baseURL.Path, "/")
	// The URL goes into the cache scope as a digest: distinct servers keep
	// distinct answers, and no credential in it reaches the cache file.
	baseSum := sha256.Sum256([]byte(baseURL.String()))
	keyEnv := cfg.OpenAIKeyEnv
	if keyEnv == "" {
		keyEnv = "OPENAI_API_KEY"
	}
	opts := map[string]any{"temperature": 0, "seed": judge.DefaultSeed, "stream": false}
	if err := judge.CheckOptions(cfg.Options); err != nil {
		return nil, err
	}
	for k, v := range judge.ParseOptions(cfg.Options) {
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
	o := &Judge{
		baseURL: baseURL,
		base:    mask.URL(baseURL.String()),
		keyEnv:  keyEnv,
		maxBody: cfg.MaxResponse(),
		model:   model,
		key:     cfg.Env(keyEnv),
		id:      judge.Identity{Backend: "openai", Model: model, PromptVersion: prompt.Version},
		prompt:  prompt,
		timeout: cfg.Timeout,
		retries: cfg.Retries,
		log:     cfg.Logger(),
		fields:  fields.Bytes(),
		scope:   hex.EncodeToString(baseSum[:16]) + "|" + judge.CanonicalOptions(opts),
	}
	o.modes = judge.NewModeLadder(o.id.String(), o.log)
	o.client = o.keyGuard(cfg.Client())
	return o, nil
}

// keyGuard returns a copy of c that never sends the API key across a
// redirect to another scheme, host or port (Go's client keeps it for
// another port on the same host, and for https → http): the redirect is
// followed without the key, and a warning says so once.
func (o *Judge) keyGuard(c *http.Client) *http.Client {
	g := *c
	next := c.CheckRedirect
	g.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !sameOrigin(via[0].URL, req.URL) && req.Header.Get("Authorization") != "" {
			req.Header.Del("Authorization")
			o.warnedHop.Do(func() {
				fmt.Fprintf(o.log, "warning: %s redirected a call to %s (another scheme, host or port); not sending the API key there\n",
					o.base, mask.URL(req.URL.String()))
			})
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &g
}

// sameOrigin reports whether two URLs share scheme, host and port (the
// scheme's default port when none is given).
func sameOrigin(a, b *url.URL) bool {
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		switch strings.ToLower(u.Scheme) {
		case "https":
			return "443"
		case "http":
			return "80"
		}
		return ""
	}
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

// mask hides the API key by its value in any text apeval writes (a server
// may quote the key back in its error), URL credentials included.
func (o *Judge) mask(s string) string {
	return mask.Secret(mask.URLs(s), o.key)
}

// Identity is openai/MODEL+PROMPT: OpenAI-compatible servers expose no model
// digest, and a per-response system_fingerprint cannot name a whole run.
func (o *Judge) Identity() judge.Identity { return o.id }

// Details reports the base URL, the structured-output mode in use and the
// last system_fingerprint the server sent.
func (o *Judge) Details() map[string]string {
	o.mu.Lock()
	fp := o.fingerprint
	o.mu.Unlock()
	d := map[string]string{"base_url": o.base, "options": strings.SplitN(o.scope, "|", 2)[1], "structured_output": o.modes.Current()}
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
func (o *Judge) StructuredMode() string { return o.modes.Current() }

// CacheScope is the server and options the answers depend on (judge.CacheScoper).
func (o *Judge) CacheScope() string { return o.scope }

// Judge asks the model about the input's rules in one chat completion.
func (o *Judge) Judge(ctx context.Context, req judge.Request) judge.Response {
	asked := judge.AskedIDs(req.Input)
	system, user, err := o.prompt.Render(req.Input)
	if err != nil {
		return judge.Response{Status: judge.StatusError, Error: err.Error()}
	}
	return judge.RunAttempts(ctx, o.timeout, o.retries, func(ctx context.Context) (judge.Response, bool) {
		return o.modes.Try(func(mode string) (judge.Response, bool, bool) {
			resp, retry, refused := o.complete(ctx, system, user, asked, mode)
			resp.Error = o.mask(resp.Error)
			return resp, retry, refused
		})
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
func (o *Judge) body(system, user string, asked []string, mode string) ([]byte, error) {
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
	case judge.ModeJSONSchema:
		b.WriteString(`,"response_format":{"type":"json_schema","json_schema":{"name":"judge_output","strict":true,"schema":`)
		b.Write(judge.OutputSchema(asked))
		b.WriteString(`}}`)
	case judge.ModeJSONObject:
		b.WriteString(`,"response_format":{"type":"json_object"}`)
	}
	b.Write(o.fields)
	b.WriteByte('}')
	return b.Bytes(), nil
}

// complete makes one POST; refused reports that the server rejected the
// response_format.
func (o *Judge) complete(ctx context.Context, system, user string, asked []string, mode string) (resp judge.Response, retry, refused bool) {
	body, err := o.body(system, user, asked, mode)
	if err != nil {
		return judge.Response{Status: judge.StatusError, Error: "encode request: " + err.Error()}, false, false
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint(o.baseURL, "chat/completions"), bytes.NewReader(body))
	if err != nil {
		return judge.Response{Status: judge.StatusError, Error: err.Error()}, false, false
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	if o.key != "" {
		hreq.Header.Set("Authorization", "Bearer "+o.key)
	}
	hresp, err := o.client.Do(hreq)
	if err != nil {
		resp, retry = judge.Failed(ctx, err)
		resp.Error = mask.URLs(resp.Error)
		return resp, retry, false
	}
	raw, over, err := judge.ReadCapped(hresp.Body, o.maxBody)
	if cerr := hresp.Body.Close(); err == nil && !over {
		err = cerr
	}
	if over && hresp.StatusCode == http.StatusOK {
		return judge.TooLarge(o.maxBody), false, false
	}
	if err != nil {
		resp, retry = judge.Failed(ctx, err)
		resp.Error = mask.URLs(resp.Error)
		return resp, retry, false
	}
	if hresp.StatusCode != http.StatusOK {
		msg := judge.BriefError(errorMessage(raw))
		if hresp.StatusCode == http.StatusNotFound && !strings.HasSuffix(o.baseURL.Path, "/v1") {
			msg += " (does --openai-base-url need a /v1 suffix?)"
		}
		resp, retry = judge.HTTPFailed(hresp.StatusCode, judge.LooksHTML(hresp.Header.Get("Content-Type"), string(raw)), msg, hresp.Header.Get("Retry-After"))
		code := hresp.StatusCode
		refused = mode != judge.ModeNone && (code == http.StatusBadRequest || code == http.StatusUnprocessableEntity) &&
			(judge.MentionsFormat(msg) || !o.modes.ConfirmedIn(mode))
		return resp, retry, refused
	}
	var r openAIResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		if b := judge.BriefError(string(raw)); strings.Contains(b, "HTML page") {
			// A web page at the URL (a login portal, a dashboard): a broken
			// setup, named as one (CauseNotTheAPI), not a malformed answer.
			return judge.Response{Status: judge.StatusError, Cause: judge.CauseNotTheAPI, Error: b}, false, false
		}
		return judge.Response{Status: judge.StatusError, Cause: judge.CauseOther, Error: "server sent a malformed completion: " + err.Error()}, false, false
	}
	if r.SystemFingerprint != "" {
		o.mu.Lock()
		o.fingerprint = r.SystemFingerprint
		o.mu.Unlock()
	}
	if len(r.Choices) == 0 {
		// A 200 carrying {"error": …} is the server failing, not the
		// model answering: an error, retried like a 5xx and never cached.
		if m := errorMessage(raw); bytes.Contains(raw, []byte(`"error"`)) && m != "" {
			return judge.Response{Status: judge.StatusError, Cause: judge.CauseServer, Error: "HTTP 200 with an error: " + judge.BriefError(m)}, true, false
		}
		return judge.Response{Status: judge.StatusInvalid, Cause: judge.CauseInvalid, Error: "completion has no choices", NoCache: true}, false, false
	}
	msg := r.Choices[0].Message
	switch {
	case msg.Content != nil:
		resp = judge.Answered([]byte(*msg.Content), asked)
	case msg.Refusal != "":
		resp = judge.Response{Status: judge.StatusInvalid, Cause: judge.CauseInvalid, Error: "model refused: " + msg.Refusal}
	default:
		resp = judge.Response{Status: judge.StatusInvalid, Cause: judge.CauseInvalid, Error: "completion has no content", NoCache: true}
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
	return trunc.Bytes(s, 200)
}

// ModelName is the model the judge asks for (judge.ModelLister).
func (o *Judge) ModelName() string { return o.model }

// ListModels returns the model IDs the server offers (GET {base}/models).
func (o *Judge) ListModels(ctx context.Context) ([]string, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint(o.baseURL, "models"), nil)
	if err != nil {
		return nil, err
	}
	if o.key != "" {
		hreq.Header.Set("Authorization", "Bearer "+o.key)
	}
	hresp, err := o.client.Do(hreq)
	if err != nil {
		return nil, errors.New(o.mask(err.Error()))
	}
	raw, _, err := judge.ReadCapped(hresp.Body, o.maxBody)
	if cerr := hresp.Body.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if hresp.StatusCode != http.StatusOK {
		return nil, &ModelsError{Code: hresp.StatusCode, Msg: o.mask(fmt.Sprintf("GET %s/models: HTTP %d: %s", o.base, hresp.StatusCode, judge.BriefError(errorMessage(raw))))}
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("GET %s/models: %w: %v", o.base, errNoModelList, o.mask(err.Error()))
	}
	ids := make([]string, len(list.Data))
	for i, m := range list.Data {
		ids[i] = m.ID
	}
	return ids, nil
}

// errNoModelList marks a /models answer that is not a model list.
var errNoModelList = errors.New("not a model list")

// ModelsError is an HTTP error answer to GET /models.
type ModelsError struct {
	Code int
	Msg  string
}

func (e *ModelsError) Error() string { return e.Msg }

// HTTPCode is the answer's status (`judges check` tells a refused key).
func (e *ModelsError) HTTPCode() int { return e.Code }

// StartupCheck makes one cheap request (GET /models) before any case is
// replayed, as Ollama's model lookup does: a server that cannot be reached
// or refuses the key fails the run at start instead of failing every call.
// A server without /models (404, 405, 501) is fine, another error answer
// to it is a warning; only an unreachable server or a refused key (401,
// 403) fails. A model missing from the list is only a warning (some servers list aliases only). An unset
// API key variable is a warning for any host but a local one.
func (o *Judge) StartupCheck(ctx context.Context) error {
	if o.key == "" && !isLoopback(o.baseURL.Hostname()) {
		fmt.Fprintf(o.log, "warning: %s is not set; calls to %s go without an API key\n", o.keyEnv, o.base)
	}
	ctx, cancel := context.WithTimeout(ctx, judge.OpenTimeout)
	defer cancel()
	ids, err := o.ListModels(ctx)
	var me *ModelsError
	switch {
	case err == nil:
		for _, id := range ids {
			if id == o.model {
				return nil
			}
		}
		if len(ids) > 0 {
			fmt.Fprintf(o.log, "warning: %s does not list model %q (it lists %s)\n", o.base, o.model, trunc.List(ids, 5))
		}
		return nil
	case errors.Is(err, errNoModelList):
		return nil // it answered, just not with a model list
	case errors.As(err, &me):
		switch me.Code {
		case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusNotImplemented:
			return nil
		case http.StatusUnauthorized, http.StatusForbidden:
			return fmt.Errorf("openai %s: the server refused the API key (HTTP %d); set %s (or --openai-api-key-env)", o.base, me.Code, o.keyEnv)
		}
		// The server answered, so it is reachable and took the key; a
		// server that serves chat completions but answers /models with
		// another error (a minimal proxy's 400, a 5xx) is still usable,
		// and what its calls do is counted like any fault.
		fmt.Fprintf(o.log, "warning: %s: %v (going on: only the chat endpoint is needed)\n", o.base, err)
		return nil
	}
	return fmt.Errorf("openai %s: cannot reach the server: %v; check --openai-base-url, or try `apeval judges check openai:%s`", o.base, judge.BriefError(o.mask(err.Error())), o.model)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// endpoint joins a path onto a base URL with net/url, keeping the base's
// query (a string concatenation would put the path after the query).
func endpoint(base *url.URL, elem string) string {
	return base.JoinPath(elem).String()
}
