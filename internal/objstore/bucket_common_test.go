package objstore

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"gocloud.dev/blob"
)

// exerciseBucket runs what apeval does with a bucket against the prefix
// base (a URL of any linked scheme; nothing may exist below it yet):
// globbing, streaming a large object, the atomic write and its abort,
// Upload and Download of a run directory, Exists. TestBucketFile runs it
// on a file:// bucket; the e2e scripts run it against real S3-compatible,
// GCS and Azure servers (TestE2EBucket), so every scheme goes through the
// same assertions.
func exerciseBucket(t *testing.T, base string) {
	ctx := context.Background()
	l, err := Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	b, err := l.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	key := func(rel string) string { return path.Join(l.Key, rel) }
	url := func(rel string) string { return l.With(key(rel)) }
	put := func(rel, body string) {
		t.Helper()
		if err := WriteObject(ctx, b, key(rel), strings.NewReader(body)); err != nil {
			t.Fatalf("writing %s: %v", rel, err)
		}
	}
	listed := func(rel string) []string {
		t.Helper()
		var out []string
		it := b.List(&blob.ListOptions{Prefix: key(rel) + "/"})
		for {
			o, err := it.Next(ctx)
			if err == io.EOF {
				return out
			}
			if err != nil {
				t.Fatalf("listing %s: %v", rel, err)
			}
			out = append(out, strings.TrimPrefix(o.Key, key(rel)+"/"))
		}
	}

	if used, err := Exists(ctx, base); err != nil || used {
		t.Fatalf("Exists(%s) before any write = %v, %v; want an empty prefix", base, used, err)
	}

	// Globbing: key order, * does not cross "/", only the pattern's matches.
	for _, rel := range []string{"cases/b.jsonl.zst", "cases/a.jsonl.zst", "cases/a.jsonl", "cases/sub/c.jsonl.zst", "other/d.jsonl.zst"} {
		put(rel, "x\n")
	}
	got, err := Glob(ctx, url("cases/*.jsonl.zst"))
	if err != nil {
		t.Fatal(err)
	}
	if want := url("cases/a.jsonl.zst") + "|" + url("cases/b.jsonl.zst"); strings.Join(got, "|") != want {
		t.Fatalf("Glob = %v, want %s", got, want)
	}
	if got, err := Glob(ctx, url("cases/a.jsonl")); err != nil || len(got) != 1 {
		t.Fatalf("Glob of a plain object: %v, %v", got, err)
	}
	if _, err := Glob(ctx, url("cases/*.parquet")); err == nil || !strings.Contains(err.Error(), "no object matches") {
		t.Fatalf("Glob without a match: err = %v", err)
	}
	if _, err := Glob(ctx, url("cases/missing.jsonl")); err == nil || !strings.Contains(err.Error(), "no such object") {
		t.Fatalf("Glob of a missing object: err = %v", err)
	}
	if _, err := OpenReader(ctx, url("cases/nope")); err == nil || !strings.Contains(err.Error(), "no such object") {
		t.Fatalf("OpenReader of a missing object: err = %v", err)
	}

	// Streaming: reading a 16 MiB object allocates a fraction of it.
	const size = 16 << 20
	data := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	if err := WriteObject(ctx, b, key("big.jsonl"), bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(ctx, url("big.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	h := &prefixHash{}
	n, err := io.CopyBuffer(h, struct{ io.Reader }{r}, make([]byte, 64<<10))
	runtime.ReadMemStats(&after)
	_ = r.Close()
	if err != nil || n != size || !h.ok {
		t.Fatalf("read %d bytes (content intact: %v), err %v; want %d", n, h.ok, err, size)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/4 {
		t.Fatalf("reading %d bytes allocated %d: the object was buffered, not streamed", size, alloc)
	}

	// The atomic write: a write failing part way (after more than one
	// upload part or block) leaves no object, and an aborted overwrite
	// leaves the old object unchanged.
	boom := errors.New("connection reset mid-file")
	failing := io.MultiReader(bytes.NewReader(bytes.Repeat([]byte("x"), 20<<20)), errReader{boom})
	if err := WriteObject(ctx, b, key("abort/decisions.parquet"), failing); !errors.Is(err, boom) {
		t.Fatalf("aborted write: err = %v, want %v", err, boom)
	}
	if ok, err := b.Exists(ctx, key("abort/decisions.parquet")); ok || err != nil {
		t.Fatalf("an aborted write left an object under its final name (%v, %v)", ok, err)
	}
	put("abort/metrics.json", "complete")
	failing = io.MultiReader(strings.NewReader("half"), errReader{boom})
	if err := WriteObject(ctx, b, key("abort/metrics.json"), failing); !errors.Is(err, boom) {
		t.Fatalf("aborted overwrite: err = %v", err)
	}
	if body, err := b.ReadAll(ctx, key("abort/metrics.json")); err != nil || string(body) != "complete" {
		t.Fatalf("after an aborted overwrite: %q, %v", body, err)
	}
	if got := strings.Join(listed("abort"), ","); got != "metrics.json" {
		t.Fatalf("after the aborted writes the prefix lists %q, want only metrics.json", got)
	}

	// A run directory up and down, run.json last.
	src := t.TempDir()
	files := map[string]string{
		"run.json":                    `{"run_id":"x"}`,
		"decisions.parquet":           "PAR1…PAR1",
		"judge=a/decisions.parquet":   "PAR1 a PAR1",
		"empty.txt":                   "",
		"judge=b/deeper/metrics.json": "{}",
	}
	for name, body := range files {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var order []string
	if err := uploadHook(ctx, src, url("runs/x/shard-1"), func(k string) { order = append(order, strings.TrimPrefix(k, key("runs/x/shard-1")+"/")) }); err != nil {
		t.Fatal(err)
	}
	if len(order) != len(files) || order[len(order)-1] != "run.json" {
		t.Fatalf("upload order %v: run.json must come last", order)
	}
	if got := len(listed("runs/x/shard-1")); got != len(files) {
		t.Fatalf("the prefix lists %d objects (%v), want %d", got, listed("runs/x/shard-1"), len(files))
	}
	for _, c := range []struct {
		rel  string
		want bool
	}{{"runs/x/shard-1", true}, {"runs/x/shard-2", false}, {"runs/x/shard", false}} {
		if used, err := Exists(ctx, url(c.rel)); err != nil || used != c.want {
			t.Errorf("Exists(%s) = %v, %v; want %v", c.rel, used, err, c.want)
		}
	}
	back := filepath.Join(t.TempDir(), "run")
	if err := Download(ctx, url("runs/x/shard-1"), back, false); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if got, err := os.ReadFile(filepath.Join(back, filepath.FromSlash(name))); err != nil || string(got) != body {
			t.Errorf("%s: got %q, %v; want %q", name, got, err, body)
		}
	}
	if err := Download(ctx, url("runs/x"), t.TempDir(), false); !errors.Is(err, ErrNoRun) {
		t.Fatalf("Download of a prefix without run.json: err = %v", err)
	}

	// The claim of a prefix is a conditional create: a second claim fails
	// while the first holds it; released, nothing is left.
	claimed := url("claimed")
	release, err := Claim(ctx, claimed)
	if err != nil {
		t.Fatalf("claim: %v", err)
	}
	if _, err := Claim(ctx, claimed); !errors.Is(err, ErrPrefixInUse) {
		t.Fatalf("second claim: %v", err)
	}
	if err := release(ctx); err != nil {
		t.Fatalf("release: %v", err)
	}
	if used, err := Exists(ctx, claimed); err != nil || used {
		t.Fatalf("released claim left objects: %v %v", used, err)
	}
}

// prefixHash checks, as it is written, that the bytes are the repeated
// 16-byte pattern of exerciseBucket's big object.
type prefixHash struct {
	off int64
	ok  bool
	bad bool
}

func (h *prefixHash) Write(p []byte) (int, error) {
	const pat = "0123456789abcdef"
	for i, c := range p {
		if c != pat[(h.off+int64(i))%16] {
			h.bad = true
		}
	}
	h.off += int64(len(p))
	h.ok = !h.bad
	return len(p), nil
}

func TestBucketFile(t *testing.T) {
	exerciseBucket(t, fileURL(t.TempDir())+"/p")
}
