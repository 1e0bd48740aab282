package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/apeval/apeval/datasets"
)

// bucketOfSample writes the embedded sample into a directory used as a
// file:// bucket: cases/part-0.jsonl.zst, part-1.jsonl.gz, part-2.jsonl.zst
// (split on line boundaries), plus the plain file for comparison. It
// returns the bucket directory and the plain file's path.
func bucketOfSample(t *testing.T) (string, string) {
	t.Helper()
	all, err := io.ReadAll(datasets.SampleCases())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.jsonl")
	if err := os.WriteFile(plain, all, 0o644); err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(all, []byte("\n"))
	third := len(lines) / 3
	parts := [][]byte{bytes.Join(lines[:third], nil), bytes.Join(lines[third:2*third], nil), bytes.Join(lines[2*third:], nil)}
	bucket := filepath.Join(dir, "bucket")
	if err := os.MkdirAll(filepath.Join(bucket, "cases"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, p := range parts {
		var b bytes.Buffer
		name := filepath.Join(bucket, "cases", "part-"+string(rune('0'+i)))
		if i == 1 {
			zw := gzip.NewWriter(&b)
			_, _ = zw.Write(p)
			_ = zw.Close()
			name += ".jsonl.gz"
		} else {
			zw, _ := zstd.NewWriter(&b)
			_, _ = zw.Write(p)
			_ = zw.Close()
			name += ".jsonl.zst"
		}
		if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Not matched by the pattern below.
	if err := os.WriteFile(filepath.Join(bucket, "cases", "README.txt"), []byte("not a dataset\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return bucket, plain
}

func TestDatasetFromBucket(t *testing.T) {
	bucket, plain := bucketOfSample(t)
	pattern := "file://" + filepath.ToSlash(bucket) + "/cases/part-*.jsonl.*"

	for _, sub := range [][]string{{"datasets", "stats", "--format", "tsv"}, {"datasets", "validate"}} {
		c1, local, e1 := apeval(t, "", append(sub, plain)...)
		c2, remote, e2 := apeval(t, "", append(sub, pattern)...)
		if c1 != c2 || local != remote || local == "" && sub[1] == "stats" {
			t.Errorf("%v: local exit %d %q (%s), bucket exit %d %q (%s)", sub, c1, local, e1, c2, remote, e2)
		}
	}

	base := t.TempDir()
	pol := filepath.Join(base, "policy.toml")
	if err := os.WriteFile(pol, datasets.SamplePolicy(), 0o644); err != nil {
		t.Fatal(err)
	}
	single, fromBucket := filepath.Join(base, "local"), filepath.Join(base, "bucket")
	apeval(t, "", "run", "--policy", pol, "--dataset", plain, "--out", single, "-q")
	if code, _, stderr := apeval(t, "", "run", "--policy", pol, "--dataset", pattern, "--out", fromBucket, "-q"); code == exitUsage {
		t.Fatalf("run from the bucket: %s", stderr)
	}
	if a, b := comparableSummary(t, single), comparableSummary(t, fromBucket); a != b {
		t.Fatalf("the bucket's dataset gives another summary:\n--- local\n%s\n--- bucket\n%s", a, b)
	}
	// run.json names each object matched, in key order, with its hash.
	var info struct {
		Datasets []struct{ Name, SHA256 string } `json:"datasets"`
	}
	data, err := os.ReadFile(filepath.Join(fromBucket, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &info); err != nil {
		t.Fatal(err)
	}
	want := []string{"part-0.jsonl.zst", "part-1.jsonl.gz", "part-2.jsonl.zst"}
	if len(info.Datasets) != len(want) {
		t.Fatalf("run.json datasets %+v, want %v", info.Datasets, want)
	}
	for i, d := range info.Datasets {
		raw, _ := os.ReadFile(filepath.Join(bucket, "cases", want[i]))
		sum := sha256.Sum256(raw)
		if d.Name != "file://"+filepath.ToSlash(bucket)+"/cases/"+want[i] || d.SHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("dataset %d: %+v, want %s with the object's sha256", i, d, want[i])
		}
	}

	// Errors name the URL: no match, and a cloud this build does not link.
	if code, _, stderr := apeval(t, "", "datasets", "validate", "file://"+filepath.ToSlash(bucket)+"/cases/*.parquet"); code != exitUsage || !strings.Contains(stderr, "no object matches") {
		t.Errorf("no match: exit %d, %s", code, stderr)
	}
	if code, _, stderr := apeval(t, "", "run", "--policy", pol, "--dataset", "gs://b/cases.jsonl", "-q", "--out", filepath.Join(base, "gs")); code != exitUsage || !strings.Contains(stderr, "not linked") {
		t.Errorf("gs://: exit %d, %s", code, stderr)
	}
}

// A secret in a dataset URL's query never reaches run.json.
func TestMaskURLs(t *testing.T) {
	got := maskURLs([]string{"s3://b/k.jsonl?region=eu-west-1&aws_session_token=AbC123dEf456", "local.jsonl"})
	if strings.Contains(got[0], "AbC123dEf456") || !strings.Contains(got[0], "region=eu-west-1") || got[1] != "local.jsonl" {
		t.Fatalf("maskURLs = %v", got)
	}
}
