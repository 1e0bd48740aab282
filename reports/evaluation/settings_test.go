package evaluation

import "testing"

// apeval.toml gives what the command line left unset; --policy as much as
// --criteria keeps the file's criteria out.
func TestSettingsUnderTheFile(t *testing.T) {
	t.Parallel()
	file := Settings{Criteria: "file-criteria.toml", Baseline: "ollama/a", Inconclusive: "fail"}
	given := func(names ...string) func(string) bool {
		return func(n string) bool {
			for _, x := range names {
				if x == n {
					return true
				}
			}
			return false
		}
	}
	for _, tc := range []struct {
		name  string
		flags Settings
		given []string
		want  Settings
	}{
		{"none given", Settings{}, nil, Settings{Criteria: "file-criteria.toml", Baseline: "ollama/a", Inconclusive: "fail"}},
		{"--criteria", Settings{Criteria: "mine.toml"}, []string{"criteria"}, Settings{Criteria: "mine.toml", Baseline: "ollama/a", Inconclusive: "fail"}},
		{"--policy", Settings{Policy: "p.toml"}, []string{"policy"}, Settings{Policy: "p.toml", Baseline: "ollama/a", Inconclusive: "fail"}},
		{"--baseline and --inconclusive", Settings{Baseline: "ollama/b", Inconclusive: "pass"}, []string{"baseline", "inconclusive"},
			Settings{Criteria: "file-criteria.toml", Baseline: "ollama/b", Inconclusive: "pass"}},
		// An empty value given on the command line still wins.
		{"--baseline ''", Settings{}, []string{"baseline"}, Settings{Criteria: "file-criteria.toml", Inconclusive: "fail"}},
	} {
		s := tc.flags
		s.Under(given(tc.given...), file)
		if s != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, s, tc.want)
		}
	}
	s := Settings{Baseline: "x"}
	s.Under(given(), Settings{})
	if s != (Settings{Baseline: "x"}) {
		t.Errorf("no file: %+v", s)
	}
}

func TestCheckInconclusive(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"", "pass", "fail"} {
		if err := CheckInconclusive(v); err != nil {
			t.Errorf("%q: %v", v, err)
		}
	}
	if err := CheckInconclusive("PASS"); err == nil || err.Error() != `--inconclusive must be pass or fail, got "PASS"` {
		t.Errorf("PASS: %v", err)
	}
}
