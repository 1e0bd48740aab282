package source

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
)

func samplePolicy(t *testing.T) *replay.Policy {
	t.Helper()
	p, _, _, err := replay.ReadPolicy("")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func sampleBytes(t *testing.T) []byte {
	t.Helper()
	b, err := io.ReadAll(datasets.SampleCases())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func count(t *testing.T, r *datasets.Reader) int {
	t.Helper()
	defer r.Close()
	n := 0
	for r.Scan() {
		if r.Record().Case != nil {
			n++
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestOpenErrorsNameThePath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := Open([]string{dir}, nil); err == nil || err.Error() != "--dataset "+dir+" is a directory; give the JSONL files" {
		t.Errorf("directory: %v", err)
	}
	missing := filepath.Join(dir, "none.jsonl")
	if _, err := Open([]string{missing}, nil); err == nil || !strings.Contains(err.Error(), missing) || !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}

// The sample, a file and stdin read the same cases; stdin is spooled so
// it can be read twice, and the spool is removed by Cleanup.
func TestSourcesReadTheSameCases(t *testing.T) {
	t.Parallel()
	pol := samplePolicy(t)
	data := sampleBytes(t)
	want := bytes.Count(data, []byte{'\n'})

	s, err := Open(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, s.Reader(pol)); n != want {
		t.Errorf("sample: %d cases, want %d", n, want)
	}
	if refs := s.Refs(); len(refs) != 1 || refs[0].Name != datasets.SampleName || refs[0].SHA256 != datasets.SampleSHA256() {
		t.Errorf("sample refs: %+v", refs)
	}
	if s.ApproxCases() != 0 {
		t.Error("the sample has an approximate count")
	}

	file := filepath.Join(t.TempDir(), "cases.jsonl")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = Open([]string{file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, s.Reader(pol)); n != want {
		t.Errorf("file: %d cases", n)
	}
	sum := sha256.Sum256(data)
	if refs := s.Refs(); refs[0].Name != file || refs[0].SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("file refs: %+v", refs)
	}
	if s.ApproxCases() != int64(want) {
		t.Errorf("approx %d, want %d", s.ApproxCases(), want)
	}

	s, err = Open([]string{"-"}, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.ScanStats(pol, false)
	if err != nil || st.Cases != want {
		t.Fatalf("stdin stats: %+v %v", st, err)
	}
	if n := count(t, s.Reader(pol)); n != want {
		t.Errorf("stdin read again: %d cases", n)
	}
	if refs := s.Refs(); refs[0].Name != datasets.StdinName || s.ApproxCases() != 0 {
		t.Errorf("stdin refs %+v, approx %d", refs, s.ApproxCases())
	}
	spool := s.temp
	if _, err := os.Stat(spool); err != nil {
		t.Fatalf("no spool: %v", err)
	}
	s.Cleanup()
	if _, err := os.Stat(spool); !os.IsNotExist(err) {
		t.Errorf("spool left behind: %v", err)
	}
}

// A compressed file has no approximate count (its lines are unknown
// without decompressing); it still reads.
func TestApproxCasesCompressed(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(sampleBytes(t)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "cases.jsonl.gz")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open([]string{file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.ApproxCases() != 0 {
		t.Errorf("compressed: approx %d", s.ApproxCases())
	}
	if n := count(t, s.Reader(samplePolicy(t))); n == 0 {
		t.Error("compressed file read no case")
	}
}

// A bucket pattern (here a file:// bucket) is replaced by the objects it
// matches, in key order; they read like local files.
func TestOpenExpandsBucketPatterns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := sampleBytes(t)
	lines := bytes.SplitAfter(data, []byte{'\n'})
	half := len(lines) / 2
	if err := os.WriteFile(filepath.Join(dir, "a.jsonl"), bytes.Join(lines[:half], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.jsonl"), bytes.Join(lines[half:], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "c.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open([]string{"file://" + filepath.ToSlash(dir) + "/*.jsonl"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.paths) != 2 || !strings.HasSuffix(s.paths[0], "/a.jsonl") || !strings.HasSuffix(s.paths[1], "/b.jsonl") {
		t.Fatalf("expanded to %v", s.paths)
	}
	if n := count(t, s.Reader(samplePolicy(t))); n != bytes.Count(data, []byte{'\n'}) {
		t.Errorf("bucket objects: %d cases", n)
	}
}

// TestWeakLabels: weak labels come in dataset order; an unreadable line
// is handed over and refuses the whole read.
func TestWeakLabels(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "w.jsonl")
	good := `{"id":"a","session_id":"s","hook_point":"tool.before","tool":{"name":"Bash","arguments":{"command":"ls"}},"weak_labels":{"r2":"match","r1":"no_match"}}` + "\n" +
		`{"id":"b","session_id":"s","hook_point":"tool.before","tool":{"name":"Bash","arguments":{"command":"ls"}},"weak_labels":{"r1":"match"}}` + "\n"
	if err := os.WriteFile(p, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	weak, err := WeakLabels([]string{p}, nil, func(err error) { t.Errorf("bad line: %v", err) })
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range weak {
		got = append(got, w.CaseID+"/"+w.RuleID+"="+string(w.Label))
	}
	if want := "a/r1=no_match a/r2=match b/r1=match"; strings.Join(got, " ") != want {
		t.Errorf("weak labels %q, want %q", strings.Join(got, " "), want)
	}
	if err := os.WriteFile(p, []byte(good+"not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var bad []string
	_, err = WeakLabels([]string{p}, nil, func(err error) { bad = append(bad, err.Error()) })
	if err == nil || err.Error() != "1 unreadable dataset lines" || len(bad) != 1 || !strings.Contains(bad[0], "w.jsonl:3") {
		t.Errorf("unreadable line: err %v, handed %q", err, bad)
	}
}

// TestTools: the sample's tools, each with its cases, under the sample
// policy's categories; the counts add up to the sample.
func TestTools(t *testing.T) {
	t.Parallel()
	pol := samplePolicy(t)
	s, err := Open(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := s.Tools(pol)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rows {
		n += r.Cases
	}
	if want := bytes.Count(sampleBytes(t), []byte{'\n'}); len(rows) < 2 || n != want {
		t.Errorf("%d tools, %d cases; want several tools and %d cases", len(rows), n, want)
	}
}
