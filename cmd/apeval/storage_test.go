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
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/runplan"
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
	wholeProcess(t)
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

	// report finds the objects again (same SHA-256) to show the listed
	// cases' tool arguments.
	rep := filepath.Join(base, "rep")
	if code, _, stderr := apeval(t, "", "report", "--out", rep, fromBucket); code == exitUsage {
		t.Fatal(stderr)
	}
	if md, _ := os.ReadFile(filepath.Join(rep, "summary.md")); len(md) == 0 || bytes.Contains(md, []byte("not available unchanged")) {
		t.Errorf("report could not read the bucket's dataset again:\n%.600s", md)
	}

	// Errors name the URL: no match, and Google credentials that cannot
	// be found (a credentials file that is not there: no network is
	// tried), named with where they were looked for, nothing on stdout.
	if code, _, stderr := apeval(t, "", "datasets", "validate", "file://"+filepath.ToSlash(bucket)+"/cases/*.parquet"); code != exitUsage || !strings.Contains(stderr, "no object matches") {
		t.Errorf("no match: exit %d, %s", code, stderr)
	}
	t.Setenv("STORAGE_EMULATOR_HOST", "")
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", filepath.Join(base, "no-such-key.json"))
	code, stdout, stderr := apeval(t, "", "run", "--policy", pol, "--dataset", "gs://b/cases/*.jsonl", "-q", "--out", filepath.Join(base, "gs"))
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, "gs://b/cases/*.jsonl") || !strings.Contains(stderr, "no Google Cloud credentials") || !strings.Contains(stderr, "no-such-key.json") {
		t.Errorf("gs:// without credentials: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
}

// A secret in a dataset URL's query never reaches run.json.
func TestMaskURLs(t *testing.T) {
	t.Parallel()
	got := runplan.MaskURLs([]string{"s3://b/k.jsonl?region=eu-west-1&aws_session_token=AbC123dEf456", "local.jsonl"})
	if strings.Contains(got[0], "AbC123dEf456") || !strings.Contains(got[0], "region=eu-west-1") || got[1] != "local.jsonl" {
		t.Fatalf("maskURLs = %v", got)
	}
}

// Shards written to a bucket, merged from it: the same summary and
// decisions as one local run; gate, report and compare read the prefixes.
func TestRunToBucketAndMergeFromIt(t *testing.T) {
	wholeProcess(t)
	t.Parallel()
	base := t.TempDir()
	bucket := filepath.Join(base, "bucket")
	if err := os.MkdirAll(bucket, 0o755); err != nil {
		t.Fatal(err)
	}
	url := "file://" + filepath.ToSlash(bucket) + "/runs/x"
	single := filepath.Join(base, "single")
	apeval(t, "", "run", "--out", single, "-q")

	var shards []string
	for _, i := range []string{"1", "2", "3"} {
		dest := url + "/shard-" + i
		code, _, stderr := apeval(t, "", "run", "--shard", i+"/3", "--out", dest, "--format", "tsv")
		if code == exitUsage {
			t.Fatalf("shard %s: %s", i, stderr)
		}
		if !strings.Contains(stderr, "apeval: uploaded to "+dest) {
			t.Errorf("shard %s: stderr does not say where it uploaded:\n%s", i, stderr)
		}
		shards = append(shards, dest)
	}
	// The prefix holds a complete run directory (run.json, decisions,
	// reports) and nothing else: no temporary or sidecar files.
	entries, err := os.ReadDir(filepath.Join(bucket, "runs/x/shard-2"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		if strings.HasSuffix(e.Name(), ".tmp") || strings.HasSuffix(e.Name(), ".attrs") {
			t.Errorf("stray file %s in the bucket", e.Name())
		}
	}
	for _, want := range []string{"run.json", "decisions.parquet", "summary.json"} {
		if !slices.Contains(names, want) {
			t.Errorf("shard-2 holds %v, no %s", names, want)
		}
	}
	// run.json records the bucket URL as the out directory, not the
	// temporary directory the run was written to first.
	data, _ := os.ReadFile(filepath.Join(bucket, "runs/x/shard-2/run.json"))
	if !strings.Contains(string(data), `"out": "`+url+`/shard-2"`) || strings.Contains(string(data), os.TempDir()+"/apeval-out-") {
		t.Errorf("run.json settings.out is not the bucket URL:\n%s", data)
	}

	// A prefix already used is refused before any work.
	if code, _, stderr := apeval(t, "", "run", "--shard", "1/3", "--out", shards[0], "-q"); code != exitUsage || !strings.Contains(stderr, "already holds objects") {
		t.Errorf("reused prefix: exit %d, %s", code, stderr)
	}

	merged := filepath.Join(base, "merged")
	code, _, stderr := apeval(t, "", append([]string{"merge", "--out", merged}, shards...)...)
	if code == exitUsage {
		t.Fatalf("merge from the bucket: %s", stderr)
	}
	if a, b := comparableSummary(t, single), comparableSummary(t, merged); a != b {
		t.Fatalf("merged-from-bucket summary differs from the single run:\n--- single\n%s\n--- merged\n%s", a, b)
	}
	if n1, n2 := len(readResults(t, single)), len(readResults(t, merged)); n1 != n2 || n1 == 0 {
		t.Errorf("single run has %d results, merged %d", n1, n2)
	}

	// merge can write to the bucket too; the merged prefix reads back
	// with the same summary.
	code, _, stderr = apeval(t, "", append([]string{"merge", "--out", url + "/merged"}, shards...)...)
	if code == exitUsage || !strings.Contains(stderr, "uploaded to "+url+"/merged") {
		t.Fatalf("merge to the bucket: exit %d, %s", code, stderr)
	}
	back := filepath.Join(base, "merged-back")
	if code, _, stderr := apeval(t, "", "report", "--out", back, url+"/merged"); code == exitUsage {
		t.Fatal(stderr)
	}
	if a, b := comparableSummary(t, merged), comparableSummary(t, back); a != b {
		t.Fatalf("merged prefix reads back differently:\n%s\n---\n%s", a, b)
	}
	ents, _ := os.ReadDir(filepath.Join(bucket, "runs/x/merged"))
	for _, e := range ents {
		if strings.Contains(e.Name(), "lock") {
			t.Errorf("the run-dir lock %s was uploaded", e.Name())
		}
	}

	// gate and compare of a prefix give what they give on a local copy.
	local := filepath.Join(base, "shard1-local")
	if code, _, stderr := apeval(t, "", "run", "--shard", "1/3", "--out", local, "-q"); code == exitUsage {
		t.Fatal(stderr)
	}
	c1, o1, _ := apeval(t, "", "gate", local)
	c2, o2, e2 := apeval(t, "", "gate", shards[0])
	if c1 != c2 || o1 != o2 || o1 == "" {
		t.Errorf("gate: local exit %d %q, bucket exit %d %q (%s)", c1, o1, c2, o2, e2)
	}
	cmpArgs := []string{"compare", "--format", "tsv", "--baseline", "recorded/ollama/qwen2.5:3b"}
	c1, o1, _ = apeval(t, "", append(cmpArgs, local)...)
	c2, o2, e2 = apeval(t, "", append(cmpArgs, shards[0])...)
	if c1 != c2 || o1 != o2 || o1 == "" {
		t.Errorf("compare: local exit %d, bucket exit %d (%s)\n%s\n---\n%s", c1, c2, e2, o1, o2)
	}
	repOut := filepath.Join(base, "rep")
	if code, _, stderr := apeval(t, "", "report", "--out", repOut, shards[0]); code == exitUsage {
		t.Errorf("report --out of a prefix: %s", stderr)
	} else if _, err := os.Stat(filepath.Join(repOut, "summary.json")); err != nil {
		t.Errorf("report --out wrote no summary.json: %v", err)
	}
	if code, _, stderr := apeval(t, "", "report", shards[0]); code != exitUsage || !strings.Contains(stderr, "needs --out") {
		t.Errorf("report of a prefix without --out: exit %d, %s", code, stderr)
	}

	// A prefix whose upload never reached run.json is not a run directory.
	partial := filepath.Join(bucket, "runs/y/shard-1")
	if err := os.MkdirAll(partial, 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(partial, "decisions.parquet"), []byte("PAR1"), 0o644)
	if code, _, stderr := apeval(t, "", "gate", "file://"+filepath.ToSlash(partial)); code != exitUsage || !strings.Contains(stderr, "no run.json") {
		t.Errorf("gate of an unfinished upload: exit %d, %s", code, stderr)
	}
}

// A run that fails before committing run.json uploads nothing; the hive
// layout puts the run under run_id=<id> below the URL.
func TestRunToBucketFailureAndHive(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	bucket := filepath.Join(base, "bucket")
	_ = os.MkdirAll(bucket, 0o755)
	bad := filepath.Join(base, "bad.jsonl")
	_ = os.WriteFile(bad, []byte("{not json\n"), 0o644)
	pol := filepath.Join(base, "policy.toml")
	_ = os.WriteFile(pol, datasets.SamplePolicy(), 0o644)
	if code, _, _ := apeval(t, "", "run", "--policy", pol, "--dataset", bad, "--out", "file://"+filepath.ToSlash(bucket)+"/failed", "-q"); code != exitUsage {
		t.Fatalf("bad dataset: exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(bucket, "failed")); !os.IsNotExist(err) {
		t.Errorf("a failed run uploaded something: %v", err)
	}
	if code, _, stderr := apeval(t, "", "run", "--out-layout", "hive", "--run-id", "r1", "--out", "file://"+filepath.ToSlash(bucket)+"/table", "-q"); code == exitUsage {
		t.Fatal(stderr)
	}
	if _, err := os.Stat(filepath.Join(bucket, "table", "run_id=r1", "run.json")); err != nil {
		t.Errorf("hive layout in a bucket: %v", err)
	}
}

// Two runs started at once into one bucket prefix: one writes it, the
// other fails (exit 2) and writes nothing there.
func TestConcurrentRunsOneBucketPrefix(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dest := "file://" + filepath.ToSlash(base) + "/b/same"
	type res struct {
		code   int
		stderr string
	}
	results := make(chan res, 2)
	start := make(chan struct{})
	for i := 0; i < 2; i++ {
		go func() {
			<-start
			code, _, stderr := apeval(t, "", "run", "--out", dest, "-q", "--no-cache", "--format", "tsv")
			results <- res{code, stderr}
		}()
	}
	close(start)
	var ok, refused int
	for i := 0; i < 2; i++ {
		r := <-results
		switch {
		case r.code == exitUsage && (strings.Contains(r.stderr, "in use by another run") || strings.Contains(r.stderr, "already holds objects")):
			refused++
		case r.code != exitUsage:
			ok++
		default:
			t.Errorf("exit %d: %s", r.code, r.stderr)
		}
	}
	if ok != 1 || refused != 1 {
		t.Fatalf("%d runs wrote the prefix, %d were refused", ok, refused)
	}
	if _, err := os.Stat(filepath.Join(base, "b", "same", ".apeval-claim")); !os.IsNotExist(err) {
		t.Errorf("the claim object stayed: %v", err)
	}
}

// With --out file://…, stderr never names the temporary directory (gone
// when the run ends), and --quiet keeps the line saying where the run went.
func TestBucketRunMessages(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dest := "file://" + filepath.ToSlash(base) + "/b/run"
	_, _, stderr := apeval(t, "", "run", "--out", dest, "-q", "--no-cache", "--format", "tsv")
	if strings.Contains(stderr, os.TempDir()+"/apeval-out-") || strings.Contains(stderr, "apeval-out-") {
		t.Errorf("stderr names the temporary directory:\n%s", stderr)
	}
	if !strings.Contains(stderr, "apeval: uploaded to "+dest) {
		t.Errorf("--quiet hides where the run went:\n%s", stderr)
	}
}
