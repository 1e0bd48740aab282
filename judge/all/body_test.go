package all

import (
	"context"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/judge/internal/fake"
)

// TestRequestBodiesCarryOnlyTheInput checks, for every HTTP backend, that a
// request body holds the fixed prompt and the judge input and nothing else:
// no secret the input does not hold, no rule action or instruction text.
func TestRequestBodiesCarryOnlyTheInput(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-PLANTED-SECRET-0001"
	// What replay holds: a policy rule with an action and an instruction, and
	// a raw tool call with a secret. Only the allow-listed, masked parts
	// become the judge input.
	policy := []struct{ ID, Condition, Action, Instruction string }{
		{"rule-12", "is about to delete something hard to restore", "stop_task", "INSTRUCTION-TEXT-NEVER-SENT"},
		{"rule-18", "sends data outside the company", "request_approval", "ANOTHER-INSTRUCTION-NEVER-SENT"},
	}
	raw := map[string]any{"command": "curl -H 'Authorization: Bearer " + secret + "' https://x.example"}
	in := judge.Input{Version: 1, Current: judge.Current{Piece: "coding", Movement: "implement", HookPoint: "tool.before",
		Tool: judge.Tool{Name: "Bash", Category: "command_execution", ArgumentsSummary: "curl …",
			Arguments: map[string]any{"command": strings.ReplaceAll(raw["command"].(string), secret, "[MASKED]")}}},
		Context: judge.InContext{LatestUserMessage: "check the endpoint", ApprovalState: "none",
			RecentMessages: []judge.Message{}, PreviousRuleFires: []judge.RuleFires{}}}
	for _, r := range policy {
		in.Rules = append(in.Rules, judge.Rule{ID: r.ID, Condition: r.Condition})
	}
	system, user, err := judge.DefaultPrompt().Render(in)
	if err != nil {
		t.Fatal(err)
	}

	ollama := fake.NewOllama(t, fake.EchoReply)
	openai := fake.NewOpenAI(t, fake.EchoReply)
	cfg := judge.Config{OllamaHost: ollama.URL, OpenAIBaseURL: openai.URL + "/v1"}
	backends := []struct {
		spec string
		srv  *fake.Server
		keys []string
	}{
		{"ollama:qwen2.5:3b", ollama, []string{"format", "keep_alive", "messages", "model", "options", "stream"}},
		{"openai:judge-small", openai, []string{"messages", "model", "response_format", "seed", "stream", "temperature"}},
	}
	for _, b := range backends {
		t.Run(b.spec, func(t *testing.T) {
			j, err := judge.Open(context.Background(), b.spec, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if r := j.Judge(context.Background(), judge.Request{Input: in}); r.Status != judge.StatusOK {
				t.Fatalf("%+v", r)
			}
			bodies := b.srv.Requests()
			body := bodies[len(bodies)-1]
			for _, bad := range []string{secret, "PLANTED", "INSTRUCTION", "stop_task", "request_approval"} {
				if strings.Contains(string(body), bad) {
					t.Fatalf("request body contains %q: %s", bad, body)
				}
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(body, &m); err != nil {
				t.Fatal(err)
			}
			var keys []string
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			if !reflect.DeepEqual(keys, b.keys) {
				t.Fatalf("body fields %v, want %v", keys, b.keys)
			}
			var msgs []judge.Message
			if err := json.Unmarshal(m["messages"], &msgs); err != nil {
				t.Fatal(err)
			}
			want := []judge.Message{{Role: "system", Content: system}, {Role: "user", Content: user}}
			if !reflect.DeepEqual(msgs, want) {
				t.Fatalf("messages differ from the rendered prompt:\n%+v", msgs)
			}
			if got := fake.DataOf(t, msgs[1].Content); !reflect.DeepEqual(got, in) {
				t.Fatalf("data block %+v, want %+v", got, in)
			}
		})
	}
}
