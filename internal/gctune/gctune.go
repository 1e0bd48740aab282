// Package gctune sets the garbage collector's headroom from the live heap
// (GOGC after every collection) for the whole apeval process; GOGC or
// GOMEMLIMIT in the environment turns it off. It decides nothing about a
// run; it is not a stable Go API.
package gctune

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// The garbage collector's headroom. Go's GOGC=P lets the heap grow by P %
// of the live heap between collections, so the headroom grows with what a
// run keeps (its sessions, the Parquet writers' footers, the spill
// buffers): at GOGC=50 a run with 180 MB live peaks near 270 MB of heap.
// apeval instead sets GOGC after every collection from the live heap the
// collection found: the heap may grow to gcHeapTarget (but never beyond
// twice the live heap), and past that by gcHeadroom; as a percentage
// between gcPercentMin and gcPercentMax. A run whose live heap stays under
// 85 MiB gets GOGC=100 (fewer collections: less CPU than a fixed 50), a
// million-case run ≈ 55 at its end; a large one grows by at most
// gcHeadroom, or by gcPercentMin % once the live heap passes gcHeadroom ×
// 100 / gcPercentMin — never the continuous collection of a memory limit
// set below the live heap. GOGC or GOMEMLIMIT in the environment turns the
// tuning off: the user's setting wins.
const (
	gcHeapTarget = 170 << 20
	gcHeadroom   = 48 << 20
	gcPercentMin = 25
	gcPercentMax = 100
)

// PercentFor is the GOGC for a live heap of live bytes.
func PercentFor(live uint64) int {
	if live == 0 {
		return gcPercentMax
	}
	goal := max(live+gcHeadroom, min(2*live, gcHeapTarget))
	return int(min(max((goal-live)*100/live, gcPercentMin), gcPercentMax))
}

// Start starts the tuning, once per process, unless GOGC or GOMEMLIMIT
// is set; it returns the tuner (nil when the environment has a setting).
func Start(getenv func(string) string) *Tuner {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return nil
	}
	tunerOnce.Do(func() {
		tuner = &Tuner{samples: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
		tuner.pct.Store(int32(gcPercentMax))
		debug.SetGCPercent(gcPercentMax)
		tuner.arm()
	})
	return tuner
}

var (
	tunerOnce sync.Once
	tuner     *Tuner
)

// Tuner re-arms a cleanup on a fresh object after every collection: the
// object is unreachable at once, so its cleanup runs after the next
// collection, reads the live heap that collection marked, and sets GOGC.
type Tuner struct {
	samples []metrics.Sample
	pct     atomic.Int32
	runs    atomic.Int64 // collections seen, for tests
}

type gcSentinel struct{ _ [64]byte } // not a tiny allocation (those are batched)

func (t *Tuner) arm() {
	runtime.AddCleanup(new(gcSentinel), func(t *Tuner) { t.adjust() }, t)
}

func (t *Tuner) adjust() {
	t.runs.Add(1)
	metrics.Read(t.samples)
	if t.samples[0].Value.Kind() == metrics.KindUint64 {
		if p := PercentFor(t.samples[0].Value.Uint64()); int32(p) != t.pct.Load() {
			t.pct.Store(int32(p))
			debug.SetGCPercent(p)
		}
	}
	t.arm()
}
