// Package ollama is the `ollama:MODEL` judge backend, through
// github.com/ollama/ollama/api: the model's digest in the identity,
// structured output through "format" (schema, then "json", then none), and
// `apeval judges check`'s model list. It registers itself with the judge
// registry; judge/all imports it. Not a stable Go API: apeval is a command,
// its packages serve it.
//
// Where to look:
//
//	ollama.go             the backend: Host, New, the chat call, the registry line, the check probe
//	ollama_test.go        against judge/internal/fake's Ollama server
//	ollama_e2e_test.go    against a real Ollama server (-tags e2e, make e2e-ollama)
package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/judge"
	"github.com/ollama/ollama/api"
)

// DefaultKeepAlive keeps an Ollama model loaded between calls.
const DefaultKeepAlive = 10 * time.Minute

// The registry line: name, what it reads, how it opens and probes.
func init() {
	judge.Register(judge.Backend{Name: "ollama", Arg: "MODEL", Server: true, Prompt: true, Live: true, Order: 10, Provider: "ollama",
		Help: "a model served by Ollama (--ollama-host or $OLLAMA_HOST)",
		Open: func(ctx context.Context, arg string, p *judge.Prompt, cfg judge.Config) (judge.Judge, error) {
			return New(ctx, arg, p, cfg)
		},
		Probe: checkOllama})
}

// Judge is the `ollama:MODEL` backend, through github.com/ollama/ollama/api.
type Judge struct {
	client    *api.Client
	host      string
	model     string
	id        judge.Identity
	details   map[string]string
	prompt    *judge.Prompt
	options   map[string]any
	keepAlive time.Duration
	think     *api.ThinkValue
	timeout   time.Duration
	retries   int
	log       io.Writer
	scope     string
	modes     *judge.ModeLadder
	maxBody   int64
	inFlight  chan struct{} // bounds calls in flight (see maxOllamaInFlight)
}

// maxOllamaInFlight bounds the chat calls one Ollama judge has in flight,
// whatever --concurrency says: the Ollama client allocates an 8 MiB line
// buffer per call, and an Ollama server runs only a few requests at once
// (OLLAMA_NUM_PARALLEL) and queues the rest anyway, so more in flight would
// buy memory use, not speed.
const maxOllamaInFlight = 16

// Host resolves the Ollama base URL: the flag, else env (the value of
// $OLLAMA_HOST), else http://127.0.0.1:11434. A value without a scheme gets
// http://, one without a port gets 11434, as the ollama CLI does.
func Host(flag, env string) (*url.URL, error) {
	h := strings.TrimSpace(flag)
	if h == "" {
		h = strings.TrimSpace(env)
	}
	if h == "" {
		h = "http://127.0.0.1:11434"
	}
	if !strings.Contains(h, "://") {
		h = "http://" + h
	}
	u, err := url.Parse(h)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("ollama host %q is not a URL", mask.URL(h))
	}
	if u.Port() == "" && u.Scheme == "http" {
		u.Host = net.JoinHostPort(u.Hostname(), "11434")
	}
	u.Path = strings.TrimRight(u.Path, "/")
	return u, nil
}

