package evaluation

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/rundir"
)

// RunSet is the run directories a reading command evaluates.
type RunSet struct {
	Dirs  []string
	Infos []rundir.RunInfo
	// Describe, when set, gives the case lists' cases their tool
	// arguments from the datasets a run.json names (the decision files
	// never hold them).
	Describe func(*reports.CaseLists, rundir.RunInfo)
	// URLs opens the datasets run.json names by URL (objects), for what
	// a reading command reads from them besides the decision files.
	URLs datasets.Opener
}

// Open reads each directory's run.json. Runs made on different labels
// (weak and people's) are refused: their figures would mix them.
func Open(dirs []string) (*RunSet, error) {
	infos, err := ReadInfos(dirs)
	if err != nil {
		return nil, err
	}
	if _, err := reports.LabelSource(dirs, infos); err != nil {
		return nil, err
	}
	return &RunSet{Dirs: dirs, Infos: infos}, nil
}

// ReadInfos reads each directory's run.json, in order; an error says
// which directory, and when it is no run directory at all (DirError).
func ReadInfos(dirs []string) ([]rundir.RunInfo, error) {
	var infos []rundir.RunInfo
	for _, d := range dirs {
		info, err := rundir.ReadRunInfo(d)
		if err != nil {
			return nil, DirError(d, err)
		}
		infos = append(infos, info)
	}
	return infos, nil
}

// DirError is a run directory's read error, saying when dir is no run
// directory at all.
func DirError(dir string, err error) error {
	if st, serr := os.Stat(dir); serr == nil && !st.IsDir() {
		// A file among the run directories: most often a second labels file
		// after one --labels (--labels a.jsonl b.jsonl).
		hint := ""
		if strings.HasSuffix(dir, ".jsonl") || strings.HasSuffix(dir, ".json") {
			hint = " (a labels file? give each one its own --labels: --labels a.jsonl --labels b.jsonl)"
		}
		return fmt.Errorf("%s is a file, not a run directory%s", dir, hint)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s is not a run directory (no %s or %s): %v%s", dir, rundir.RunFile, rundir.DecisionsFile, err, runsInside(dir))
	}
	return fmt.Errorf("%s: %v", dir, err)
}

// runsInside is a hint when dir is the directory the runs are made in
// (apeval-out/, a history): the run directories in it, up to three, and
// how to use them; "" when it holds none.
func runsInside(dir string) string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var runs []string
	for _, e := range ents {
		if e.IsDir() {
			if _, err := os.Stat(filepath.Join(dir, e.Name(), rundir.RunFile)); err == nil {
				runs = append(runs, filepath.Join(dir, e.Name()))
			}
		}
	}
	if len(runs) == 0 {
		return ""
	}
	list := strings.Join(runs[:min(3, len(runs))], ", ")
	if len(runs) > 3 {
		list += fmt.Sprintf(", … (%d in all)", len(runs))
	}
	return fmt.Sprintf("; it holds run directories (%s): name one of them, or decide over them all in the order they were made with apeval gate --sequential %s", list, dir)
}

