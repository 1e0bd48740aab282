// Package anthropic is the `anthropic:MODEL` judge backend: Anthropic's
// Messages API (POST /v1/messages), the answer taken as structured output
// through tool use. It registers itself with the judge registry; the
// command imports it in cmd/apeval/backends.go. Not a stable Go API: apeval
// is a command, its packages serve it.
//
// Where to look:
//
//	anthropic.go       the backend: request, answer, errors, StartupCheck, registration
//	anthropic_test.go  an httptest server speaking the Messages wire format
package anthropic

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
	"github.com/apeval/apeval/judge"
)

// The registry line: name, what it reads, how it opens.
func init() {
	judge.Register(judge.Backend{
		Name: "anthropic", Arg: "MODEL", Server: true, KeyEnv: DefaultKeyEnv, Prompt: true, Live: true, Order: 60, Provider: "anthropic",
		Help: "Anthropic's Messages API ($ANTHROPIC_API_KEY; tool use for the answer)",
		Open: func(_ context.Context, model string, p *judge.Prompt, cfg judge.Config) (judge.Judge, error) {
			return New(model, p, cfg)
		},
	})
}

const (
	// DefaultBaseURL is the API's; a --judge anthropic:MODEL@URL, a
	// [[judge]] base_url or $ANTHROPIC_BASE_URL replaces it.
	DefaultBaseURL = "https://api.anthropic.com"
	// DefaultKeyEnv holds the API key unless a [[judge]] api_key_env names another.
	DefaultKeyEnv = "ANTHROPIC_API_KEY"
	// APIVersion is the anthropic-version header the wire format is pinned to.
	APIVersion = "2023-06-01"
	// DefaultMaxTokens bounds an answer (max_tokens is required by the
	// API); --judge-option max_tokens=N changes it.
	DefaultMaxTokens = 1024
	// toolName is the one tool the model is made to call: its input is
	// the judge output.
	toolName = "judge_output"
)

// reserved body fields are apeval's; --judge-option cannot set them.
var reserved = map[string]bool{"model": true, "messages": true, "system": true, "tools": true, "tool_choice": true, "stream": true}

// Judge is an Anthropic Messages judge.
type Judge struct {
	client  *http.Client
	url     string // the messages endpoint
	models  string // GET: the startup check
	base    string // the base URL, credentials masked, for messages and details
	key     string
	keyEnv  string
	model   string
	id      judge.Identity
	prompt  *judge.Prompt
	timeout time.Duration
	retries int
	maxBody int64
	log     io.Writer
	fields  []byte // the constant tail of every body: max_tokens, temperature, options
	scope   string
	warned  sync.Once
}

// New opens an Anthropic judge. It contacts no server.
func New(model string, prompt *judge.Prompt, cfg judge.Config) (*Judge, error) {
	base := strings.TrimSpace(cfg.Server)
	if base == "" {
		base = strings.TrimSpace(cfg.Env("ANTHROPIC_BASE_URL"))
	}
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("anthropic base URL %q is not an http(s) URL", mask.URL(base))
	}
	keyEnv := cfg.KeyEnv
	if keyEnv == "" {
		keyEnv = DefaultKeyEnv
	}
	opts := map[string]any{"max_tokens": DefaultMaxTokens, "temperature": 0}
	for k, v := range judge.ParseOptions(cfg.Options) {
		if reserved[k] {
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
		vb, err := json.Marshal(opts[k])
		if err != nil {
			return nil, fmt.Errorf("judge option %s: %v", k, err)
		}
		kb, _ := json.Marshal(k) // a string always encodes
		fmt.Fprintf(&fields, ",%s:%s", kb, vb)
	}
	sum := sha256.Sum256([]byte(u.String()))
	j := &Judge{
		url:     u.JoinPath("v1", "messages").String(),
		models:  u.JoinPath("v1", "models").String(),
		base:    mask.URL(u.String()),
		key:     cfg.Env(keyEnv),
		keyEnv:  keyEnv,
		model:   model,
		id:      judge.Identity{Backend: "anthropic", Model: model, PromptVersion: prompt.Version},
		prompt:  prompt,
		timeout: cfg.Timeout,
		retries: cfg.Retries,
		maxBody: cfg.MaxResponse(),
		log:     cfg.Logger(),
		fields:  fields.Bytes(),
		scope:   hex.EncodeToString(sum[:16]) + "|" + judge.CanonicalOptions(opts),
	}
	j.client = j.keyGuard(cfg.Client())
	if j.key == "" && !loopback(u.Hostname()) {
		fmt.Fprintf(j.log, "warning: %s is not set; calls to %s go without an API key\n", keyEnv, j.base)
	}
	return j, nil
}