// New opens an Ollama judge: it lists the server's models once to find
// the model's digest (only /api/tags has it) and asks /api/show for its
// details. A model the server does not have is an error naming the models
// it has.
func New(ctx context.Context, model string, prompt *judge.Prompt, cfg judge.Config) (*Judge, error) {
	base, err := Host(cfg.OllamaHost, cfg.Env("OLLAMA_HOST"))
	if err != nil {
		return nil, err
	}
	o := &Judge{
		client:    api.NewClient(base, judge.CappedClient(cfg.Client(), cfg.MaxResponse())),
		host:      mask.URL(base.String()),
		maxBody:   cfg.MaxResponse(),
		inFlight:  make(chan struct{}, maxOllamaInFlight),
		prompt:    prompt,
		options:   map[string]any{"temperature": 0, "seed": judge.DefaultSeed},
		keepAlive: DefaultKeepAlive,
		timeout:   cfg.Timeout,
		retries:   cfg.Retries,
		log:       cfg.Logger(),
	}
	if err := judge.CheckOptions(cfg.Options); err != nil {
		return nil, err
	}
	for k, v := range judge.ParseOptions(cfg.Options) {
		switch k {
		case "keep_alive":
			d, err := time.ParseDuration(fmt.Sprint(v))
			if err != nil {
				return nil, fmt.Errorf("judge option keep_alive=%v: %v", v, err)
			}
			o.keepAlive = d
		case "think":
			// A request field, not a model option: true/false or a level.
			o.think = &api.ThinkValue{Value: v}
		default:
			o.options[k] = v
		}
	}
	// A server that accepts connections but never answers must not hang the
	// run before it starts.
	ctx, cancel := context.WithTimeout(ctx, judge.OpenTimeout)
	defer cancel()
	name, digest, err := o.resolve(ctx, model)
	if err != nil {
		return nil, err
	}
	o.model = name
	o.details = map[string]string{"host": o.host, "digest": digest, "options": judge.CanonicalOptions(o.options), "keep_alive": o.keepAlive.String()}
	if o.think != nil {
		o.details["think"] = fmt.Sprint(o.think.Value)
	}
	show, err := o.client.Show(ctx, &api.ShowRequest{Model: name})
	if err != nil {
		return nil, fmt.Errorf("ollama %s: show %s: %s", o.host, name, judge.BriefError(mask.URLs(err.Error())))
	}
	d := show.Details
	for k, v := range map[string]string{"family": d.Family, "parameter_size": d.ParameterSize,
		"quantization_level": d.QuantizationLevel, "format": d.Format} {
		if v != "" {
			o.details[k] = v
		}
	}
	if len(show.Capabilities) > 0 {
		caps := make([]string, len(show.Capabilities))
		for i, c := range show.Capabilities {
			caps[i] = string(c)
		}
		o.details["capabilities"] = strings.Join(caps, ",")
	}
	o.id = judge.Identity{Backend: "ollama", Model: name, Digest: shortDigest(digest), PromptVersion: prompt.Version}
	// The digest pins the model, so the host is not part of the cache scope:
	// the same model answers the same on any server.
	o.scope = o.details["options"] + "|think=" + o.details["think"]
	o.modes = judge.NewModeLadder(o.id.String(), o.log)
	return o, nil
}

// resolve finds the model in the server's list; "llama3" means "llama3:latest".
func (o *Judge) resolve(ctx context.Context, model string) (name, digest string, err error) {
	list, err := o.client.List(ctx)
	if err != nil {
		return "", "", fmt.Errorf("ollama %s: cannot list models: %s; is `ollama serve` running there? Point --ollama-host (or OLLAMA_HOST) at it, and try `apeval judges check ollama:%s`",
			o.host, judge.BriefError(mask.URLs(err.Error())), model)
	}
	want := []string{model}
	if !strings.Contains(model, ":") {
		want = append(want, model+":latest")
	}
	var names []string
	for _, m := range list.Models {
		for _, w := range want {
			if m.Name == w || m.Model == w {
				return m.Name, strings.TrimPrefix(m.Digest, "sha256:"), nil
			}
		}
		names = append(names, m.Name)
	}
	sort.Strings(names)
	have := "none"
	if len(names) > 0 {
		have = strings.Join(names, ", ")
	}
	return "", "", fmt.Errorf("ollama %s: model %q not found (available: %s); run `ollama pull %s`", o.host, model, have, model)
}

// shortDigest is the 12-hex-digit prefix `ollama list` shows; the full
// digest is in Details()["digest"].
func shortDigest(d string) string {
	if len(d) > 12 {
		return d[:12]
	}
	return d
}

// Identity is ollama/MODEL@DIGEST12+PROMPT.
func (o *Judge) Identity() judge.Identity { return o.id }

// Details reports the host, full digest, model details, options and the
// structured-output mode in use.
func (o *Judge) Details() map[string]string {
	out := make(map[string]string, len(o.details)+1)
	for k, v := range o.details {
		out[k] = v
	}
	out["structured_output"] = o.modes.Current()
	return out
}

// StructuredMode is the structured-output mode in use: json_schema until the
// server refuses a schema, then json_object ("json"), then none.
func (o *Judge) StructuredMode() string { return o.modes.Current() }

// CacheScope is the options the answers depend on (judge.CacheScoper).
func (o *Judge) CacheScope() string { return o.scope }

// Judge asks the model about the input's rules in one chat call.
func (o *Judge) Judge(ctx context.Context, req judge.Request) judge.Response {
	asked := judge.AskedIDs(req.Input)
	system, user, err := o.prompt.Render(req.Input)
	if err != nil {
		return judge.Response{Status: judge.StatusError, Error: err.Error()}
	}
	msgs := []api.Message{{Role: "system", Content: system}, {Role: "user", Content: user}}
	return judge.RunAttempts(ctx, o.timeout, o.retries, func(ctx context.Context) (judge.Response, bool) {
		return o.modes.Try(func(mode string) (judge.Response, bool, bool) { return o.chat(ctx, msgs, asked, mode) })
	})
}

