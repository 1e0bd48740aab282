package judge

import (
	"context"
	"net"
	"testing"
)

// SetupCause reads the failures the backends really produce: each case is
// an OpenAI-compatible server answering one way, and the call's status and
// message are classified as a real run would classify them.
func TestSetupCauseOfRealFailures(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		rep  reply
		want string
	}{
		{"model not found", reply{status: 404, raw: `{"error":{"message":"The model 'typo-model' does not exist"}}`}, SetupNotFound},
		{"bad key", reply{status: 401, raw: `{"error":{"message":"Incorrect API key provided"}}`}, SetupUnauthorized},
		{"forbidden", reply{status: 403, raw: `{"error":{"message":"no access"}}`}, SetupForbidden},
		{"login page", reply{status: 200, raw: "<!DOCTYPE html><html><head><title>Sign in</title></head><body>portal</body></html>"}, SetupHTML},
		{"HTML 400", reply{status: 400, raw: "<html><body>Bad Request</body></html>"}, SetupHTML},
		{"overloaded proxy", reply{status: 503, raw: "<html><head><title>503</title></head><body>busy</body></html>"}, ""},
		{"rate limited", reply{status: 429, raw: `{"error":{"message":"slow down"}}`}, ""},
		{"invalid answer", reply{content: "I think it matches"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeOpenAI(t, func(int, map[string]any) reply { return tt.rep })
			r := openOpenAI(t, f, Config{}).Judge(context.Background(), twoRules())
			if got := SetupCause(r.Status, r.Error); got != tt.want {
				t.Fatalf("%s %q: cause %q, want %q", r.Status, r.Error, got, tt.want)
			}
		})
	}

	// A server that went away after the judge was opened: the port refuses.
	f := newFakeOpenAI(t, echoReply)
	j := openOpenAI(t, f, Config{})
	f.Close()
	r := j.Judge(context.Background(), twoRules())
	if got := SetupCause(r.Status, r.Error); got != SetupRefused {
		t.Fatalf("closed server: %s %q: cause %q, want %q", r.Status, r.Error, got, SetupRefused)
	}
	// An unknown host, as net reports it (no resolver is needed to test
	// the message: a sandbox may have none).
	dns := &net.DNSError{Err: "no such host", Name: "llm.invalid", IsNotFound: true}
	if got := SetupCause(StatusError, `Post "https://llm.invalid/v1/chat/completions": dial tcp: `+dns.Error()); got != SetupUnknownHost {
		t.Fatalf("unknown host: cause %q", got)
	}
	if got := SetupCause(StatusTimeout, "timeout: HTTP 404"); got != "" {
		t.Fatalf("a timeout is never a setup cause, got %q", got)
	}
}
