package metrics

// CaseOverlap counts the cases two judges (of one run or of two runs)
// replayed: Shared by both, and those only one of them replayed. Each case
// counts once however often it repeats. reports/diff.Overlap says what a
// command does about them.
type CaseOverlap struct {
	Shared        int `json:"shared"`
	BaselineOnly  int `json:"baseline_only"`
	CandidateOnly int `json:"candidate_only"`
}
