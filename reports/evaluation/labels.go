package evaluation

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/reports"
)

// QueueSpec is what apeval label queue draws: the run directory, the
// judges whose results stratify (nil: every judge of the run) and the
// rules (nil: every rule), and the budget, seed and overlap (Letters are
// filled in).
type QueueSpec struct {
	Dir           string
	Judges, Rules []string
	// Weak reads the weak labels that stratify too (label queue
	// --weak-labels); nil: none.
	Weak func() ([]datasets.WeakLabel, error)
	// Labels are labels files (label queue --labels, with Config.Reach)
	// whose pairs count toward each stratum's reach and are never queued.
	Labels []string
	// Matches names a judge (identity or unique prefix; label queue
	// --matches): every unlabeled pair it called match is queued, none
	// other (Config.Matches, its letter).
	Matches string
	Config  metrics.QueueConfig
}

// Drawn is a labeling queue with what its summary says: the letters of
// its strata and whom each names, the pairs the dataset already labels
// per rule (census, never queued) and the unlabeled pairs in scope.
type Drawn struct {
	Queue          *metrics.Queue
	Letters, Names []string
	Census         map[string]int
	Unlabeled      int
	// FromFiles counts the pairs the labels files label and the dataset
	// does not (counted toward the reach, not queued); Missing the labels
	// naming no pair in scope.
	FromFiles, Missing int
	// Dataset and Cases are the run's dataset digest and case count
	// (rundir.RunInfo.DatasetDigest): the queue's provenance.
	Dataset string
	Cases   int64
}

// Lines are the queue's apeval.labels/v1 lines, each with the queue's
// provenance (SampleLabel.Dataset, DatasetCases, Judges) so that a run
// on another dataset can tell (WarnLabelsDataset).
func (d *Drawn) Lines() []datasets.SampleLabel {
	lines := d.Queue.Lines()
	judges := make([]string, len(d.Letters))
	for i, l := range d.Letters {
		judges[i] = l + "=" + d.Names[i]
	}
	for i := range lines {
		lines[i].Dataset, lines[i].DatasetCases, lines[i].Judges = d.Dataset, d.Cases, judges
	}
	return lines
}

// WarnLabelsDataset says, for each labels file whose queue was drawn from
// another dataset than a run's (SampleLabel.Dataset against
// rundir.RunInfo.DatasetDigest), which two: the same case IDs may name
// other cases there, and the strata sizes N_h may no longer be the run's
// (a dataset grown since). It never refuses: labels drawn from another
// run of the same dataset (another judge's queue) are a valid design and
// say nothing, and files without provenance (written before label queue
// recorded it) or runs without a digest cannot be compared.
func WarnLabelsDataset(files []string, rs *RunSet) ([]string, error) {
	if len(files) == 0 {
		return nil, nil
	}
	lines, err := datasets.ReadSampleLabels(files, false)
	if err != nil {
		return nil, err
	}
	var out []string
	seen := map[[2]string]bool{}
	for i, info := range rs.Infos {
		run := info.DatasetDigest()
		if run == "" {
			continue
		}
		for _, l := range lines {
			file, _, _ := strings.Cut(l.Source, ":")
			if l.Dataset == "" || l.Dataset == run || seen[[2]string{file, rs.Dirs[i]}] {
				continue
			}
			seen[[2]string{file, rs.Dirs[i]}] = true
			out = append(out, fmt.Sprintf("%s: its queue was drawn from dataset %s (%d cases); %s's dataset is %s (%d cases): "+
				"its case IDs may name other cases here, and its strata sizes may no longer be this run's: "+
				"draw a new queue from this run (apeval label queue %s) if the dataset changed",
				l.Source, shortDigest(l.Dataset), l.DatasetCases, rs.Dirs[i], shortDigest(run), info.Cases, rs.Dirs[i]))
		}
	}
	return out, nil
}

