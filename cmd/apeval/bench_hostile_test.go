package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkE2EHostileJudge runs the binary against a judge that answers
// every call with a 100 MB body, at the largest --concurrency allowed, and
// reports the peak RSS (.ci/bench.sh: at most 300 MB whatever the judge
// sends or the flags say; docs/safety.md).
func BenchmarkE2EHostileJudge(b *testing.B) {
	const n = 400
	dir := b.TempDir()
	data := filepath.Join(dir, "cases.jsonl")
	var sb strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, `{"id":"c-%04d","session_id":"s-%04d","tool":{"name":"Bash","arguments":{"command":"rm -rf build/%d"}},"labels":{"nl-delete":"match"}}`+"\n", i, i, i)
	}
	if err := os.WriteFile(data, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	pol := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(pol, []byte(benchJudgePolicy), 0o644); err != nil {
		b.Fatal(err)
	}
	chunk := strings.Repeat("x", 1<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/models") {
			http.NotFound(w, r)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, `{"choices":[{"message":{"content":"`)
		for range 100 {
			if _, err := io.WriteString(w, chunk); err != nil {
				return // the client stopped reading at its cap
			}
		}
		_, _ = io.WriteString(w, `"}}]}`)
	}))
	defer srv.Close()
	apevalBinary(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out := filepath.Join(b.TempDir(), "run")
		_, rss, text := runBinary(b, "run", "--dataset", data, "--policy", pol, "--judge", "openai:hostile",
			"--openai-base-url", srv.URL+"/v1", "--concurrency", "1024", "--no-cache", "--quiet", "--out", out, "--format", "tsv")
		if !strings.Contains(text, fmt.Sprintf("%d of %d judge calls failed", n, n)) {
			b.Fatalf("the oversized answers were not all counted as failures:\n%s", text)
		}
		b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MB")
	}
}
