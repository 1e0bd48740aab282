package replay

import (
	"fmt"
	"strings"
	"testing"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestParseShard(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"1/4", Shard{1, 4}, true},
		{"4/4", Shard{4, 4}, true},
		{"1/1", Shard{1, 1}, true},
		{"0/4", Shard{}, false},
		{"5/4", Shard{}, false},
		{"3/2", Shard{}, false},
		{"1/0", Shard{}, false},
		{"auto", Shard{}, false},
		{"-1/4", Shard{}, false},
		{"1/", Shard{}, false},
	} {
		got, err := ParseShard(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
		if tc.ok && got.String() != tc.in {
			t.Errorf("String() = %q, want %q", got.String(), tc.in)
		}
	}
}

// Every session lands in exactly one shard of N, and the zero shard owns all.
func TestShardPartition(t *testing.T) {
	t.Parallel()
	const n = 5
	counts := make([]int, n)
	for k := 0; k < 1000; k++ {
		id := fmt.Sprintf("session-%d", k)
		owners := 0
		for i := 1; i <= n; i++ {
			if (Shard{i, n}).Owns(id) {
				owners++
				counts[i-1]++
			}
		}
		if owners != 1 {
			t.Fatalf("%s is owned by %d shards", id, owners)
		}
		if !(Shard{}).Owns(id) {
			t.Fatalf("the zero shard does not own %s", id)
		}
	}
	for i, c := range counts {
		// 1000 sessions over 5 shards: 200 each expected; FNV-1a spreads
		// these ids within ±50.
		if c < 150 || c > 250 {
			t.Errorf("shard %d/%d got %d of 1000 sessions", i+1, n, c)
		}
	}
	// The hash is FNV-1a 64 of the id, mod N, checked against the
	// algorithm written out below: a change of hash would reshuffle every
	// sharded history, so it must fail here.
	for k := 0; k < 100; k++ {
		id := fmt.Sprintf("s%d", k)
		if got, want := whichShard(id, 7), fnvMod(id, 7)+1; got != want {
			t.Errorf("%s in shard %d, want %d", id, got, want)
		}
	}
}

func whichShard(id string, n int) int {
	for i := 1; i <= n; i++ {
		if (Shard{i, n}).Owns(id) {
			return i
		}
	}
	return 0
}

// fnvMod is FNV-1a 64 written out from its definition (offset basis
// 14695981039346656037, prime 1099511628211), independent of hash/fnv.
func fnvMod(s string, n uint64) int {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return int(h % n)
}