// shortDigest is a digest cut to 12 hex digits, for messages.
func shortDigest(d string) string {
	if h, ok := strings.CutPrefix(d, "sha256:"); ok && len(h) > 12 {
		return "sha256:" + h[:12] + "…"
	}
	return d
}

// DrawQueue reads the run's pair table and draws a stratified labeling
// queue of its unlabeled pairs (metrics.BuildQueue; with Config.Reach,
// of the strata where the judges disagree, counting the dataset's labels
// of each). With weak labels,
// the weak label is one more result per pair: W:match, W:no_match or
// W:undecided (none). A run without an unlabeled pair in scope is an
// error.
func DrawQueue(s QueueSpec) (*Drawn, error) {
	t, info, err := ReadPairs(s.Dir, s.Judges, s.Rules)
	if err != nil {
		return nil, err
	}
	pairs, census := t.QueuePairs()
	if len(pairs) == 0 {
		return nil, fmt.Errorf("%s: no unlabeled pair in scope to queue", s.Dir)
	}
	d := &Drawn{Letters: metrics.QueueLetters(len(t.Judges)), Names: t.Judges, Census: census, Unlabeled: len(pairs),
		Dataset: info.DatasetDigest(), Cases: info.Cases}
	if s.Weak != nil {
		weak, err := s.Weak()
		if err != nil {
			return nil, err
		}
		metrics.AddWeakResults(pairs, datasets.WeakLabelMap(weak))
		d.Letters = append(d.Letters, metrics.WeakLetter)
		d.Names = append(slices.Clone(d.Names), "weak labels (label_source weak; "+strconv.Itoa(len(weak))+" in the datasets)")
	}
	cfg := s.Config
	cfg.Letters = d.Letters
	if s.Matches != "" {
		if s.Weak != nil {
			return nil, fmt.Errorf("--matches queues the strata of the judges' results; with --weak-labels the strata hold the weak label too: use --budget")
		}
		id, err := reports.MatchJudge("--matches", s.Matches, t.Judges)
		if err != nil {
			return nil, err
		}
		cfg.Matches = d.Letters[slices.Index(t.Judges, id)]
	}
	if cfg.Reach > 0 || cfg.Matches != "" {
		if s.Weak != nil {
			return nil, fmt.Errorf("--reach counts the dataset's labels of each stratum of the judges' results; with --weak-labels the strata hold the weak label too: use --budget")
		}
		// The pairs the dataset labels count toward each stratum's reach
		// (a pilot's labels, imported), as plan --labels counts them, and
		// so do those of the labels files (which are never queued again).
		cfg.Labeled = t.LabeledStrata(d.Letters)
		if len(s.Labels) > 0 {
			labels, err := FileLabels(s.Labels)
			if err != nil {
				return nil, err
			}
			cfg.Exclude, d.Missing = t.FileLabels(d.Letters, labels, cfg.Labeled)
			d.FromFiles = len(cfg.Exclude)
			if len(labels) > 0 && d.Missing == len(labels) {
				return nil, fmt.Errorf("--labels: none of the %d labels names a (case, rule) pair of %s in scope: they are another run's", len(labels), s.Dir)
			}
		}
	} else if len(s.Labels) > 0 {
		return nil, fmt.Errorf("--labels counts labels toward --reach or --matches; a --budget queue reads none")
	}
	if d.Queue, err = metrics.BuildQueue(pairs, cfg); err != nil {
		return nil, err
	}
	return d, nil
}

// FileLabels reads people's labels files as the figures read them
// (metrics.ResolveSampleLabels: each person's last line for a pair, skips
// left out, the first person's label by time); weak labels are refused.
func FileLabels(files []string) ([]metrics.SampleLabel, error) {
	lines, err := datasets.ReadSampleLabels(files, false)
	if err != nil {
		return nil, err
	}
	for _, l := range lines {
		if l.LabelSource == datasets.LabelSourceWeak {
			return nil, fmt.Errorf("%s: label_source: weak labels are a signal, not people's labels; give the people's labels files", l.Source)
		}
	}
	return metrics.ResolveSampleLabels(lines)
}

