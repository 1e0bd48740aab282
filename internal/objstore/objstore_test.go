package objstore

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"gocloud.dev/blob"
)

// fileURL is a file:// URL for a local path (what tests use instead of a
// server: the same gocloud code path with the fileblob driver).
func fileURL(p string) string { return "file://" + filepath.ToSlash(p) }

func write(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestGlob(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"cases/b.jsonl.zst", "cases/a.jsonl.zst", "cases/a.jsonl", "cases/sub/c.jsonl.zst", "other/d.jsonl.zst"} {
		write(t, filepath.Join(dir, name), []byte("x\n"))
	}
	ctx := context.Background()
	got, err := Glob(ctx, fileURL(dir)+"/cases/*.jsonl.zst")
	if err != nil {
		t.Fatal(err)
	}
	// path.Match's * does not cross "/": sub/c is not matched; key order.
	want := []string{fileURL(dir) + "/cases/a.jsonl.zst", fileURL(dir) + "/cases/b.jsonl.zst"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("Glob = %v, want %v", got, want)
	}
	if got, err := Glob(ctx, fileURL(dir)+"/cases/a.jsonl"); err != nil || len(got) != 1 {
		t.Fatalf("plain object: %v %v", got, err)
	}
	if _, err := Glob(ctx, fileURL(dir)+"/cases/*.parquet"); err == nil || !strings.Contains(err.Error(), "no object matches") {
		t.Fatalf("no match: err = %v", err)
	}
	if _, err := Glob(ctx, fileURL(dir)+"/cases/missing.jsonl"); err == nil || !strings.Contains(err.Error(), "no such object") {
		t.Fatalf("missing: err = %v", err)
	}
}

// OpenReader streams: reading a 32 MiB object allocates a small fraction
// of its size (the blob reader's buffers), not a copy of the object.
func TestOpenReaderStreams(t *testing.T) {
	dir := t.TempDir()
	const size = 32 << 20
	data := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	write(t, filepath.Join(dir, "big.jsonl"), data)
	r, err := OpenReader(context.Background(), fileURL(dir)+"/big.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, make([]byte, 64<<10))
	runtime.ReadMemStats(&after)
	if err != nil || n != size {
		t.Fatalf("read %d bytes, err %v; want %d", n, err, size)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/8 {
		t.Fatalf("reading %d bytes allocated %d: the object was buffered, not streamed", size, alloc)
	}
	if _, err := OpenReader(context.Background(), fileURL(dir)+"/nope"); err == nil || !strings.Contains(err.Error(), "no such object") {
		t.Fatalf("missing object: err = %v", err)
	}
}

func TestUploadDownloadRoundTrip(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	files := map[string]string{
		"run.json":                    `{"run_id":"x"}`,
		"decisions.parquet":           "PAR1…PAR1",
		"judge=a/decisions.parquet":   "PAR1 a PAR1",
		"summary.md":                  "# summary\n",
		"empty.txt":                   "",
		"judge=b/deeper/metrics.json": "{}",
	}
	for name, body := range files {
		write(t, filepath.Join(src, filepath.FromSlash(name)), []byte(body))
	}
	bucket := t.TempDir()
	ctx := context.Background()
	dest := fileURL(bucket) + "/runs/x/shard-1"
	if err := Upload(ctx, src, dest); err != nil {
		t.Fatal(err)
	}
	if used, err := Exists(ctx, dest); err != nil || !used {
		t.Fatalf("Exists after upload = %v, %v", used, err)
	}
	if used, err := Exists(ctx, fileURL(bucket)+"/runs/x/shard-2"); err != nil || used {
		t.Fatalf("Exists of an unused prefix = %v, %v", used, err)
	}
	// A sibling whose name extends the prefix is not below it.
	if used, err := Exists(ctx, fileURL(bucket)+"/runs/x/shard"); err != nil || used {
		t.Fatalf("Exists of runs/x/shard (only runs/x/shard-1 exists) = %v, %v", used, err)
	}
	// No sidecar or temporary files beside the objects.
	var names []string
	_ = filepath.WalkDir(filepath.Join(bucket, "runs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(filepath.Join(bucket, "runs/x/shard-1"), p)
			names = append(names, filepath.ToSlash(rel))
		}
		return nil
	})
	if len(names) != len(files) {
		t.Fatalf("bucket holds %v, want exactly %d files", names, len(files))
	}
	back := filepath.Join(t.TempDir(), "run")
	if err := Download(ctx, dest, back, false); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		got, err := os.ReadFile(filepath.Join(back, filepath.FromSlash(name)))
		if err != nil || string(got) != body {
			t.Errorf("%s: got %q, %v; want %q", name, got, err, body)
		}
	}
	// A prefix without run.json is not a run directory.
	if err := Download(ctx, fileURL(bucket)+"/runs/x", t.TempDir(), false); err == nil || !errors.Is(err, ErrNoRun) {
		t.Fatalf("Download of a prefix without run.json: err = %v", err)
	}
}

