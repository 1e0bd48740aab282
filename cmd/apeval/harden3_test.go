package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

// queueFixture is the unlabeled sample run and a labeling queue of it.
func queueFixture(t *testing.T) (dir, run, queue string) {
	t.Helper()
	dir, _, run, queue = sampleQueue(t, "60", "5")
	return dir, run, queue
}

// sampleQueue is, in a new temporary directory dir, the embedded sample
// without its labels (u: cases.jsonl, policy.toml), its run (run; a
// verdict, exit 1 or 3) and that run's labeling queue (label queue
// --budget budget --seed seed).
func sampleQueue(t *testing.T, budget, seed string) (dir, u, run, queue string) {
	t.Helper()
	dir = t.TempDir()
	u, run, queue = filepath.Join(dir, "u"), filepath.Join(dir, "run"), filepath.Join(dir, "queue.jsonl")
	if c, _, e := apeval(t, "", "datasets", "sample", "--unlabeled", "--out", u); c != 0 {
		t.Fatal(e)
	}
	if c, _, e := apeval(t, "", "run", "--dataset", filepath.Join(u, "cases.jsonl"), "--policy", filepath.Join(u, "policy.toml"),
		"--out", run, "--quiet", "--format", "tsv"); c != 1 && c != 3 {
		t.Fatalf("run: exit %d\n%s", c, e)
	}
	if c, _, e := apeval(t, "", "label", "queue", run, "--budget", budget, "--seed", seed, "--out", queue); c != 0 {
		t.Fatal(e)
	}
	return dir, u, run, queue
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

// run --resume DIR takes the judges' servers and key variables from the
// invocation, never from DIR/run.json: an edited run.json that names
// another server (or key variable) is refused, naming the difference, and
// that server receives nothing (issue 35 point 6).
func TestResumeServersFromInvocation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ds := filepath.Join(dir, "cases.jsonl")
	var b strings.Builder
	for i := 0; i < 6; i++ {
		fmt.Fprintf(&b, `{"id":"c-%02d","session_id":"s-%02d","tool":{"name":"Bash","arguments":{"command":"rm -rf build/%d"}},"labels":{"nl-delete":"match"}}`+"\n", i, i, i)
	}
	os.WriteFile(ds, []byte(b.String()), 0o644)
	pol := filepath.Join(dir, "policy.toml")
	os.WriteFile(pol, []byte(livePolicy), 0o644)
	srv, _, _ := newFlakyServer(t)
	var stolen atomic.Int64
	var auth atomic.Value
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stolen.Add(1)
		auth.Store(r.Header.Get("Authorization"))
		http.Error(w, "no", http.StatusTeapot)
	}))
	t.Cleanup(evil.Close)
	cache := filepath.Join(dir, "cache")
	first := filepath.Join(dir, "first")
	apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--judge", "openai:judge-large", "--openai-base-url", srv.URL+"/v1",
		"--openai-api-key-env", "APEVAL_T_KEY", "--cache", cache, "--concurrency", "1", "--out", first, "-q")
	rj := filepath.Join(first, "run.json")
	orig, err := os.ReadFile(rj)
	if err != nil || !strings.Contains(string(orig), srv.URL) {
		t.Fatalf("run.json lacks the server: %v", err)
	}

	// run.json edited to send everything elsewhere with another key.
	edited := strings.ReplaceAll(string(orig), srv.URL, evil.URL)
	edited = strings.ReplaceAll(edited, `"APEVAL_T_KEY"`, `"GITHUB_TOKEN"`)
	os.WriteFile(rj, []byte(edited), 0o644)
	code, _, stderr := apeval(t, "", "run", "--resume", first, "--openai-base-url", srv.URL+"/v1", "--openai-api-key-env", "APEVAL_T_KEY",
		"--cache", cache, "--out", filepath.Join(dir, "second"), "-q")
	if code != exitUsage || !strings.Contains(stderr, evil.URL) || !strings.Contains(stderr, srv.URL) || !strings.Contains(stderr, "names the server") {
		t.Fatalf("edited server: exit %d, %s", code, stderr)
	}
	// Without a server on the command line the default is not run.json's.
	code, _, stderr = apeval(t, "", "run", "--resume", first, "--cache", cache, "--out", filepath.Join(dir, "third"), "-q")
	if code != exitUsage || !strings.Contains(stderr, "this invocation the default") {
		t.Fatalf("no server given: exit %d, %s", code, stderr)
	}
	// Only the key variable edited.
	edited = strings.ReplaceAll(string(orig), `"APEVAL_T_KEY"`, `"GITHUB_TOKEN"`)
	os.WriteFile(rj, []byte(edited), 0o644)
	code, _, stderr = apeval(t, "", "run", "--resume", first, "--openai-base-url", srv.URL+"/v1", "--openai-api-key-env", "APEVAL_T_KEY",
		"--cache", cache, "--out", filepath.Join(dir, "fourth"), "-q")
	if code != exitUsage || !strings.Contains(stderr, "key variable GITHUB_TOKEN") || !strings.Contains(stderr, "APEVAL_T_KEY") {
		t.Fatalf("edited key variable: exit %d, %s", code, stderr)
	}
	if n := stolen.Load(); n != 0 {
		t.Fatalf("the server run.json named got %d requests (Authorization %q)", n, auth.Load())
	}
	// The unedited run directory resumes with the same flags.
	os.WriteFile(rj, orig, 0o644)
	if code, _, stderr = apeval(t, "", "run", "--resume", first, "--openai-base-url", srv.URL+"/v1", "--openai-api-key-env", "APEVAL_T_KEY",
		"--cache", cache, "--out", filepath.Join(dir, "fifth"), "-q"); code == exitUsage {
		t.Fatalf("unedited resume: %s", stderr)
	}
}