// CorrectSpec is what apeval label correct corrects: the run directory,
// its judges and rules (nil: all), the people's labels files, where the
// weak labels come from and the confidence of the intervals.
type CorrectSpec struct {
	Dir           string
	Judges, Rules []string
	Labels        []string
	// Weak reads the weak labels the slice was drawn on (label correct
	// --weak-labels); nil when none were given: then the run must be
	// on weak labels (run --weak-labels), which are its weak labels.
	Weak       func() ([]datasets.WeakLabel, error)
	Confidence float64
}

// Correction is label correct's report with the count of the people's
// labels and of those naming pairs the run lacks.
type Correction struct {
	Report          *metrics.WeakReport
	Labels, Missing int
}

// CorrectWeak corrects each judge's figures on weak labels from a slice
// people labeled (metrics.PairTable.CorrectWeak). Every error is the
// user's input: weak labels given for a run on weak labels, or none for
// a run on people's labels; labels that are all another run's; a slice
// drawn without the weak label in its strata or on other weak labels.
func CorrectWeak(s CorrectSpec) (*Correction, error) {
	t, info, err := ReadPairs(s.Dir, s.Judges, s.Rules)
	if err != nil {
		return nil, err
	}
	var weak map[[2]string]datasets.Label
	switch onWeak := info.LabelSource == datasets.LabelSourceWeak; {
	case onWeak && s.Weak != nil:
		return nil, fmt.Errorf("%s: the run is on weak labels (run --weak-labels): they are its weak labels; drop --weak-labels", s.Dir)
	case onWeak:
		weak = t.TakeWeakLabels()
	case s.Weak == nil:
		return nil, fmt.Errorf("label correct needs the weak labels the slice was drawn on: --weak-labels DATASET (or a run made with run --weak-labels)")
	default:
		ws, err := s.Weak()
		if err != nil {
			return nil, err
		}
		weak = datasets.WeakLabelMap(ws)
	}
	lines, err := datasets.ReadSampleLabels(s.Labels, false)
	if err != nil {
		return nil, err
	}
	labels, missing, err := t.SliceLabels(lines)
	if err != nil {
		return nil, err
	}
	if len(labels) > 0 && missing == len(labels) {
		return nil, fmt.Errorf("--labels: none of the %d labels names a (case, rule) pair of %s: they are another run's (draw the slice from this run: apeval label queue %s --weak-labels DATASET)", len(labels), s.Dir, s.Dir)
	}
	rep, err := t.CorrectWeak(weak, labels, s.Confidence)
	if err != nil {
		return nil, err
	}
	return &Correction{Report: rep, Labels: len(labels), Missing: missing}, nil
}

// LabeledSample reads the labels files of --labels into the labeled
// sample the figures are weighted by (metrics.LabeledSample); nil
// without files, so nothing changes then. labelSource is the run's: a
// sample on weak labels is refused (reports.CheckSampleOn).
func LabeledSample(files []string, labelSource string) (*metrics.LabeledSample, error) {
	if len(files) == 0 {
		return nil, nil
	}
	if err := reports.CheckSampleOn(labelSource); err != nil {
		return nil, err
	}
	lines, err := datasets.ReadSampleLabels(files, false)
	if err != nil {
		return nil, err
	}
	return metrics.NewLabeledSample(lines)
}

// Agreement is apeval label agreement: how well the labelers of the
// labels files agree per rule, and with run (a run directory; "" for
// none) how each of its judges agrees with them (metrics.AgreementOf),
// with 95% intervals (the report carries the level).
func Agreement(files []string, run string) (*metrics.LabelsAgreement, error) {
	all, err := datasets.ReadSampleLabels(files, false)
	if err != nil {
		return nil, err
	}
	var t *metrics.PairTable
	if run != "" {
		if t, _, err = ReadPairs(run, nil, nil); err != nil {
			return nil, err
		}
	}
	return metrics.AgreementOf(all, t, 0.95)
}
