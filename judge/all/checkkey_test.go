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
)

// A server that refuses the key cannot say whether it has the model:
// `judges check` says "unknown" with the reason, never "no". Each server
// speaks its backend's wire format: OpenAI's error object, Ollama's
// {"error": ...} (ollama.com and auth proxies answer 401 so), Anthropic's
// typed error.
func TestCheckRefusedKeyLeavesTheModelUnknown(t *testing.T) {
	t.Parallel()
	refuse := func(code int, body string) *httptest.Server {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(code)
			_, _ = io.WriteString(w, body)
		}))
		t.Cleanup(s.Close)
		return s
	}
	openai401 := refuse(401, `{"error":{"message":"Incorrect API key provided: sk-wrong. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
	openai403 := refuse(403, `{"error":{"message":"Project does not have access","type":"invalid_request_error","code":"unsupported_country_region_territory"}}`)
	ollama401 := refuse(401, `{"error":"unauthorized"}`)
	ollama403 := refuse(403, `{"error":"forbidden"}`)
	anthropic401 := refuse(401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_011"}`)
	for _, tt := range []struct {
		spec string
		cfg  judge.Config
		code string
	}{
		{"openai:gpt-4o-mini", judge.Config{OpenAIBaseURL: openai401.URL + "/v1"}, "HTTP 401"},
		{"openai:gpt-4o-mini", judge.Config{OpenAIBaseURL: openai403.URL + "/v1"}, "HTTP 403"},
		{"ollama:qwen2.5:3b", judge.Config{OllamaHost: ollama401.URL}, "HTTP 401"},
		{"ollama:qwen2.5:3b", judge.Config{OllamaHost: ollama403.URL}, "HTTP 403"},
		{"anthropic:claude-haiku-4-5", judge.Config{Server: anthropic401.URL}, "HTTP 401"},
	} {
		t.Run(tt.spec+" "+tt.code, func(t *testing.T) {
			tt.cfg.Timeout = 5 * time.Second
			r := judge.Check(context.Background(), tt.spec, tt.cfg)
			if !r.Reachable {
				t.Errorf("a server that answered %s is reachable: %+v", tt.code, r)
			}
			if r.ModelPresent || r.Model() != judge.ModelUnknown {
				t.Errorf("model = %q (present %v), want unknown: %+v", r.Model(), r.ModelPresent, r)
			}
			if !strings.Contains(r.ModelUnknown, "refused the key") || !strings.Contains(r.ModelUnknown, tt.code) {
				t.Errorf("reason %q does not say the key was refused (%s)", r.ModelUnknown, tt.code)
			}
			if r.OK() {
				t.Errorf("a refused key passed the check: %+v", r)
			}
		})
	}
}

// The tri-state keeps "no" where the server says so: a model list without
// the model, or a 404 for the model on a server without a list.
func TestCheckMissingModelIsNo(t *testing.T) {
	t.Parallel()
	listed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/models") {
			_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"other-model","object":"model"}]}`)
			return
		}
		w.WriteHeader(404)
		_, _ = io.WriteString(w, `{"error":{"message":"The model 'typo' does not exist","type":"invalid_request_error","code":"model_not_found"}}`)
	}))
	defer listed.Close()
	unlisted := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(404)
		_, _ = io.WriteString(w, `{"type":"error","error":{"type":"not_found_error","message":"model: typo"}}`)
	}))
	defer unlisted.Close()
	for _, tt := range []struct {
		spec string
		cfg  judge.Config
	}{
		{"openai:typo", judge.Config{OpenAIBaseURL: listed.URL + "/v1"}},
		{"anthropic:typo", judge.Config{Server: unlisted.URL}},
	} {
		tt.cfg.Timeout = 5 * time.Second
		r := judge.Check(context.Background(), tt.spec, tt.cfg)
		if r.Model() != judge.ModelNo || r.ModelUnknown != "" || !r.Reachable {
			t.Errorf("%s: model %q (%q), reachable %v; want no", tt.spec, r.Model(), r.ModelUnknown, r.Reachable)
		}
	}
}
