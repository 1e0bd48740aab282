package mask

import (
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://user:hunter2@api.example.com/v1":                "https://[MASKED]@api.example.com/v1",
		"https://api.example.com/v1?key=sk-abc&api-version=2024": "https://api.example.com/v1?api-version=2024&key=[MASKED]",
		"https://api.example.com/v1?a=%zz":                       "https://api.example.com/v1?[MASKED]",
		"http://127.0.0.1:11434":                                 "http://127.0.0.1:11434",
		"not a url":                                              "not a url",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
		if again := URL(URL(in)); again != URL(in) {
			t.Errorf("URL not idempotent on %q: %q", in, again)
		}
	}
	msg := `Post "https://api.example.com/v1/chat/completions?sig=s3cr3t": dial tcp: no such host`
	if got := URLs(msg); strings.Contains(got, "s3cr3t") || !strings.Contains(got, "no such host") {
		t.Errorf("URLs = %q", got)
	}
}
