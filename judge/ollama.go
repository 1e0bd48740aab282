package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/apeval/apeval/internal/mask"
	"github.com/ollama/ollama/api"
)

// DefaultKeepAlive keeps an Ollama model loaded between calls.
const DefaultKeepAlive = 10 * time.Minute

// The registry line: name, what it reads, how it opens and probes.
func init() {
	Register(Backend{Name: "ollama", Arg: "MODEL", Server: true, Prompt: true, Live: true, Order: 10,
		Open: func(ctx context.Context, arg string, p *Prompt, cfg Config) (Judge, error) {
			return NewOllama(ctx, arg, p, cfg)
		},
		Probe: checkOllama})
}

// Ollama is the `ollama:MODEL` backend, through github.com/ollama/ollama/api.
type Ollama struct {
	client    *api.Client
	host      string
	model     string
	id        Identity
	details   map[string]string
	prompt    *Prompt
	options   map[string]any
	keepAlive time.Duration
	think     *api.ThinkValue
	timeout   time.Duration
	retries   int
	log       io.Writer
	scope     string
	modes     *modeLadder
	maxBody   int64
	inFlight  chan struct{} // bounds calls in flight (see maxOllamaInFlight)
}

// maxOllamaInFlight bounds the chat calls one Ollama judge has in flight,
// whatever --concurrency says: the Ollama client allocates an 8 MiB line
// buffer per call, and an Ollama server runs only a few requests at once
// (OLLAMA_NUM_PARALLEL) and queues the rest anyway, so more in flight would
// buy memory use, not speed.
const maxOllamaInFlight = 16

