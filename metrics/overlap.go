package metrics

import (
	"errors"
	"fmt"
)

// CaseOverlap counts the cases two judges (of one run or of two runs)
// replayed: Shared by both, and those only one of them replayed. Each case
// counts once however often it repeats.
type CaseOverlap struct {
	Shared        int `json:"shared"`
	BaselineOnly  int `json:"baseline_only"`
	CandidateOnly int `json:"candidate_only"`
}

// ErrNoSharedCase is CheckOverlap's error when the two sides replayed no
// case in common: every paired figure between them would be empty.
var ErrNoSharedCase = errors.New("no case in common")

// CheckOverlap is the check every command that sets two runs side by side
// (apeval compare, apeval diff) applies before it prints a figure. base and
// cand describe the two sides for the message (the run directory and its
// datasets). Nothing in common is an error naming both (the caller exits
// 2); a partial overlap gives the banner to print as the first line of the
// output, with the counts; a full overlap gives "".
func CheckOverlap(ov CaseOverlap, base, cand string) (banner string, err error) {
	if ov.Shared == 0 {
		return "", fmt.Errorf("%w: %s and %s share no case (%d and %d cases): they replayed different datasets, so there is nothing to compare; compare runs of one dataset",
			ErrNoSharedCase, base, cand, ov.BaselineOnly, ov.CandidateOnly)
	}
	if ov.BaselineOnly == 0 && ov.CandidateOnly == 0 {
		return "", nil
	}
	return ov.Banner(), nil
}

// Banner is the one line that says a comparison covers only the shared
// cases: "" when both sides replayed the same cases.
func (ov CaseOverlap) Banner() string {
	if ov.BaselineOnly == 0 && ov.CandidateOnly == 0 {
		return ""
	}
	return fmt.Sprintf("⚠ partial overlap: %d case(s) in both runs, %d only in the baseline, %d only in the candidate; the paired figures use the %d shared case(s)",
		ov.Shared, ov.BaselineOnly, ov.CandidateOnly, ov.Shared)
}
