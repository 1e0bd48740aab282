package reports

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ShardSet checks that runs made with --shard I/N belong together before
// `apeval merge` combines them: one N, each I once, the same policy,
// judges and baseline, and (unless partial merges are allowed) all of
// 1..N. The zero value is ready.
type ShardSet struct {
	first    RunInfo
	firstDir string
	seen     map[int]string
	n        int
}

// Add checks the run in dir (its run.json) against the shards added
// before it.
func (s *ShardSet) Add(dir string, info RunInfo) error {
	if info.Shard == "" {
		return fmt.Errorf("%s is not a shard run (it was not made with --shard I/N)", dir)
	}
	i, k, err := splitShard(info.Shard)
	if err != nil {
		return fmt.Errorf("%s: run.json shard %q: %v", dir, info.Shard, err)
	}
	if s.seen == nil {
		s.seen, s.n, s.first, s.firstDir = map[int]string{}, k, info, dir
	} else if k != s.n {
		return fmt.Errorf("%s is shard %s but %s is of %d shards", dir, info.Shard, s.firstDir, s.n)
	}
	if prev, dup := s.seen[i]; dup {
		return fmt.Errorf("%s and %s are both shard %d/%d", prev, dir, i, s.n)
	}
	s.seen[i] = dir
	if len(s.seen) > 1 {
		if err := sameRun(s.first, info); err != nil {
			return fmt.Errorf("%s and %s are not shards of one evaluation: %v", s.firstDir, dir, err)
		}
	}
	return nil
}

// Complete reports the shards of 1..N that were not added.
func (s *ShardSet) Complete() error {
	if len(s.seen) == s.n {
		return nil
	}
	var missing []string
	for i := 1; i <= s.n; i++ {
		if _, ok := s.seen[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, s.n))
		}
	}
	return fmt.Errorf("shards %s are missing (pass --allow-partial to merge anyway)", strings.Join(missing, ", "))
}

func splitShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if !ok {
		return 0, 0, fmt.Errorf("want I/N")
	}
	if i, err = strconv.Atoi(a); err != nil {
		return 0, 0, err
	}
	if n, err = strconv.Atoi(b); err != nil {
		return 0, 0, err
	}
	return i, n, nil
}

func sameRun(a, b RunInfo) error {
	if (a.Policy == nil) != (b.Policy == nil) || (a.Policy != nil && a.Policy.SHA256 != b.Policy.SHA256) {
		return fmt.Errorf("different policies")
	}
	ja, jb := judgeIDs(a), judgeIDs(b)
	if strings.Join(ja, ",") != strings.Join(jb, ",") {
		return fmt.Errorf("different judges (%s vs %s)", strings.Join(ja, ", "), strings.Join(jb, ", "))
	}
	if a.Baseline != b.Baseline {
		return fmt.Errorf("different --baseline (%q vs %q)", a.Baseline, b.Baseline)
	}
	return nil
}

func judgeIDs(in RunInfo) []string {
	var ids []string
	for _, j := range in.Judges {
		ids = append(ids, j.Identity)
	}
	sort.Strings(ids)
	return ids
}