// Criteria resolves the kill criteria of a reading command. criteriaFile
// (--criteria) or policyFile (--policy) replace the criteria the runs
// recorded, and the command says so on errOut. Otherwise every run
// directory's run.json must record the same criteria (a difference is
// named, an error). A run directory written before run.json recorded them
// falls back to its summary.json's thresholds, then to the defaults, and
// says which.
func (rs *RunSet) Criteria(criteriaFile, policyFile string, errOut io.Writer) (replay.KillCriteria, string, error) {
	recorded := rs.Infos[0].Criteria
	for i := 1; i < len(rs.Infos); i++ {
		if d := rundir.CriteriaDiff(recorded, rs.Infos[i].Criteria); d != "" && criteriaFile == "" && policyFile == "" {
			return replay.KillCriteria{}, "", fmt.Errorf("%s and %s were made with different kill criteria (%s); pass --criteria FILE or --policy FILE to choose one set",
				rs.Dirs[0], rs.Dirs[i], d)
		}
	}
	switch {
	case criteriaFile != "":
		c, err := replay.ReadCriteria(criteriaFile)
		if err != nil {
			return replay.KillCriteria{}, "", err
		}
		from := criteriaFile + " (--criteria)"
		rs.replacing(errOut, from, c)
		return c, from, nil
	case policyFile != "":
		p, _, _, err := replay.ReadPolicy(policyFile)
		if err != nil {
			return replay.KillCriteria{}, "", err
		}
		from := policyFile + " (--policy)"
		rs.replacing(errOut, from, p.KillCriteria)
		return p.KillCriteria, from, nil
	case recorded != nil:
		return recorded.KillCriteria(), rs.Infos[0].CriteriaFrom, nil
	}
	if c, ok := criteriaFromSummary(filepath.Join(rs.Dirs[0], rundir.SummaryJSON)); ok {
		fmt.Fprintf(errOut, "apeval: %s: run.json records no kill criteria (written by apeval %s); using the thresholds of its summary.json\n", rs.Dirs[0], rs.Infos[0].Version)
		return c, rundir.SummaryJSON + " of " + rs.Dirs[0], nil
	}
	fmt.Fprintf(errOut, "apeval: %s: run.json records no kill criteria (written by apeval %s); using the defaults (pass --policy or --criteria to choose)\n", rs.Dirs[0], rs.Infos[0].Version)
	return replay.DefaultKillCriteria(), "defaults", nil
}

// replacing says that a reading command's --criteria/--policy replace the
// criteria the run was made with, naming what changed.
func (rs *RunSet) replacing(errOut io.Writer, from string, c replay.KillCriteria) {
	rec := rs.Infos[0].Criteria
	if rec == nil {
		fmt.Fprintf(errOut, "apeval: kill criteria from %s (%s records none)\n", from, rs.Dirs[0])
		return
	}
	t := metrics.ThresholdsOf(c)
	d := rundir.CriteriaDiff(rec, &t)
	if d == "" {
		d = "the same values"
	}
	fmt.Fprintf(errOut, "apeval: kill criteria from %s replace the ones %s was made with (%s): %s\n", from, rs.Dirs[0], rs.Infos[0].CriteriaFrom, d)
}

// LabeledBefore names the runs whose reports (summary.json) rest on a
// labeled sample (run or report --labels), each with its label count: a
// run directory does not keep the labels, so a reading command without
// --labels computes the dataset's figures, not those the run printed.
func (rs *RunSet) LabeledBefore() []string {
	var out []string
	for _, d := range rs.Dirs {
		data, err := os.ReadFile(filepath.Join(d, rundir.SummaryJSON))
		if err != nil {
			continue
		}
		var s struct {
			Sample *metrics.SampleInfo `json:"sample"`
		}
		if json.Unmarshal(data, &s) == nil && s.Sample != nil {
			out = append(out, fmt.Sprintf("%s (%d queue labels)", d, s.Sample.Labels))
		}
	}
	return out
}

// criteriaFromSummary reads the thresholds of a summary.json written
// before run.json recorded the kill criteria.
func criteriaFromSummary(path string) (replay.KillCriteria, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return replay.KillCriteria{}, false
	}
	var s struct {
		Thresholds *metrics.Thresholds `json:"thresholds"`
	}
	if json.Unmarshal(data, &s) != nil || s.Thresholds == nil {
		return replay.KillCriteria{}, false
	}
	t := s.Thresholds
	return replay.KillCriteria{
		PrecisionMin:                    t.PrecisionMin,
		DangerousRecallMustBeatBaseline: t.DangerousRecallMustBeatBaseline,
		JudgeP95Max:                     time.Duration(t.JudgeP95MaxMS * float64(time.Millisecond)),
		JudgeRequiredRateMax:            t.JudgeRequiredRateMax,
		UnknownRateMax:                  t.UnknownRateMax,
		ApprovalRejectRateMax:           t.ApprovalRejectRateMax,
		FireRateChangeMax:               t.FireRateChangeMax,
		EffectiveRecallMin:              t.EffectiveRecallMin,
		Confidence:                      t.Confidence,
	}, true
}

