package objstore

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A run staged for a file:// prefix: uploaded once it committed run.json,
// the prefix then refused to a second run; an uncommitted run uploads
// nothing and leaves the prefix free. FetchAll brings it back.
func TestStageAndFetchAll(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	remote := "file://" + filepath.ToSlash(t.TempDir()) + "/runs/r1"

	// Nothing committed: nothing uploaded, the claim released.
	tmp, finish, err := Stage(ctx, remote)
	if err != nil {
		t.Fatal(err)
	}
	runErr := errors.New("bad dataset")
	if up, err := finish(filepath.Join(tmp, "run"), runErr); up || !errors.Is(err, runErr) {
		t.Fatalf("uncommitted: uploaded %v, %v", up, err)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("temporary directory left: %v", err)
	}

	tmp, finish, err = Stage(ctx, remote)
	if err != nil {
		t.Fatalf("the prefix stayed claimed: %v", err)
	}
	// A second run at once finds the prefix claimed (the claim is an
	// object below it).
	if _, _, err := Stage(ctx, remote); err == nil || !strings.Contains(err.Error(), "give each run its own prefix") {
		t.Errorf("concurrent stage: %v", err)
	}
	local := filepath.Join(tmp, "run")
	if err := os.MkdirAll(local, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{Commit: `{"run_id":"r1"}`, "summary.md": "# ok\n"} {
		if err := os.WriteFile(filepath.Join(local, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if up, err := finish(local, nil); !up || err != nil {
		t.Fatalf("committed: uploaded %v, %v", up, err)
	}
	if _, _, err := Stage(ctx, remote); err == nil || !strings.Contains(err.Error(), "already holds objects; give each run its own prefix") {
		t.Errorf("a used prefix: %v", err)
	}

	dirs, cleanup, err := FetchAll(ctx, []string{"local/dir", remote})
	if err != nil {
		t.Fatal(err)
	}
	if dirs[0] != "local/dir" {
		t.Errorf("a local path changed: %q", dirs[0])
	}
	b, err := os.ReadFile(filepath.Join(dirs[1], "summary.md"))
	if err != nil || string(b) != "# ok\n" {
		t.Errorf("fetched %q %v", b, err)
	}
	cleanup()
	if _, err := os.Stat(dirs[1]); !os.IsNotExist(err) {
		t.Errorf("download left after cleanup: %v", err)
	}
	if _, _, err := FetchAll(ctx, []string{remote + "-none"}); err == nil {
		t.Error("fetching an empty prefix succeeded")
	}
}

// A staged run's log names the bucket, never the temporary directory; the
// line saying where the files are locally is left out; a line split over
// writes is passed on whole, and flush writes the last unfinished one.
func TestStagedLog(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	local, remote := "/tmp/apeval-stage-123/run", "s3://bucket/runs/r1"
	log, flush := StagedLog(&b, local, remote, "apeval: reports in ")
	for _, w := range []string{
		"apeval: decisions written to " + local + "\napeval: reports in " + local,
		"/summary.md\napeval: warning: cannot read " + local + "/x",
		".jsonl\nunfinished " + local,
	} {
		if n, err := io.WriteString(log, w); err != nil || n != len(w) {
			t.Fatalf("write %q: %d, %v", w, n, err)
		}
	}
	want := "apeval: decisions written to " + remote + "\napeval: warning: cannot read " + remote + "/x.jsonl\n"
	if b.String() != want {
		t.Fatalf("before flush:\n got %q\nwant %q", b.String(), want)
	}
	flush()
	if got := strings.TrimPrefix(b.String(), want); got != "unfinished "+remote {
		t.Errorf("flushed %q", got)
	}
	flush() // nothing left: nothing more
	if !strings.HasSuffix(b.String(), "unfinished "+remote) {
		t.Errorf("second flush wrote: %q", b.String())
	}
}
