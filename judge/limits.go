package judge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/apeval/apeval/internal/trunc"
)

// DefaultMaxResponseBytes caps the body of one judge response (HTTP
// backends) and one line of an exec plugin. A judge answer for ten rules is
// well under a kilobyte; a body over the cap is read no further and the
// call counts as invalid (the server answered, but not a usable answer),
// and is never cached.
const DefaultMaxResponseBytes = 1 << 20

// maxRetryAfter bounds how long a Retry-After header may make a call wait
// before its next attempt when the caller set no deadline.
const maxRetryAfter = time.Minute

// ErrTooLarge marks a response body or plugin line over the cap.
var ErrTooLarge = errors.New("response too large")

func (cfg Config) maxResponse() int64 {
	if cfg.MaxResponseBytes > 0 {
		return cfg.MaxResponseBytes
	}
	return DefaultMaxResponseBytes
}

// tooLarge is the response for a body over limit bytes.
func tooLarge(limit int64) Response {
	return Response{Status: StatusInvalid, Cause: CauseInvalid, Error: fmt.Sprintf("response larger than %d bytes (the judge response limit); not read further", limit),
		NoCache: true}
}

// readCapped reads r up to limit bytes; over reports that there was more.
func readCapped(r io.Reader, limit int64) (b []byte, over bool, err error) {
	b, err = io.ReadAll(io.LimitReader(r, limit+1))
	if int64(len(b)) > limit {
		return b[:limit], true, err
	}
	return b, false, err
}

// parseRetryAfter reads a Retry-After header: delay seconds or an HTTP date.
// It returns 0 when the header is absent or unreadable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s <= 0 {
			return 0
		}
		if s > int64(24*time.Hour/time.Second) {
			s = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// retryWait is the pause before retry n: the backoff, or the server's
// Retry-After when longer. ok is false when the wait would end past the
// caller's deadline (or past maxRetryAfter without one): the call then ends
// with the failure it has instead of sleeping into a timeout.
func retryWait(ctx context.Context, n int, retryAfter time.Duration) (time.Duration, bool) {
	d := retryBackoff(n)
	if retryAfter > d {
		d = retryAfter
	}
	if dl, has := ctx.Deadline(); has {
		return d, time.Until(dl) > d
	}
	return d, d <= maxRetryAfter
}

// briefError makes a server's error text fit one line of a report: an HTML
// page (a proxy, a web server at the wrong port) is named, not printed, and
// anything long is cut.
func briefError(s string) string {
	s = strings.TrimSpace(s)
	low := strings.ToLower(s)
	if strings.HasPrefix(low, "<!doctype html") || strings.HasPrefix(low, "<html") || strings.Contains(low, "<body") {
		title := ""
		if i := strings.Index(low, "<title>"); i >= 0 {
			if j := strings.Index(low[i:], "</title>"); j > 0 {
				title = strings.TrimSpace(s[i+len("<title>") : i+j])
			}
		}
		if title != "" {
			return fmt.Sprintf("the server answered with an HTML page (%q), not the judge API: is the URL right?", trunc.Bytes(title, 80))
		}
		return "the server answered with an HTML page, not the judge API: is the URL right?"
	}
	s = strings.Join(strings.Fields(s), " ")
	return QuoteControls(trunc.Bytes(s, 300))
}

// QuoteControls quotes s as the invalid-answer path quotes a snippet (%q)
// when it holds a control or escape sequence, an invisible format character
// (bidi overrides) or a line separator, so that no error text read from a
// server can move a terminal's cursor, write its clipboard (OSC 52) or
// break a report table.
func QuoteControls(s string) string {
	for _, r := range s {
		if unsafeRune(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

func unsafeRune(r rune) bool {
	return r == utf8.RuneError || unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

// CallInfo collects what the transport saw of one attempt's HTTP exchange
// for clients that hide it (the Ollama client): Retry-After and whether the
// body went over the cap.
type CallInfo struct {
	mu         sync.Mutex
	retryAfter time.Duration
	over       bool
}

// Seen returns whether the body went over the cap and the Retry-After the
// server sent.
func (ci *CallInfo) Seen() (over bool, retryAfter time.Duration) {
	ci.mu.Lock()
	defer ci.mu.Unlock()
	return ci.over, ci.retryAfter
}

type callInfoKey struct{}

// WithCallInfo attaches a CallInfo to ctx for the capped transport to fill.
func WithCallInfo(ctx context.Context) (context.Context, *CallInfo) {
	ci := &CallInfo{}
	return context.WithValue(ctx, callInfoKey{}, ci), ci
}

// cappedTransport caps every response body at limit bytes (a read past it
// fails with ErrTooLarge) and records Retry-After in the request's CallInfo.
type cappedTransport struct {
	base  http.RoundTripper
	limit int64
}

func (t *cappedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	ci, _ := req.Context().Value(callInfoKey{}).(*CallInfo)
	if ci != nil {
		ci.mu.Lock()
		ci.retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		ci.mu.Unlock()
	}
	resp.Body = &cappedBody{ReadCloser: resp.Body, left: t.limit, ci: ci}
	return resp, nil
}

type cappedBody struct {
	io.ReadCloser
	left int64
	ci   *CallInfo
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		if b.ci != nil {
			b.ci.mu.Lock()
			b.ci.over = true
			b.ci.mu.Unlock()
		}
		return 0, ErrTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// CappedClient wraps c so that its responses are capped (see cappedTransport).
func CappedClient(c *http.Client, limit int64) *http.Client {
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	cc := *c
	cc.Transport = &cappedTransport{base: base, limit: limit}
	return &cc
}
