package judge

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/apeval/apeval/judge/internal/fake"
)

// The cause of a failed call is typed where it failed: each case is an
// OpenAI-compatible server (or something else on its port) answering one
// way, and the cause and its setup class are what a real run records.
func TestCauseOfRealFailures(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		rep   fake.Reply
		cause Cause
		setup string
	}{
		{"model not found", fake.Reply{Status: 404, Raw: `{"error":{"message":"The model 'typo-model' does not exist"}}`}, CauseNotFound, SetupNotFound},
		{"bad key", fake.Reply{Status: 401, Raw: `{"error":{"message":"Incorrect API key provided"}}`}, CauseUnauthorized, SetupUnauthorized},
		{"forbidden", fake.Reply{Status: 403, Raw: `{"error":{"message":"no access"}}`}, CauseForbidden, SetupForbidden},
		{"login page", fake.Reply{Status: 200, Raw: "<!DOCTYPE html><html><head><title>Sign in</title></head><body>portal</body></html>"}, CauseNotTheAPI, SetupHTML},
		{"HTML 400", fake.Reply{Status: 400, Raw: "<html><body>Bad Request</body></html>"}, CauseNotTheAPI, SetupHTML},
		{"HTML 501", fake.Reply{Status: 501, Raw: pythonErrorPage(501, "Unsupported method ('POST')")}, CauseNotTheAPI, SetupHTML},
		{"JSON 501", fake.Reply{Status: 501, Raw: `{"detail":"Not Implemented"}`}, CauseNotServed, SetupNotServed},
		{"JSON 405", fake.Reply{Status: 405, Raw: `{"detail":"Method Not Allowed"}`}, CauseNotServed, SetupNotServed},
		{"overloaded proxy", fake.Reply{Status: 503, Raw: "<html><head><title>503</title></head><body>busy</body></html>"}, CauseServer, ""},
		{"server error", fake.Reply{Status: 500, Raw: `{"error":{"message":"boom"}}`}, CauseServer, ""},
		{"rate limited", fake.Reply{Status: 429, Raw: `{"error":{"message":"slow down"}}`}, CauseRateLimited, ""},
		{"bad request", fake.Reply{Status: 400, Raw: `{"error":{"message":"max_tokens too large"}}`}, CauseClient, ""},
		{"not JSON", fake.Reply{Status: 200, Raw: `plain text`}, CauseOther, ""},
		{"invalid answer", fake.Reply{Content: "I think it matches"}, CauseInvalid, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := fake.NewOpenAI(t, func(int, map[string]any) fake.Reply { return tt.rep })
			r := openOpenAI(t, f, Config{Retries: 2}).Judge(context.Background(), fake.TwoRules())
			if got := r.CauseOf(); got != tt.cause || got.Setup() != tt.setup {
				t.Fatalf("%s %q: cause %q (setup %q), want %q (%q)", r.Status, r.Error, got, got.Setup(), tt.cause, tt.setup)
			}
			if want := 1; !tt.cause.Retryable() && r.Attempts != want {
				t.Fatalf("%s: %d attempts, want %d (not retried)", tt.cause, r.Attempts, want)
			}
			if tt.cause.Retryable() && r.Attempts != 3 {
				t.Fatalf("%s: %d attempts, want 3 (retried twice)", tt.cause, r.Attempts)
			}
		})
	}

	// A server that went away after the judge was opened: the port refuses.
	f := fake.NewOpenAI(t, fake.EchoReply)
	j := openOpenAI(t, f, Config{})
	f.Close()
	if r := j.Judge(context.Background(), fake.TwoRules()); r.CauseOf() != CauseRefused || r.CauseOf().Setup() != SetupRefused {
		t.Fatalf("closed server: %s %q: cause %q", r.Status, r.Error, r.CauseOf())
	}
	// A TLS server the client does not trust.
	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(tlsSrv.Close)
	tj, err := NewOpenAI("m", DefaultPrompt(), Config{OpenAIBaseURL: tlsSrv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	if r := tj.Judge(context.Background(), fake.TwoRules()); r.CauseOf() != CauseTLS || r.CauseOf().Setup() != SetupTLS {
		t.Fatalf("untrusted certificate: %s %q: cause %q", r.Status, r.Error, r.CauseOf())
	}
	// A host that does not resolve (the sandbox may have no resolver at all:
	// either way net reports a *net.DNSError).
	dj, err := NewOpenAI("m", DefaultPrompt(), Config{OpenAIBaseURL: "http://llm.invalid/v1"})
	if err != nil {
		t.Fatal(err)
	}
	if r := dj.Judge(context.Background(), fake.TwoRules()); r.CauseOf() != CauseDNS {
		t.Fatalf("unknown host: %s %q: cause %q", r.Status, r.Error, r.CauseOf())
	}
	if c := (Response{Status: StatusTimeout}).CauseOf(); c != CauseTimeout || c.Setup() != "" {
		t.Fatalf("a timeout is never a setup cause: %q", c)
	}
}

// pythonErrorPage is the page Python's http.server sends for an error
// (BaseHTTPRequestHandler.error_message_format), as a plain web server on
// the judge's port answers a POST.
func pythonErrorPage(code int, msg string) string {
	return fmt.Sprintf(`<!DOCTYPE HTML>
<html lang="en">
    <head>
        <meta charset="utf-8">
        <title>Error response</title>
    </head>
    <body>
        <h1>Error response</h1>
        <p>Error code: %d</p>
        <p>Message: %s.</p>
        <p>Error code explanation: %d - Server does not support this operation.</p>
    </body>
</html>
`, code, msg, code)
}

// Recordings and run directories written before call_cause carry only a
// message: CauseFromText reads it as the typed path would have typed it.
func TestCauseFromText(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		status Status
		msg    string
		want   Cause
	}{
		{StatusError, "HTTP 404: The model 'x' does not exist", CauseNotFound},
		{StatusError, `HTTP 501: the server answered with an HTML page ("Error response"), not the judge API: is the URL right?`, CauseNotTheAPI},
		{StatusError, `HTTP 503: the server answered with an HTML page ("503"), not the judge API: is the URL right?`, CauseServer},
		{StatusError, "HTTP 501: Not Implemented", CauseNotServed},
		{StatusError, `Post "http://127.0.0.1:9/v1/chat/completions": dial tcp 127.0.0.1:9: connect: connection refused`, CauseRefused},
		{StatusError, `dial tcp: lookup llm.invalid: no such host`, CauseDNS},
		{StatusTimeout, "timeout: HTTP 404", CauseTimeout},
		{StatusInvalid, "response is not JSON", CauseInvalid},
		{StatusOK, "", ""},
	} {
		if got := CauseFromText(tt.status, tt.msg); got != tt.want {
			t.Errorf("%s %q: %q, want %q", tt.status, tt.msg, got, tt.want)
		}
	}
}
