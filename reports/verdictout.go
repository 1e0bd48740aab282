package reports

import (
	"fmt"
	"io"

	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/reports/rundir"
)

// What gate and compare print around their tables: the filtered run's
// header, the verdict lines, and on stderr why the exit code is what it
// is.

// CheckFigures is the last word after a command read the summary further
// (comparisons, reports): a spill read that failed there is an error
// too, never a verdict (evaluation.Check).
func CheckFigures(sum *metrics.Summary) error {
	if err := sum.Err(); err != nil {
		return fmt.Errorf("metrics: the figures' per-case data could not be read back, so no verdict is given: %w", err)
	}
	return nil
}

// WriteGate prints apeval gate's output: a filtered run's header and
// what --labels matched (Summary.LabelNotes) on errOut, every judge's verdict and why (WriteReasons), then — once the
// figures read back whole (CheckFigures) — the overall verdict line, a
// label_source line of its own when the figures rest on weak labels (a
// script reading "verdict" keeps working), and on errOut that a partial
// run gates nothing.
func (rep *Report) WriteGate(out, errOut io.Writer) error {
	if h := rep.Run.Filter.String(); h != "" {
		fmt.Fprintf(errOut, "apeval: %s\n", h)
	}
	// gate prints no table notes: what --labels matched is said here.
	rep.WriteLabelNotes(errOut)
	if err := rep.WriteReasons(out); err != nil {
		return err
	}
	if err := CheckFigures(rep.Summary); err != nil {
		return err
	}
	fmt.Fprintf(out, "verdict\t%s\n", rep.Summary.Verdict)
	if rep.Weak() {
		fmt.Fprintf(out, "label_source\tweak\t%s\n", WeakBanner)
	}
	if rep.Run.Partial != "" {
		fmt.Fprintf(errOut, "apeval: the run is partial (%s): no verdict gates on it\n", rep.Run.Partial)
	}
	return nil
}

// CompareView is what apeval compare shows beside its report: the
// comparison, the runs' directories and run.json (each filtered run
// says so), the partial-overlap banner ("" when the runs share every
// case), the two judges and the candidate's verdict.
type CompareView struct {
	Cmp                 *metrics.Comparison
	Dirs                []string
	Infos               []rundir.RunInfo
	Banner              string
	Baseline, Candidate string
	Verdict             metrics.Verdict
}

// WriteLabelNotes prints on errOut, one "apeval: warning: " line each,
// what --labels matched (Summary.LabelNotes): gate and compare print no
// table notes, where report says it.
func (rep *Report) WriteLabelNotes(errOut io.Writer) {
	for _, n := range rep.Summary.LabelNotes {
		fmt.Fprintf(errOut, "apeval: warning: %s\n", n)
	}
}

// WriteCompare prints apeval compare's output in format f: the overlap
// banner and each filtered run's header, what --labels matched
// (WriteLabelNotes, on errOut), the comparison tables
// (WriteComparison), then — once the figures read back whole — on errOut
// each of the two judges whose setup is broken and, when --inconclusive
// mapped an INCONCLUSIVE verdict, to which exit code (rep.Exit).
func (rep *Report) WriteCompare(out, errOut io.Writer, f Format, v CompareView) error {
	if v.Banner != "" {
		Banner(out, errOut, f, v.Banner)
	}
	for i, in := range v.Infos {
		if h := in.Filter.String(); h != "" {
			Banner(out, errOut, f, v.Dirs[i]+": "+h)
		}
	}
	rep.WriteLabelNotes(errOut)
	if err := rep.WriteComparison(out, v.Cmp, f); err != nil {
		return err
	}
	if err := CheckFigures(rep.Summary); err != nil {
		return err
	}
	for _, j := range []string{v.Baseline, v.Candidate} {
		if js := rep.Summary.Judge(j); js != nil && js.SetupError != "" {
			fmt.Fprintf(errOut, "apeval: %s: ERROR, no verdict: %s\n", j, js.SetupError)
		}
	}
	if v.Verdict == metrics.VerdictInconclusive && rep.Inconclusive != "" {
		fmt.Fprintf(errOut, "apeval: INCONCLUSIVE mapped to exit %d by --inconclusive=%s\n", rep.Exit, rep.Inconclusive)
	}
	return nil
}
