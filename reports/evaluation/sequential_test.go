package evaluation

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/reports/internal/fixture"
	"github.com/apeval/apeval/reports/rundir"
)

// TestSequentialOverRuns: each run directory is one look named as given;
// a session a later run brings again counts once; a partial run is said;
// a run directory without decisions is an error naming it; weak labels
// make the set weak.
func TestSequentialOverRuns(t *testing.T) {
	t.Parallel()
	first := writeRun(t, results("J", 8), nil) // sessions s0..s3
	second := filepath.Join(t.TempDir(), "second")
	info := rundir.RunInfo{RunID: "r2", Created: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC), Version: "test",
		Judges: []rundir.JudgeInfo{{Identity: "J"}}, Partial: "budget"}
	fixture.WriteRun(t, second, info, results("J", 12)) // s0..s5: s0..s3 again
	rs, err := Open([]string{first, second})
	if err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	res, err := rs.Sequential([]string{"week1", "week2"}, "", "", "", &errOut)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Runs, ",") != "week1,week2" || len(res.Judges) != 1 {
		t.Fatalf("runs %q, judges %d", res.Runs, len(res.Judges))
	}
	j := res.Judges[0]
	if j.Sessions != 6 || j.DuplicateSessions != 4 || j.DuplicateCases != 8 {
		t.Errorf("sessions %d, duplicates %d sessions %d cases; want 6, 4, 8", j.Sessions, j.DuplicateSessions, j.DuplicateCases)
	}
	if want := "apeval: week2 is partial (budget): its sessions count as far as it got"; !strings.Contains(errOut.String(), want) || strings.Contains(errOut.String(), "week1") {
		t.Errorf("stderr %q, want only %q", errOut.String(), want)
	}
	if rs.Weak() || !(&RunSet{Infos: []rundir.RunInfo{{LabelSource: datasets.LabelSourceWeak}}}).Weak() {
		t.Error("Weak: only runs on weak labels are weak")
	}
	if err := os.Remove(filepath.Join(second, rundir.DecisionsFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := rs.Sequential([]string{"week1", "week2"}, "", "", "", &errOut); err == nil || !strings.HasPrefix(err.Error(), "week2") {
		t.Errorf("missing decisions: %v", err)
	}
	if _, err := rs.Sequential([]string{"week1", "week2"}, "", "", "nosuch", &errOut); err == nil {
		t.Error("an unknown baseline judge is an error")
	}
}
