package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestProgressLines(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	p := newProgress(&b, false, 1000, t0)
	p.update(progressSnapshot{Cases: 10}, t0.Add(time.Second), false) // within the 10 s interval: silent
	if b.Len() != 0 {
		t.Fatalf("printed before the interval: %q", b.String())
	}
	p.update(progressSnapshot{Cases: 250, Calls: 500, CacheHits: 20, Failures: 3}, t0.Add(10*time.Second), false)
	want := "apeval: 250/1000 cases (25%), 25 cases/s, 500 calls (50.0/s), 20 cache hits, 3 failures, ETA 30s\n"
	if b.String() != want {
		t.Fatalf("got  %q\nwant %q", b.String(), want)
	}
	b.Reset()
	tty := newProgress(&b, true, 0, t0)
	tty.update(progressSnapshot{Cases: 5}, t0.Add(time.Second), true)
	if !strings.HasPrefix(b.String(), "\r\033[K5 cases, ") || !strings.HasSuffix(b.String(), "\n") {
		t.Fatalf("tty line %q", b.String())
	}
}
