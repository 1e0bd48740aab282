package reports

import (
	"strings"
	"testing"

	"github.com/apeval/apeval/reports/rundir"
)

func shardInfo(shard, policy string, judges ...string) rundir.RunInfo {
	in := rundir.RunInfo{Shard: shard, Policy: &rundir.FileRef{Name: "policy.toml", SHA256: policy}}
	for _, j := range judges {
		in.Judges = append(in.Judges, rundir.JudgeInfo{Identity: j})
	}
	return in
}

func TestShardSet(t *testing.T) {
	t.Parallel()
	var ok rundir.ShardSet
	for i, s := range []string{"2/3", "1/3", "3/3"} {
		if err := ok.Add("d"+s[:1], shardInfo(s, "p1", "b", "a")); err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
	}
	if err := ok.Complete(); err != nil {
		t.Errorf("all three shards: %v", err)
	}

	for _, tc := range []struct {
		name  string
		infos []rundir.RunInfo
		want  string
	}{
		{"not a shard", []rundir.RunInfo{shardInfo("", "p1")}, "d0 is not a shard run"},
		{"bad shard", []rundir.RunInfo{shardInfo("x", "p1")}, `d0: run.json shard "x": want I/N`},
		{"other N", []rundir.RunInfo{shardInfo("1/3", "p1"), shardInfo("2/4", "p1")}, "d1 is shard 2/4 but d0 is of 3 shards"},
		{"twice", []rundir.RunInfo{shardInfo("1/2", "p1"), shardInfo("1/2", "p1")}, "d0 and d1 are both shard 1/2"},
		{"policies", []rundir.RunInfo{shardInfo("1/2", "p1"), shardInfo("2/2", "p2")}, "d0 and d1 are not shards of one evaluation: different policies"},
		{"judges", []rundir.RunInfo{shardInfo("1/2", "p1", "a"), shardInfo("2/2", "p1", "b")}, "different judges (a vs b)"},
	} {
		var s rundir.ShardSet
		var err error
		for i, in := range tc.infos {
			if err = s.Add("d"+string(rune('0'+i)), in); err != nil {
				break
			}
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}

	var partial rundir.ShardSet
	if err := partial.Add("d1", shardInfo("2/4", "p1")); err != nil {
		t.Fatal(err)
	}
	if err := partial.Complete(); err == nil || !strings.Contains(err.Error(), "shards 1/4, 3/4, 4/4 are missing") {
		t.Errorf("one of four shards: %v", err)
	}
}
