package replay

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
)

// sessionBenchPolicy has one stateful rule (a network boundary), like the
// deterministic benchmark's policy: a session that fetched a URL keeps a
// crossing counter.
const sessionBenchPolicy = `
[[rule]]
id = "audit-git"
action = "audit_only"
class = "audit"
[rule.when]
command_prefix = ["git"]

[[rule]]
id = "network"
action = "request_approval"
class = "approval"
[rule.boundary]
kind = "network"
review_at = 1
pause_at = 3
`

// BenchmarkRunSessionState measures the memory replay keeps per session:
// n sessions of two cases (a URL fetch, which crosses the boundary and so
// gives the session a counter, then a command), read as the benchmark
// datasets are (session by session, ids "s-000123"), at concurrency 2 (8
// workers). At 100,000 sessions every session is in memory; at 1,000,000
// at most sessionsInMemory are, the rest spilled (what grows is the filter
// over their ids). The live heap is taken after a GC while the last cases
// are in flight, minus the heap before the run; it includes the few blocks
// of cases in flight.
func BenchmarkRunSessionState(b *testing.B) {
	p := mustPolicy(b, sessionBenchPolicy)
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprint("sessions=", n), func(b *testing.B) {
			var perSession float64
			for b.Loop() {
				i := 0
				measured := make(chan struct{})
				next := func() (*datasets.Case, bool) {
					if i == 2*n {
						<-measured // the reader and the workers live until then
						return nil, false
					}
					var c *datasets.Case
					if i%2 == 0 {
						c = call("WebFetch", "network", "url", "https://example.com/x")
					} else {
						c = bash("ls")
					}
					c.ID, c.SessionID, c.Seq = fmt.Sprintf("c-%07d", i), fmt.Sprintf("s-%06d", i/2), int64(i%2+1)
					i++
					return c, true
				}
				var before, at runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				emitted := 0
				_, err := Run(context.Background(), p, next, []judge.Judge{answer(judge.NoMatch)}, Options{Concurrency: 2}, func(r *Result) error {
					emitted++
					if emitted == 2*n-2*blockSize { // in a full block, sent before next blocked
						runtime.GC()
						runtime.ReadMemStats(&at)
						close(measured)
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				perSession = float64(int64(at.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
			}
			b.ReportMetric(perSession, "heap-bytes/session")
		})
	}
}
