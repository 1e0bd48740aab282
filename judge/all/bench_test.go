package all

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/judge/cache"
	"github.com/apeval/apeval/judge/internal/fake"
)

// BenchmarkOpenAIThroughput measures the client against a server answering
// in a fixed 20 ms at concurrency 16: the ideal is 800 calls/s.
func BenchmarkOpenAIThroughput(b *testing.B) {
	answer := []byte(`{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"{\"version\":1,\"decisions\":[{\"rule_id\":\"rule-12\",\"result\":\"match\",\"confidence\":0.9},{\"rule_id\":\"rule-18\",\"result\":\"no_match\",\"confidence\":0.9}]}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":200,"completion_tokens":40}}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}))
	defer srv.Close()
	j, err := judge.Open(context.Background(), "openai:bench", judge.Config{OpenAIBaseURL: srv.URL + "/v1", Timeout: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	req := fake.TwoRules()
	const workers = 16
	var next, failures atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				if r := j.Judge(context.Background(), req); r.Status != judge.StatusOK {
					failures.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if failures.Load() > 0 {
		b.Fatalf("%d failed calls", failures.Load())
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
}

// BenchmarkCachedHit measures a cache hit: key hashing plus a bbolt read.
func BenchmarkCachedHit(b *testing.B) {
	f := fake.NewOpenAI(b, fake.EchoReply)
	store, err := cache.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := store.Close(); err != nil {
			b.Error(err)
		}
	}()
	inner, err := judge.Open(context.Background(), "openai:bench", judge.Config{OpenAIBaseURL: f.URL + "/v1"})
	if err != nil {
		b.Fatal(err)
	}
	j := cache.Cached(inner, store)
	req := fake.TwoRules()
	if r := j.Judge(context.Background(), req); r.Status != judge.StatusOK {
		b.Fatalf("%+v", r)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := j.Judge(context.Background(), req); !r.Cached {
			b.Fatal("miss")
		}
	}
}
