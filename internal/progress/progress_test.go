package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/replay"
)

func TestProgressLines(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	p := New(&b, false, 1000, t0)
	p.Update(Snapshot{Cases: 10}, t0.Add(time.Second), false) // within the 10 s interval: silent
	if b.Len() != 0 {
		t.Fatalf("printed before the interval: %q", b.String())
	}
	// 250 cases in 10 s = 25 cases/s; 750 left / 25 = 30 s.
	p.Update(Snapshot{Cases: 250, Calls: 500, CacheHits: 20, Failures: 3, InFlight: 4}, t0.Add(10*time.Second), false)
	want := "apeval: 250/1000 cases (25%), 25 cases/s, 500 calls (20 cached), 4 in flight, 3 failed, ETA 30s\n"
	if b.String() != want {
		t.Fatalf("got  %q\nwant %q", b.String(), want)
	}
	// The last line comes whatever the interval, without an ETA or
	// anything in flight; its rate looks back at least 10 s (to the
	// start: 1000 cases in 11 s).
	b.Reset()
	p.Done(replay.RunStats{Cases: 1000, Calls: 2000, InFlight: 9}, t0.Add(11*time.Second))
	if want := "apeval: 1000/1000 cases (100%), 91 cases/s, 2000 calls, 0 in flight, 0 failed\n"; b.String() != want {
		t.Fatalf("done: got %q, want %q", b.String(), want)
	}
	b.Reset()
	tty := New(&b, true, 0, t0)
	if tty.Interval() != 200*time.Millisecond || p.Interval() != 10*time.Second {
		t.Errorf("intervals %v %v", tty.Interval(), p.Interval())
	}
	tty.Update(Snapshot{Cases: 5}, t0.Add(time.Second), true)
	if !strings.HasPrefix(b.String(), "\r5 cases, ") || !strings.HasSuffix(b.String(), "\n") {
		t.Fatalf("tty line %q", b.String())
	}
	if strings.Contains(b.String(), "\x1b") {
		t.Fatalf("escape sequence in the progress line: %q", b.String())
	}
	var nilp *Printer
	nilp.Update(Snapshot{Cases: 1}, t0, true) // no progress: nothing, no panic
}

// On a terminal a shorter line blanks out what is left of the longer one
// before it.
func TestProgressTTYOverwrites(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	p := New(&b, true, 0, t0)
	p.Update(Snapshot{Cases: 1000, Calls: 123456, CacheHits: 7}, t0.Add(time.Second), false)
	first := strings.TrimPrefix(b.String(), "\r")
	b.Reset()
	p.Update(Snapshot{Cases: 1001, Calls: 123457}, t0.Add(2*time.Second), false)
	second := strings.TrimPrefix(b.String(), "\r")
	if len(second) != len(first) || !strings.HasSuffix(second, "  ") || strings.HasSuffix(b.String(), "\n") {
		t.Fatalf("first %q, second %q", first, second)
	}
}

// TestProgressRateIsWindowed: the rate is measured over the last 10 s, so
// a slow start does not drag it down for the rest of the run, and a pause
// while calls are in flight shows as a lower rate, not zero at once.
func TestProgressRateIsWindowed(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	p := New(&b, false, 10000, t0)
	p.interval = 0
	// 0..20 s: 10 cases/s (200 cases); 20..30 s: 100 cases/s (1,200 at 30 s).
	p.Update(Snapshot{Cases: 100}, t0.Add(10*time.Second), false)
	p.Update(Snapshot{Cases: 200}, t0.Add(20*time.Second), false)
	b.Reset()
	p.Update(Snapshot{Cases: 1200}, t0.Add(30*time.Second), false)
	// Window 20..30 s: (1200-200)/10 = 100 cases/s (the whole-run mean
	// would be 1200/30 = 40); ETA (10000-1200)/100 = 88 s = 1m28s.
	if !strings.Contains(b.String(), ", 100 cases/s,") || !strings.Contains(b.String(), "ETA 1m28s") {
		t.Fatalf("windowed rate: %q", b.String())
	}
}

// The case count follows the workers' finished results per judge while
// emission lags behind, and the emitted cases once they are ahead.
func TestOfReplay(t *testing.T) {
	t.Parallel()
	s := OfReplay(replay.RunStats{Cases: 10, Replayed: 90, Calls: 5, CacheHits: 1, Failures: 2, InFlight: 3}, 3)
	if s != (Snapshot{Cases: 30, Calls: 5, CacheHits: 1, Failures: 2, InFlight: 3}) {
		t.Errorf("behind: %+v", s)
	}
	if s := OfReplay(replay.RunStats{Cases: 40, Replayed: 90}, 3); s.Cases != 40 {
		t.Errorf("ahead: %+v", s)
	}
	if s := OfReplay(replay.RunStats{Replayed: 7}, 0); s.Cases != 7 {
		t.Errorf("no judges: %+v", s)
	}
}
