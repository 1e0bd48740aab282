// Package progress prints how a long replay is going: a self-updating line
// on a terminal, a log line every interval otherwise. It decides what the
// line says — the case count, the rate over a recent window, the ETA — and
// when it is printed; the command decides whether there is one (--quiet).
//
// The case count is the workers' finished results divided by the number of
// judges, not the emitted cases (emission goes block by block), so it moves
// smoothly (OfReplay); the rate is measured over the last RateWindow, so it
// neither collapses while slow calls are in flight nor stays stuck on the
// start.
//
// It is an internal package of the command: not a stable Go API.
//
// Where to look:
//
//	progress.go   Printer (New, Update, Replay, Skip, Done), Snapshot, OfReplay, the windowed rate
package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/apeval/apeval/replay"
)

// RateWindow is how far back the case rate (and so the ETA) looks.
const RateWindow = 10 * time.Second

// Snapshot is what one progress line reports.
type Snapshot struct {
	Cases, Calls, CacheHits, Failures int64
	// InFlight is the judge calls under way.
	InFlight int64
}

// OfReplay is the snapshot of a replay's progress with judges judges: the
// cases are the emitted ones, or the workers' finished results per judge
// when more (they move smoothly where emission jumps block by block).
func OfReplay(s replay.RunStats, judges int) Snapshot {
	cases := max(s.Cases, s.Replayed/int64(max(judges, 1)))
	return Snapshot{Cases: cases, Calls: s.Calls, CacheHits: s.CacheHits, Failures: s.Failures, InFlight: s.InFlight}
}

// Printer prints progress lines to one stream. Its methods may be called
// from several goroutines, and on a nil *Printer (no progress) do nothing.
type Printer struct {
	w        io.Writer
	tty      bool
	interval time.Duration
	total    int64 // cases expected (0 = unknown)

	mu      sync.Mutex
	skipped int64 // cases a budget stopped (Skip)
	last    time.Time
	line    int // width of the \r line on screen (0: none)
	samples []sample
}

type sample struct {
	at    time.Time
	cases float64
}

// New is a printer to w, a terminal when tty (a line every 200 ms,
// rewritten in place; else a log line every 10 s), for a run of total
// cases (0 = unknown) started at now.
func New(w io.Writer, tty bool, total int64, now time.Time) *Printer {
	iv := 10 * time.Second
	if tty {
		iv = 200 * time.Millisecond
	}
	return &Printer{w: w, tty: tty, interval: iv, total: total, last: now,
		samples: []sample{{at: now}}}
}

// Interval is how often a line is printed, at most.
func (p *Printer) Interval() time.Duration { return p.interval }

// Replay is replay.Options.Progress for a replay through judges judges.
func (p *Printer) Replay(judges int) func(replay.ProgressStats) {
	return func(s replay.ProgressStats) { p.Update(OfReplay(s.RunStats, judges), time.Now(), false) }
}

// Skip counts a case a budget stopped (--max-calls, --budget-usd): its
// calls were not sent and it is not reported. The line counts it apart
// from the cases judged, so a stopped run does not read "20/20 cases
// (100%)".
func (p *Printer) Skip() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.skipped++
	p.mu.Unlock()
}

// Done prints the last line, with a replay's totals (nothing in flight).
func (p *Printer) Done(s replay.RunStats, now time.Time) {
	p.Update(Snapshot{Cases: s.Cases, Calls: s.Calls, CacheHits: s.CacheHits, Failures: s.Failures}, now, true)
}

// rate is cases per second over the window ending now.
func (p *Printer) rate(now time.Time, cases float64) float64 {
	p.samples = append(p.samples, sample{at: now, cases: cases})
	cut := 0
	for cut < len(p.samples)-2 && now.Sub(p.samples[cut+1].at) >= RateWindow {
		cut++
	}
	p.samples = p.samples[cut:]
	first := p.samples[0]
	if el := now.Sub(first.at).Seconds(); el > 0 {
		return (cases - first.cases) / el
	}
	return 0
}

// Update prints s as of now when an interval has passed since the last
// line, or when final (the last line: no ETA; on a terminal it ends the
// line).
func (p *Printer) Update(s Snapshot, now time.Time, final bool) {
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
	// The cases judged: those a budget stopped went through the replay
	// without a call and are said apart.
	cases := max(s.Cases-p.skipped, 0)
	if p.total > 0 {
		parts = append(parts, fmt.Sprintf("%d/%d cases (%.0f%%)", cases, p.total, 100*float64(cases)/float64(p.total)))
	} else {
		parts = append(parts, fmt.Sprintf("%d cases", cases))
	}
	if p.skipped > 0 {
		parts = append(parts, fmt.Sprintf("%d skipped by the budget (calls not sent)", p.skipped))
	}
	parts = append(parts, fmt.Sprintf("%.0f cases/s", rate))
	calls := fmt.Sprintf("%d calls", s.Calls)
	if s.CacheHits > 0 {
		calls += fmt.Sprintf(" (%d cached)", s.CacheHits)
	}
	parts = append(parts, calls, fmt.Sprintf("%d in flight", s.InFlight), fmt.Sprintf("%d failed", s.Failures))
	if p.total > 0 && s.Cases > 0 && s.Cases < p.total && rate > 0 && !final && p.skipped == 0 {
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