// OllamaHost resolves the Ollama base URL: the flag, else env (the value of
// $OLLAMA_HOST), else http://127.0.0.1:11434. A value without a scheme gets
// http://, one without a port gets 11434, as the ollama CLI does.
func OllamaHost(flag, env string) (*url.URL, error) {
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

// NewOllama opens an Ollama judge: it lists the server's models once to find
// the model's digest (only /api/tags has it) and asks /api/show for its
// details. A model the server does not have is an error naming the models
// it has.
func NewOllama(ctx context.Context, model string, prompt *Prompt, cfg Config) (*Ollama, error) {
	base, err := OllamaHost(cfg.OllamaHost, cfg.getenv("OLLAMA_HOST"))
	if err != nil {
		return nil, err
	}
	o := &Ollama{
		client:    api.NewClient(base, cappedClient(cfg.httpClient(), cfg.maxResponse())),
		host:      mask.URL(base.String()),
		maxBody:   cfg.maxResponse(),
		inFlight:  make(chan struct{}, maxOllamaInFlight),
		prompt:    prompt,
		options:   map[string]any{"temperature": 0, "seed": DefaultSeed},
		keepAlive: DefaultKeepAlive,
		timeout:   cfg.Timeout,
		retries:   cfg.Retries,
		log:       cfg.log(),
	}
	if err := CheckOptions(cfg.Options); err != nil {
		return nil, err
	}
	for k, v := range parseOptions(cfg.Options) {
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
	ctx, cancel := context.WithTimeout(ctx, OpenTimeout)
	defer cancel()
	name, digest, err := o.resolve(ctx, model)
	if err != nil {
		return nil, err
	}
	o.model = name
	o.details = map[string]string{"host": o.host, "digest": digest, "options": canonicalOptions(o.options), "keep_alive": o.keepAlive.String()}
	if o.think != nil {
		o.details["think"] = fmt.Sprint(o.think.Value)
	}
	show, err := o.client.Show(ctx, &api.ShowRequest{Model: name})
	if err != nil {
		return nil, fmt.Errorf("ollama %s: show %s: %s", o.host, name, briefError(mask.URLs(err.Error())))
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
	o.id = Identity{Backend: "ollama", Model: name, Digest: shortDigest(digest), PromptVersion: prompt.Version}
	// The digest pins the model, so the host is not part of the cache scope:
	// the same model answers the same on any server.
	o.scope = o.details["options"] + "|think=" + o.details["think"]
	o.modes = newModeLadder(o.id.String(), o.log)
	return o, nil
}

// resolve finds the model in the server's list; "llama3" means "llama3:latest".
func (o *Ollama) resolve(ctx context.Context, model string) (name, digest string, err error) {
	list, err := o.client.List(ctx)
	if err != nil {
		return "", "", fmt.Errorf("ollama %s: cannot list models: %s; is `ollama serve` running there? Point --ollama-host (or OLLAMA_HOST) at it, and try `apeval judges check ollama:%s`",
			o.host, briefError(mask.URLs(err.Error())), model)
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
func (o *Ollama) Identity() Identity { return o.id }

// Details reports the host, full digest, model details, options and the
// structured-output mode in use.
func (o *Ollama) Details() map[string]string {
	out := make(map[string]string, len(o.details)+1)
	for k, v := range o.details {
		out[k] = v
	}
	out["structured_output"] = o.modes.current()
	return out
}

// StructuredMode is the structured-output mode in use: json_schema until the
// server refuses a schema, then json_object ("json"), then none.
func (o *Ollama) StructuredMode() string { return o.modes.current() }

// CacheScope is the options the answers depend on (judge.CacheScoper).
func (o *Ollama) CacheScope() string { return o.scope }

// Judge asks the model about the input's rules in one chat call.
func (o *Ollama) Judge(ctx context.Context, req Request) Response {
	asked := askedIDs(req.Input)
	system, user, err := o.prompt.Render(req.Input)
	if err != nil {
		return Response{Status: StatusError, Error: err.Error()}
	}
	msgs := []api.Message{{Role: "system", Content: system}, {Role: "user", Content: user}}
	return runAttempts(ctx, o.timeout, o.retries, func(ctx context.Context) (Response, bool) {
		for {
			mode := o.modes.current()
			resp, retry, refused := o.chat(ctx, msgs, asked, mode)
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

// chat makes one request; refused reports that the server rejected the format.
func (o *Ollama) chat(ctx context.Context, msgs []api.Message, asked []string, mode string) (resp Response, retry, refused bool) {
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
	case ModeJSONSchema:
		req.Format = TupleOutputSchema(asked)
	case ModeJSONObject:
		req.Format = json.RawMessage(`"json"`)
	}
	var content strings.Builder
	var last api.ChatResponse
	ctx, ci := withCallInfo(ctx)
	select {
	case o.inFlight <- struct{}{}:
	case <-ctx.Done():
		resp, retry = failed(ctx, ctx.Err())
		return resp, retry, false
	}
	defer func() { <-o.inFlight }()
	err := o.client.Chat(ctx, req, func(r api.ChatResponse) error {
		if int64(content.Len()+len(r.Message.Content)) > o.maxBody {
			return errTooLarge
		}
		content.WriteString(r.Message.Content)
		last = r
		return nil
	})
	ci.mu.Lock()
	over, retryAfter := ci.over, ci.retryAfter
	ci.mu.Unlock()
	if over || errors.Is(err, errTooLarge) {
		return tooLarge(o.maxBody), false, false
	}
	if err != nil {
		var se api.StatusError
		if errors.As(err, &se) {
			msg := se.ErrorMessage
			if msg == "" {
				msg = se.Status
			}
			html := looksHTML("", msg)
			msg = briefError(msg)
			resp, retry = httpFailed(se.StatusCode, html, msg)
			resp.RetryAfter = retryAfter
			refused = se.StatusCode == 400 && mode != ModeNone && mentionsFormat(msg)
			return resp, retry, refused
		}
		resp, retry = failed(ctx, err)
		resp.Error = briefError(mask.URLs(resp.Error))
		return resp, retry, false
	}
	if !last.Done {
		// The client stops quietly when the connection drops mid-body: an
		// answer without its final message is a transport failure, not the
		// model's (and so never cached).
		return Response{Status: StatusError, Cause: CauseTransport, Error: "ollama: the response ended before its final message (connection cut?)"}, true, false
	}
	resp = answered([]byte(content.String()), asked)
	resp.Server = ServerTimings{
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
func checkOllama(ctx context.Context, model string, cfg Config, rep *CheckReport) {
	base, err := OllamaHost(cfg.OllamaHost, cfg.getenv("OLLAMA_HOST"))
	if err != nil {
		rep.Error = err.Error()
		return
	}
	lctx, cancel := context.WithTimeout(ctx, OpenTimeout)
	defer cancel()
	list, err := api.NewClient(base, cfg.httpClient()).List(lctx)
	if err != nil {
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
