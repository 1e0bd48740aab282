package all

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/judge/internal/fake"
	"github.com/apeval/apeval/judge/ollama"
	"github.com/apeval/apeval/judge/openai"
)

// A base URL with credentials and a query: requests go to the right path
// with the query kept (a string join put the path after the query), and
// neither the details, the cache scope nor an error carries the secrets.
func TestOpenAIBaseURLWithSecrets(t *testing.T) {
	t.Parallel()
	f := fake.NewOpenAI(t, fake.EchoReply)
	var gotURL, gotAuth string
	inner := f.Config.Handler
	f.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			gotURL = r.URL.String()
			u, p, _ := r.BasicAuth()
			gotAuth = u + ":" + p
		}
		inner.ServeHTTP(w, r)
	})
	base := strings.Replace(f.URL, "http://", "http://alice:pa55word@", 1) + "/v1?key=QUERYSECRET"
	o, err := openai.New("judge-small", judge.DefaultPrompt(), judge.Config{OpenAIBaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.StartupCheck(context.Background()); err != nil {
		t.Fatal(err)
	}
	resp := o.Judge(context.Background(), fake.TwoRules())
	if resp.Status != judge.StatusOK {
		t.Fatalf("status %s: %s", resp.Status, resp.Error)
	}
	if gotURL != "/v1/chat/completions?key=QUERYSECRET" || gotAuth != "alice:pa55word" {
		t.Errorf("request went to %q with user %q", gotURL, gotAuth)
	}
	leaks := o.Details()["base_url"] + " " + o.CacheScope()
	for _, secret := range []string{"pa55word", "alice", "QUERYSECRET"} {
		if strings.Contains(leaks, secret) {
			t.Errorf("%q leaks into details or cache scope: %s", secret, leaks)
		}
	}
	// A transport error quotes the URL: masked too.
	f.Close()
	resp = o.Judge(context.Background(), fake.TwoRules())
	if resp.Status != judge.StatusError || strings.Contains(resp.Error, "QUERYSECRET") || strings.Contains(resp.Error, "pa55word") {
		t.Errorf("error leaks the URL's secrets: %s", resp.Error)
	}
}

func TestOllamaHostWithCredentials(t *testing.T) {
	t.Parallel()
	f := fake.NewOllama(t, fake.EchoReply)
	host := strings.Replace(f.URL, "http://", "http://bob:T0PSECRET@", 1)
	j, err := judge.Open(context.Background(), "ollama:qwen2.5:3b", judge.Config{OllamaHost: host})
	if err != nil {
		t.Fatal(err)
	}
	if d := j.(*ollama.Judge).Details()["host"]; strings.Contains(d, "T0PSECRET") || strings.Contains(d, "bob") {
		t.Errorf("details host %q carries the credentials", d)
	}
}

// The start-up check fails a run only on what makes every call fail: an
// unreachable server or a refused key. A server that answers /models with
// anything else still serves chat completions (the benchmark's minimal
// server answers 400 to any GET), so that is a warning at most.
func TestOpenAIStartupCheckStatuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		code    int
		fail    bool
		warning bool
	}{
		{http.StatusNotFound, false, false},
		{http.StatusMethodNotAllowed, false, false},
		{http.StatusBadRequest, false, true},
		{http.StatusInternalServerError, false, true},
		{http.StatusUnauthorized, true, false},
		{http.StatusForbidden, true, false},
	} {
		f := fake.NewOpenAI(t, fake.EchoReply)
		inner := f.Config.Handler
		f.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
				http.Error(w, "no", tc.code)
				return
			}
			inner.ServeHTTP(w, r)
		})
		var log strings.Builder
		o, err := openai.New("judge-small", judge.DefaultPrompt(), judge.Config{OpenAIBaseURL: f.URL + "/v1", Log: &log})
		if err != nil {
			t.Fatal(err)
		}
		err = o.StartupCheck(context.Background())
		if (err != nil) != tc.fail {
			t.Errorf("HTTP %d: err = %v, want failure %v", tc.code, err, tc.fail)
		}
		if got := strings.Contains(log.String(), "warning"); got != tc.warning {
			t.Errorf("HTTP %d: warning %v, want %v (log %q)", tc.code, got, tc.warning, log.String())
		}
		f.Close()
	}
	// Nothing listening: the run stops at start.
	o, err := openai.New("judge-small", judge.DefaultPrompt(), judge.Config{OpenAIBaseURL: "http://127.0.0.1:1/v1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.StartupCheck(context.Background()); err == nil || !strings.Contains(err.Error(), "cannot reach") {
		t.Errorf("unreachable server: %v", err)
	}
}
