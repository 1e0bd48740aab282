package core

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"regexp"
	"strings"
	"syscall"
)

// Cause is why a call failed, typed where the failure happened (a Go error's
// type, an HTTP status class, what the body held) rather than read back from
// its message. It travels on the Response and in decisions.parquet's
// call_cause column; setup errors, retries and the verdict are decided from
// it (docs/judges.md, "Why a call failed").
type Cause string

// The causes. "" is a call that did not fail.
const (
	CauseTimeout      Cause = "timeout"      // the attempt's or the caller's deadline
	CauseCancelled    Cause = "cancelled"    // the caller stopped (Ctrl-C)
	CauseRefused      Cause = "refused"      // connection refused: no server at that address
	CauseDNS          Cause = "dns"          // the host name does not resolve
	CauseTLS          Cause = "tls"          // TLS handshake or certificate failure
	CauseTransport    Cause = "transport"    // a connection reset, cut or other network error
	CauseUnauthorized Cause = "http_401"     // the server refused the credentials
	CauseForbidden    Cause = "http_403"     // the key may not use this model or endpoint
	CauseNotFound     Cause = "http_404"     // wrong URL or model name
	CauseNotServed    Cause = "http_405_501" // the server does not serve this endpoint or method
	CauseNotTheAPI    Cause = "not_the_api"  // an HTML page (or other non-API content) answered
	CauseRateLimited  Cause = "http_429"     // rate limited
	CauseServer       Cause = "http_5xx"     // the server failed or is overloaded (500, 502-504, 529)
	CauseClient       Cause = "http_4xx"     // another 4xx: a request the server rejected
	CauseInvalid      Cause = "invalid"      // an answer that breaks the judge output schema
	CausePlugin       Cause = "plugin"       // an exec plugin exited or failed
	CauseBudget       Cause = "budget"       // not sent: a --max-calls / --budget-usd limit
	CauseNoJudge      Cause = "no_judge"     // --judge none
	CauseOther        Cause = "other"        // any other failure
)

// Setup-class failures (docs/judges.md, "A broken setup"): causes that say
// the judge was never reached as configured — a wrong URL, model name or
// key, a server that is not there, another web service answering — rather
// than how it behaves under load. When half or more of a judge's calls fail
// with one of them, the judge has no verdict (ERROR, exit 2). Timeouts, HTTP
// 429 and 5xx are not among them: they stay counted failures.
const (
	SetupUnauthorized = "HTTP 401 (the server refused the credentials)"
	SetupForbidden    = "HTTP 403 (the key may not use this model or endpoint)"
	SetupNotFound     = "HTTP 404 (wrong URL or model name)"
	SetupNotServed    = "HTTP 405 or 501 (the server does not serve the judge API there: wrong URL?)"
	SetupHTML         = "an HTML page where the judge API's JSON was expected (wrong URL?)"
	SetupRefused      = "connection refused (no server at that address)"
	SetupUnknownHost  = "unknown host"
	SetupTLS          = "a TLS handshake or certificate failure (http vs https, or an untrusted certificate)"
)

// Setup is the setup-class sentence of a cause, "" when the cause is not
// one (a timeout, a 429 or 5xx, an invalid answer, a crashed plugin).
func (c Cause) Setup() string {
	switch c {
	case CauseUnauthorized:
		return SetupUnauthorized
	case CauseForbidden:
		return SetupForbidden
	case CauseNotFound:
		return SetupNotFound
	case CauseNotServed:
		return SetupNotServed
	case CauseNotTheAPI:
		return SetupHTML
	case CauseRefused:
		return SetupRefused
	case CauseDNS:
		return SetupUnknownHost
	case CauseTLS:
		return SetupTLS
	}
	return ""
}

// Retryable reports whether a call that failed with c is worth another
// attempt: a timeout, any transport error (a server restarting refuses for a
// moment), a plugin that exited, HTTP 429 and 5xx. Invalid answers and
// other HTTP answers are not: at temperature 0 the same answer comes back,
// and a 404 or a web page stays one.
func (c Cause) Retryable() bool {
	switch c {
	case CauseTimeout, CauseTransport, CauseRefused, CauseDNS, CauseTLS, CauseRateLimited, CauseServer, CausePlugin:
		return true
	}
	return false
}

