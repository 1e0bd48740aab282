package datasets

import (
	"bytes"
	"fmt"
	"testing"
)

// benchLines builds n JSONL cases of about 300 bytes, like recorded
// tool.before contexts.
func benchLines(n int) []byte {
	var buf bytes.Buffer
	tools := []string{"Bash", "Write", "WebFetch", "Edit", "mcp__github__create_pull_request"}
	for i := range n {
		fmt.Fprintf(&buf, `{"id":"c-%07d","session_id":"s-%05d","seq":%d,"piece":"coding","movement":"implement",`+
			`"workspace":"/srv/repo","tool":{"name":%q,"arguments":{"command":"rm -rf build/%d && make test","timeout":120}},`+
			`"context":{"latest_user_message":"clean the build and rerun the tests","approval_state":"none"},`+
			`"labels":{"rule-12":"match","rule-18":"no_match"},"expected_action":"request_approval","tags":["deletion"]}`+"\n",
			i, i/10, i%10+1, tools[i%len(tools)], i)
	}
	return buf.Bytes()
}

func BenchmarkReader(b *testing.B) {
	const n = 100_000
	data := benchLines(n)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	cases := 0
	for b.Loop() {
		r := Open([]string{"-"}, bytes.NewReader(data))
		for r.Scan() {
			if rec := r.Record(); rec.Err != nil {
				b.Fatal(rec.Err)
			}
			cases++
		}
		if err := r.Err(); err != nil {
			b.Fatal(err)
		}
		if err := r.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cases)/b.Elapsed().Seconds(), "cases/s")
	b.ReportMetric(float64(len(data))/float64(n), "bytes/case")
}

// BenchmarkDecode compares the fast path with encoding/json alone.
func BenchmarkDecode(b *testing.B) {
	lines := bytes.Split(benchLines(1000), []byte("\n"))[:1000]
	for _, fast := range []bool{false, true} {
		name := "encoding_json"
		if fast {
			name = "fast"
		}
		b.Run(name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				if _, err := decodeWith(lines[i%len(lines)], "bench", i, nil, fast); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
