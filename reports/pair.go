package reports

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/rundir"
)

// JudgePair is the two judges a comparison reads (compare, datasets
// disagreements): the baseline from the first run, the candidate from the
// second run or, given one run, from its other judges.
type JudgePair struct {
	Baseline, Candidate string
	// Rename maps the identities of the second run's judges that collide
	// with the first's to the name they get: the identity plus the second
	// run directory's name ("ollama/qwen2.5:3b@… [rerun]"), so that a rerun
	// of the same judge can be compared with itself.
	Rename map[string]string
}

// PairJudges resolves a comparison's judges from one or two runs' run.json
// (infos, with dirs the run directories). baseline and candidate are the
// --baseline and --candidate values, "" when not given: a run holding one
// judge needs no name, one holding several needs one. An error is the
// user's (a name matching no judge, or several).
func PairJudges(dirs []string, infos []rundir.RunInfo, baseline, candidate string) (JudgePair, error) {
	p := JudgePair{Rename: map[string]string{}}
	var idsA, idsB []string
	for _, j := range infos[0].Judges {
		idsA = append(idsA, j.Identity)
	}
	if len(dirs) == 2 {
		inA := map[string]bool{}
		for _, id := range idsA {
			inA[id] = true
		}
		for _, j := range infos[1].Judges {
			id := j.Identity
			if inA[id] {
				id = fmt.Sprintf("%s [%s]", id, filepath.Base(filepath.Clean(dirs[1])))
				p.Rename[j.Identity] = id
			}
			idsB = append(idsB, id)
		}
	}
	pick := func(flag, what string, ids []string) (string, error) {
		if flag != "" {
			return MatchJudge("--"+what, flag, ids)
		}
		if len(ids) != 1 {
			return "", fmt.Errorf("the %s run holds %d judges; name one with --%s", what, len(ids), what)
		}
		return ids[0], nil
	}
	var err error
	if p.Baseline, err = pick(baseline, "baseline", idsA); err != nil {
		return JudgePair{}, err
	}
	if len(dirs) == 1 {
		for _, id := range idsA {
			if id != p.Baseline {
				idsB = append(idsB, id)
			}
		}
	}
	if p.Candidate, err = pick(candidate, "candidate", idsB); err != nil {
		return JudgePair{}, err
	}
	return p, nil
}

// Read gives a result of run i (0 the first run, 1 the second) the
// identity the comparison knows its judge by (Rename), and reports whether
// the comparison reads it: the baseline's and the candidate's results.
func (p JudgePair) Read(i int, r *replay.Result) bool {
	if i == 1 {
		if id, ok := p.Rename[r.Judge]; ok {
			r.Judge = id
		}
	}
	return r.Judge == p.Baseline || r.Judge == p.Candidate
}

// Run is the run a comparison of infos (one or two runs) reports on: the
// first run, holding the judges of both with the second's renamed.
func (p JudgePair) Run(infos []rundir.RunInfo) rundir.RunInfo {
	run := infos[0]
	if len(infos) == 2 {
		run.Judges = append(append([]rundir.JudgeInfo(nil), infos[0].Judges...), infos[1].Judges...)
		for i := len(infos[0].Judges); i < len(run.Judges); i++ {
			if id, ok := p.Rename[run.Judges[i].Identity]; ok {
				run.Judges[i].Identity = id
			}
		}
	}
	return run
}

// RunDifferences warns when two compared runs did not replay the same
// thing: apeval versions, datasets, policies or prompt versions.
func RunDifferences(a, b rundir.RunInfo) []string {
	var w []string
	if a.Version != b.Version {
		w = append(w, fmt.Sprintf("the runs were written by different apeval versions (%s vs %s): masking, defaults and figures may differ between versions; rerun both with one version to compare judges alone",
			a.Version, b.Version))
	}
	if fileRefsKey(a.Datasets) != fileRefsKey(b.Datasets) {
		w = append(w, "the runs replayed different datasets: compare only the cases both judged (the paired tests do)")
	}
	if (a.Policy == nil) != (b.Policy == nil) || (a.Policy != nil && a.Policy.SHA256 != b.Policy.SHA256) {
		w = append(w, "the runs used different policies: rule versions, scopes or preconditions may differ")
	}
	pa, pb := promptVersions(a), promptVersions(b)
	if pa != pb {
		w = append(w, fmt.Sprintf("the runs used different prompt versions (%s vs %s)", pa, pb))
	}
	return w
}

func fileRefsKey(fs []rundir.FileRef) string {
	s := ""
	for _, f := range fs {
		k := f.SHA256
		if k == "" {
			k = f.Name
		}
		s += k + ";"
	}
	return s
}

func promptVersions(in rundir.RunInfo) string {
	s := ""
	for _, j := range in.Judges {
		if j.PromptVersion != "" {
			if s != "" {
				s += ","
			}
			s += j.PromptVersion
		}
	}
	if s == "" {
		return "none"
	}
	return s
}

// MatchJudge finds the judge the value want of flag (--baseline,
// --candidate, --judge) names among ids: the identity itself, with ':' for the first '/'
// ("ollama:qwen2.5:3b"), or the one identity it is a prefix of.
//
// Identities show a secret typed into an exec command masked, so a value
// given as typed (exec:./plugin --token sk-…) is matched masked too.
func MatchJudge(flag, want string, ids []string) (string, error) {
	forms := []string{want, strings.Replace(want, ":", "/", 1)}
	if m := mask.String(want); m != want {
		forms = append(forms, m, strings.Replace(m, ":", "/", 1))
	}
	var hits []string
	for _, id := range ids {
		if slices.Contains(forms, id) {
			return id, nil
		}
		for _, f := range forms {
			if strings.HasPrefix(id, f) {
				hits = append(hits, id)
				break
			}
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return "", fmt.Errorf("%s %q matches no judge; the judges are: %s", flag, mask.String(want), strings.Join(ids, ", "))
	}
	return "", fmt.Errorf("%s %q is ambiguous: %s", flag, mask.String(want), strings.Join(hits, ", "))
}
