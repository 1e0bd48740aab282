package diff

import (
	"errors"
	"fmt"
	"strings"

	"github.com/apeval/apeval/reports/rundir"
)

// ErrNothingInCommon is the error of two runs that share no case: there is
// nothing to diff or compare (exit 2).
var ErrNothingInCommon = errors.New("no case in common")

// Overlap is how the cases of two runs meet, matched by case ID: the
// cases both hold, and those only one holds. `apeval diff` and `apeval
// compare` both refuse two runs with nothing in common and lead their
// output with Banner when the overlap is partial.
type Overlap struct {
	Common   int64 `json:"common"`
	OnlyBase int64 `json:"only_base"`
	OnlyHead int64 `json:"only_head"`
	// BaseDatasets and HeadDatasets name each run's datasets (run.json).
	BaseDatasets []string `json:"base_datasets"`
	HeadDatasets []string `json:"head_datasets"`
}

// NewOverlap fills the dataset names of an Overlap from the two runs'
// run.json; the counts are the caller's.
func NewOverlap(base, head rundir.RunInfo) Overlap {
	return Overlap{BaseDatasets: datasetNames(base), HeadDatasets: datasetNames(head)}
}

func datasetNames(in rundir.RunInfo) []string {
	var names []string
	for _, d := range in.Datasets {
		names = append(names, d.Name)
	}
	if len(names) == 0 {
		names = []string{"(no dataset recorded)"}
	}
	return names
}

// Err is nil when the runs share at least one case, else an error wrapping
// ErrNothingInCommon that names both runs' datasets.
func (o Overlap) Err() error {
	if o.Common > 0 {
		return nil
	}
	return fmt.Errorf("%w: the base run (%s, dataset %s) and the head run (%s, dataset %s) share no case ID",
		ErrNothingInCommon, cases(o.OnlyBase), strings.Join(o.BaseDatasets, ", "), cases(o.OnlyHead), strings.Join(o.HeadDatasets, ", "))
}

func cases(n int64) string {
	if n == 1 {
		return "1 case"
	}
	return fmt.Sprintf("%d cases", n)
}

// Partial reports whether some cases are in one run only.
func (o Overlap) Partial() bool { return o.OnlyBase > 0 || o.OnlyHead > 0 }

// Banner is the line that leads the output when the overlap is partial
// ("" when both runs hold the same cases): what was compared and what was
// left out, so the figures are never read as covering both runs whole.
func (o Overlap) Banner() string {
	if !o.Partial() {
		return ""
	}
	return fmt.Sprintf("partial overlap: %d cases in common are compared; %d only in the base run (%s) and %d only in the head run (%s) are left out",
		o.Common, o.OnlyBase, strings.Join(o.BaseDatasets, ", "), o.OnlyHead, strings.Join(o.HeadDatasets, ", "))
}
