package gctune

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestGCPercentFor(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, 100},
		// goal = max(live + 48, min(2 × live, 170)) MiB; GOGC = (goal − live) / live.
		{10 * mib, 100},  // goal 58: 480 %, capped at 100
		{48 * mib, 100},  // goal 96: 100 %
		{85 * mib, 100},  // goal 170: 100 %
		{100 * mib, 70},  // goal 170: 70 %
		{110 * mib, 54},  // goal 170: 54.5 %
		{122 * mib, 39},  // goal 170 = 122 + 48: 39.3 %
		{150 * mib, 32},  // goal 198: 32 %
		{192 * mib, 25},  // goal 240: 25 %
		{1000 * mib, 25}, // goal 1048: 4.8 %, floored at 25
	} {
		if got := PercentFor(c.live); got != c.want {
			t.Errorf("PercentFor(%d MiB) = %d, want %d", c.live/mib, got, c.want)
		}
	}
}

// The tuner follows the live heap: holding 150 MiB, the collections that
// follow set GOGC to 48 MiB / live (about 30 %), and dropping it brings
// GOGC back to 100.
func TestGCTunerFollowsLiveHeap(t *testing.T) {
	tn := Start(func(string) string { return "" })
	if tn == nil {
		t.Fatal("no tuner with GOGC and GOMEMLIMIT unset")
	}
	if Start(func(k string) string { return map[string]string{"GOGC": "80"}[k] }) != nil {
		t.Fatal("a tuner although GOGC is set")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	waitPct := func(ok func(int32) bool) int32 {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			n := tn.runs.Load()
			runtime.GC()
			for tn.runs.Load() == n && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if p := tn.pct.Load(); ok(p) {
				return p
			}
		}
		t.Fatalf("GOGC stayed %d", tn.pct.Load())
		return 0
	}
	hold := make([]byte, 150<<20)
	for i := range hold {
		hold[i] = byte(i)
	}
	p := waitPct(func(p int32) bool { return p >= 25 && p <= 32 })
	// What the runtime uses is what the tuner set.
	if cur := debug.SetGCPercent(int(p)); cur != int(p) {
		t.Errorf("runtime GOGC %d, tuner says %d", cur, p)
	}
	runtime.KeepAlive(hold)
	hold = nil
	waitPct(func(p int32) bool { return p == 100 })
}
