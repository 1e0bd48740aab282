package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Tests of the second hardening round (docs/safety.md).

// A judge server that quotes the API key in its errors: the key reaches
// none of decisions.parquet, summary.md, report.html, summary.json,
// stderr or `judges check`, whatever its format.
func TestQuotedAPIKeyNeverWritten(t *testing.T) {
	const key = "gw-live-7Hq2Zx9PmW4kT8vR"
	t.Setenv("APEVAL_T_KEY", key)
	dir := t.TempDir()
	ds := liveDataset(t, dir, 4)
	pol := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(pol, []byte(livePolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if strings.HasSuffix(r.URL.Path, "/models") {
			io.WriteString(w, `{"data":[{"id":"m"}]}`)
			return
		}
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+got+`"}}`)
	}))
	defer srv.Close()
	out := filepath.Join(dir, "run")
	_, _, stderr := apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--judge", "openai:m", "--openai-base-url", srv.URL+"/v1",
		"--openai-api-key-env", "APEVAL_T_KEY", "--no-cache", "--out", out, "--format", "tsv")
	if !strings.Contains(stderr, "Incorrect API key provided: [MASKED]") {
		t.Fatalf("stderr does not carry the masked failure:\n%s", stderr)
	}
	if strings.Contains(stderr, key) {
		t.Errorf("stderr carries the key:\n%s", stderr)
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(out, e.Name()))
		if strings.Contains(string(data), key) || strings.Contains(string(data), key[8:]) {
			t.Errorf("%s carries the key", e.Name())
		}
	}
	n := 0
	for _, r := range readResults(t, out) {
		for _, c := range r.Calls {
			n++
			if strings.Contains(c.Error, key[8:]) {
				t.Errorf("call error: %s", c.Error)
			}
		}
		for _, rr := range r.Rules {
			if strings.Contains(rr.Error, key[8:]) {
				t.Errorf("rule error: %s", rr.Error)
			}
		}
	}
	if n == 0 {
		t.Fatal("no call made")
	}
	_, stdout, stderr := apeval(t, "", "judges", "check", "--openai-base-url", srv.URL+"/v1", "--openai-api-key-env", "APEVAL_T_KEY", "openai:m")
	if strings.Contains(stdout+stderr, key[8:]) || !strings.Contains(stdout, "[MASKED]") {
		t.Errorf("judges check:\n%s%s", stdout, stderr)
	}
}

