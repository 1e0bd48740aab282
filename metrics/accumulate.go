package metrics

import "github.com/apeval/apeval/replay"

// Accumulator streams replay results into per judge × rule counts. It is
// not safe for concurrent use; feed it from one goroutine.
type Accumulator struct {
	cfg Config
}

// New returns an empty Accumulator judging with cfg.
func New(cfg Config) *Accumulator { return &Accumulator{cfg: cfg} }

// Add counts one replayed case × judge.
func (a *Accumulator) Add(r *replay.Result) {}

// Close computes rates, intervals, criteria and verdicts.
func (a *Accumulator) Close() *Summary { return &Summary{Verdict: VerdictInconclusive} }

type judgePairs struct{}

// Compare compares two judges of the summary (baseline vs candidate); nil
// when either judge is absent.
func (s *Summary) Compare(baseline, candidate string) *Comparison { return nil }

// ExitCode maps a verdict to the process exit code of `run`/`gate`
// (DESIGN §7): 0 GO, 1 NO-GO, 3 INCONCLUSIVE; inconclusive = "pass" maps
// INCONCLUSIVE to 0 and "fail" to 1.
func ExitCode(v Verdict, inconclusive string) int {
	switch v {
	case VerdictGo:
		return 0
	case VerdictNoGo:
		return 1
	}
	switch inconclusive {
	case "pass":
		return 0
	case "fail":
		return 1
	}
	return 3
}