// Upload sends run.json last: a reader that sees it sees every file.
func TestUploadCommitsRunJSONLast(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	for _, name := range []string{"a.parquet", "run.json", "z.md", "judge=j/run.json"} {
		write(t, filepath.Join(src, filepath.FromSlash(name)), []byte(name))
	}
	bucket := t.TempDir()
	ctx := context.Background()
	l, _ := Parse(fileURL(bucket))
	b, err := l.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// Cancel the upload as soon as the first run.json starts: the files
	// before it are there, run.json is not.
	// file:// buckets are rooted at "/": keys carry the directory.
	pre := strings.TrimPrefix(filepath.ToSlash(bucket), "/") + "/"
	var order []string
	ctx2, cancel := context.WithCancel(ctx)
	dst := fileURL(bucket) + "/p"
	err = uploadHook(ctx2, src, dst, func(key string) {
		order = append(order, strings.TrimPrefix(key, pre))
		if strings.HasSuffix(key, "run.json") {
			cancel()
		}
	})
	if err == nil {
		t.Fatal("cancelled upload reported success")
	}
	if strings.Join(order, ",") != "p/a.parquet,p/z.md,p/judge=j/run.json" {
		t.Fatalf("upload order %v: run.json files must come last", order)
	}
	for _, k := range []string{"p/a.parquet", "p/z.md"} {
		if ok, _ := b.Exists(ctx, pre+k); !ok {
			t.Errorf("%s missing", k)
		}
	}
	for _, k := range []string{"p/judge=j/run.json", "p/run.json"} {
		if ok, _ := b.Exists(ctx, pre+k); ok {
			t.Errorf("%s exists although its upload was cancelled", k)
		}
	}
}

// The atomicity guarantee: a write that fails part way leaves no object
// under its final name, neither a new one nor a truncated replacement of
// an old one.
func TestWriteObjectAbortLeavesNoObject(t *testing.T) {
	t.Parallel()
	bucket := t.TempDir()
	ctx := context.Background()
	l, _ := Parse(fileURL(bucket))
	b, err := l.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	pre := strings.TrimPrefix(filepath.ToSlash(bucket), "/") + "/"
	boom := errors.New("connection reset mid-file")
	failing := io.MultiReader(bytes.NewReader(bytes.Repeat([]byte("x"), 1<<20)), errReader{boom})
	if err := WriteObject(ctx, b, pre+"runs/decisions.parquet", failing); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want %v", err, boom)
	}
	if ok, _ := b.Exists(ctx, pre+"runs/decisions.parquet"); ok {
		t.Fatal("an aborted write left an object under its final name")
	}
	// An existing object survives an aborted overwrite unchanged.
	if err := WriteObject(ctx, b, pre+"runs/metrics.json", strings.NewReader("complete")); err != nil {
		t.Fatal(err)
	}
	failing = io.MultiReader(strings.NewReader("half"), errReader{boom})
	_ = WriteObject(ctx, b, pre+"runs/metrics.json", failing)
	got, err := b.ReadAll(ctx, pre+"runs/metrics.json")
	if err != nil || string(got) != "complete" {
		t.Fatalf("after an aborted overwrite: %q, %v", got, err)
	}
	// Nothing else appeared in the bucket (no temporary object).
	it := b.List(&blob.ListOptions{Prefix: pre})
	var keys []string
	for {
		o, err := it.Next(ctx)
		if err != nil {
			break
		}
		keys = append(keys, strings.TrimPrefix(o.Key, pre))
	}
	if strings.Join(keys, ",") != "runs/metrics.json" {
		t.Fatalf("bucket lists %v", keys)
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
