package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestProgressLines(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	p := newProgress(&b, false, 1000, t0)
	p.update(progressSnapshot{Cases: 10}, t0.Add(time.Second), false) // within the 10 s interval: silent
	if b.Len() != 0 {
		t.Fatalf("printed before the interval: %q", b.String())
	}
	// 250 cases in 10 s = 25 cases/s; 750 left / 25 = 30 s.
	p.update(progressSnapshot{Cases: 250, Calls: 500, CacheHits: 20, Failures: 3, InFlight: 4}, t0.Add(10*time.Second), false)
	want := "apeval: 250/1000 cases (25%), 25 cases/s, 500 calls (20 cached), 4 in flight, 3 failed, ETA 30s\n"
	if b.String() != want {
		t.Fatalf("got  %q\nwant %q", b.String(), want)
	}
	b.Reset()
	tty := newProgress(&b, true, 0, t0)
	tty.update(progressSnapshot{Cases: 5}, t0.Add(time.Second), true)
	if !strings.HasPrefix(b.String(), "\r5 cases, ") || !strings.HasSuffix(b.String(), "\n") {
		t.Fatalf("tty line %q", b.String())
	}
	if strings.Contains(b.String(), "\x1b") {
		t.Fatalf("escape sequence in the progress line: %q", b.String())
	}
}

// TestProgressRateIsWindowed: the rate is measured over the last 10 s, so
// a slow start does not drag it down for the rest of the run, and a pause
// while calls are in flight shows as a lower rate, not zero at once.
func TestProgressRateIsWindowed(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	p := newProgress(&b, false, 10000, t0)
	p.interval = 0
	// 0..20 s: 10 cases/s (200 cases); 20..30 s: 100 cases/s (1,200 at 30 s).
	p.update(progressSnapshot{Cases: 100}, t0.Add(10*time.Second), false)
	p.update(progressSnapshot{Cases: 200}, t0.Add(20*time.Second), false)
	b.Reset()
	p.update(progressSnapshot{Cases: 1200}, t0.Add(30*time.Second), false)
	// Window 20..30 s: (1200-200)/10 = 100 cases/s (the whole-run mean
	// would be 1200/30 = 40); ETA (10000-1200)/100 = 88 s = 1m28s.
	if !strings.Contains(b.String(), ", 100 cases/s,") || !strings.Contains(b.String(), "ETA 1m28s") {
		t.Fatalf("windowed rate: %q", b.String())
	}
}
