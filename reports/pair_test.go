package reports

import (
	"strings"
	"testing"

	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/rundir"
)

func TestPairJudges(t *testing.T) {
	t.Parallel()
	run := func(ids ...string) rundir.RunInfo {
		var r rundir.RunInfo
		for _, id := range ids {
			r.Judges = append(r.Judges, rundir.JudgeInfo{Identity: id})
		}
		return r
	}
	a, b := "ollama/qwen2.5:3b@d1/p1", "ollama/qwen2.5:7b@d2/p1"
	for _, tc := range []struct {
		name                string
		dirs                []string
		infos               []rundir.RunInfo
		baseline, candidate string
		want                JudgePair
		err                 string
	}{
		{"one run, its other judge", []string{"out/r"}, []rundir.RunInfo{run(a, b)}, "ollama:qwen2.5:3b", "",
			JudgePair{Baseline: a, Candidate: b, Rename: map[string]string{}}, ""},
		{"one run, baseline not named", []string{"out/r"}, []rundir.RunInfo{run(a, b)}, "", "",
			JudgePair{}, "the baseline run holds 2 judges; name one with --baseline"},
		{"two runs, one judge each", []string{"out/a", "out/b"}, []rundir.RunInfo{run(a), run(b)}, "", "",
			JudgePair{Baseline: a, Candidate: b, Rename: map[string]string{}}, ""},
		{"a rerun of the same judge", []string{"out/a", "out/rerun/"}, []rundir.RunInfo{run(a), run(a)}, "", "",
			JudgePair{Baseline: a, Candidate: a + " [rerun]", Rename: map[string]string{a: a + " [rerun]"}}, ""},
		{"ambiguous prefix", []string{"out/r"}, []rundir.RunInfo{run(a, b)}, "ollama/qwen2.5", "",
			JudgePair{}, `--baseline "ollama/qwen2.5" is ambiguous`},
		{"no such judge", []string{"out/r"}, []rundir.RunInfo{run(a, b)}, "openai:gpt", "",
			JudgePair{}, `--baseline "openai:gpt" matches no judge; the judges are: ` + a + ", " + b},
		// A --candidate that matches nothing (or several) is named as such.
		{"no such candidate", []string{"out/a", "out/b"}, []rundir.RunInfo{run(a), run(b)}, "", "openai:gpt",
			JudgePair{}, `--candidate "openai:gpt" matches no judge; the judges are: ` + b},
		{"ambiguous candidate", []string{"out/a", "out/b"}, []rundir.RunInfo{run(a), run(a, b)}, "", "ollama/qwen2.5",
			JudgePair{}, `--candidate "ollama/qwen2.5" is ambiguous`},
		{"the baseline given as the command typed", []string{"out/r"}, []rundir.RunInfo{run("exec/./plugin --token [MASKED]", b)},
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

func TestJudgePairRenamesTheRerunAndReadsOnlyItsJudges(t *testing.T) {
	t.Parallel()
	a, c := "ollama/qwen2.5:3b@d1/p1", "openai/gpt-4o-mini@d3/p1"
	infos := []rundir.RunInfo{{Judges: []rundir.JudgeInfo{{Identity: a}}}, {Judges: []rundir.JudgeInfo{{Identity: a}, {Identity: c}}}}
	p, err := PairJudges([]string{"out/a", "out/rerun"}, infos, "", "ollama:qwen2.5:3b")
	if err != nil {
		t.Fatal(err)
	}
	first, rerun, other := &replay.Result{Judge: a}, &replay.Result{Judge: a}, &replay.Result{Judge: c}
	if !p.Read(0, first) || first.Judge != a {
		t.Errorf("the first run's result: read as %q, want %q and kept", first.Judge, a)
	}
	if !p.Read(1, rerun) || rerun.Judge != a+" [rerun]" {
		t.Errorf("the rerun's result: read as %q, want %q and kept", rerun.Judge, a+" [rerun]")
	}
	if p.Read(1, other) || other.Judge != c {
		t.Errorf("a judge the comparison does not name: kept, or renamed to %q", other.Judge)
	}
	run := p.Run(infos)
	var ids []string
	for _, j := range run.Judges {
		ids = append(ids, j.Identity)
	}
	if got, want := strings.Join(ids, ","), a+","+a+" [rerun],"+c; got != want {
		t.Errorf("Run's judges %s, want %s", got, want)
	}
	if infos[1].Judges[0].Identity != a {
		t.Errorf("Run renamed the second run.json's judge in place: %q", infos[1].Judges[0].Identity)
	}
}

func TestRunDifferencesNamesWhatDiffers(t *testing.T) {
	t.Parallel()
	base := rundir.RunInfo{Version: "1.0", Datasets: []rundir.FileRef{{Name: "a.jsonl", SHA256: "aa"}}, Policy: &rundir.FileRef{SHA256: "p1"},
		Judges: []rundir.JudgeInfo{{PromptVersion: "v1"}}}
	if w := RunDifferences(base, base); len(w) != 0 {
		t.Errorf("same runs: %q", w)
	}
	head := base
	head.Version, head.Datasets, head.Policy = "1.1", []rundir.FileRef{{Name: "b.jsonl", SHA256: "aa"}}, &rundir.FileRef{SHA256: "p2"}
	head.Judges = []rundir.JudgeInfo{{PromptVersion: "v2"}}
	w := RunDifferences(base, head)
	if len(w) != 3 || !strings.Contains(w[0], "(1.0 vs 1.1)") || !strings.Contains(w[1], "different policies") || !strings.Contains(w[2], "(v1 vs v2)") {
		t.Errorf("warnings %q: want version, policy and prompt (the datasets have the same hash)", w)
	}
	head = base
	head.Datasets = []rundir.FileRef{{Name: "stdin"}}
	if w := RunDifferences(base, head); len(w) != 1 || !strings.Contains(w[0], "different datasets") {
		t.Errorf("another dataset: %q", w)
	}
}
