package reports

import (
	"fmt"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/reports/rundir"
)

// LabelSource is the label source common to run directories (their
// run.json label_source): runs made on different labels (weak and not) are
// refused, since their figures would mix weak labels with people's.
func LabelSource(dirs []string, infos []rundir.RunInfo) (string, error) {
	for i := 1; i < len(infos); i++ {
		if infos[i].LabelSource != infos[0].LabelSource {
			return "", fmt.Errorf("%s and %s were made on different labels (%s and %s): weak labels are never mixed with people's; read them apart",
				dirs[0], dirs[i], labelSourceName(infos[0].LabelSource), labelSourceName(infos[i].LabelSource))
		}
	}
	return infos[0].LabelSource, nil
}

func labelSourceName(s string) string {
	if s == datasets.LabelSourceWeak {
		return "weak labels (run --weak-labels)"
	}
	return "the datasets' labels"
}

// CheckSampleOn refuses a labeled sample (--labels) on a run made on weak
// labels: the queue's design weights would combine people's labels with
// weak ones.
func CheckSampleOn(source string) error {
	if source == datasets.LabelSourceWeak {
		return fmt.Errorf("--labels on a run made with --weak-labels: weak labels are never mixed with people's; to correct the weak figures with people's labels use apeval label correct RUNDIR --labels FILE, or rerun without --weak-labels to weigh people's labels")
	}
	return nil
}
