package judge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Config configures the live backends; the zero value is usable.
type Config struct {
	// OllamaHost is --ollama-host; empty means $OLLAMA_HOST (through
	// Getenv), else http://127.0.0.1:11434.
	OllamaHost string
	// OpenAIBaseURL is --openai-base-url; empty means https://api.openai.com/v1.
	OpenAIBaseURL string
	// OpenAIKeyEnv names the environment variable holding the API key
	// (--openai-api-key-env); empty means OPENAI_API_KEY. An unset or empty
	// variable sends no Authorization header, which local servers accept.
	OpenAIKeyEnv string
	// Options are --judge-option key=value pairs. Values are parsed as a
	// bool (true/false), an integer, a float, else kept as a string. Ollama
	// gets them in "options", except keep_alive (a duration) and think
	// (true/false or a level), which are request fields; OpenAI gets them as
	// top-level body fields (max_tokens, top_p, …).
	Options map[string]string
	// PromptFile is --prompt; empty means the built-in prompt.
	PromptFile string
	// Timeout bounds each attempt; 0 leaves only the caller's context.
	Timeout time.Duration
	// Retries is how many times a call that failed with a timeout, a
	// transport error, HTTP 429 or 5xx is retried. Invalid answers and other
	// HTTP 4xx are never retried: asking again at temperature 0 gives the
	// same answer.
	Retries int
	// Concurrency is the number of calls the caller keeps in flight per
	// judge (--concurrency); exec starts that many children. 0 means 1.
	Concurrency int
	// HTTPClient overrides the shared client (tests, proxies). nil uses a
	// client whose transport keeps up to 128 idle connections per host.
	HTTPClient *http.Client
	// Log receives warnings (structured-output fallbacks, plugin stderr and
	// restarts). nil discards them.
	Log io.Writer
	// Quiet (--quiet) drops plugin stderr instead of copying it to Log.
	Quiet bool
	// MaxResponseBytes caps one HTTP response body or one exec plugin line
	// (default DefaultMaxResponseBytes); over it, the call is invalid.
	MaxResponseBytes int64
	// Server and KeyEnv are a registered backend's server URL and API key
	// variable (a --judge SPEC@URL, a [[judge]] base_url / api_key_env);
	// empty means the backend's defaults. Ollama and OpenAI read the
	// fields above, which the command also sets.
	Server, KeyEnv string
	// Getenv is the environment the judges read: OLLAMA_HOST and the
	// variable OpenAIKeyEnv names. The command passes the environment it
	// was given (the process's in production, a map in tests); nil is an
	// empty one. (Exec plugins still inherit the process environment.)
	Getenv func(string) string
}

// getenv looks key up in the configured environment.
func (c Config) getenv(key string) string {
	if c.Getenv == nil {
		return ""
	}
	return c.Getenv(key)
}

// Backend is one judge backend as the registry knows it: its spec prefix,
// what its argument is, which of the shared settings it reads, and how to
// open it. Each backend registers itself once (Register), in its own file
// or package; Open, `apeval judges check`, the command's flag and
// apeval.toml checks and the help read the registry. Adding a backend:
// docs/internals.md, "Adding a judge backend".
type Backend struct {
	// Name is the spec prefix: "ollama" in ollama:MODEL.
	Name string
	// Arg names the spec's argument for help and errors ("MODEL",
	// "COMMAND"); "" for a backend that takes none (none).
	Arg string
	// Server: the backend talks to a server whose URL a --judge SPEC@URL
	// or a [[judge]] base_url sets (Config.Server).
	Server bool
	// KeyEnv is the default environment variable holding the API key,
	// which a [[judge]] api_key_env overrides (Config.KeyEnv); "" for a
	// backend that takes no key.
	KeyEnv string
	// Prompt: the backend renders apeval's prompt (--prompt applies).
	Prompt bool
	// Live: the backend makes real calls (cached, budgeted, retried).
	Live bool
	// Open builds the judge from the spec's argument; prompt is the
	// loaded --prompt (or the built-in one) when Prompt is set, else nil.
	Open func(ctx context.Context, arg string, prompt *Prompt, cfg Config) (Judge, error)
	// Probe, if set, is `apeval judges check`'s look at the server before
	// Open (Ollama lists its models, so an unreachable server and a missing
	// model are told apart); an Error in rep ends the check.
	Probe func(ctx context.Context, arg string, cfg Config, rep *CheckReport)
	// Order places the backend in the help's and the messages' lists
	// (lower first, ties by name).
	Order int
	// Provider is the OpenTelemetry GenAI conventions' well-known
	// gen_ai.provider.name of the backend's API ("openai"), for the traces
	// of --otlp-endpoint; "" for none (then apeval.NAME).
	Provider string
	// Help is the backend's line in the help's list of spec forms
	// (SpecHelp); a "\n" starts a continuation line.
	Help string
	// Form is the spec form the help shows, when not Name:Arg (or Name
	// without Arg): "recorded[:NAME]".
	Form string
}

