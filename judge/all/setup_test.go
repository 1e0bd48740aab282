package all

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/judge/internal/fake"
	"github.com/apeval/apeval/judge/openai"
)

// The cause of a failed call is typed where it failed: each case is an
// OpenAI-compatible server (or something else on its port) answering one
// way, and the cause and its setup class are what a real run records.
func TestCauseOfRealFailures(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		rep   fake.Reply
		cause judge.Cause
		setup string
	}{
		{"model not found", fake.Reply{Status: 404, Raw: `{"error":{"message":"The model 'typo-model' does not exist"}}`}, judge.CauseNotFound, judge.SetupNotFound},
		{"bad key", fake.Reply{Status: 401, Raw: `{"error":{"message":"Incorrect API key provided"}}`}, judge.CauseUnauthorized, judge.SetupUnauthorized},
		{"forbidden", fake.Reply{Status: 403, Raw: `{"error":{"message":"no access"}}`}, judge.CauseForbidden, judge.SetupForbidden},
		{"login page", fake.Reply{Status: 200, Raw: "<!DOCTYPE html><html><head><title>Sign in</title></head><body>portal</body></html>"}, judge.CauseNotTheAPI, judge.SetupHTML},
		{"HTML 400", fake.Reply{Status: 400, Raw: "<html><body>Bad Request</body></html>"}, judge.CauseNotTheAPI, judge.SetupHTML},
		{"HTML 501", fake.Reply{Status: 501, Raw: pythonErrorPage(501, "Unsupported method ('POST')")}, judge.CauseNotTheAPI, judge.SetupHTML},
		{"JSON 501", fake.Reply{Status: 501, Raw: `{"detail":"Not Implemented"}`}, judge.CauseNotServed, judge.SetupNotServed},
		{"JSON 405", fake.Reply{Status: 405, Raw: `{"detail":"Method Not Allowed"}`}, judge.CauseNotServed, judge.SetupNotServed},
		{"overloaded proxy", fake.Reply{Status: 503, Raw: "<html><head><title>503</title></head><body>busy</body></html>"}, judge.CauseServer, ""},
		{"server error", fake.Reply{Status: 500, Raw: `{"error":{"message":"boom"}}`}, judge.CauseServer, ""},
		{"rate limited", fake.Reply{Status: 429, Raw: `{"error":{"message":"slow down"}}`}, judge.CauseRateLimited, ""},
		{"bad request", fake.Reply{Status: 400, Raw: `{"error":{"message":"max_tokens too large"}}`}, judge.CauseClient, ""},
		{"not JSON", fake.Reply{Status: 200, Raw: `plain text`}, judge.CauseOther, ""},
		{"invalid answer", fake.Reply{Content: "I think it matches"}, judge.CauseInvalid, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := fake.NewOpenAI(t, func(int, map[string]any) fake.Reply { return tt.rep })
			r := openOpenAI(t, f, judge.Config{Retries: 2}).Judge(context.Background(), fake.TwoRules())
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
	j := openOpenAI(t, f, judge.Config{})
	f.Close()
	if r := j.Judge(context.Background(), fake.TwoRules()); r.CauseOf() != judge.CauseRefused || r.CauseOf().Setup() != judge.SetupRefused {
		t.Fatalf("closed server: %s %q: cause %q", r.Status, r.Error, r.CauseOf())
	}
	// A TLS server the client does not trust.
	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(tlsSrv.Close)
	tj, err := openai.New("m", judge.DefaultPrompt(), judge.Config{OpenAIBaseURL: tlsSrv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	if r := tj.Judge(context.Background(), fake.TwoRules()); r.CauseOf() != judge.CauseTLS || r.CauseOf().Setup() != judge.SetupTLS {
		t.Fatalf("untrusted certificate: %s %q: cause %q", r.Status, r.Error, r.CauseOf())
	}
	// A host that does not resolve (the sandbox may have no resolver at all:
	// either way net reports a *net.DNSError).
	dj, err := openai.New("m", judge.DefaultPrompt(), judge.Config{OpenAIBaseURL: "http://llm.invalid/v1"})
	if err != nil {
		t.Fatal(err)
	}
	if r := dj.Judge(context.Background(), fake.TwoRules()); r.CauseOf() != judge.CauseDNS {
		t.Fatalf("unknown host: %s %q: cause %q", r.Status, r.Error, r.CauseOf())
	}
	if c := (judge.Response{Status: judge.StatusTimeout}).CauseOf(); c != judge.CauseTimeout || c.Setup() != "" {
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
		status judge.Status
		msg    string
		want   judge.Cause
	}{
		{judge.StatusError, "HTTP 404: The model 'x' does not exist", judge.CauseNotFound},
		{judge.StatusError, `HTTP 501: the server answered with an HTML page ("Error response"), not the judge API: is the URL right?`, judge.CauseNotTheAPI},
		{judge.StatusError, `HTTP 503: the server answered with an HTML page ("503"), not the judge API: is the URL right?`, judge.CauseServer},
		{judge.StatusError, "HTTP 501: Not Implemented", judge.CauseNotServed},
		{judge.StatusError, `Post "http://127.0.0.1:9/v1/chat/completions": dial tcp 127.0.0.1:9: connect: connection refused`, judge.CauseRefused},
		{judge.StatusError, `dial tcp: lookup llm.invalid: no such host`, judge.CauseDNS},
		{judge.StatusTimeout, "timeout: HTTP 404", judge.CauseTimeout},
		{judge.StatusInvalid, "response is not JSON", judge.CauseInvalid},
		{judge.StatusOK, "", ""},
	} {
		if got := judge.CauseFromText(tt.status, tt.msg); got != tt.want {
			t.Errorf("%s %q: %q, want %q", tt.status, tt.msg, got, tt.want)
		}
	}
}