// keyGuard returns a copy of c that never sends the API key across a
// redirect to another scheme, host or port: Go's client forwards custom
// headers such as x-api-key to any host.
func (j *Judge) keyGuard(c *http.Client) *http.Client {
	g := *c
	next := c.CheckRedirect
	g.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if o := via[0].URL; !strings.EqualFold(o.Scheme, req.URL.Scheme) || !strings.EqualFold(o.Host, req.URL.Host) {
			if req.Header.Get("x-api-key") != "" {
				req.Header.Del("x-api-key")
				j.warned.Do(func() {
					fmt.Fprintf(j.log, "warning: %s redirected a call to %s (another scheme, host or port); not sending the API key there\n", j.base, mask.URL(req.URL.String()))
				})
			}
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

func loopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

// Identity is anthropic/MODEL+PROMPT: the API names no model digest.
func (j *Judge) Identity() judge.Identity { return j.id }

// CacheScope is the server and options the answers depend on.
func (j *Judge) CacheScope() string { return j.scope }

// Details are the base URL, the options and the structured-output mode.
func (j *Judge) Details() map[string]string {
	return map[string]string{"base_url": j.base, "options": strings.SplitN(j.scope, "|", 2)[1], "structured_output": "tool_use"}
}

// StructuredMode is how the answer is constrained: a forced tool call.
func (j *Judge) StructuredMode() string { return "tool_use" }

// mask hides the key by value (a server may quote it back) and URL credentials.
func (j *Judge) mask(s string) string { return mask.Secret(mask.URLs(s), j.key) }

// Judge asks the model about the input's rules in one message, forcing a
// call of the judge_output tool whose input schema is the answer's.
func (j *Judge) Judge(ctx context.Context, req judge.Request) judge.Response {
	asked := judge.AskedIDs(req.Input)
	system, user, err := j.prompt.Render(req.Input)
	if err != nil {
		return judge.Response{Status: judge.StatusError, Cause: judge.CauseOther, Error: err.Error()}
	}
	body, err := j.body(system, user, asked)
	if err != nil {
		return judge.Response{Status: judge.StatusError, Cause: judge.CauseOther, Error: "encode request: " + err.Error()}
	}
	return judge.RunAttempts(ctx, j.timeout, j.retries, func(ctx context.Context) (judge.Response, bool) {
		resp, retry := j.send(ctx, body, asked)
		resp.Error = j.mask(resp.Error)
		return resp, retry
	})
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// body encodes one request: model, system, the user message, the tool and
// the forced tool choice, then the constant fields.
func (j *Judge) body(system, user string, asked []string) ([]byte, error) {
	head, err := json.Marshal(struct {
		Model      string         `json:"model"`
		System     string         `json:"system"`
		Messages   []message      `json:"messages"`
		Tools      []tool         `json:"tools"`
		ToolChoice map[string]any `json:"tool_choice"`
	}{
		Model: j.model, System: system, Messages: []message{{Role: "user", Content: user}},
		Tools: []tool{{Name: toolName, Description: "Record the decision on every rule, in the required output format.",
			InputSchema: judge.OutputSchema(asked)}},
		ToolChoice: map[string]any{"type": "tool", "name": toolName},
	})
	if err != nil {
		return nil, err
	}
	return append(append(head[:len(head)-1], j.fields...), '}'), nil
}

// wire is the Messages API's answer: a message, or an error object.
type wire struct {
	Type    string `json:"type"`
	Content []struct {
		Type  string          `json:"type"`
		Name  string          `json:"name"`
		Text  string          `json:"text"`
		Input json.RawMessage `json:"input"`
	} `json:"content"`
	StopReason string `json:"stop_reason"`
	Usage      *struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	} `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// StartupCheck makes one cheap request (GET /v1/models, which the
// Messages API serves with the same key) before any case is replayed: a
// server that refuses the key or cannot be reached fails the run at start
// instead of failing every call (a wrong key gave 468 failed calls on a
// 594-case run before the verdict said so). A server without that endpoint
// (a proxy: 404, 405, 501) is fine, as is any other answer, with a warning:
// only the messages endpoint is needed.
func (j *Judge) StartupCheck(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, judge.OpenTimeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, j.models, nil)
	if err != nil {
		return err
	}
	hreq.Header.Set("Accept", "application/json")
	hreq.Header.Set("anthropic-version", APIVersion)
	if j.key != "" {
		hreq.Header.Set("x-api-key", j.key)
	}
	hresp, err := j.client.Do(hreq)
	if err != nil {
		return fmt.Errorf("anthropic %s: cannot reach the server: %v; check the judge's base URL, or try `apeval judges check anthropic:%s`", j.base, judge.BriefError(j.mask(err.Error())), j.model)
	}
	raw, _, _ := judge.ReadCapped(hresp.Body, 64<<10)
	_ = hresp.Body.Close()
	switch code := hresp.StatusCode; {
	case code == http.StatusOK, code == http.StatusNotFound, code == http.StatusMethodNotAllowed, code == http.StatusNotImplemented:
		return nil
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		msg := judge.BriefError(string(raw))
		var w wire
		if json.Unmarshal(raw, &w) == nil && w.Error != nil {
			msg = judge.BriefError(w.Error.Type + ": " + w.Error.Message)
		}
		unset := ""
		if j.key == "" {
			unset = ", which is not set"
		}
		return fmt.Errorf("anthropic %s: the server refused the API key (HTTP %d: %s); set %s%s (or name another variable with a [[judge]] api_key_env)", j.base, code, j.mask(msg), j.keyEnv, unset)
	default:
		fmt.Fprintf(j.log, "warning: %s: GET /v1/models answered HTTP %d (going on: only the messages endpoint is needed)\n", j.base, code)
		return nil
	}
}

// send makes one POST and reads its answer.
func (j *Judge) send(ctx context.Context, body []byte, asked []string) (judge.Response, bool) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, j.url, bytes.NewReader(body))
	if err != nil {
		return judge.Response{Status: judge.StatusError, Cause: judge.CauseOther, Error: err.Error()}, false
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	hreq.Header.Set("anthropic-version", APIVersion)
	if j.key != "" {
		hreq.Header.Set("x-api-key", j.key)
	}
	hresp, err := j.client.Do(hreq)
	if err != nil {
		r, retry := judge.Failed(ctx, err)
		r.Error = mask.URLs(r.Error)
		return r, retry
	}
	raw, over, err := judge.ReadCapped(hresp.Body, j.maxBody)
	if cerr := hresp.Body.Close(); err == nil && !over {
		err = cerr
	}
	if over && hresp.StatusCode == http.StatusOK {
		return judge.TooLarge(j.maxBody), false
	}
	if err != nil {
		r, retry := judge.Failed(ctx, err)
		r.Error = mask.URLs(r.Error)
		return r, retry
	}
	html := judge.LooksHTML(hresp.Header.Get("Content-Type"), string(raw))
	var w wire
	jsonErr := json.Unmarshal(raw, &w)
	if hresp.StatusCode != http.StatusOK {
		msg := judge.BriefError(string(raw))
		if jsonErr == nil && w.Error != nil {
			// overloaded_error (529), rate_limit_error (429), …
			msg = judge.BriefError(w.Error.Type + ": " + w.Error.Message)
		}
		return judge.HTTPFailed(hresp.StatusCode, html, msg, hresp.Header.Get("Retry-After"))
	}
	if jsonErr != nil || w.Type != "message" {
		if html {
			return judge.Response{Status: judge.StatusError, Cause: judge.CauseNotTheAPI, Error: judge.BriefError(string(raw))}, false
		}
		if jsonErr == nil && w.Error != nil {
			// An error object in a 200 is the server failing: retried, never cached.
			return judge.Response{Status: judge.StatusError, Cause: judge.CauseServer, Error: "HTTP 200 with an error: " + judge.BriefError(w.Error.Type+": "+w.Error.Message)}, true
		}
		why := "not a message"
		if jsonErr != nil {
			why = jsonErr.Error()
		}
		return judge.Response{Status: judge.StatusError, Cause: judge.CauseOther, Error: "server sent a malformed message: " + why}, false
	}
	var resp judge.Response
	var text strings.Builder
	found := false
	for _, c := range w.Content {
		switch {
		case c.Type == "tool_use" && c.Name == toolName && !found:
			resp, found = judge.Answered(c.Input, asked), true
		case c.Type == "text":
			text.WriteString(c.Text)
		}
	}
	if !found {
		msg := "the model called no " + toolName + " tool"
		if w.StopReason == "max_tokens" {
			msg += " (stopped at max_tokens: raise --judge-option max_tokens)"
		}
		if t := strings.TrimSpace(text.String()); t != "" {
			msg += "; it wrote: " + judge.BriefError(t)
		}
		resp = judge.NotAnswer(judge.Response{Status: judge.StatusInvalid, Cause: judge.CauseInvalid, Error: msg})
	}
	if w.Usage != nil {
		resp.Server.PromptTokens, resp.Server.CompletionTokens = w.Usage.InputTokens, w.Usage.OutputTokens
	}
	return resp, false
}
