package judge

import (
	"context"
	"io"
	"net/http"
	"time"
)

// The call machinery a backend in its own package shares with the built-in
// ones (judge/anthropic uses it): attempts and retries, typed failures,
// capped bodies, the answer parser. Each is the built-in backends' own.

// RunAttempts makes up to 1+retries attempts of fn, each bounded by
// timeout, with the backoff and Retry-After handling every backend has; the
// response's Latency is the whole call's wall time and Attempts its count.
func RunAttempts(ctx context.Context, timeout time.Duration, retries int, fn func(ctx context.Context) (resp Response, retry bool)) Response {
	return runAttempts(ctx, timeout, retries, fn)
}

// Failed turns an attempt's transport error into a failed response with
// its typed Cause (CauseOfError) and whether to retry it.
func Failed(ctx context.Context, err error) (Response, bool) { return failed(ctx, err) }

// HTTPFailed is the response to an HTTP error answer: "HTTP code: msg",
// its Cause from the status class and whether the body was a web page
// (CauseOfHTTP), the server's Retry-After header value honoured by the
// retry loop.
func HTTPFailed(code int, html bool, msg, retryAfter string) (Response, bool) {
	r, retry := httpFailed(code, html, msg)
	r.RetryAfter = parseRetryAfter(retryAfter, time.Now())
	return r, retry
}

// LooksHTML reports whether an answer is a web page, from its Content-Type
// or its first bytes.
func LooksHTML(contentType, body string) bool { return looksHTML(contentType, body) }

// BriefError shortens a server's error text for a message: a web page
// becomes one line naming its title; control sequences are quoted.
func BriefError(s string) string { return briefError(s) }

// ReadCapped reads r up to limit bytes; over reports there was more.
func ReadCapped(r io.Reader, limit int64) (b []byte, over bool, err error) {
	return readCapped(r, limit)
}

// TooLarge is the (invalid, uncached) response for a body over limit bytes.
func TooLarge(limit int64) Response { return tooLarge(limit) }

// Answered validates a model's answer text (the judge output JSON) for
// the asked rule IDs into a response.
func Answered(content []byte, asked []string) Response { return answered(content, asked) }

// NotAnswer marks an invalid response that is not the model's whole answer
// (no content, a cut-off answer): it is kept out of the cache.
func NotAnswer(r Response) Response {
	r.NoCache = true
	return r
}

// AskedIDs lists an input's rule IDs in order, without duplicates.
func AskedIDs(in Input) []string { return askedIDs(in) }

// ParseOptions turns --judge-option values into JSON-ready values (bool,
// integer, float, else string); CanonicalOptions renders them sorted.
func ParseOptions(opts map[string]string) map[string]any { return parseOptions(opts) }

// CanonicalOptions renders options sorted as k=v,k=v, for cache scopes.
func CanonicalOptions(opts map[string]any) string { return canonicalOptions(opts) }

// Client is the HTTP client every judge shares (warm connections), or
// the configured one.
func (cfg Config) Client() *http.Client { return cfg.httpClient() }

// MaxResponse is the cap on one response body (DefaultMaxResponseBytes
// unless MaxResponseBytes is set).
func (cfg Config) MaxResponse() int64 { return cfg.maxResponse() }

// Env looks a variable up in the configured environment (Getenv).
func (cfg Config) Env(key string) string { return cfg.getenv(key) }

// Logger is where warnings go (Log, or nowhere).
func (cfg Config) Logger() io.Writer { return cfg.log() }

// CacheScoper is implemented by backends whose answers depend on settings
// outside the identity (options, server URL): the cache keys on the scope
// too, as a digest.
type CacheScoper interface {
	CacheScope() string
}
