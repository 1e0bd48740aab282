package rundir

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// A run that died between committing and writing its reports left the
// earlier run in EarlierDir: the next run into the directory brings it
// back before it starts.
func TestClaimRestoresEarlierRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stash := filepath.Join(dir, EarlierDir)
	if err := os.Mkdir(stash, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		filepath.Join(dir, RunFile):       `{"run_id":"new"}`,
		filepath.Join(dir, "notes.txt"):   "mine",
		filepath.Join(stash, RunFile):     `{"run_id":"old"}`,
		filepath.Join(stash, SummaryMD):   "old summary",
		filepath.Join(stash, "chart.svg"): "<svg/>",
	} {
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := claimRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.release()
	for name, want := range map[string]string{RunFile: `{"run_id":"old"}`, SummaryMD: "old summary", "chart.svg": "<svg/>", "notes.txt": "mine"} {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != want {
			t.Errorf("%s: %q, %v", name, got, err)
		}
	}
	if _, err := os.Stat(stash); !os.IsNotExist(err) {
		t.Errorf("%s is still there: %v", EarlierDir, err)
	}
}

// The producer's error comes back as it is whether the target is a file
// or a device: `datasets import SRC -o /dev/null` printed "write
// /dev/null: the format of SRC could not be told", blaming the device.
func TestWriteFileAtomicProducerError(t *testing.T) {
	t.Parallel()
	boom := errors.New("the format of src could not be told")
	for _, p := range []string{filepath.Join(t.TempDir(), "out.jsonl"), os.DevNull} {
		err := WriteFileAtomic(p, func(io.Writer) error { return boom })
		if err != boom {
			t.Errorf("%s: %v, want the producer's error as it is", p, err)
		}
	}
}