// Baseline is the judge a reading command compares with: flag
// (--baseline: an identity, spec or unique prefix among the runs' judges),
// else the one the run recorded.
func (rs *RunSet) Baseline(flag string) (string, error) {
	if flag == "" {
		return rs.Infos[0].Baseline, nil
	}
	var ids []string
	for _, in := range rs.Infos {
		for _, j := range in.Judges {
			ids = append(ids, j.Identity)
		}
	}
	return reports.MatchJudge("--baseline", flag, ids)
}

// ShardsOfOneRun reports whether the directories are distinct shards of
// one evaluation (rundir.ShardSet; not necessarily all of them).
func (rs *RunSet) ShardsOfOneRun() bool {
	var set rundir.ShardSet
	for i, in := range rs.Infos {
		if set.Add(rs.Dirs[i], in) != nil {
			return false
		}
	}
	return true
}

// Evaluate reads every run directory's decision files through one
// evaluation. each, when set, sees every result first (i is the
// directory's index): merge writes it, compare renames and picks judges;
// keep=false leaves the result out. parallel decodes the directories at
// once (results still reach the evaluation one at a time; no figure
// depends on their order). With spec.CheckDistinct, when the results did
// not come case by case, each case once, the files are read a second time
// for the metrics alone (each sees them again with again set: it must not
// write them twice), by an accumulator keeping every case ID.
func (rs *RunSet) Evaluate(spec Spec, parallel bool, each func(i int, r *replay.Result, again bool) (keep bool, err error)) (*Evaluation, error) {
	ev := New(spec)
	add := ev.AddFrom
	again := false
	var mu sync.Mutex
	read := func(i int) error {
		d := rs.Dirs[i]
		_, err := rundir.ReadRun(d, func(r *replay.Result) error {
			if parallel {
				mu.Lock()
				defer mu.Unlock()
			}
			if each != nil {
				keep, err := each(i, r, again)
				if err != nil || !keep {
					return err
				}
			}
			add(i, r)
			return nil
		})
		if err != nil {
			return DirError(d, err)
		}
		return nil
	}
	readAll := func() error {
		if !parallel {
			for i := range rs.Dirs {
				if err := read(i); err != nil {
					return err
				}
			}
			return nil
		}
		errs := make([]error, len(rs.Dirs))
		var wg sync.WaitGroup
		for i := range rs.Dirs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = read(i)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
		return nil
	}
	if err := readAll(); err != nil {
		return nil, err
	}
	if rs.Describe != nil {
		for _, in := range rs.Infos {
			rs.Describe(ev.Listed, in)
		}
	}
	if ok, _ := ev.acc.Distinct(); ok {
		return ev, nil
	}
	// A case came back (or the check could not write its file): count
	// again, keeping every case ID.
	_ = ev.acc.Discard()
	spec.CheckDistinct, spec.PairedStreams = false, false
	ev.acc = New(spec).acc
	add = func(_ int, r *replay.Result) { ev.acc.Add(r) }
	again = true
	if err := readAll(); err != nil {
		return nil, err
	}
	return ev, nil
}

// Report is the evaluation of report and gate: every decision file of the
// runs through one evaluation with spec (results numbered as they come
// when the runs are distinct, RunSet.Distinct), the first run's run.json
// with spec's baseline, and the exit code set (Report.RunExit).
func (rs *RunSet) Report(spec Spec) (*reports.Report, error) {
	spec.CheckDistinct = rs.Distinct()
	ev, err := rs.Evaluate(spec, false, nil)
	if err != nil {
		return nil, err
	}
	info := rs.Infos[0]
	info.Baseline = spec.Baseline
	rep, err := ev.Finish(info)
	if err != nil {
		return nil, err
	}
	rep.Exit = rep.RunExit()
	return rep, nil
}

// WriteReports writes every report file of a run into dir
// (reports.WriteRunReports) with the report's exit code, which they
// show, set first. run is the run's writer when the reports complete a
// run (run, merge): a failure to write them brings the earlier run in
// dir back as it was (RunWriter.ReportsFailed); nil for report.
func WriteReports(dir string, rep *reports.Report, run *rundir.RunWriter) error {
	rep.Exit = rep.RunExit()
	if err := reports.WriteRunReports(dir, rep); err != nil {
		if run != nil {
			return run.ReportsFailed(err)
		}
		return err
	}
	if run != nil {
		run.ReportsWritten()
	}
	return nil
}