// Exec plugin stderr reaches apeval's stderr masked, and not at all under
// --quiet.
func TestPluginStderrMaskedAndQuiet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ds := liveDataset(t, dir, 2)
	pol := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(pol, []byte(livePolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	const token = "ghp_R2d4F6h8J0k2L4z6X8c0V2b4N6m8Q0w2E4r6"
	script := filepath.Join(dir, "plugin.sh")
	body := "echo \"plugin starting with GITHUB_TOKEN=" + token + "\" >&2\nwhile read l; do echo '{\"version\":1,\"decisions\":[]}'; done\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	plugin := "sh " + script
	for _, quiet := range []bool{false, true} {
		args := []string{"run", "--dataset", ds, "--policy", pol, "--judge", "exec:" + plugin, "--no-cache",
			"--out", filepath.Join(dir, "run"), "--format", "tsv"}
		if quiet {
			args = append(args, "-q")
		}
		_, _, stderr := apeval(t, "", args...)
		if strings.Contains(stderr, token) {
			t.Errorf("quiet=%v: stderr carries the token:\n%s", quiet, stderr)
		}
		if got := strings.Contains(stderr, "plugin starting"); got == quiet {
			t.Errorf("quiet=%v: plugin stderr shown %v:\n%s", quiet, got, stderr)
		}
	}
}

// limitedChild is the child half of apevalLimited: under
// APEVAL_CHILD_FSIZE it lowers RLIMIT_FSIZE (each file at most that many
// bytes, as a nearly full disk) and runs apeval with the arguments in
// APEVAL_CHILD_ARGS, exiting with its code.
func TestLimitedChild(t *testing.T) {
	t.Parallel()
	lim := os.Getenv("APEVAL_CHILD_FSIZE")
	if lim == "" {
		t.Skip("the child half of apevalLimited")
	}
	n, err := strconv.ParseUint(lim, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
		t.Fatal(err)
	}
	var args []string
	if err := json.Unmarshal([]byte(os.Getenv("APEVAL_CHILD_ARGS")), &args); err != nil {
		t.Fatal(err)
	}
	os.Exit(Main(args, strings.NewReader(""), os.Stdout, os.Stderr))
}

// apevalLimited runs apeval in a child process whose files may hold at
// most fsize bytes each (RLIMIT_FSIZE; writes past it fail with EFBIG).
func apevalLimited(t *testing.T, fsize int64, args ...string) (int, string) {
	t.Helper()
	a, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^TestLimitedChild$")
	cmd.Env = append(os.Environ(), "APEVAL_CHILD_FSIZE="+strconv.FormatInt(fsize, 10), "APEVAL_CHILD_ARGS="+string(a))
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, string(out)
}

// A run that fails while writing its reports leaves the earlier run as it
// was, and says how to go on.
func TestFailedReportsKeepEarlierRun(t *testing.T) {
	wholeProcess(t)
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "run")
	if code, _, stderr := apeval(t, "", "run", "--out", out, "-q", "--no-cache", "--run-id", "first"); code == exitUsage {
		t.Fatalf("first run: %s", stderr)
	}
	before := map[string][]byte{}
	var limit, largest int64
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(out, e.Name()))
		before[e.Name()] = data
		switch e.Name() {
		case "decisions.parquet", "gates.parquet", "run.json":
			limit = max(limit, int64(len(data))+4096)
		}
		largest = max(largest, int64(len(data)))
	}
	if largest <= limit {
		t.Fatalf("no report larger than the run's own files (%d ≤ %d)", largest, limit)
	}
	code, stderr := apevalLimited(t, limit, "run", "--out", out, "-q", "--no-cache", "--run-id", "second")
	if code == 0 || code == 1 {
		t.Fatalf("the limited run did not fail: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "earlier run") || !strings.Contains(stderr, "as it was") {
		t.Errorf("message does not say what happened:\n%s", stderr)
	}
	after, _ := os.ReadDir(out)
	got := map[string]bool{}
	for _, e := range after {
		got[e.Name()] = true
		data, _ := os.ReadFile(filepath.Join(out, e.Name()))
		if b, ok := before[e.Name()]; !ok || !bytes.Equal(b, data) {
			t.Errorf("%s changed or appeared", e.Name())
		}
	}
	for name := range before {
		if !got[name] {
			t.Errorf("%s of the earlier run is gone", name)
		}
	}
	// A fresh directory: the run's decisions stay, and the message names
	// the command that writes the reports.
	fresh := filepath.Join(dir, "fresh")
	code, stderr = apevalLimited(t, limit, "run", "--out", fresh, "-q", "--no-cache")
	if code == 0 || code == 1 || !strings.Contains(stderr, "apeval report "+fresh) {
		t.Fatalf("fresh directory: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := apeval(t, "", "report", fresh); code == exitUsage {
		t.Fatalf("report: %s", stderr)
	}
	if _, err := os.Stat(filepath.Join(fresh, "summary.md")); err != nil {
		t.Fatal(err)
	}
}

// merge --out naming one of its input shards is refused, and the shard is
// left as it was.
func TestMergeOutIsAnInput(t *testing.T) {
	wholeProcess(t)
	t.Parallel()
	base := t.TempDir()
	var shards []string
	for _, s := range []string{"1/2", "2/2"} {
		dir := filepath.Join(base, "s"+s[:1])
		if code, _, stderr := apeval(t, "", "run", "--shard", s, "--out", dir, "-q", "--no-cache"); code == exitUsage {
			t.Fatalf("shard %s: %s", s, stderr)
		}
		shards = append(shards, dir)
	}
	before, _ := os.ReadFile(filepath.Join(shards[0], "run.json"))
	for _, out := range []string{shards[0], shards[0] + "/."} {
		code, _, stderr := apeval(t, "", "merge", "--out", out, shards[0], shards[1])
		if code != exitUsage || !strings.Contains(stderr, "is one of the shards being merged") {
			t.Errorf("merge --out %s: exit %d, %s", out, code, stderr)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(shards[0], "run.json")); !bytes.Equal(before, after) {
		t.Errorf("the input shard was changed:\n%s", after)
	}
}

// A new cache on a full disk: the run says the disk is full, names
// --no-cache once, and moves nothing aside as "damaged".
func TestCacheOnFullDisk(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ds := liveDataset(t, dir, 2)
	pol := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(pol, []byte(livePolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	oa := newOpenAIServer(t, 0, false)
	cache := filepath.Join(dir, "cache")
	code, stderr := apevalLimited(t, 4096, "run", "--dataset", ds, "--policy", pol, "--judge", "openai:judge-large",
		"--openai-base-url", oa.URL+"/v1", "--cache", cache, "-q", "--out", filepath.Join(dir, "run"))
	if code != exitUsage || !strings.Contains(stderr, "the disk is full") || strings.Contains(stderr, "damaged") ||
		strings.Count(stderr, "--no-cache") != 1 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(cache, "*damaged*")); len(left) > 0 {
		t.Fatalf("moved aside: %v", left)
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
