package runplan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/config"
)

// NeedsRecordedNames reports whether the judge list must be completed from
// the dataset's recordings: no --judge at all, or a bare "recorded".
func NeedsRecordedNames(entries []config.JudgeEntry) bool {
	if len(entries) == 0 {
		return true
	}
	for _, e := range entries {
		if e.Spec == "recorded" || strings.HasPrefix(e.Spec, "recorded:") {
			return true
		}
	}
	return false
}

// ExpandRecorded turns no judges into the dataset's recorded judges (or
// none), and a bare "recorded" into one recorded:NAME per name, each with
// the bare entry's options. A recorded:NAME the dataset does not hold is
// an error naming the judges it holds.
func ExpandRecorded(entries []config.JudgeEntry, st *datasets.Stats) ([]config.JudgeEntry, error) {
	names := st.RecordedJudgeNames()
	if len(entries) == 0 {
		if len(names) == 0 {
			return []config.JudgeEntry{{Spec: "none"}}, nil
		}
		entries = []config.JudgeEntry{{Spec: "recorded"}}
	}
	var out []config.JudgeEntry
	for _, e := range entries {
		if name, ok := strings.CutPrefix(e.Spec, "recorded:"); ok && !slices.Contains(names, name) {
			have := "none"
			if len(names) > 0 {
				have = strings.Join(names, ", ")
			}
			return nil, fmt.Errorf("--judge %s matches no recording in the dataset; the recorded judges are: %s", e.Spec, have)
		}
		if e.Spec != "recorded" {
			out = append(out, e)
			continue
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("--judge recorded: the dataset holds no recorded decisions")
		}
		for _, n := range names {
			x := e
			x.Spec = "recorded:" + n
			out = append(out, x)
		}
	}
	return out, nil
}