func TestShardFromEnv(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		getenv func(string) string
		count  int
		want   Shard
		source string
		err    string
	}{
		// Kubernetes Indexed Job: index 0-based, count from the flag or env.
		{name: "k8s flag", getenv: env("JOB_COMPLETION_INDEX", "0"), count: 4, want: Shard{1, 4}, source: "Kubernetes Indexed Job (JOB_COMPLETION_INDEX=0, --shard-count 4)"},
		{name: "k8s env", getenv: env("JOB_COMPLETION_INDEX", "3", "APEVAL_SHARD_COUNT", "4"), want: Shard{4, 4}, source: "Kubernetes Indexed Job (JOB_COMPLETION_INDEX=3, APEVAL_SHARD_COUNT=4)"},
		{name: "k8s flag equals env", getenv: env("JOB_COMPLETION_INDEX", "2", "APEVAL_SHARD_COUNT", "4"), count: 4, want: Shard{3, 4}},
		{name: "k8s no count", getenv: env("JOB_COMPLETION_INDEX", "1"), err: "--shard-count N or set $APEVAL_SHARD_COUNT"},
		{name: "k8s index past count", getenv: env("JOB_COMPLETION_INDEX", "4"), count: 4, err: "JOB_COMPLETION_INDEX=4 (0-based) is outside the 4 shards given by --shard-count"},
		{name: "k8s flag disagrees", getenv: env("JOB_COMPLETION_INDEX", "1", "APEVAL_SHARD_COUNT", "4"), count: 3, err: "--shard-count 3 disagrees with APEVAL_SHARD_COUNT=4"},
		// GitLab CI parallel: 1-based.
		{name: "gitlab first", getenv: env("CI_NODE_INDEX", "1", "CI_NODE_TOTAL", "3"), want: Shard{1, 3}, source: "GitLab CI parallel (CI_NODE_INDEX=1, CI_NODE_TOTAL=3)"},
		{name: "gitlab last", getenv: env("CI_NODE_INDEX", "3", "CI_NODE_TOTAL", "3"), want: Shard{3, 3}},
		{name: "gitlab zero", getenv: env("CI_NODE_INDEX", "0", "CI_NODE_TOTAL", "3"), err: "CI_NODE_INDEX=0 (1-based) is outside the 3 shards given by CI_NODE_TOTAL"},
		{name: "gitlab no total", getenv: env("CI_NODE_INDEX", "2"), err: "CI_NODE_INDEX is set (GitLab CI parallel) but CI_NODE_TOTAL is not"},
		// CircleCI: 0-based.
		{name: "circle", getenv: env("CIRCLE_NODE_INDEX", "0", "CIRCLE_NODE_TOTAL", "2"), want: Shard{1, 2}, source: "CircleCI parallelism (CIRCLE_NODE_INDEX=0, CIRCLE_NODE_TOTAL=2)"},
		{name: "circle last", getenv: env("CIRCLE_NODE_INDEX", "1", "CIRCLE_NODE_TOTAL", "2"), want: Shard{2, 2}},
		{name: "circle past", getenv: env("CIRCLE_NODE_INDEX", "2", "CIRCLE_NODE_TOTAL", "2"), err: "outside the 2 shards"},
		// Buildkite: 0-based.
		{name: "buildkite", getenv: env("BUILDKITE_PARALLEL_JOB", "4", "BUILDKITE_PARALLEL_JOB_COUNT", "5"), want: Shard{5, 5}, source: "Buildkite parallelism (BUILDKITE_PARALLEL_JOB=4, BUILDKITE_PARALLEL_JOB_COUNT=5)"},
		{name: "buildkite bad count", getenv: env("BUILDKITE_PARALLEL_JOB", "0", "BUILDKITE_PARALLEL_JOB_COUNT", "five"), err: `BUILDKITE_PARALLEL_JOB_COUNT="five" is not a positive whole number`},
		{name: "buildkite bad index", getenv: env("BUILDKITE_PARALLEL_JOB", "x", "BUILDKITE_PARALLEL_JOB_COUNT", "5"), err: `BUILDKITE_PARALLEL_JOB="x" is not a whole number`},
		{name: "flag agrees with own count", getenv: env("CIRCLE_NODE_INDEX", "0", "CIRCLE_NODE_TOTAL", "2"), count: 2, want: Shard{1, 2}},
		{name: "flag disagrees with own count", getenv: env("CIRCLE_NODE_INDEX", "0", "CIRCLE_NODE_TOTAL", "2"), count: 3, err: "--shard-count 3 disagrees with CIRCLE_NODE_TOTAL=2"},
		// Nothing or too much.
		{name: "none", getenv: env(), err: "looked for JOB_COMPLETION_INDEX, CI_NODE_INDEX, CIRCLE_NODE_INDEX, BUILDKITE_PARALLEL_JOB"},
		{name: "count only", getenv: env("CI_NODE_TOTAL", "3"), err: "no scheduler's shard index is set"},
		{name: "two", getenv: env("CI_NODE_INDEX", "1", "CI_NODE_TOTAL", "2", "CIRCLE_NODE_INDEX", "0", "CIRCLE_NODE_TOTAL", "2"), err: "more than one scheduler's shard index is set: CI_NODE_INDEX (GitLab CI parallel), CIRCLE_NODE_INDEX (CircleCI parallelism)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ShardFromEnv(tc.getenv, tc.count)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Shard != tc.want {
				t.Errorf("shard = %v, want %v", got.Shard, tc.want)
			}
			if tc.source != "" && got.Source != tc.source {
				t.Errorf("source = %q, want %q", got.Source, tc.source)
			}
		})
	}
}
