package labelpage

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/rundir"
)

// ParsePart parses --part K/N: 1 ≤ K ≤ N.
func ParsePart(s string) (k, n int, err error) {
	if _, err := fmt.Sscanf(s, "%d/%d", &k, &n); err != nil || n < 1 || k < 1 || k > n {
		return 0, 0, fmt.Errorf("--part %q: want K/N with 1 ≤ K ≤ N", s)
	}
	return k, n, nil
}

// Part is the queue lines labeler k of n labels: those whose order is k
// modulo n, plus every overlap line (for agreement).
func Part(queue []datasets.SampleLabel, k, n int) []datasets.SampleLabel {
	var mine []datasets.SampleLabel
	for _, l := range queue {
		if l.Overlap || (l.Order-1)%n == k-1 {
			mine = append(mine, l)
		}
	}
	return mine
}

// RunSources are the dataset files and the policy file a run replayed, as
// its run.json names them: nil datasets for the embedded sample, "" for
// the sample's policy. They are where the page reads the cases and rules
// back from unless the command names others.
// datasetFlag and policyFlag, when given (label serve --dataset and
// --policy), replace them.
func RunSources(info rundir.RunInfo, datasetFlag []string, policyFlag string) (paths []string, policy string) {
	paths, policy = runSources(info)
	if policyFlag != "" {
		policy = policyFlag
	}
	if len(datasetFlag) > 0 {
		paths = datasetFlag
	}
	return paths, policy
}

func runSources(info rundir.RunInfo) (paths []string, policy string) {
	if info.Policy != nil && info.Policy.Name != "sample:policy.toml" {
		policy = info.Policy.Name
	}
	for _, d := range info.Datasets {
		if d.SHA256 == datasets.SampleSHA256() {
			return nil, policy
		}
		paths = append(paths, d.Name)
	}
	return paths, policy
}

// Items are the page's items of queue lines: each line's case, read from
// r (unreadable lines are skipped; a case is found by its masked ID, as
// the decision files name it), and its rule in pol, with the judge input
// the pair had. missing names each line ("case/rule") whose case or rule
// is not there.
func Items(lines []datasets.SampleLabel, r *datasets.Reader, pol *replay.Policy) (items []Item, missing []string, err error) {
	rules := map[string]*replay.Rule{}
	for _, r := range pol.Rules {
		rules[r.ID] = r
	}
	want := map[string]bool{}
	for _, l := range lines {
		want[l.CaseID] = true
	}
	cases := map[string]*datasets.Case{}
	for r.Scan() {
		rec := r.Record()
		if rec.Err != nil {
			continue
		}
		if id := mask.ID(rec.Case.ID); want[id] {
			cases[id] = rec.Case
		}
	}
	if err := r.Err(); err != nil {
		return nil, nil, err
	}
	for _, l := range lines {
		c, rule := cases[l.CaseID], rules[l.RuleID]
		if c == nil || rule == nil {
			missing = append(missing, l.CaseID+"/"+l.RuleID)
			continue
		}
		items = append(items, Item{Line: l, Input: replay.BuildInput(c, []*replay.Rule{rule}, nil), RuleName: rule.Name})
	}
	return items, missing, nil
}

// LabelsFile is the labels file a labeler appends to: path, or
// labels-NAME.jsonl in the working directory.
func LabelsFile(path, labeler string) string {
	if path != "" {
		return path
	}
	return "labels-" + filepath.Base(strings.TrimSpace(labeler)) + ".jsonl"
}

// OpenLabels opens a labels file to append to, with the labels it already
// holds (to resume); a torn last line (a labeler killed while writing) is
// cut first. The caller closes the appender.
func OpenLabels(path string) (*datasets.LabelAppender, []datasets.SampleLabel, error) {
	var existing []datasets.SampleLabel
	if _, err := os.Stat(path); err == nil {
		app, err := datasets.OpenLabelAppender(path) // cuts a torn last line
		if err != nil {
			return nil, nil, err
		}
		app.Close()
		if existing, err = datasets.ReadSampleLabels([]string{path}, false); err != nil {
			return nil, nil, err
		}
	}
	app, err := datasets.OpenLabelAppender(path)
	if err != nil {
		return nil, nil, err
	}
	return app, existing, nil
}
