package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
)

// A PreToolUse payload as Claude Code sends it (hooks reference), with the
// transcript it points at from the importer fixtures.
func recordPayload(t testing.TB, toolUseID string) string {
	transcript, err := filepath.Abs(importTestdata + "claude-code-transcript/-srv-shop/7d3f0c1e-5a2b-4c6d-9e8f-0a1b2c3d4e5f.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`{"session_id":"7d3f0c1e-5a2b-4c6d-9e8f-0a1b2c3d4e5f","transcript_path":%q,"cwd":"/srv/shop","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"DEPLOY_TOKEN=ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8 ./scripts/deploy.sh prod"},"tool_use_id":%q}`, transcript, toolUseID)
}

func readCases(t *testing.T, path string) []*datasets.Case {
	t.Helper()
	r := datasets.Open([]string{path}, nil)
	defer r.Close()
	var out []*datasets.Case
	for r.Scan() {
		rec := r.Record()
		if rec.Err != nil {
			t.Fatalf("recorded line does not validate: %v", rec.Err)
		}
		out = append(out, rec.Case)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRecordHook(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "rec", "cases.jsonl")
	code, stdout, stderr := apeval(t, recordPayload(t, "toolu_01Deploy"), "record", "--out", out)
	if code != 0 || stdout != "" || stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q: a hook must exit 0 silently", code, stdout, stderr)
	}
	cs := readCases(t, out)
	if len(cs) != 1 {
		t.Fatalf("%d cases", len(cs))
	}
	c := cs[0]
	if c.ID != "cc-toolu_01Deploy" || c.Tool.Arguments["command"] != "DEPLOY_TOKEN=[MASKED] ./scripts/deploy.sh prod" || c.Time == nil ||
		c.Provenance["recorded_by"] != "apeval record" || c.Workspace != "/srv/shop" {
		t.Errorf("case %+v", c)
	}
	// The context before the call, from the transcript's tail.
	if c.Context.LatestUserMessage != "clean the build directory, then deploy with DEPLOY_TOKEN=[MASKED]" || len(c.Context.RecentMessages) != 3 {
		t.Errorf("context %+v", c.Context)
	}
	// Other events are ignored: nothing appended, nothing logged.
	apeval(t, `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{}}`, "record", "--out", out)
	if n := len(readCases(t, out)); n != 1 {
		t.Errorf("PostToolUse recorded: %d cases", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "rec", "record.log")); !os.IsNotExist(err) {
		t.Errorf("side log written for an ignored event: %v", err)
	}
	// A bad payload and an unwritable file: still exit 0 with no output;
	// the reasons are in the side log.
	code, stdout, stderr = apeval(t, `{"tool_name": "Bash", "tool_input": {`, "record", "--out", out)
	blocked := filepath.Join(dir, "rec") // a directory, not a file
	code2, stdout2, stderr2 := apeval(t, recordPayload(t, "toolu_x"), "record", "--out", blocked, "--log", filepath.Join(dir, "rec", "record.log"), "--unknown-flag")
	if code != 0 || code2 != 0 || stdout+stderr+stdout2+stderr2 != "" {
		t.Fatalf("exit %d/%d, output %q", code, code2, stdout+stderr+stdout2+stderr2)
	}
	log, err := os.ReadFile(filepath.Join(dir, "rec", "record.log"))
	if err != nil || !strings.Contains(string(log), "truncated JSON object") || !strings.Contains(string(log), blocked) {
		t.Errorf("side log %q (%v)", log, err)
	}
	// Default file from the environment.
	envOut := filepath.Join(dir, "env.jsonl")
	var o, e bytes.Buffer
	run(t.Context(), []string{"record"}, IO{In: strings.NewReader(recordPayload(t, "toolu_env")), Out: &o, Err: &e,
		Getenv: func(k string) string {
			if k == "APEVAL_RECORD_FILE" {
				return envOut
			}
			return ""
		}})
	if cs := readCases(t, envOut); len(cs) != 1 || cs[0].ID != "cc-toolu_env" {
		t.Errorf("APEVAL_RECORD_FILE: %v", cs)
	}
}

// Concurrent agents append whole lines: 8 writers × 40 calls give 320
// valid, distinct cases.
func TestRecordConcurrentAppends(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "cases.jsonl")
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				runRecord(IO{In: strings.NewReader(recordPayload(t, fmt.Sprintf("toolu_w%d_%d", w, i)))}, recordOptions{out: out}, time.Now())
			}
		}()
	}
	wg.Wait()
	cs := readCases(t, out) // a duplicate or torn line would fail here
	if len(cs) != 320 {
		t.Fatalf("%d cases, want 320", len(cs))
	}
}

var (
	recordBinOnce sync.Once
	recordBinPath string
	recordBinErr  error
)

// recordBinary builds cmd/apeval-record, the hook as a program of its own,
// once per test process into the repository's .cache/testbin. go build
// leaves an up-to-date binary there as it is, so with a warm build cache
// this costs no link.
func recordBinary(tb testing.TB) string {
	tb.Helper()
	recordBinOnce.Do(func() {
		recordBinPath, recordBinErr = buildCached("apeval-record", "../apeval-record")
	})
	if recordBinErr != nil {
		tb.Fatal(recordBinErr)
	}
	return recordBinPath
}

// apeval-record and `apeval record` write the same case for the same
// payload (one implementation, importers.RunHook), print nothing and exit 0,
// also on a flag they do not know.
func TestRecordBinaryMatchesCommand(t *testing.T) {
	wholeProcess(t)
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	payload := recordPayload(t, "toolu_same")
	for _, c := range []*exec.Cmd{
		exec.Command(selfBinary(t), "record", "--out", a),
		exec.Command(recordBinary(t), "--out", b, "--unknown-flag"),
	} {
		c.Stdin = strings.NewReader(payload)
		out, err := c.CombinedOutput()
		if err != nil || len(out) > 0 {
			t.Fatalf("%v: err %v, output %q", c.Args, err, out)
		}
	}
	ca, cb := readCases(t, a), readCases(t, b)
	if len(ca) != 1 || len(cb) != 1 {
		t.Fatalf("cases: %d and %d", len(ca), len(cb))
	}
	ca[0].Time, cb[0].Time = nil, nil // the moment each process recorded
	ca[0].Source, cb[0].Source = "", ""
	var la, lb bytes.Buffer
	if err := datasets.WriteJSONL(&la, ca[0]); err != nil {
		t.Fatal(err)
	}
	if err := datasets.WriteJSONL(&lb, cb[0]); err != nil {
		t.Fatal(err)
	}
	if la.String() != lb.String() {
		t.Errorf("apeval record:\n%s\napeval-record:\n%s", la.String(), lb.String())
	}
	if strings.Contains(la.String(), "ghp_A1b2C3d4") {
		t.Errorf("the token reached the cases file: %s", la.String())
	}
}

// hookTimes runs bin with args as a hook calls times and returns the
// sorted wall times in milliseconds.
func hookTimes(b *testing.B, bin string, args ...string) []float64 {
	const calls = 200
	var times []float64
	for b.Loop() {
		times = times[:0]
		for i := range calls {
			cmd := exec.Command(bin, args...)
			cmd.Stdin = strings.NewReader(recordPayload(b, fmt.Sprintf("toolu_b%d", i)))
			start := time.Now()
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
			times = append(times, float64(time.Since(start).Microseconds())/1000)
		}
	}
	slices.Sort(times)
	return times
}

// BenchmarkRecordHook is what an agent waits for per tool call with the
// hook installed as the README says (apeval-record): 200 process runs.
func BenchmarkRecordHook(b *testing.B) {
	times := hookTimes(b, recordBinary(b), "--out", filepath.Join(b.TempDir(), "cases.jsonl"))
	b.ReportMetric(times[int(math.Ceil(0.95*float64(len(times))))-1], "p95-ms")
	b.ReportMetric(times[len(times)/2-1], "p50-ms")
}

// BenchmarkRecordHookApeval is the same hook through the whole apeval
// binary (`apeval record`), whose start-up initialises every package.
func BenchmarkRecordHookApeval(b *testing.B) {
	times := hookTimes(b, apevalBinary(b), "record", "--out", filepath.Join(b.TempDir(), "cases.jsonl"))
	b.ReportMetric(times[int(math.Ceil(0.95*float64(len(times))))-1], "p95-ms")
	b.ReportMetric(times[len(times)/2-1], "p50-ms")
}

// BenchmarkRecordInProcess is the recording alone (read the payload, the
// transcript's tail, mask, append under the lock), without process
// start-up: what BenchmarkRecordHook's time is made of besides exec.
func BenchmarkRecordInProcess(b *testing.B) {
	out := filepath.Join(b.TempDir(), "cases.jsonl")
	const calls = 200
	var times []float64
	for b.Loop() {
		times = times[:0]
		for i := range calls {
			payload := recordPayload(b, fmt.Sprintf("toolu_p%d", i))
			start := time.Now()
			runRecord(IO{In: strings.NewReader(payload)}, recordOptions{out: out}, start)
			times = append(times, float64(time.Since(start).Microseconds())/1000)
		}
	}
	slices.Sort(times)
	b.ReportMetric(times[int(math.Ceil(0.95*calls))-1], "p95-ms")
}
