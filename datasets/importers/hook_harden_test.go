package importers

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
)

func testHookPayload(session, toolUseID, command, transcript string) string {
	return fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":%q},"tool_use_id":%q}`,
		session, transcript, command, toolUseID)
}

func readRecorded(t *testing.T, path string) (cases []*datasets.Case, bad []error) {
	t.Helper()
	r := datasets.Open([]string{path}, nil)
	defer r.Close()
	for r.Scan() {
		rec := r.Record()
		if rec.Err != nil {
			bad = append(bad, rec.Err)
			continue
		}
		cases = append(cases, rec.Case)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return cases, bad
}

// Recorded calls keep their session order: the hook leaves seq out and the
// reader numbers the records in file order.
func TestHookKeepsSessionOrder(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "cases.jsonl")
	for i := 0; i < 3; i++ {
		RunHook(strings.NewReader(testHookPayload("s1", fmt.Sprintf("toolu_%d", i), "ls", "")), HookOptions{Out: out}, time.Now())
	}
	data, _ := os.ReadFile(out)
	if bytes.Contains(data, []byte(`"seq":`)) {
		t.Fatalf("recorded lines carry seq:\n%s", data)
	}
	cases, bad := readRecorded(t, out)
	if len(bad) > 0 || len(cases) != 3 {
		t.Fatalf("cases %d, bad %v", len(cases), bad)
	}
	for i, c := range cases {
		if c.Seq != int64(i+1) {
			t.Fatalf("case %d has seq %d", i, c.Seq)
		}
	}
}

// The hook writes no line the reader would refuse: one limit for both.
func TestHookLineLimitIsTheReaders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "cases.jsonl")
	big := strings.Repeat("a", datasets.DefaultMaxLineBytes) // under the payload cap, over the line limit
	RunHook(strings.NewReader(testHookPayload("s1", "toolu_big", big, "")), HookOptions{Out: out, NoMask: true}, time.Now())
	RunHook(strings.NewReader(testHookPayload("s1", "toolu_small", "ls", "")), HookOptions{Out: out}, time.Now())
	cases, bad := readRecorded(t, out)
	if len(bad) > 0 || len(cases) != 1 || cases[0].ID != "cc-toolu_small" {
		t.Fatalf("cases %d, bad %v", len(cases), bad)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "record.log"))
	if !strings.Contains(string(log), "not recorded") || !strings.Contains(string(log), strconv.Itoa(datasets.DefaultMaxLineBytes)) {
		t.Fatalf("record.log: %q", log)
	}
	if MaxHookPayload > datasets.DefaultMaxLineBytes {
		t.Fatalf("the hook reads payloads of %d bytes, the reader takes lines of %d", MaxHookPayload, datasets.DefaultMaxLineBytes)
	}
}

// A FIFO (or any file that is not a regular file) as transcript_path never
// blocks the hook.
func TestHookFIFOTranscriptDoesNotBlock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "transcript.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	out := filepath.Join(dir, "cases.jsonl")
	done := make(chan struct{})
	go func() {
		defer close(done)
		RunHook(strings.NewReader(testHookPayload("s1", "toolu_fifo", "ls", fifo)), HookOptions{Out: out}, time.Now())
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		// Unblock the hook so the test binary can end.
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("the hook blocked on a FIFO transcript")
	}
	if cases, _ := readRecorded(t, out); len(cases) != 1 {
		t.Fatalf("cases %d", len(cases))
	}
}

// A short write (full disk, ulimit -f) leaves no partial line: the call is
// lost and logged, and the next call is a line of its own. The write runs
// in a child process under RLIMIT_FSIZE.
func TestHookShortWriteLeavesNoPartialLine(t *testing.T) {
	t.Parallel()
	if os.Getenv("APEVAL_HOOK_FSIZE_CHILD") != "" {
		limit, _ := strconv.ParseUint(os.Getenv("APEVAL_HOOK_FSIZE_CHILD"), 10, 64)
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		RunHook(strings.NewReader(testHookPayload("s1", "toolu_cut", strings.Repeat("x", 4000), "")),
			HookOptions{Out: os.Getenv("APEVAL_HOOK_OUT"), Log: os.Getenv("APEVAL_HOOK_LOG")}, time.Now())
		os.Exit(0)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "cases.jsonl")
	RunHook(strings.NewReader(testHookPayload("s1", "toolu_first", "ls", "")), HookOptions{Out: out}, time.Now())
	st, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHookShortWriteLeavesNoPartialLine$")
	// The log lives where the limit does not apply to it... it does: give
	// the limit room for the log line but not for the case line.
	cmd.Env = append(os.Environ(), "APEVAL_HOOK_FSIZE_CHILD="+strconv.FormatInt(st.Size()+1000, 10),
		"APEVAL_HOOK_OUT="+out, "APEVAL_HOOK_LOG="+filepath.Join(dir, "record.log"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, b)
	}
	RunHook(strings.NewReader(testHookPayload("s1", "toolu_after", "pwd", "")), HookOptions{Out: out}, time.Now())
	cases, bad := readRecorded(t, out)
	if len(bad) > 0 || len(cases) != 2 || cases[0].ID != "cc-toolu_first" || cases[1].ID != "cc-toolu_after" {
		data, _ := os.ReadFile(out)
		t.Fatalf("cases %d, bad %v\n%.400s", len(cases), bad, data)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "record.log"))
	if !strings.Contains(string(log), "file too large") {
		t.Fatalf("record.log: %q", log)
	}
}

// The masker shapes of the second hardening round never reach the
// recorded file (the recording log's copy of what a judge will see).
func TestHookMasksRound2Shapes(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "cases.jsonl")
	shapes := map[string]string{
		"aws configure set aws_secret_access_key wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY":             "wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY",
		"redis-cli -u redis://:S3cretPw9x@cache:6379/0":                                              "S3cretPw9x",
		"psql postgresql://u:ab/cd9Xq@h/db":                                                          "ab/cd9Xq",
		"curl -X POST https://hooks.slack.com/services/T01ABCDEF/B02GHIJKL/x7Yz9AbCdEfGhIjKlMnOpQrS": "x7Yz9AbCdEfGhIjKlMnOpQrS",
		"sshpass -p Hunter2Pass ssh deploy@web1":                                                     "Hunter2Pass",
		"az login --service-principal -u app -p S3cr3tAzPw":                                          "S3cr3tAzPw",
		"echo Tr0ub4dor | sudo -S apt-get install x":                                                 "Tr0ub4dor",
	}
	i := 0
	for cmd := range shapes {
		RunHook(strings.NewReader(testHookPayload("s1", fmt.Sprintf("toolu_m%d", i), cmd, "")), HookOptions{Out: out}, time.Now())
		i++
	}
	data, _ := os.ReadFile(out)
	for cmd, secret := range shapes {
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("%q: the secret was recorded", cmd)
		}
	}
	if n := bytes.Count(data, []byte("\n")); n != len(shapes) {
		t.Fatalf("%d lines recorded", n)
	}
}
