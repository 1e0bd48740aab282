//go:build e2e

package objstore

import (
	"context"
	"errors"
	"io"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// slowReader yields left bytes in 256 KiB steps, a pause after each,
// calling tick once when only at bytes are left.
type slowReader struct {
	left, at int
	tick     func()
	step     time.Duration
}

func (s *slowReader) Read(p []byte) (int, error) {
	if s.left == 0 {
		return 0, io.EOF
	}
	n := min(len(p), 256<<10, s.left)
	for i := range p[:n] {
		p[i] = 'x'
	}
	s.left -= n
	if s.tick != nil && s.left <= s.at {
		s.tick()
		s.tick = nil
	}
	time.Sleep(s.step)
	return n, nil
}

// TestE2ES3KillMidUpload is run by .ci/e2e-s3.sh against a real S3 server
// (versitygw): it streams a 24 MiB object through WriteObject The write must
// fail; the script then restarts the server and lists the bucket to check
// that no object with this key exists.
func TestE2ES3KillMidUpload(t *testing.T) {
	t.Parallel()
	base, pidText := os.Getenv("APEVAL_E2E_S3_URL"), os.Getenv("APEVAL_E2E_S3_PID")
	key := os.Getenv("APEVAL_E2E_S3_KILL_KEY")
	if base == "" || pidText == "" || key == "" {
		t.Fatal("run by .ci/e2e-s3.sh: APEVAL_E2E_S3_URL, APEVAL_E2E_S3_PID and APEVAL_E2E_S3_KILL_KEY are not set")
	}
	killMidUpload(t, base, pidText, key)
}

// killMidUpload streams a 24 MiB object to key below the prefix base
// through WriteObject (at least one S3 part, GCS chunk or Azure block
// reaches the server first) and SIGKILLs the server process pidText after
// 21 MiB were read. The write must fail, promptly; the calling script then
// restarts the server and lists the bucket.
func killMidUpload(t *testing.T, base, pidText, key string) {
	pid, err := strconv.Atoi(pidText)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	b, err := l.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	killed := false
	r := &slowReader{left: 24 << 20, at: 3 << 20, step: 10 * time.Millisecond, tick: func() {
		killed = syscall.Kill(pid, syscall.SIGKILL) == nil
	}}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	err = WriteObject(ctx, b, l.Key+"/"+key, r)
	if !killed {
		t.Fatalf("could not kill the server (pid %d)", pid)
	}
	if err == nil {
		t.Fatal("the upload reported success although the server was killed half way")
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the upload hung until the deadline: %v", err)
	}
	t.Logf("upload failed as it should: %v", err)
}
