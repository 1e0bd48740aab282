package evaluation

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/internal/fixture"
	"github.com/apeval/apeval/reports/rundir"
)

// unlabeledRun writes a run of two judges over 6 unlabeled pairs (one
// rule), with the label source given.
func unlabeledRun(t *testing.T, labelSource string) string {
	t.Helper()
	var rs []*replay.Result
	for _, j := range []string{"ollama/a:1b", "ollama/b:7b"} {
		for _, r := range results(j, 6) {
			r.Rules[0].Label = ""
			rs = append(rs, r)
		}
	}
	dir := filepath.Join(t.TempDir(), "run")
	fixture.WriteRun(t, dir, rundir.RunInfo{RunID: "r", Created: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Version: "test", LabelSource: labelSource,
		Judges: []rundir.JudgeInfo{{Identity: "ollama/a:1b"}, {Identity: "ollama/b:7b"}}}, rs)
	return dir
}

func TestDrawQueue(t *testing.T) {
	t.Parallel()
	dir := unlabeledRun(t, "")
	d, err := DrawQueue(QueueSpec{Dir: dir, Config: metrics.QueueConfig{Budget: 4, Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Letters, []string{"A", "B"}) || !slices.Equal(d.Names, []string{"ollama/a:1b", "ollama/b:7b"}) || d.Unlabeled != 6 || len(d.Census) != 0 {
		t.Fatalf("drawn: letters %v names %v unlabeled %d census %v", d.Letters, d.Names, d.Unlabeled, d.Census)
	}
	// Even cases matched by both judges, odd ones by neither: two strata
	// of 3, each queued whole (the minimum is 5 per stratum).
	if len(d.Queue.Strata) != 2 || len(d.Queue.Items) != 6 || d.Queue.Strata[0].Name != "A:match B:match" {
		t.Fatalf("queue: %d strata (%+v), %d items", len(d.Queue.Strata), d.Queue.Strata, len(d.Queue.Items))
	}

	// Weak labels add the letter W; one weak label splits a stratum.
	weak := func() ([]datasets.WeakLabel, error) {
		return []datasets.WeakLabel{{CaseID: "c00", RuleID: "R1", Label: datasets.LabelNoMatch}}, nil
	}
	d, err = DrawQueue(QueueSpec{Dir: dir, Weak: weak, Config: metrics.QueueConfig{Budget: 4, Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Letters, []string{"A", "B", "W"}) || d.Names[2] != "weak labels (label_source weak; 1 in the datasets)" || len(d.Queue.Strata) != 3 {
		t.Fatalf("weak: letters %v names %q, %d strata", d.Letters, d.Names, len(d.Queue.Strata))
	}
	boom := errors.New("unreadable weak labels")
	if _, err := DrawQueue(QueueSpec{Dir: dir, Weak: func() ([]datasets.WeakLabel, error) { return nil, boom }, Config: metrics.QueueConfig{Budget: 4}}); !errors.Is(err, boom) {
		t.Errorf("weak read failure: %v", err)
	}
	// A rule nobody left unlabeled has nothing to queue.
	if _, err := DrawQueue(QueueSpec{Dir: dir, Rules: []string{"R9"}, Config: metrics.QueueConfig{Budget: 4}}); err == nil || err.Error() != dir+": no unlabeled pair in scope to queue" {
		t.Errorf("no pair: %v", err)
	}
}

func TestCorrectWeakRefusesItsInputs(t *testing.T) {
	t.Parallel()
	plain, onWeak := unlabeledRun(t, ""), unlabeledRun(t, datasets.LabelSourceWeak)
	labels := filepath.Join(t.TempDir(), "labels.jsonl")
	line := `{"schema":"apeval.labels/v1","case_id":"zz","rule_id":"R1","stratum":"A:match B:match","stratum_size":3,"order":1,"label":"match","labeler":"ana","time":"2026-12-01T10:00:00Z"}` + "\n"
	if err := os.WriteFile(labels, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	weak := func() ([]datasets.WeakLabel, error) { return nil, nil }
	for _, c := range []struct {
		spec CorrectSpec
		want string
	}{
		{CorrectSpec{Dir: plain, Labels: []string{labels}, Confidence: 0.95}, "label correct needs the weak labels the slice was drawn on"},
		{CorrectSpec{Dir: onWeak, Labels: []string{labels}, Weak: weak, Confidence: 0.95}, "the run is on weak labels (run --weak-labels): they are its weak labels; drop --weak-labels"},
		{CorrectSpec{Dir: plain, Labels: []string{labels}, Weak: weak, Confidence: 0.95}, "none of the 1 labels names a (case, rule) pair of " + plain},
	} {
		if _, err := CorrectWeak(c.spec); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want %q", c.spec, err, c.want)
		}
	}
}

// TestReplayedInput: the files given win; without them the embedded
// sample when every run replayed it, else nothing.
func TestReplayedInput(t *testing.T) {
	t.Parallel()
	stdin := strings.NewReader("x")
	if p, in, ok := ReplayedInput([]string{"a.jsonl"}, stdin, nil); !ok || !slices.Equal(p, []string{"a.jsonl"}) || in != stdin {
		t.Errorf("given files: %v %v", p, ok)
	}
	sample := []rundir.RunInfo{{Datasets: []rundir.FileRef{{SHA256: datasets.SampleSHA256()}}}}
	if p, in, ok := ReplayedInput(nil, stdin, sample); !ok || !slices.Equal(p, []string{"-"}) || in == stdin || in == nil {
		t.Errorf("sample run: %v %v", p, ok)
	}
	other := append(sample, rundir.RunInfo{Datasets: []rundir.FileRef{{SHA256: "beef"}}})
	if _, _, ok := ReplayedInput(nil, stdin, other); ok {
		t.Error("a run of another dataset: want no input")
	}
	// ReadInfos names the directory that is no run.
	if _, err := ReadInfos([]string{unlabeledRun(t, ""), "/nonexistent"}); err == nil || !strings.HasPrefix(err.Error(), "/nonexistent is not a run directory") {
		t.Errorf("ReadInfos: %v", err)
	}
}

// TestLabeledSample: no files, no sample; a run on weak labels refuses
// one; a labels file becomes the weighting sample.
func TestLabeledSample(t *testing.T) {
	t.Parallel()
	if l, err := LabeledSample(nil, datasets.LabelSourceWeak); l != nil || err != nil {
		t.Errorf("no files: %v, %v", l, err)
	}
	p := filepath.Join(t.TempDir(), "labels.jsonl")
	line := `{"schema":"apeval.labels/v1","case_id":"c1","rule_id":"R1","stratum":"A:match","stratum_size":6,"order":1,"label":"match","labeler":"ana","time":"2026-12-01T10:00:00Z"}` + "\n"
	if err := os.WriteFile(p, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LabeledSample([]string{p}, datasets.LabelSourceWeak); err == nil || !strings.Contains(err.Error(), "weak") {
		t.Errorf("weak run: %v", err)
	}
	if l, err := LabeledSample([]string{p}, ""); err != nil || l == nil {
		t.Errorf("labels file: %v, %v", l, err)
	}
	if _, err := LabeledSample([]string{filepath.Join(t.TempDir(), "none.jsonl")}, ""); err == nil {
		t.Error("a missing labels file: no error")
	}
}

// TestAgreement: two labelers who agree on 3 of 4 pairs (Cohen's kappa
// 0.5 by hand: p_o 0.75, p_e 0.5); a run that is no run directory is
// named.
func TestAgreement(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	line := func(who, c, l string) string {
		return `{"schema":"apeval.labels/v1","case_id":"` + c + `","rule_id":"R1","stratum":"A:match","stratum_size":6,"order":1,"label":"` + l + `","labeler":"` + who + `","time":"2026-12-01T10:00:00Z"}` + "\n"
	}
	ana, ben := filepath.Join(dir, "ana.jsonl"), filepath.Join(dir, "ben.jsonl")
	if err := os.WriteFile(ana, []byte(line("ana", "c1", "match")+line("ana", "c2", "match")+line("ana", "c3", "no_match")+line("ana", "c4", "no_match")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ben, []byte(line("ben", "c1", "match")+line("ben", "c2", "no_match")+line("ben", "c3", "no_match")+line("ben", "c4", "no_match")), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Agreement([]string{ana, ben}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rules) != 1 || rep.Rules[0].People.Items != 4 || rep.Rules[0].People.Kappa == nil || *rep.Rules[0].People.Kappa != 0.5 {
		t.Fatalf("agreement %+v", rep.Rules)
	}
	if _, err := Agreement([]string{ana}, filepath.Join(dir, "norun")); err == nil || !strings.Contains(err.Error(), "is not a run directory") {
		t.Errorf("no run: %v", err)
	}
}
