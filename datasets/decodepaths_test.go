package datasets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// recordedLines are like benchLines but each case also carries two recorded
// judge calls and two recent messages.
func recordedLines(n int) [][]byte {
	var buf bytes.Buffer
	for i := range n {
		fmt.Fprintf(&buf, `{"id":"c-%07d","session_id":"s-%05d","seq":%d,"piece":"coding","movement":"implement",`+
			`"tool":{"name":"Bash","arguments":{"command":"rm -rf build/%d && make test"}},`+
			`"context":{"latest_user_message":"clean the build","approval_state":"none","recent_messages":[`+
			`{"role":"user","content":"clean the build and rerun the tests"},{"role":"assistant","content":"running make clean"}]},`+
			`"labels":{"rule-12":"match"},"recorded":[`+
			`{"judge":"ollama/a","latency_ms":812.5,"decisions":[{"rule_id":"rule-12","result":"match","confidence":0.91}]},`+
			`{"judge":"ollama/b","latency_ms":402,"status":"ok","decisions":[{"rule_id":"rule-12","result":"no_match"}]}]}`+"\n",
			i, i/10, i%10+1, i)
	}
	return bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
}

// BenchmarkDecodePaths measures the two case decoders on their own,
// unmarshalling only (no field validation); docs/internals.md
// records what it measured and why these two.
func BenchmarkDecodePaths(b *testing.B) {
	plain := bytes.Split(bytes.TrimSuffix(benchLines(1000), []byte("\n")), []byte("\n"))
	for _, set := range []struct {
		name  string
		lines [][]byte
	}{{"plain", plain}, {"recorded", recordedLines(1000)}} {
		paths := []struct {
			name   string
			decode func([]byte, *Case) bool
		}{
			{"handwritten", decodeFast},
			{"encoding_json", func(l []byte, c *Case) bool { return json.Unmarshal(l, c) == nil }},
		}
		for _, p := range paths {
			b.Run(set.name+"/"+p.name, func(b *testing.B) {
				var bytesIn int64
				i := 0
				for b.Loop() {
					l := set.lines[i%len(set.lines)]
					if !p.decode(l, new(Case)) {
						b.Fatalf("%s failed on %s", p.name, l)
					}
					bytesIn += int64(len(l))
					i++
				}
				b.ReportMetric(float64(bytesIn)/float64(i), "bytes/line")
			})
		}
	}
}
