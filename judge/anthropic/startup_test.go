package anthropic

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apeval/apeval/judge"
)

// The startup check asks GET /v1/models with the key, as the Messages API
// serves it: a refused key fails the run before any call (it failed every
// call, 468 of 468 on a real 594-case run, before the verdict said so); a
// server without the endpoint, or a right key, goes on; the key never
// appears in the message.
func TestStartupCheckRefusedKey(t *testing.T) {
	t.Parallel()
	const good = "sk-ant-api03-GOODKEYabcdefghijklmnop"
	var asked atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/v1/models" {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		asked.Add(1)
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("anthropic-version") != APIVersion || r.Header.Get("x-api-key") != good {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`)
			return
		}
		fmt.Fprint(w, `{"data":[{"type":"model","id":"claude-haiku-4-5","display_name":"Claude Haiku 4.5"}],"has_more":false}`)
	}))
	t.Cleanup(srv.Close)
	check := func(key string) error {
		var log bytes.Buffer
		j, err := judge.Open(context.Background(), "anthropic:claude-haiku-4-5", judge.Config{Server: srv.URL, Log: &log,
			Getenv: func(k string) string {
				if k == "ANTHROPIC_API_KEY" {
					return key
				}
				return ""
			}})
		if err != nil {
			t.Fatal(err)
		}
		sc, ok := j.(judge.StartupChecker)
		if !ok {
			t.Fatal("the anthropic judge has no startup check")
		}
		return sc.StartupCheck(context.Background())
	}
	if err := check(good); err != nil {
		t.Errorf("right key: %v", err)
	}
	err := check("sk-ant-api03-WRONGKEYabcdefghijklmn")
	if err == nil || !strings.Contains(err.Error(), "refused the API key (HTTP 401: authentication_error: invalid x-api-key); set ANTHROPIC_API_KEY") {
		t.Errorf("wrong key: %v; want the refusal naming ANTHROPIC_API_KEY", err)
	} else if strings.Contains(err.Error(), "WRONGKEY") {
		t.Errorf("the key is in the message: %v", err)
	}
	if err := check(""); err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY, which is not set") {
		t.Errorf("no key: %v; want it to say the variable is not set", err)
	}
	if asked.Load() != 3 {
		t.Errorf("GET /v1/models asked %d times, want 3", asked.Load())
	}
	// A proxy without the endpoint (404) is fine.
	proxy := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(proxy.Close)
	j, err := judge.Open(context.Background(), "anthropic:claude-haiku-4-5", judge.Config{Server: proxy.URL, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.(judge.StartupChecker).StartupCheck(context.Background()); err != nil {
		t.Errorf("a server without /v1/models: %v", err)
	}
}
