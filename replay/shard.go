package replay

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Shard is one part of a dataset partitioned by session: shard Index of
// Count (1-based) replays the sessions whose FNV-1a 64-bit hash of
// session_id modulo Count is Index−1. A whole session always lands in one
// shard, so trajectory state and sequence checks never cross shards, and the
// union of shards 1..Count is exactly the unsharded dataset. The zero Shard
// owns every session.
type Shard struct {
	Index, Count int
}

// ParseShard reads "I/N" with 1 ≤ I ≤ N.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.ParseUint(strings.TrimSpace(a), 10, 31)
	n, err2 := strconv.ParseUint(strings.TrimSpace(b), 10, 31)
	if !ok || err1 != nil || err2 != nil || n == 0 || i == 0 || i > n {
		return Shard{}, fmt.Errorf("shard %q: want I/N with 1 ≤ I ≤ N, e.g. 1/4", s)
	}
	return Shard{Index: int(i), Count: int(n)}, nil
}

// String is "I/N", or "" for the zero Shard.
func (s Shard) String() string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Owns reports whether the session belongs to this shard.
func (s Shard) Owns(sessionID string) bool {
	if s.Count <= 1 {
		return true
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(sessionID))
	return h.Sum64()%uint64(s.Count) == uint64(s.Index-1)
}

// ShardCountEnv is the variable that gives the shard count to a Kubernetes
// Indexed Job, whose pods see their index but not the Job's completions.
const ShardCountEnv = "APEVAL_SHARD_COUNT"

// A scheduler is one engine's way of telling a parallel worker which one it
// is: an index variable, a count variable, and whether the index counts
// from 0 or 1.
type scheduler struct {
	name         string
	index, count string
	oneBased     bool
}

// schedulers are the engines --shard auto understands, in the order an
// error message lists them.
var schedulers = []scheduler{
	{name: "Kubernetes Indexed Job", index: "JOB_COMPLETION_INDEX", count: ShardCountEnv},
	{name: "GitLab CI parallel", index: "CI_NODE_INDEX", count: "CI_NODE_TOTAL", oneBased: true},
	{name: "CircleCI parallelism", index: "CIRCLE_NODE_INDEX", count: "CIRCLE_NODE_TOTAL"},
	{name: "Buildkite parallelism", index: "BUILDKITE_PARALLEL_JOB", count: "BUILDKITE_PARALLEL_JOB_COUNT"},
}

// AutoShard is a shard found in a scheduler's environment, with where it
// came from (for the log line and error messages).
type AutoShard struct {
	Shard
	// Source says which scheduler and variables gave the shard, e.g.
	// "GitLab CI parallel (CI_NODE_INDEX=2, CI_NODE_TOTAL=4)".
	Source string
}

// ShardFromEnv finds this worker's shard in the environment of a Kubernetes
// Indexed Job (JOB_COMPLETION_INDEX, 0-based; the count from count when it is
// positive, else $APEVAL_SHARD_COUNT), GitLab CI parallel (CI_NODE_INDEX,
// 1-based, of CI_NODE_TOTAL), CircleCI (CIRCLE_NODE_INDEX, 0-based, of
// CIRCLE_NODE_TOTAL) or Buildkite (BUILDKITE_PARALLEL_JOB, 0-based, of
// BUILDKITE_PARALLEL_JOB_COUNT). count, when positive, is --shard-count: it
// must agree with a scheduler that states its own count.
//
// It fails when no scheduler's index is set (naming every variable it looked
// for), when more than one is (a worker must not guess which engine it runs
// on), or when a value is not a number in range.
func ShardFromEnv(getenv func(string) string, count int) (AutoShard, error) {
	var found []scheduler
	for _, s := range schedulers {
		if strings.TrimSpace(getenv(s.index)) != "" {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		var names []string
		for _, s := range schedulers {
			names = append(names, s.index)
		}
		return AutoShard{}, fmt.Errorf("--shard auto: no scheduler's shard index is set; looked for %s (%s with the count from --shard-count or $%s, the others with their own count variable: %s, %s, %s); or pass --shard I/N",
			strings.Join(names, ", "), schedulers[0].index, ShardCountEnv, schedulers[1].count, schedulers[2].count, schedulers[3].count)
	case 1:
	default:
		var names []string
		for _, s := range found {
			names = append(names, fmt.Sprintf("%s (%s)", s.index, s.name))
		}
		return AutoShard{}, fmt.Errorf("--shard auto: more than one scheduler's shard index is set: %s; pass --shard I/N", strings.Join(names, ", "))
	}
	s := found[0]
	rawIndex := strings.TrimSpace(getenv(s.index))
	idx, err := strconv.Atoi(rawIndex)
	if err != nil {
		return AutoShard{}, fmt.Errorf("--shard auto: %s=%q is not a whole number", s.index, rawIndex)
	}
	rawCount := strings.TrimSpace(getenv(s.count))
	countFrom := s.count
	n := 0
	if rawCount != "" {
		if n, err = strconv.Atoi(rawCount); err != nil || n < 1 {
			return AutoShard{}, fmt.Errorf("--shard auto: %s=%q is not a positive whole number", s.count, rawCount)
		}
	}
	switch {
	case count > 0 && n > 0 && count != n:
		return AutoShard{}, fmt.Errorf("--shard auto: --shard-count %d disagrees with %s=%d", count, s.count, n)
	case count > 0:
		n, countFrom = count, "--shard-count"
	case n == 0:
		if s.count == ShardCountEnv {
			return AutoShard{}, fmt.Errorf("--shard auto: %s is set (%s) but not the shard count: pass --shard-count N or set $%s to the Job's completions", s.index, s.name, ShardCountEnv)
		}
		return AutoShard{}, fmt.Errorf("--shard auto: %s is set (%s) but %s is not", s.index, s.name, s.count)
	}
	i := idx
	if !s.oneBased {
		i = idx + 1
	}
	if i < 1 || i > n {
		base := "0-based"
		if s.oneBased {
			base = "1-based"
		}
		return AutoShard{}, fmt.Errorf("--shard auto: %s=%d (%s) is outside the %d shards given by %s", s.index, idx, base, n, countFrom)
	}
	src := fmt.Sprintf("%s (%s=%d, ", s.name, s.index, idx)
	if countFrom == "--shard-count" {
		src += fmt.Sprintf("--shard-count %d)", n)
	} else {
		src += fmt.Sprintf("%s=%d)", s.count, n)
	}
	return AutoShard{Shard: Shard{Index: i, Count: n}, Source: src}, nil
}
