package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// merge --out naming one of its input shards is refused, and the shard is
// left as it was.
func TestMergeOutIsAnInput(t *testing.T) {
	wholeProcess(t)
	t.Parallel()
	base := t.TempDir()
	var shards []string
	for _, s := range []string{"1/2", "2/2"} {
		dir := filepath.Join(base, "s"+s[:1])
		if code, _, stderr := apeval(t, "", "run", "--shard", s, "--out", dir, "-q", "--no-cache"); code == exitUsage {
			t.Fatalf("shard %s: %s", s, stderr)
		}
		shards = append(shards, dir)
	}
	before, _ := os.ReadFile(filepath.Join(shards[0], "run.json"))
	for _, out := range []string{shards[0], shards[0] + "/."} {
		code, _, stderr := apeval(t, "", "merge", "--out", out, shards[0], shards[1])
		if code != exitUsage || !strings.Contains(stderr, "is one of the shards being merged") {
			t.Errorf("merge --out %s: exit %d, %s", out, code, stderr)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(shards[0], "run.json")); !bytes.Equal(before, after) {
		t.Errorf("the input shard was changed:\n%s", after)
	}
}