// chat makes one request; refused reports that the server rejected the format.
func (o *Judge) chat(ctx context.Context, msgs []api.Message, asked []string, mode string) (resp judge.Response, retry, refused bool) {
	stream := false
	req := &api.ChatRequest{
		Model:     o.model,
		Messages:  msgs,
		Stream:    &stream,
		Options:   o.options,
		KeepAlive: &api.Duration{Duration: o.keepAlive},
		Think:     o.think,
	}
	switch mode {
	case judge.ModeJSONSchema:
		req.Format = judge.TupleOutputSchema(asked)
	case judge.ModeJSONObject:
		req.Format = json.RawMessage(`"json"`)
	}
	var content strings.Builder
	var last api.ChatResponse
	ctx, ci := judge.WithCallInfo(ctx)
	select {
	case o.inFlight <- struct{}{}:
	case <-ctx.Done():
		resp, retry = judge.Failed(ctx, ctx.Err())
		return resp, retry, false
	}
	defer func() { <-o.inFlight }()
	err := o.client.Chat(ctx, req, func(r api.ChatResponse) error {
		if int64(content.Len()+len(r.Message.Content)) > o.maxBody {
			return judge.ErrTooLarge
		}
		content.WriteString(r.Message.Content)
		last = r
		return nil
	})
	over, retryAfter := ci.Seen()
	if over || errors.Is(err, judge.ErrTooLarge) {
		return judge.TooLarge(o.maxBody), false, false
	}
	if err != nil {
		var se api.StatusError
		if errors.As(err, &se) {
			msg := se.ErrorMessage
			if msg == "" {
				msg = se.Status
			}
			html := judge.LooksHTML("", msg)
			msg = judge.BriefError(msg)
			resp, retry = judge.HTTPFailed(se.StatusCode, html, msg, "")
			resp.RetryAfter = retryAfter
			refused = se.StatusCode == 400 && mode != judge.ModeNone && judge.MentionsFormat(msg)
			return resp, retry, refused
		}
		resp, retry = judge.Failed(ctx, err)
		resp.Error = judge.BriefError(mask.URLs(resp.Error))
		return resp, retry, false
	}
	if !last.Done {
		// The client stops quietly when the connection drops mid-body: an
		// answer without its final message is a transport failure, not the
		// model's (and so never cached).
		return judge.Response{Status: judge.StatusError, Cause: judge.CauseTransport, Error: "ollama: the response ended before its final message (connection cut?)"}, true, false
	}
	resp = judge.Answered([]byte(content.String()), asked)
	resp.Server = judge.ServerTimings{
		Total:            last.TotalDuration,
		Load:             last.LoadDuration,
		PromptEval:       last.PromptEvalDuration,
		Eval:             last.EvalDuration,
		PromptTokens:     last.PromptEvalCount,
		CompletionTokens: last.EvalCount,
	}
	return resp, false, false
}

// checkOllama lists the server's models before Open, so an unreachable
// server and a missing model are told apart.
func checkOllama(ctx context.Context, model string, cfg judge.Config, rep *judge.CheckReport) {
	base, err := Host(cfg.OllamaHost, cfg.Env("OLLAMA_HOST"))
	if err != nil {
		rep.Error = err.Error()
		return
	}
	lctx, cancel := context.WithTimeout(ctx, judge.OpenTimeout)
	defer cancel()
	list, err := api.NewClient(base, cfg.Client()).List(lctx)
	var auth api.AuthorizationError
	var status api.StatusError
	switch {
	case errors.As(err, &auth):
		// It answered, but a refused key hides whether it has the model.
		rep.Reachable = true
		rep.ModelUnknown = judge.RefusedKey(auth.StatusCode)
		rep.Error = "ollama " + base.String() + ": " + rep.ModelUnknown
		return
	case errors.As(err, &status) && status.StatusCode == http.StatusForbidden:
		rep.Reachable = true
		rep.ModelUnknown = judge.RefusedKey(status.StatusCode)
		rep.Error = "ollama " + base.String() + ": " + rep.ModelUnknown + ": " + judge.BriefError(status.ErrorMessage)
		return
	case err != nil:
		rep.Error = "ollama " + base.String() + " unreachable: " + err.Error()
		return
	}
	rep.Reachable = true
	for _, m := range list.Models {
		rep.Models = append(rep.Models, m.Name)
		if m.Name == model || m.Name == model+":latest" || m.Model == model {
			rep.ModelPresent = true
		}
	}
	if !rep.ModelPresent {
		rep.Error = "model " + model + " not on the server; run `ollama pull " + model + "`"
	}
}