// Providers maps each registered backend that has one to its Provider.
func Providers() map[string]string {
	out := map[string]string{}
	for _, b := range Backends() {
		if b.Provider != "" {
			out[b.Name] = b.Provider
		}
	}
	return out
}

// OpenTimeout bounds the calls a backend makes when it opens (model lists
// and details).
const OpenTimeout = 30 * time.Second

// DefaultSeed makes sampling reproducible where a backend honours it.
const DefaultSeed = 42

var (
	registryMu sync.RWMutex
	// registry lists the backends by Order, then name. Every backend,
	// recorded and none (judge/recorded) included, registers from its own
	// package; judge/all imports them all.
	registry []Backend
)

// Register adds a backend; a backend package calls it from init, and the
// command imports the package (cmd/apeval/backends.go). A second backend
// of one name panics: it is a programming error.
func Register(b Backend) {
	registryMu.Lock()
	defer registryMu.Unlock()
	for _, r := range registry {
		if r.Name == b.Name {
			panic("judge: backend " + b.Name + " registered twice")
		}
	}
	registry = append(registry, b)
	sort.SliceStable(registry, func(i, j int) bool {
		if registry[i].Order != registry[j].Order {
			return registry[i].Order < registry[j].Order
		}
		return registry[i].Name < registry[j].Name
	})
}

// IsLive reports whether j calls a model (its backend is Live, or not
// registered: a wrapper's unknown backend counts as live): such a judge
// costs money and time, goes through the cache and under a budget.
func IsLive(j Judge) bool {
	b, ok := Lookup(j.Identity().Backend)
	return !ok || b.Live
}

// Lookup returns the registered backend of a name (a spec's prefix).
func Lookup(name string) (Backend, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	for _, r := range registry {
		if r.Name == name {
			return r, true
		}
	}
	return Backend{}, false
}

// Backends lists the registered backends, built-in ones first.
func Backends() []Backend {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return append([]Backend(nil), registry...)
}

// SpecForms lists the judge specs Open accepts, for help and errors:
// "ollama:MODEL, openai:MODEL, exec:COMMAND, recorded:NAME or none".
func SpecForms() string {
	var forms []string
	none := ""
	for _, b := range Backends() {
		if b.Arg == "" {
			none = b.Name
			continue
		}
		forms = append(forms, b.Name+":"+b.Arg)
	}
	s := strings.Join(forms, ", ")
	if none != "" {
		s += " or " + none
	}
	return s
}

// SpecHelp is the help's list of spec forms, from the registry: a line
// per backend (its Form and Help), then SPEC@URL naming the backends that
// take a server of their own. Each line is indented two spaces and ends
// in a newline.
func SpecHelp() string {
	var b strings.Builder
	line := func(form, help string) {
		for i, l := range strings.Split(help, "\n") {
			if i == 0 {
				fmt.Fprintf(&b, "  %-16s %s\n", form, l)
			} else {
				fmt.Fprintf(&b, "  %-16s %s\n", "", l)
			}
		}
	}
	for _, bk := range Backends() {
		line(specForm(bk), bk.Help)
	}
	line("SPEC@URL", "an "+serverForms("or")+" judge on its own server, e.g.\n"+
		"openai:qwen2.5-7b@http://localhost:8000/v1 (several judges,\n"+
		"each its own: apeval.toml [[judge]] base_url, api_key_env,\n"+
		"prompt, options, prices)")
	return b.String()
}

// SpecUsage is the --judge flag's usage, from the registry.
func SpecUsage() string {
	var forms []string
	for _, bk := range Backends() {
		forms = append(forms, specForm(bk))
	}
	return "judge spec (" + strings.Join(forms, ", ") + "); " + serverForms("and") + " take @URL for their own server; repeatable"
}

