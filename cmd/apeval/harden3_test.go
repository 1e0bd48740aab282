package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// queueFixture is the unlabeled sample run and a labeling queue of it.
func queueFixture(t *testing.T) (dir, run, queue string) {
	t.Helper()
	dir = t.TempDir()
	u := filepath.Join(dir, "u")
	run = filepath.Join(dir, "run")
	if c, _, e := apeval(t, "", "datasets", "sample", "--unlabeled", "--out", u); c != 0 {
		t.Fatal(e)
	}
	if c, _, e := apeval(t, "", "run", "--dataset", filepath.Join(u, "cases.jsonl"), "--policy", filepath.Join(u, "policy.toml"),
		"--out", run, "--quiet", "--format", "tsv"); c == exitUsage {
		t.Fatalf("run: %s", e)
	}
	queue = filepath.Join(dir, "queue.jsonl")
	if c, _, e := apeval(t, "", "label", "queue", run, "--budget", "60", "--seed", "5", "--out", queue); c != 0 {
		t.Fatal(e)
	}
	return dir, run, queue
}

// --out that is /dev/stdout, a device or a symlink is written through, never
// replaced by a regular file; label serve --addr 0.0.0.0 is refused before
// the labels file exists (issue 35 point 4).
func TestOutDevicesAndLinksKept(t *testing.T) {
	t.Parallel()
	dir, run, queue := queueFixture(t)
	want, _ := os.ReadFile(queue)

	code, stdout, stderr := apeval(t, "", "label", "queue", run, "--budget", "60", "--seed", "5", "--out", "/dev/stdout")
	if code != 0 || stdout != string(want) {
		t.Fatalf("--out /dev/stdout: exit %d, %d bytes on stdout (want %d): %s", code, len(stdout), len(want), stderr)
	}

	target := filepath.Join(dir, "kept", "q.jsonl")
	os.Mkdir(filepath.Dir(target), 0o755)
	link := filepath.Join(dir, "q-link.jsonl")
	os.Symlink(target, link)
	if c, _, e := apeval(t, "", "label", "queue", run, "--budget", "60", "--seed", "5", "--out", link); c != 0 {
		t.Fatal(e)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("--out symlink replaced: %v", err)
	}
	if got, _ := os.ReadFile(target); string(got) != string(want) {
		t.Fatalf("the symlink's target holds %d bytes, want the queue", len(got))
	}

	// label queue and datasets import --out a null device made here (as
	// root; reports' FIFO test covers other users).
	dev := filepath.Join(dir, "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, int(1<<8|3)); err == nil {
		if c, _, e := apeval(t, "", "label", "queue", run, "--budget", "60", "--seed", "5", "--out", dev); c != 0 {
			t.Fatal(e)
		}
		// The fixture holds one bad line (exit 2); the good cases are written.
		src := filepath.Join("..", "..", "datasets", "importers", "testdata", "claude-code-hooks", "hooks.jsonl")
		if c, _, e := apeval(t, "", "datasets", "import", "--from", "claude-code-hooks", "--out", dev, src); c != 0 && c != exitUsage {
			t.Fatalf("datasets import --out device: %d %s", c, e)
		}
		if fi, _ := os.Lstat(dev); fi.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("--out device replaced by %v", fi.Mode())
		}
	}

	labels := filepath.Join(dir, "labels-ana.jsonl")
	code, _, stderr = apeval(t, "", "label", "serve", queue, "--run", run, "--labeler", "ana", "--labels", labels, "--addr", "0.0.0.0:0")
	if code != exitUsage || !strings.Contains(stderr, "loopback only") {
		t.Fatalf("--addr 0.0.0.0: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(labels); err == nil {
		t.Fatal("label serve created the labels file before refusing --addr")
	}
}

// A reused --out drops the earlier run's compare.parquet with the rest of
// it (issue 35 point 5).
func TestReusedOutDropsCompareParquet(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	if c, _, e := apeval(t, "", "run", "--baseline", sampleBaseline, "--out", out, "-q"); c == exitUsage {
		t.Fatal(e)
	}
	if _, err := os.Stat(filepath.Join(out, "compare.parquet")); err != nil {
		t.Fatalf("the run with a baseline wrote no compare.parquet: %v", err)
	}
	if c, _, e := apeval(t, "", "run", "--out", out, "-q"); c == exitUsage {
		t.Fatal(e)
	}
	if _, err := os.Stat(filepath.Join(out, "compare.parquet")); err == nil {
		t.Fatal("the earlier run's compare.parquet stayed beside the new run")
	}
}