// --labels says how many labels match the results, and refuses labels none
// of which do (another run's) (issue 35 point 13).
func TestLabelsFromAnotherRun(t *testing.T) {
	t.Parallel()
	dir, run, queue := queueFixture(t)
	labels := filepath.Join(dir, "labels.jsonl")
	n := oracleLabels(t, queue, labels)
	code, stdout, stderr := apeval(t, "", "report", run, "--labels", labels, "--json")
	if code == exitUsage || !strings.Contains(stdout+stderr, fmt.Sprintf("all %d labels match", n)) {
		t.Fatalf("report --labels: exit %d, no count of the matched labels:\n%.2000s\n%s", code, stdout, stderr)
	}
	data, _ := os.ReadFile(labels)
	lines := strings.SplitAfter(strings.TrimSpace(string(data)), "\n")
	var other, half strings.Builder
	for i, l := range lines {
		moved := strings.Replace(l, `"case_id":"`, `"case_id":"elsewhere-`, 1)
		other.WriteString(moved)
		if i%2 == 0 {
			half.WriteString(l)
		} else {
			half.WriteString(moved)
		}
	}
	otherPath, halfPath := filepath.Join(dir, "other.jsonl"), filepath.Join(dir, "half.jsonl")
	os.WriteFile(otherPath, []byte(other.String()+"\n"), 0o644)
	os.WriteFile(halfPath, []byte(half.String()+"\n"), 0o644)
	code, _, stderr = apeval(t, "", "report", run, "--labels", otherPath, "--format", "tsv")
	if code != exitUsage || !strings.Contains(stderr, fmt.Sprintf("none of the %d labels", n)) {
		t.Fatalf("another run's labels: exit %d: %s", code, stderr)
	}
	code, stdout, stderr = apeval(t, "", "report", run, "--labels", halfPath, "--json")
	m := regexp.MustCompile(`(\d+) of (\d+) labels match`).FindStringSubmatch(stdout + stderr)
	if code == exitUsage || m == nil || m[2] != strconv.Itoa(n) || m[1] == "0" || m[1] == m[2] {
		t.Fatalf("half the labels: exit %d, no count of the matched labels (%q):\n%s", code, m, stderr)
	}
}

// An apeval.toml that names no dataset says on stderr that the embedded
// sample is evaluated (issue 35 point 15).
func TestConfigWithoutDatasetSaysSample(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "apeval.toml")
	os.WriteFile(cfg, []byte("# a project file that names no dataset\nconcurrency = 2\n"), 0o644)
	code, _, stderr := apeval(t, "", "run", "--config", cfg, "--out", filepath.Join(dir, "out"), "-q")
	if code == exitUsage || !strings.Contains(stderr, cfg+" names no dataset") || !strings.Contains(stderr, "embedded sample") {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
}