// CauseOfError types a transport error: the context's deadline or
// cancellation, a refused connection, an unknown host, a TLS failure, else a
// transport error.
func CauseOfError(err error) Cause {
	var dns *net.DNSError
	var cv *tls.CertificateVerificationError
	var rh tls.RecordHeaderError
	var ua x509.UnknownAuthorityError
	var hn x509.HostnameError
	var ci x509.CertificateInvalidError
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.DeadlineExceeded):
		return CauseTimeout
	case errors.Is(err, syscall.ECONNREFUSED):
		return CauseRefused
	case errors.As(err, &dns):
		return CauseDNS
	case errors.As(err, &cv), errors.As(err, &rh), errors.As(err, &ua), errors.As(err, &hn), errors.As(err, &ci):
		return CauseTLS
	case errors.Is(err, http.ErrSchemeMismatch):
		return CauseTLS
	}
	return CauseTransport
}

// CauseOfHTTP types an HTTP error answer from its status and whether its
// body is an HTML page: 401, 403 and 404 by status; 429 is a rate limit;
// 405 and 501 (a web server that does not serve this method or path) are
// not served, or not the API when they come as a web page, as is any other
// non-5xx status answered with a page; 500 and 502-504 (and Anthropic's
// 529) stay load even as a proxy's HTML page.
func CauseOfHTTP(code int, html bool) Cause {
	notServed := code == http.StatusMethodNotAllowed || code == http.StatusNotImplemented
	switch {
	case code == http.StatusUnauthorized:
		return CauseUnauthorized
	case code == http.StatusForbidden:
		return CauseForbidden
	case code == http.StatusNotFound:
		return CauseNotFound
	case code == http.StatusTooManyRequests:
		return CauseRateLimited
	case html && (notServed || code < 500):
		return CauseNotTheAPI
	case notServed:
		return CauseNotServed
	case code >= 500:
		return CauseServer
	case code >= 400:
		return CauseClient
	}
	return CauseOther
}

// LooksHTML reports whether a body (or its content type) is a web page.
func LooksHTML(contentType string, body string) bool {
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(contentType)), "text/html") {
		return true
	}
	low := strings.ToLower(strings.TrimSpace(body))
	return strings.HasPrefix(low, "<!doctype html") || strings.HasPrefix(low, "<html") || strings.Contains(low, "<body")
}

// CauseOf is a response's cause: the one its backend typed, else the one
// its status implies (invalid, timeout; other for an untyped error).
func (r Response) CauseOf() Cause {
	switch {
	case r.Cause != "":
		return r.Cause
	case r.Status == StatusInvalid:
		return CauseInvalid
	case r.Status == StatusTimeout:
		return CauseTimeout
	case r.Status == StatusError:
		return CauseOther
	}
	return ""
}

var httpStatus = regexp.MustCompile(`\bHTTP (\d{3})\b`)

// CauseFromText reads a cause back from a failed call's status and message.
// It is only for calls whose cause was never typed: recordings captured in
// production (a recording carries a message, not a cause) and run
// directories written before decisions.parquet had call_cause. Everything
// apeval's own backends answer carries its typed Cause.
func CauseFromText(status Status, msg string) Cause {
	switch status {
	case StatusTimeout:
		return CauseTimeout
	case StatusInvalid, StatusError:
	default:
		return ""
	}
	low := strings.ToLower(msg)
	html := strings.Contains(low, "answered with an html page")
	if m := httpStatus.FindStringSubmatch(msg); m != nil {
		code := int(m[1][0]-'0')*100 + int(m[1][1]-'0')*10 + int(m[1][2]-'0')
		return CauseOfHTTP(code, html)
	}
	switch {
	case html:
		return CauseNotTheAPI
	case strings.Contains(low, "connection refused"):
		return CauseRefused
	case strings.Contains(low, "no such host") || strings.Contains(low, "server misbehaving"):
		return CauseDNS
	case status == StatusInvalid:
		return CauseInvalid
	}
	return CauseOther
}
