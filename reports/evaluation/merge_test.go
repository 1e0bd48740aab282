package evaluation

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/internal/fixture"
	"github.com/apeval/apeval/reports/rundir"
)

func TestMergedInfoSumsTheShards(t *testing.T) {
	crit := replay.DefaultKillCriteria()
	crit.PrecisionMin = 0.77
	shards := []rundir.RunInfo{
		{RunID: "s1", Shard: "1/3", Cases: 10, InvalidLines: 1, Results: 20, Decisions: 40, ReplayMS: 5, Layout: "flat", Policy: &rundir.FileRef{Name: "p.toml"}},
		{RunID: "s2", Shard: "2/3", Cases: 7, Interrupted: true, Partial: "budget: 3 calls"},
		{RunID: "s3", Shard: "3/3", Cases: 5, InvalidLines: 2, Partial: "budget: 1 call"},
	}
	at := time.Date(2026, 12, 6, 8, 0, 0, 0, time.FixedZone("x", 3600))
	m := MergedInfo(shards, "merged", rundir.LayoutHive, at, Spec{Criteria: crit, CriteriaFrom: "strict.toml"})
	if m.RunID != "merged" || m.Layout != rundir.LayoutHive || !m.Created.Equal(at) || m.Created.Location() != time.UTC || m.Shard != "" {
		t.Errorf("identity: %+v", m)
	}
	// Invalid lines are not summed: every shard reads them all (by hand,
	// two shards of a file with 3 bad lines merged into "6 invalid").
	if m.Cases != 22 || m.InvalidLines != 2 || m.Results != 0 || m.Decisions != 0 || m.ReplayMS != 0 || !m.Interrupted {
		t.Errorf("counts: cases %d invalid %d results %d decisions %d interrupted %v", m.Cases, m.InvalidLines, m.Results, m.Decisions, m.Interrupted)
	}
	if m.Partial != "shard 2/3: budget: 3 calls" || m.Budget != nil {
		t.Errorf("partial %q", m.Partial)
	}
	if m.Criteria == nil || m.Criteria.PrecisionMin != 0.77 || m.CriteriaFrom != "strict.toml" || m.Policy.Name != "p.toml" {
		t.Errorf("criteria %+v from %q", m.Criteria, m.CriteriaFrom)
	}
	if shards[0].RunID != "s1" || shards[0].Cases != 10 {
		t.Error("the shards' own infos changed")
	}
}

func TestCheckShardsWantsEveryShard(t *testing.T) {
	t.Parallel()
	var dirs []string
	for i, sh := range []string{"1/3", "3/3"} {
		dir := filepath.Join(t.TempDir(), "shard")
		rs := results("J", 4)
		for _, r := range rs {
			r.CaseID = sh[:1] + r.CaseID
		}
		fixture.WriteRun(t, dir, rundir.RunInfo{RunID: "r" + sh[:1], Shard: sh, Created: time.Date(2026, 12, 1, 0, 0, i, 0, time.UTC), Version: "test",
			Judges: []rundir.JudgeInfo{{Identity: "J"}}}, rs)
		dirs = append(dirs, dir)
	}
	if _, err := CheckShards(dirs, false); err == nil || !strings.Contains(err.Error(), "2/3") {
		t.Errorf("missing shard 2/3: err = %v", err)
	}
	infos, err := CheckShards(dirs, true)
	if err != nil || len(infos) != 2 || infos[1].Shard != "3/3" {
		t.Errorf("--allow-partial: %v, %v", infos, err)
	}
	if _, err := CheckShards([]string{t.TempDir()}, true); err == nil || !strings.Contains(err.Error(), "is not a run directory") {
		t.Errorf("no run directory: %v", err)
	}
}

// TestMergeWritesOneRun: two shards of 4 cases merge into one run of 8
// results under the merged run ID, whose report counts them all and
// exits with its verdict; an out that is one of the shards is refused
// and the shard is left as it was.
func TestMergeWritesOneRun(t *testing.T) {
	t.Parallel()
	var dirs []string
	for i, sh := range []string{"1/2", "2/2"} {
		dir := filepath.Join(t.TempDir(), "shard")
		rs := results("J", 4)
		for _, r := range rs {
			r.CaseID = sh[:1] + r.CaseID
			r.SessionID = sh[:1] + r.SessionID
		}
		fixture.WriteRun(t, dir, rundir.RunInfo{RunID: "r" + sh[:1], Shard: sh, Created: time.Date(2026, 12, 1, 0, 0, i, 0, time.UTC), Version: "test",
			Judges: []rundir.JudgeInfo{{Identity: "J"}}}, rs)
		dirs = append(dirs, dir)
	}
	infos, err := CheckShards(dirs, false)
	if err != nil {
		t.Fatal(err)
	}
	rs := &RunSet{Dirs: dirs, Infos: infos}
	spec := Spec{Criteria: replay.DefaultKillCriteria()}
	if _, _, err := rs.Merge(spec, dirs[0], MergedInfo(infos, "m", rundir.LayoutFlat, time.Now(), spec)); err == nil || !strings.Contains(err.Error(), "is one of the shards being merged") {
		t.Fatalf("out = a shard: %v", err)
	}
	if info, err := rundir.ReadRunInfo(dirs[0]); err != nil || info.RunID != "r1" {
		t.Fatalf("shard 1 after the refused merge: %+v, %v", info, err)
	}
	out := filepath.Join(t.TempDir(), "merged")
	rep, w, err := rs.Merge(spec, out, MergedInfo(infos, "m", rundir.LayoutFlat, time.Now(), spec))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Release()
	defer func() { _ = rep.Summary.Release() }()
	w.ReportsWritten()
	if rep.Run.RunID != "m" || rep.Exit != rep.RunExit() {
		t.Errorf("report: run %q exit %d (RunExit %d)", rep.Run.RunID, rep.Exit, rep.RunExit())
	}
	n := 0
	if _, err := rundir.ReadRun(out, func(r *replay.Result) error {
		if r.RunID != "m" {
			t.Errorf("result %s under run %q", r.CaseID, r.RunID)
		}
		n++
		return nil
	}); err != nil || n != 8 {
		t.Errorf("merged run: %d results, %v; want 8", n, err)
	}
}
