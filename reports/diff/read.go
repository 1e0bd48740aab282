package diff

import (
	"errors"
	"fmt"
	"iter"
	"slices"

	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/rundir"
)

// InputError is a diff's input error: a run directory that cannot be read,
// judges that cannot be paired, runs that cannot be diffed (exit 2).
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputErrorf(format string, args ...any) error {
	return &InputError{fmt.Errorf(format, args...)}
}

// Input is what a diff reads: one run directory with two judges, or two
// run directories (base, head), and the judge of each side.
type Input struct {
	Dirs  []string
	Infos []rundir.RunInfo
	// Base and Head are the judges' identities as reports show them (a
	// head judge with the base's identity is renamed, see
	// reports.PairJudges); headJudge is the head's identity in its files.
	Base, Head string
	headJudge  string
}

// Open reads the run.json of one or two run directories and pairs their
// judges (baseline and candidate are --baseline and --candidate, "" when
// not given). Two runs made with different policies and different
// datasets are refused: their differences could not be told apart.
func Open(dirs []string, baseline, candidate string) (*Input, error) {
	if len(dirs) < 1 || len(dirs) > 2 {
		return nil, inputErrorf("diff takes two run directories, or one with --baseline and --candidate")
	}
	in := &Input{Dirs: dirs}
	for _, d := range dirs {
		info, err := rundir.ReadRunInfo(d)
		if err != nil {
			return nil, inputErrorf("%s is not a readable run directory: %v", d, err)
		}
		in.Infos = append(in.Infos, info)
	}
	if len(dirs) == 1 && baseline == "" {
		return nil, inputErrorf("a diff within one run directory needs --baseline JUDGE (and --candidate JUDGE when the run holds more than two judges)")
	}
	p, err := reports.PairJudges(dirs, in.Infos, baseline, candidate)
	if err != nil {
		return nil, &InputError{err}
	}
	in.Base, in.Head, in.headJudge = p.Baseline, p.Candidate, p.Candidate
	for orig, renamed := range p.Rename {
		if renamed == p.Candidate {
			in.headJudge = orig
		}
	}
	if in.Base == in.Head && len(dirs) == 1 {
		return nil, inputErrorf("--baseline and --candidate name the same judge %s", in.Base)
	}
	if len(dirs) == 2 {
		a, b := in.Infos[0], in.Infos[1]
		if !samePolicy(a, b) && !sameDatasets(a, b) {
			return nil, inputErrorf("%s and %s differ in both policy (%s vs %s) and datasets (%s vs %s): a diff could not tell a policy change from different traffic; diff runs of one dataset, or of one policy",
				dirs[0], dirs[1], policyName(a), policyName(b), names(datasetNames(a)), names(datasetNames(b)))
		}
	}
	return in, nil
}

func names(ns []string) string {
	if len(ns) == 1 {
		return ns[0]
	}
	return fmt.Sprint(ns)
}

func policyName(in rundir.RunInfo) string {
	if in.Policy == nil {
		return "none recorded"
	}
	return in.Policy.Name
}

func samePolicy(a, b rundir.RunInfo) bool {
	if a.Policy == nil || b.Policy == nil {
		return a.Policy == nil && b.Policy == nil
	}
	if a.Policy.SHA256 != "" && b.Policy.SHA256 != "" {
		return a.Policy.SHA256 == b.Policy.SHA256
	}
	return a.Policy.Name == b.Policy.Name
}

func sameDatasets(a, b rundir.RunInfo) bool {
	key := func(in rundir.RunInfo) []string {
		var k []string
		for _, d := range in.Datasets {
			if d.SHA256 != "" {
				k = append(k, d.SHA256)
			} else {
				k = append(k, d.Name)
			}
		}
		slices.Sort(k)
		return k
	}
	return slices.Equal(key(a), key(b))
}

var errStopped = errors.New("stopped")

// results is dir's results as a pull iterator; *err holds the read error
// once next reports the end.
func results(dir string, err *error) (next func() (*replay.Result, bool), stop func()) {
	return iter.Pull(func(yield func(*replay.Result) bool) {
		_, e := rundir.ReadRun(dir, func(r *replay.Result) error {
			if !yield(r) {
				return errStopped
			}
			return nil
		})
		if e != nil && !errors.Is(e, errStopped) {
			*err = e
		}
	})
}

// Run reads the results into d: two runs side by side (same-order runs
// keep d's waiting set near empty), or one run's two judges.
func (in *Input) Run(d *Differ) error {
	if len(in.Dirs) == 1 {
		_, err := rundir.ReadRun(in.Dirs[0], func(r *replay.Result) error {
			switch r.Judge {
			case in.Base:
				return d.Add(0, r)
			case in.headJudge:
				return d.Add(1, r)
			}
			return nil
		})
		return readError(in.Dirs[0], err)
	}
	var errB, errH error
	nextB, stopB := results(in.Dirs[0], &errB)
	defer stopB()
	nextH, stopH := results(in.Dirs[1], &errH)
	defer stopH()
	moreB, moreH := true, true
	for moreB || moreH {
		if moreB {
			var r *replay.Result
			if r, moreB = nextB(); moreB && r.Judge == in.Base {
				if err := d.Add(0, r); err != nil {
					return err
				}
			}
		}
		if moreH {
			var r *replay.Result
			if r, moreH = nextH(); moreH && r.Judge == in.headJudge {
				if err := d.Add(1, r); err != nil {
					return err
				}
			}
		}
	}
	if err := readError(in.Dirs[0], errB); err != nil {
		return err
	}
	return readError(in.Dirs[1], errH)
}

// readError makes a reading error an input error naming the run directory;
// the Differ's own errors pass as they are.
func readError(dir string, err error) error {
	var ie *InputError
	var we writeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ie), errors.As(err, &we):
		return err
	}
	return inputErrorf("%s: %v", dir, err)
}

// Summary is the diff's summary once d is closed: the runs, the overlap
// and the policy's rules.
func (in *Input) Summary(d *Differ) *Summary {
	head := in.Infos[len(in.Infos)-1]
	s := &Summary{Overlap: NewOverlap(in.Infos[0], head)}
	ref := func(dir string, info rundir.RunInfo, judge string) RunRef {
		return RunRef{Dir: dir, RunID: info.RunID, Judge: judge, Datasets: datasetNames(info), Policy: policyName(info)}
	}
	s.Base = ref(in.Dirs[0], in.Infos[0], in.Base)
	s.Head = ref(in.Dirs[len(in.Dirs)-1], head, in.Head)
	d.Close(s)
	s.Policy.addTexts(in.Infos[0], head)
	s.LabelSource = in.labelSource()
	return s
}

// labelSource is "weak" when a run compared is on weak labels (the labels
// that decide fixed and broken are users' overrides), "" otherwise.
func (in *Input) labelSource() string {
	for _, info := range in.Infos {
		if info.LabelSource == "weak" {
			return "weak"
		}
	}
	return ""
}
