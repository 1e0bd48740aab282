package all

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/judge/cache"
	"github.com/apeval/apeval/judge/internal/fake"
	"github.com/apeval/apeval/judge/openai"
)

// An HTTP 200 carrying an error object and no choices is a server error,
// never an answer to cache.
func TestOpenAIErrorIn200IsNotCached(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	broken := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		b := broken
		mu.Unlock()
		if b {
			io.WriteString(w, `{"error":{"message":"upstream overloaded","type":"server_error"}}`)
			return
		}
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		c, _ := json.Marshal(fake.EchoAnswer(fake.UserMessage(body)))
		io.WriteString(w, `{"choices":[{"message":{"content":`+string(c)+`},"finish_reason":"stop"}]}`)
	}))
	defer srv.Close()
	j, err := openai.New("m", judge.DefaultPrompt(), judge.Config{OpenAIBaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	store, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	cj := cache.Cached(j, store)
	resp := cj.Judge(context.Background(), fake.TwoRules())
	if resp.Status != judge.StatusError || !strings.Contains(resp.Error, "upstream overloaded") {
		t.Fatalf("broken server: %+v", resp)
	}
	mu.Lock()
	broken = false
	mu.Unlock()
	resp = cj.Judge(context.Background(), fake.TwoRules())
	if resp.Cached || resp.Status != judge.StatusOK {
		t.Fatalf("recovered server answered from the cache: %+v", resp)
	}

}
