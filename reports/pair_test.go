package reports

import (
	"strings"
	"testing"
)

func TestPairJudges(t *testing.T) {
	t.Parallel()
	run := func(ids ...string) RunInfo {
		var r RunInfo
		for _, id := range ids {
			r.Judges = append(r.Judges, JudgeInfo{Identity: id})
		}
		return r
	}
	a, b := "ollama/qwen2.5:3b@d1/p1", "ollama/qwen2.5:7b@d2/p1"
	for _, tc := range []struct {
		name                string
		dirs                []string
		infos               []RunInfo
		baseline, candidate string
		want                JudgePair
		err                 string
	}{
		{"one run, its other judge", []string{"out/r"}, []RunInfo{run(a, b)}, "ollama:qwen2.5:3b", "",
			JudgePair{Baseline: a, Candidate: b, Rename: map[string]string{}}, ""},
		{"one run, baseline not named", []string{"out/r"}, []RunInfo{run(a, b)}, "", "",
			JudgePair{}, "the baseline run holds 2 judges; name one with --baseline"},
		{"two runs, one judge each", []string{"out/a", "out/b"}, []RunInfo{run(a), run(b)}, "", "",
			JudgePair{Baseline: a, Candidate: b, Rename: map[string]string{}}, ""},
		{"a rerun of the same judge", []string{"out/a", "out/rerun/"}, []RunInfo{run(a), run(a)}, "", "",
			JudgePair{Baseline: a, Candidate: a + " [rerun]", Rename: map[string]string{a: a + " [rerun]"}}, ""},
		{"ambiguous prefix", []string{"out/r"}, []RunInfo{run(a, b)}, "ollama/qwen2.5", "",
			JudgePair{}, `--baseline "ollama/qwen2.5" is ambiguous`},
		{"no such judge", []string{"out/r"}, []RunInfo{run(a, b)}, "openai:gpt", "",
			JudgePair{}, `--baseline "openai:gpt" matches no judge; the judges are: ` + a + ", " + b},
		// A --candidate that matches nothing (or several) is named as such.
		{"no such candidate", []string{"out/a", "out/b"}, []RunInfo{run(a), run(b)}, "", "openai:gpt",
			JudgePair{}, `--candidate "openai:gpt" matches no judge; the judges are: ` + b},
		{"ambiguous candidate", []string{"out/a", "out/b"}, []RunInfo{run(a), run(a, b)}, "", "ollama/qwen2.5",
			JudgePair{}, `--candidate "ollama/qwen2.5" is ambiguous`},
		{"the baseline given as the command typed", []string{"out/r"}, []RunInfo{run("exec/./plugin --token [MASKED]", b)},
			"exec:./plugin --token sk-proj-EXAMPLEa1b2c3d4e5f6g7h8i9j0", "",
			JudgePair{Baseline: "exec/./plugin --token [MASKED]", Candidate: b, Rename: map[string]string{}}, ""},
	} {
		got, err := PairJudges(tc.dirs, tc.infos, tc.baseline, tc.candidate)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || got.Baseline != tc.want.Baseline || got.Candidate != tc.want.Candidate || len(got.Rename) != len(tc.want.Rename) {
			t.Errorf("%s: %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
		for k, v := range tc.want.Rename {
			if got.Rename[k] != v {
				t.Errorf("%s: rename %q → %q, want %q", tc.name, k, got.Rename[k], v)
			}
		}
	}
}
