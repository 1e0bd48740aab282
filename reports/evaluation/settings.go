package evaluation

import "fmt"

// Settings are what a reading command (report, gate, compare) takes from
// the command line, or from the project file (apeval.toml) where the
// command line left them unset: where the kill criteria come from
// (--criteria FILE or --policy FILE), the baseline and the exit code of
// INCONCLUSIVE.
type Settings struct {
	Criteria, Policy, Baseline, Inconclusive string
}

// Under fills the settings the command line left unset (given reports
// whether a flag was set on it) from the project file's: its criteria file
// only when neither --criteria nor --policy says where the criteria come
// from, its baseline and its inconclusive mapping. A flag always wins;
// the project file names no policy for a reading command.
func (s *Settings) Under(given func(flag string) bool, file Settings) {
	if !given("criteria") && !given("policy") && s.Criteria == "" && s.Policy == "" && file.Criteria != "" {
		s.Criteria = file.Criteria
	}
	if !given("baseline") && file.Baseline != "" {
		s.Baseline = file.Baseline
	}
	if !given("inconclusive") && file.Inconclusive != "" {
		s.Inconclusive = file.Inconclusive
	}
}

// CheckInconclusive checks --inconclusive: pass (INCONCLUSIVE exits 0),
// fail (1) or "" (3, the default).
func CheckInconclusive(v string) error {
	switch v {
	case "", "pass", "fail":
		return nil
	}
	return fmt.Errorf("--inconclusive must be pass or fail, got %q", v)
}
