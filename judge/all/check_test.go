package all

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/judge/internal/fake"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	ollama := fake.NewOllama(t, fake.EchoReply)
	openai := fake.NewOpenAI(t, func(n int, body map[string]any) fake.Reply {
		if rf, _ := body["response_format"].(map[string]any); rf != nil && rf["type"] == "json_schema" {
			return fake.Reply{Status: http.StatusBadRequest, Raw: `{"error":{"message":"json_schema response_format not supported"}}`}
		}
		return fake.EchoReply(n, body)
	})
	down := fake.NewOpenAI(t, fake.EchoReply)
	down.Close()
	plugin := fake.ExamplePlugin(t)
	cfg := judge.Config{OllamaHost: ollama.URL, OpenAIBaseURL: openai.URL + "/v1", Timeout: 5 * time.Second}
	tests := []struct {
		spec       string
		cfg        func(judge.Config) judge.Config
		ok         bool
		reachable  bool
		present    bool
		structured string
		digest     string
		errPart    string
	}{
		{spec: "ollama:qwen2.5:3b", ok: true, reachable: true, present: true, structured: judge.ModeJSONSchema, digest: "a6990ed6be41"},
		{spec: "ollama:missing", reachable: true, errPart: "ollama pull missing"},
		{spec: "ollama:qwen2.5:3b", cfg: func(c judge.Config) judge.Config { c.OllamaHost = down.URL; return c }, errPart: "unreachable"},
		{spec: "openai:judge-small", ok: true, reachable: true, present: true, structured: judge.ModeJSONObject},
		{spec: "openai:judge-small", cfg: func(c judge.Config) judge.Config { c.OpenAIBaseURL = down.URL + "/v1"; return c }, structured: judge.ModeJSONSchema},
		{spec: "exec:" + plugin, ok: true, reachable: true, present: true, structured: "plugin", digest: openExec(t, plugin, judge.Config{}).Identity().Digest},
		{spec: "none", errPart: "no server to check"},
		{spec: "bogus:x", errPart: "unknown backend"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			c := cfg
			if tt.cfg != nil {
				c = tt.cfg(c)
			}
			r := judge.Check(context.Background(), tt.spec, c)
			if r.OK() != tt.ok || r.Reachable != tt.reachable || r.ModelPresent != tt.present ||
				r.StructuredOutput != tt.structured || r.Digest != tt.digest || !strings.Contains(r.Error, tt.errPart) {
				t.Fatalf("report %+v", r)
			}
			if tt.ok && (r.SampleLatency <= 0 || r.SampleStatus != judge.StatusOK || r.Identity == "") {
				t.Fatalf("sample call not reported: %+v", r)
			}
		})
	}
}

func TestOpenSpecs(t *testing.T) {
	t.Parallel()
	tests := []struct{ spec, identity, errPart string }{
		{spec: "none", identity: "none"},
		{spec: "recorded:ollama/qwen2.5:3b", identity: "recorded/ollama/qwen2.5:3b"},
		{spec: "recorded", errPart: "expanded into recorded:NAME"},
		{spec: "none:x", errPart: "takes no argument"},
		{spec: "ollama:", errPart: "needs an argument"},
		{spec: "exec", errPart: "needs an argument"},
		{spec: "gpt4", errPart: "ollama:MODEL, openai:MODEL, exec:COMMAND, recorded:NAME, anthropic:MODEL or none"},
		{spec: "openai:m", identity: "openai/m+p1"},
	}
	for _, tt := range tests {
		j, err := judge.Open(context.Background(), tt.spec, judge.Config{})
		if tt.errPart != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errPart) {
				t.Errorf("Open(%q) err = %v, want %q", tt.spec, err, tt.errPart)
			}
			continue
		}
		if err != nil || j.Identity().String() != tt.identity {
			t.Errorf("Open(%q) = %v, %v; want identity %s", tt.spec, j, err, tt.identity)
		}
	}
	if _, err := judge.Open(context.Background(), "openai:m", judge.Config{PromptFile: "/nonexistent/prompt.txt"}); err == nil {
		t.Error("missing prompt file accepted")
	}
}
