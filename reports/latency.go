package reports

import (
	"slices"

	"github.com/apeval/apeval/replay"
)

// Latencies collects each judge's live-call latencies (milliseconds) for
// the latency CDF chart. Cache hits are left out, failed calls kept, as in
// the latency metrics (DESIGN §5, §6).
type Latencies map[string][]float64

// Add collects the live calls of one result.
func (l Latencies) Add(r *replay.Result) {
	for i := range r.Calls {
		if !r.Calls[i].Cached {
			l[r.Judge] = append(l[r.Judge], r.Calls[i].LatencyMS)
		}
	}
}

// sorted returns a judge's latencies in ascending order.
func (l Latencies) sorted(judge string) []float64 {
	v := slices.Clone(l[judge])
	slices.Sort(v)
	return v
}
