package cache

import (
	"testing"

	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/judge/openai"
)

// A budget wrapper keeps the backend's cache scope: the cache key of a
// limited judge is the unlimited one's.
func TestBudgetKeepsCacheScope(t *testing.T) {
	t.Parallel()
	o, err := openai.New("m", judge.DefaultPrompt(), judge.Config{OpenAIBaseURL: "http://a.example/v1"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	plain := Cached(o, c).(*Judge)
	limited := Cached(judge.NewBudget(1, 0, 0, nil).Limit(o, nil), c).(*Judge)
	if plain.prefix != limited.prefix {
		t.Fatalf("prefix %q vs %q", plain.prefix, limited.prefix)
	}
}
