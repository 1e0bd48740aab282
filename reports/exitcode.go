package reports

import "github.com/apeval/apeval/metrics"

// Exit codes of the commands that give a verdict (README.md, Exit codes):
// the verdict is the exit code, so that CI can gate on it.
const (
	ExitGo           = 0
	ExitNoGo         = 1
	ExitError        = 2 // usage or input error, a broken judge setup, a partial run
	ExitInconclusive = 3
)

// VerdictExit maps a verdict to the exit code of run, report, merge,
// gate and compare: 0 GO, 1 NO-GO, 3 INCONCLUSIVE, 2 ERROR (a broken
// judge setup, which has no verdict). inconclusive is the --inconclusive
// policy: "pass" maps INCONCLUSIVE to 0, "fail" to 1.
func VerdictExit(v metrics.Verdict, inconclusive string) int {
	switch v {
	case metrics.VerdictGo:
		return ExitGo
	case metrics.VerdictNoGo:
		return ExitNoGo
	case metrics.VerdictError:
		return ExitError // a broken judge setup: no verdict
	}
	switch inconclusive {
	case "pass":
		return ExitGo
	case "fail":
		return ExitNoGo
	}
	return ExitInconclusive
}

// RunExit is a run's exit code: its verdict's (VerdictExit with the
// report's --inconclusive), or ExitError when the run is partial (a
// budget stopped it), since a verdict over part of the input must not
// gate.
func (rep *Report) RunExit() int {
	if rep.Run.Partial != "" {
		return ExitError
	}
	return VerdictExit(rep.Summary.Verdict, rep.Inconclusive)
}
