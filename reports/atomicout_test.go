package reports

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/apeval/apeval/reports/rundir"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// WriteFileAtomic renames only over regular files: a symlink keeps its
// link and its target is written, a FIFO and a device are written through
// and stay what they are (issue 35 point 4).
func TestWriteFileAtomicKeepsLinksAndDevices(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()

	// A regular file is replaced whole.
	reg := filepath.Join(dir, "reg.jsonl")
	os.WriteFile(reg, []byte("old old old\n"), 0o644)
	if err := rundir.WriteFileAtomic(reg, writeString("new\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(reg); string(b) != "new\n" {
		t.Fatalf("regular: %q", b)
	}

	// A symlink to a file in another directory: the link stays, the
	// target holds the output.
	other := filepath.Join(dir, "other")
	os.Mkdir(other, 0o755)
	target := filepath.Join(other, "queue.jsonl")
	os.WriteFile(target, []byte("old\n"), 0o644)
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink("other/queue.jsonl", link); err != nil {
		t.Fatal(err)
	}
	if err := rundir.WriteFileAtomic(link, writeString("through the link\n")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced: %v %v", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(target); string(b) != "through the link\n" {
		t.Fatalf("the link's target holds %q", b)
	}
	// A dangling link: its target is created, the link kept.
	dangling := filepath.Join(dir, "dangling.jsonl")
	os.Symlink(filepath.Join(other, "new.jsonl"), dangling)
	if err := rundir.WriteFileAtomic(dangling, writeString("created\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(other, "new.jsonl")); string(b) != "created\n" {
		t.Fatalf("dangling link's target: %q", b)
	}
	if fi, _ := os.Lstat(dangling); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the dangling symlink was replaced")
	}

	// A FIFO is written through: its reader gets the output.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := rundir.WriteFileAtomic(fifo, writeString("to the reader\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := r.Read(buf)
	if string(buf[:n]) != "to the reader\n" {
		t.Fatalf("the FIFO's reader got %q", buf[:n])
	}
	if fi, _ := os.Lstat(fifo); fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v", fi.Mode())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(left) > 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

// A character device (a null device made in a temporary directory, as
// root) stays a device: `--out /dev/null` never replaces /dev/null.
func TestWriteFileAtomicKeepsCharDevice(t *testing.T) {
	t.Parallel()
	dev := filepath.Join(t.TempDir(), "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, int(1<<8|3)); err != nil {
		t.Skipf("mknod needs root (the FIFO case of TestWriteFileAtomicKeepsLinksAndDevices covers non-regular files): %v", err)
	}
	if err := rundir.WriteFileAtomic(dev, writeString("discarded\n")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(dev); fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("the device was replaced by %v", fi.Mode())
	}
}
