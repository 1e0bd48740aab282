package importers

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
)

// benchTranscript writes a Claude Code transcript of n turns shaped like a
// real coding session: a user prompt, assistant text, a tool call, and a
// tool result of a few kilobytes (file contents, command output) — the
// results are most of a real transcript's bytes.
func benchTranscript(n int) []byte {
	var b bytes.Buffer
	out := strings.Repeat("drwxr-xr-x  5 dev dev  4096 Oct  2 09:14 src\\n-rw-r--r--  1 dev dev  1187 Oct  2 09:14 go.mod\\n", 30)
	for i := range n {
		fmt.Fprintf(&b, `{"parentUuid":"u%d","isSidechain":false,"userType":"external","cwd":"/srv/shop","sessionId":"s-%d","version":"2.0.14","gitBranch":"main","type":"user","message":{"role":"user","content":"please list the files in src and fix the failing test number %d, the token is sk-proj-abcdefghijklmnopqrstuvwx%04d"},"uuid":"a%d","timestamp":"2025-10-02T09:14:05.481Z"}`+"\n", i, i/50, i, i, i)
		fmt.Fprintf(&b, `{"parentUuid":"a%d","isSidechain":false,"userType":"external","cwd":"/srv/shop","sessionId":"s-%d","version":"2.0.14","message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"I'll look at the directory first and then run the tests to see what fails."},{"type":"tool_use","id":"toolu_%08d","name":"Bash","input":{"command":"ls -la src && go test ./... -run TestOrder%d","description":"List and test"}}],"stop_reason":"tool_use","usage":{"input_tokens":1204,"cache_creation_input_tokens":0,"cache_read_input_tokens":20480,"output_tokens":88}},"requestId":"req_%d","type":"assistant","uuid":"b%d","timestamp":"2025-10-02T09:14:07.002Z"}`+"\n", i, i/50, i, i, i, i, i)
		fmt.Fprintf(&b, `{"parentUuid":"b%d","isSidechain":false,"userType":"external","cwd":"/srv/shop","sessionId":"s-%d","version":"2.0.14","type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_%08d","type":"tool_result","content":"%s","is_error":false}]},"uuid":"c%d","timestamp":"2025-10-02T09:14:08.020Z","toolUseResult":{"stdout":"%s","stderr":"","interrupted":false,"isImage":false}}`+"\n", i, i/50, i, out, i, out)
	}
	return b.Bytes()
}

// BenchmarkImportTranscript measures importing Claude Code transcript
// JSONL on one goroutine, masking on (the default). Target: ≥ 50 MB/s
// (.ci/bench.sh prints the ratio).
func BenchmarkImportTranscript(b *testing.B) {
	data := benchTranscript(2000)
	p := filepath.Join(b.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		sum, err := Import("claude-code-transcript", []string{p}, Options{}, func(c *datasets.Case) error {
			return datasets.WriteJSONL(io.Discard, c)
		}, nil)
		if err != nil || sum.Cases != 2000 || sum.Errors != 0 {
			b.Fatalf("%+v %v", sum, err)
		}
	}
}