// specForm is a backend's spec form as the help shows it.
func specForm(b Backend) string {
	switch {
	case b.Form != "":
		return b.Form
	case b.Arg == "":
		return b.Name
	}
	return b.Name + ":" + b.Arg
}

// serverForms lists the backends that take a server of their own
// ("ollama:, openai: or anthropic:").
func serverForms(conj string) string {
	var names []string
	for _, b := range Backends() {
		if b.Server {
			names = append(names, b.Name+":")
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + conj + " " + names[len(names)-1]
}

// Open builds the judge named by a --judge spec through the registry. Live
// backends contact their server once here (Ollama: model list and
// details), so a wrong host or model fails before any case is replayed.
// Bare "recorded" must be expanded by the caller into one recorded:NAME
// per name found in the dataset.
func Open(ctx context.Context, spec string, cfg Config) (Judge, error) {
	name, arg, hasArg := strings.Cut(strings.TrimSpace(spec), ":")
	b, ok := Lookup(name)
	switch {
	case !ok:
		return nil, fmt.Errorf("judge %q: unknown backend %q; use %s", spec, name, SpecForms())
	case b.Arg == "" && hasArg:
		return nil, fmt.Errorf("judge %q: %s takes no argument", spec, name)
	case name == "recorded" && arg == "":
		return nil, fmt.Errorf("judge %q: bare recorded must be expanded into recorded:NAME for each judge name in the dataset", spec)
	case b.Arg != "" && (!hasArg || strings.TrimSpace(arg) == ""):
		return nil, fmt.Errorf("judge %q: %s needs an argument (%s)", spec, name, SpecForms())
	}
	var prompt *Prompt
	if b.Prompt || b.Live {
		prompt = DefaultPrompt()
		if cfg.PromptFile != "" {
			p, err := LoadPrompt(cfg.PromptFile)
			if err != nil {
				return nil, err
			}
			prompt = p
		}
	}
	if !b.Prompt {
		prompt = nil
	}
	return b.Open(ctx, arg, prompt, cfg)
}

// StartupChecker is implemented by backends that check their server when a
// run starts, as Ollama's Open looks its model up (OpenAI: GET /models): an
// unreachable server or a refused key fails the run there, not every call.
type StartupChecker interface {
	StartupCheck(ctx context.Context) error
}

// Describer is implemented by backends that know more about their model than
// the identity says (Ollama: family, parameter size, quantization, full
// digest; OpenAI: base URL; structured-output mode), for run metadata and
// `apeval judges check`.
type Describer interface {
	Details() map[string]string
}

// parseOptions turns --judge-option values into JSON-ready values.
func parseOptions(opts map[string]string) map[string]any {
	out := make(map[string]any, len(opts))
	for k, v := range opts {
		out[k] = parseOptionValue(v)
	}
	return out
}

// numericOptions are the sampling options every backend takes as numbers,
// with the range a value must fall in.
var numericOptions = map[string][2]float64{
	"temperature":       {0, 2},
	"top_p":             {0, 1},
	"min_p":             {0, 1},
	"top_k":             {0, math.MaxInt32},
	"seed":              {math.MinInt64, math.MaxInt64},
	"max_tokens":        {1, math.MaxInt32},
	"num_predict":       {-2, math.MaxInt32},
	"num_ctx":           {1, math.MaxInt32},
	"frequency_penalty": {-2, 2},
	"presence_penalty":  {-2, 2},
	"repeat_penalty":    {0, 100},
}

// CheckOptions refuses a sampling option whose value is not a number in
// its range (--judge-option temperature=abc), which a server would reject
// on every call or, worse, read as something else.
func CheckOptions(opts map[string]string) error {
	for k, v := range opts {
		r, ok := numericOptions[k]
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(f) {
			return fmt.Errorf("judge option %s=%q: want a number", k, v)
		}
		if f < r[0] || f > r[1] {
			return fmt.Errorf("judge option %s=%s: want a number from %g to %g", k, v, r[0], r[1])
		}
	}
	return nil
}

func parseOptionValue(v string) any {
	switch v {
	case "true":
		return true
	case "false":
		return false
	}
	if i, err := strconv.ParseInt(v, 10, 64); err == nil {
		return i
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f
	}
	return v
}

// canonicalOptions renders options sorted, for cache scopes and details.
func canonicalOptions(opts map[string]any) string {
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=%v", k, opts[k])
	}
	return b.String()
}

// sharedTransport is reused by every HTTP judge so connections stay warm
// across calls and judges; one host gets up to 128 idle connections, enough
// for any sensible --concurrency.
var sharedTransport = &http.Transport{
	Proxy:                 http.ProxyFromEnvironment,
	DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
	ForceAttemptHTTP2:     true,
	MaxIdleConns:          512,
	MaxIdleConnsPerHost:   128,
	IdleConnTimeout:       90 * time.Second,
	TLSHandshakeTimeout:   10 * time.Second,
	ExpectContinueTimeout: time.Second,
}

// sharedClient has no overall timeout: each attempt carries its own deadline.
var sharedClient = &http.Client{Transport: sharedTransport}

func (cfg Config) httpClient() *http.Client {
	if cfg.HTTPClient != nil {
		return cfg.HTTPClient
	}
	return sharedClient
}

func (cfg Config) log() io.Writer {
	if cfg.Log != nil {
		return cfg.Log
	}
	return io.Discard
}

// attemptFunc makes one attempt; retry says whether its failure is worth
// another one (timeouts, transport errors, HTTP 429 and 5xx).
type attemptFunc func(ctx context.Context) (resp Response, retry bool)

// retryBackoff is the pause before retry n (1-based): 100 ms doubling, at most 2 s.
func retryBackoff(n int) time.Duration {
	d := 100 * time.Millisecond << (n - 1)
	if d > 2*time.Second || d <= 0 {
		d = 2 * time.Second
	}
	return d
}

// runAttempts makes up to 1+retries attempts, each bounded by timeout.
// Latency is the honest wall time of the whole call: from the first
// attempt's start to the final answer, backoff pauses included, so a call
// that timed out twice counts at twice its timeout plus the pause.
func runAttempts(ctx context.Context, timeout time.Duration, retries int, fn attemptFunc) Response {
	start := time.Now()
	var resp Response
	for n := 1; ; n++ {
		actx, cancel := ctx, context.CancelFunc(func() {})
		if timeout > 0 {
			actx, cancel = context.WithTimeout(ctx, timeout)
		}
		var retry bool
		resp, retry = fn(actx)
		cancel()
		resp.Attempts = n
		if !retry || n > retries || ctx.Err() != nil {
			break
		}
		pause, ok := retryWait(ctx, n, resp.RetryAfter)
		if !ok {
			resp.Error += fmt.Sprintf(" (not retried: the server asked to wait %s, past the call's deadline)", pause.Round(time.Second))
			break
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		}
		if ctx.Err() != nil {
			break
		}
	}
	resp.Latency = time.Since(start)
	return resp
}

// failed turns an error of one attempt into a failed response. A deadline
// (the attempt's or the caller's) is a timeout; a cancelled caller is an
// error and is not retried; any other transport error is retried.
func failed(ctx context.Context, err error) (Response, bool) {
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return Response{Status: StatusTimeout, Cause: CauseTimeout, Error: "timeout: " + err.Error()}, true
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		return Response{Status: StatusError, Cause: CauseCancelled, Error: "cancelled: " + err.Error()}, false
	}
	c := CauseOfError(err)
	return Response{Status: StatusError, Cause: c, Error: err.Error()}, c.Retryable()
}

// httpFailed is the response for an HTTP error status, typed by its status
// class and whether the body was a web page (CauseOfHTTP); 429 and 5xx are
// retried, 501 (not served) is not.
func httpFailed(code int, html bool, msg string) (Response, bool) {
	c := CauseOfHTTP(code, html)
	return Response{Status: StatusError, Cause: c, Error: fmt.Sprintf("HTTP %d: %s", code, msg)}, c.Retryable()
}

// answered validates a model's answer text into a response.
func answered(content []byte, asked []string) Response {
	decisions, status, err := ParseOutput(content, asked)
	if err != nil {
		r := Response{Status: status, Error: err.Error()}
		if status == StatusInvalid {
			r.Cause = CauseInvalid
		}
		return r
	}
	return Response{Status: status, Decisions: decisions}
}
