package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progress prints how a long run is going: a self-updating line on a
// terminal, a log line every interval otherwise, nothing when quiet.
//
// The case count is the workers' finished results divided by the number of
// judges, not the emitted cases (emission goes block by block), so it moves
// smoothly; the rate is measured over the last rateWindow, so it neither
// collapses while slow calls are in flight nor stays stuck on the start.
type progress struct {
	w        io.Writer
	tty      bool
	interval time.Duration
	total    int64 // cases expected (0 = unknown)
	start    time.Time

	mu      sync.Mutex
	last    time.Time
	line    int // width of the \r line on screen (0: none)
	samples []progressSample
}

type progressSample struct {
	at    time.Time
	cases float64
}

// rateWindow is how far back the case rate (and so the ETA) looks.
const rateWindow = 10 * time.Second

type progressSnapshot struct {
	Cases, Calls, CacheHits, Failures int64
	// InFlight is the judge calls under way.
	InFlight int64
}

func newProgress(w io.Writer, tty bool, total int64, now time.Time) *progress {
	iv := 10 * time.Second
	if tty {
		iv = 200 * time.Millisecond
	}
	return &progress{w: w, tty: tty, interval: iv, total: total, start: now, last: now,
		samples: []progressSample{{at: now}}}
}

// rate is cases per second over the window ending now.
func (p *progress) rate(now time.Time, cases float64) float64 {
	p.samples = append(p.samples, progressSample{at: now, cases: cases})
	cut := 0
	for cut < len(p.samples)-2 && now.Sub(p.samples[cut+1].at) >= rateWindow {
		cut++
	}
	p.samples = p.samples[cut:]
	first := p.samples[0]
	if el := now.Sub(first.at).Seconds(); el > 0 {
		return (cases - first.cases) / el
	}
	return 0
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
	rate := p.rate(now, float64(s.Cases))
	var parts []string
	if p.total > 0 {
		parts = append(parts, fmt.Sprintf("%d/%d cases (%.0f%%)", s.Cases, p.total, 100*float64(s.Cases)/float64(p.total)))
	} else {
		parts = append(parts, fmt.Sprintf("%d cases", s.Cases))
	}
	parts = append(parts, fmt.Sprintf("%.0f cases/s", rate))
	calls := fmt.Sprintf("%d calls", s.Calls)
	if s.CacheHits > 0 {
		calls += fmt.Sprintf(" (%d cached)", s.CacheHits)
	}
	parts = append(parts, calls, fmt.Sprintf("%d in flight", s.InFlight), fmt.Sprintf("%d failed", s.Failures))
	if p.total > 0 && s.Cases > 0 && s.Cases < p.total && rate > 0 && !final {
		eta := time.Duration(float64(p.total-s.Cases) / rate * float64(time.Second)).Round(time.Second)
		parts = append(parts, fmt.Sprintf("ETA %s", eta))
	}
	msg := strings.Join(parts, ", ")
	if p.tty {
		// \r and blanks over the previous line: no escape sequences, so
		// NO_COLOR terminals and logs of a terminal stay clean.
		pad := ""
		if n := displayLen(msg); n < p.line {
			pad = strings.Repeat(" ", p.line-n)
		}
		fmt.Fprintf(p.w, "\r%s%s", msg, pad)
		p.line = displayLen(msg)
		if final {
			fmt.Fprintln(p.w)
			p.line = 0
		}
		return
	}
	fmt.Fprintf(p.w, "apeval: %s\n", msg)
}

func displayLen(s string) int { return len([]rune(s)) }
