package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progress prints how a long run is going: a self-updating line on a
// terminal, a log line every interval otherwise, nothing when quiet.
type progress struct {
	w        io.Writer
	tty      bool
	interval time.Duration
	total    int64 // cases expected (0 = unknown)
	start    time.Time

	mu   sync.Mutex
	last time.Time
	line bool // a \r line is on screen
}

type progressSnapshot struct {
	Cases, Calls, CacheHits, Failures int64
}

func newProgress(w io.Writer, tty bool, total int64, now time.Time) *progress {
	iv := 10 * time.Second
	if tty {
		iv = 200 * time.Millisecond
	}
	return &progress{w: w, tty: tty, interval: iv, total: total, start: now, last: now}
}

func (p *progress) update(s progressSnapshot, now time.Time, final bool) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !final && now.Sub(p.last) < p.interval {
		return
	}
	p.last = now
	el := now.Sub(p.start).Seconds()
	rate := 0.0
	callRate := 0.0
	if el > 0 {
		rate = float64(s.Cases) / el
		callRate = float64(s.Calls) / el
	}
	msg := fmt.Sprintf("%d cases", s.Cases)
	if p.total > 0 {
		msg = fmt.Sprintf("%d/%d cases (%.0f%%)", s.Cases, p.total, 100*float64(s.Cases)/float64(p.total))
	}
	msg += fmt.Sprintf(", %.0f cases/s, %d calls (%.1f/s), %d cache hits, %d failures", rate, s.Calls, callRate, s.CacheHits, s.Failures)
	if p.total > 0 && s.Cases > 0 && s.Cases < p.total && rate > 0 {
		eta := time.Duration(float64(p.total-s.Cases) / rate * float64(time.Second)).Round(time.Second)
		msg += fmt.Sprintf(", ETA %s", eta)
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", msg)
		p.line = true
		if final {
			fmt.Fprintln(p.w)
			p.line = false
		}
		return
	}
	fmt.Fprintf(p.w, "apeval: %s\n", msg)
}
