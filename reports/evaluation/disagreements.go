package evaluation

import (
	"fmt"
	"io"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/trunc"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/rundir"
)

// ReplayedSample reports whether every run replayed the embedded sample
// (then its cases can be read back without a dataset).
func ReplayedSample(infos []rundir.RunInfo) bool {
	for _, in := range infos {
		if len(in.Datasets) != 1 || in.Datasets[0].SHA256 != datasets.SampleSHA256() {
			return false
		}
	}
	return true
}

// ReplayedInput is where a reading command reads the runs' cases back
// from (decision files hold no raw cases): the dataset files given
// (--dataset; "-" reads stdin), or, when none are, the embedded sample if
// every run replayed it; ok is false when neither.
func ReplayedInput(paths []string, stdin io.Reader, infos []rundir.RunInfo) (_ []string, _ io.Reader, ok bool) {
	if len(paths) > 0 {
		return paths, stdin, true
	}
	if !ReplayedSample(infos) {
		return nil, nil, false
	}
	return []string{"-"}, datasets.SampleCases(), true
}

// Disagreements are the (case, rule) pairs two judges decided
// differently (apeval datasets disagreements), ranked.
type Disagreements struct {
	// Ranked are every disagreement, most informative first; Cases the
	// cases kept (the limit's first), grouped in rank order.
	Ranked []metrics.Disagreement
	Cases  []metrics.CaseDisagreements
	// Total is the number of cases before the limit; Paired the pairs both
	// judges had in scope; Opposite the disagreements of kind opposite.
	Total, Opposite int
	Paired          int64
}

// FindDisagreements reads the run directories (dirs, with the judges of
// pair; two runs, or one holding both judges) and ranks the pairs the two
// judges decided differently (metrics.DisagreementFinder); limit > 0
// keeps the first limit cases.
func FindDisagreements(dirs []string, pair reports.JudgePair, limit int) (*Disagreements, error) {
	find := metrics.NewDisagreementFinder(pair.Baseline, pair.Candidate)
	for i, d := range dirs {
		if _, err := rundir.ReadRun(d, func(r *replay.Result) error {
			pair.Read(i, r) // the finder reads only the pair's judges itself
			find.Add(r)
			return nil
		}); err != nil {
			return nil, DirError(d, err)
		}
	}
	ranked := find.Close()
	out := &Disagreements{Ranked: ranked, Cases: metrics.ByCase(ranked), Paired: find.Paired()}
	out.Total = len(out.Cases)
	if limit > 0 && len(out.Cases) > limit {
		out.Cases = out.Cases[:limit]
	}
	for _, d := range ranked {
		if d.Kind == metrics.DisagreeOpposite {
			out.Opposite++
		}
	}
	return out, nil
}

// Write writes each kept case's dataset line (lines[i], from Lines)
// with its disagreements added (metrics.CaseDisagreements.Annotate), one
// line each, every other field kept; a line that cannot be annotated is
// an error naming where it came from (where[i]).
func (d *Disagreements) Write(w io.Writer, lines [][]byte, where []string) error {
	for i, c := range d.Cases {
		out, err := c.Annotate(lines[i])
		if err != nil {
			return fmt.Errorf("%s: %v", where[i], err)
		}
		if _, err := w.Write(append(out, '\n')); err != nil {
			return err
		}
	}
	return nil
}

// Summary is the line datasets disagreements prints when it is done:
// the disagreements by kind, the cases and pairs they came from, the two
// judges, and how many cases went to dest.
func (d *Disagreements) Summary(pair reports.JudgePair, dest string) string {
	return fmt.Sprintf("%d disagreements (%d opposite, %d unknown) in %d cases over %d pairs both judged (baseline %s, candidate %s); %d cases written to %s",
		len(d.Ranked), d.Opposite, len(d.Ranked)-d.Opposite, d.Total, d.Paired, pair.Baseline, pair.Candidate, len(d.Cases), dest)
}

// Lines reads the kept cases' original dataset lines (datasets.Lines):
// lines[i] is the line of Cases[i], where[i] its file:line. A case no
// dataset holds is an error naming it (the runs replayed other files).
func (d *Disagreements) Lines(paths []string, stdin io.Reader, opener datasets.Opener) (lines [][]byte, where []string, err error) {
	ids := make([]string, len(d.Cases))
	for i, c := range d.Cases {
		ids[i] = c.CaseID
	}
	if lines, where, err = datasets.Lines(paths, stdin, ids, opener); err != nil {
		return nil, nil, err
	}
	var missing []string
	for i, c := range d.Cases {
		if lines[i] == nil {
			missing = append(missing, c.CaseID)
		}
	}
	if len(missing) > 0 {
		return nil, nil, fmt.Errorf("%d disagreeing case(s) not found in the dataset (give the files the run replayed): %s", len(missing), trunc.List(missing, 20))
	}
	return lines, where, nil
}
