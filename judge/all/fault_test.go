package all

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/judge/cache"
	"github.com/apeval/apeval/judge/internal/fake"
)

// TestFaultInjection drives both HTTP backends against servers that
// misbehave on the first call and answer properly afterwards. Each fault
// must come out with the status docs/judges.md gives it, and none may be cached:
// the next call for the same input reaches the (now healthy) server.
func TestFaultInjection(t *testing.T) {
	t.Parallel()
	type fault struct {
		name    string
		rep     fake.Reply
		cfg     judge.Config
		status  judge.Status
		errPart string
		// attempts the faulty call makes (a retried fault answers on the 2nd)
		attempts int
		minWait  time.Duration
	}
	faults := []fault{
		{name: "reset mid-body", rep: fake.Reply{Reset: true, Content: strings.Repeat("x", 4096)},
			status: judge.StatusError, attempts: 1},
		{name: "slow body", rep: fake.Reply{Slow: 100 * time.Millisecond, Content: strings.Repeat("y", 400)},
			cfg: judge.Config{Timeout: 300 * time.Millisecond}, status: judge.StatusTimeout, errPart: "timeout", attempts: 1},
		{name: "oversized body", rep: fake.Reply{Huge: 8 << 20},
			cfg: judge.Config{MaxResponseBytes: 256 << 10}, status: judge.StatusInvalid, errPart: "larger than 262144 bytes", attempts: 1},
		{name: "HTTP 500", rep: fake.Reply{Status: 500, Raw: `{"error":"boom"}`}, status: judge.StatusError, errPart: "HTTP 500", attempts: 1},
		{name: "HTML error page", rep: fake.Reply{Status: 502, Raw: "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>" + strings.Repeat("<p>nginx</p>", 500) + "</body></html>"},
			status: judge.StatusError, errPart: `HTML page ("502 Bad Gateway")`, attempts: 1},
		// 429 with Retry-After: 1 s is waited for (not 0.1 s), then answered.
		{name: "429 Retry-After", rep: fake.Reply{Status: 429, Raw: `{"error":"slow down"}`, Header: map[string]string{"Retry-After": "1"}},
			cfg: judge.Config{Retries: 1, Timeout: 5 * time.Second}, status: judge.StatusOK, attempts: 2, minWait: time.Second},
		// A Retry-After past the call's deadline ends the call at once.
		{name: "429 Retry-After past deadline", rep: fake.Reply{Status: 429, Raw: `{"error":"slow down"}`, Header: map[string]string{"Retry-After": "3600"}},
			cfg: judge.Config{Retries: 3, Timeout: time.Second}, status: judge.StatusError, errPart: "past the call's deadline", attempts: 1},
	}
	backends := []struct {
		name string
		fake func(testing.TB, fake.ReplyFunc) *fake.Server
		open func(*testing.T, *fake.Server, judge.Config) judge.Judge
	}{
		{"ollama", fake.NewOllama, func(t *testing.T, f *fake.Server, c judge.Config) judge.Judge { return openOllama(t, f, c) }},
		{"openai", fake.NewOpenAI, func(t *testing.T, f *fake.Server, c judge.Config) judge.Judge { return openOpenAI(t, f, c) }},
	}
	for _, b := range backends {
		for _, ft := range faults {
			t.Run(b.name+"/"+ft.name, func(t *testing.T) {
				f := b.fake(t, func(n int, body map[string]any) fake.Reply {
					if n == 0 {
						r := ft.rep
						if r.Content == "" && r.Raw == "" {
							r.Content = fake.EchoAnswer(fake.UserMessage(body))
						}
						return r
					}
					return fake.EchoReply(n, body)
				})
				store, err := cache.Open(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				defer store.Close()
				j := cache.Cached(b.open(t, f, ft.cfg), store)
				ctx := context.Background()
				if ft.name == "429 Retry-After past deadline" {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, 5*time.Second)
					defer cancel()
				}
				start := time.Now()
				resp := j.Judge(ctx, fake.TwoRules())
				if resp.Status != ft.status || !strings.Contains(resp.Error, ft.errPart) || resp.Attempts != ft.attempts {
					t.Fatalf("status %s attempts %d error %q; want %s, %d attempts, error with %q", resp.Status, resp.Attempts, resp.Error, ft.status, ft.attempts, ft.errPart)
				}
				if len(resp.Error) > 400 || strings.Contains(resp.Error, "<p>") {
					t.Errorf("error is not one short line: %q", resp.Error)
				}
				if ft.minWait > 0 && time.Since(start) < ft.minWait {
					t.Errorf("retried after %v, before the server's Retry-After %v", time.Since(start), ft.minWait)
				}
				again := j.Judge(context.Background(), fake.TwoRules())
				if ft.status == judge.StatusOK {
					if !again.Cached {
						t.Errorf("a complete answer was not cached")
					}
					return
				}
				if again.Cached || again.Status != judge.StatusOK {
					t.Errorf("after the fault: cached=%v status %s (%s); the failure must not be cached", again.Cached, again.Status, again.Error)
				}
			})
		}
	}
}

// An Ollama host that is not Ollama (a web server answering HTML) or not
// running: the error says what to do and never prints the page.
func TestOllamaStartErrorsAreHelpful(t *testing.T) {
	t.Parallel()
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "<!DOCTYPE html>\n<html><head><title>Welcome to nginx!</title></head><body>"+strings.Repeat("<p>hello</p>\n", 200)+"</body></html>\n")
	}))
	defer html.Close()
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	for _, host := range []string{html.URL, down.URL} {
		_, err := judge.Open(context.Background(), "ollama:qwen2.5:3b", judge.Config{OllamaHost: host})
		if err == nil {
			t.Fatalf("%s: no error", host)
		}
		msg := err.Error()
		for _, want := range []string{"ollama serve", "--ollama-host", "apeval judges check"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: error lacks %q: %s", host, want, msg)
			}
		}
		if strings.Contains(msg, "<p>") || len(msg) > 600 {
			t.Errorf("%s: error prints the page: %s", host, msg)
		}
	}
}
