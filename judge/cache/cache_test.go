package cache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/judge/internal/fake"
	"github.com/apeval/apeval/judge/openai"
	"github.com/apeval/apeval/judge/recorded"
)

func TestInputDigest(t *testing.T) {
	t.Parallel()
	in := judge.Input{Version: 1, Rules: []judge.Rule{{ID: "r", Condition: "削除"}},
		Current: judge.Current{Tool: judge.Tool{Name: "Bash", Arguments: map[string]any{"z": 1.0, "a": "<x>"}}}}
	// RFC 8785 by hand: keys sorted by UTF-16 code units, no escaping of <
	// and >, 1.0 as 1, no whitespace.
	canon := `{"context":{"approval_state":"","latest_user_message":"","previous_rule_fires":null,"recent_messages":null},` +
		`"current":{"hook_point":"","movement":"","piece":"","tool":{"arguments":{"a":"<x>","z":1},"arguments_summary":"","category":"","name":"Bash"}},` +
		`"rules":[{"condition":"削除","id":"r"}],"version":1}`
	want := fmt.Sprintf("%x", sha256.Sum256([]byte(canon)))
	got, err := InputDigest(in)
	if err != nil || got != want {
		t.Fatalf("InputDigest = %s, %v; want %s", got, err, want)
	}
}

func TestCachedJudge(t *testing.T) {
	t.Parallel()
	f := fake.NewOpenAI(t, func(n int, body map[string]any) fake.Reply {
		user := fake.UserMessage(body)
		switch {
		case strings.Contains(user, "answer-invalid"):
			return fake.Reply{Content: "no idea"}
		case strings.Contains(user, "answer-500"):
			return fake.Reply{Status: 500, Raw: `{"error":{"message":"boom"}}`}
		}
		return fake.EchoReply(n, body)
	})
	dir := t.TempDir()
	cache, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if cache.Warning() != "" {
		t.Fatalf("warning %q", cache.Warning())
	}
	backend := openOpenAI(t, f, judge.Config{})
	j := Cached(backend, cache)
	if j.Identity() != backend.Identity() {
		t.Fatal("identity changed by the cache")
	}
	withCmd := func(cmd string) judge.Request {
		r := fake.TwoRules()
		r.Input.Current.Tool.Arguments = map[string]any{"command": cmd}
		return r
	}
	tests := []struct {
		name   string
		req    judge.Request
		status judge.Status
		cached bool
		calls  int // server calls so far
	}{
		{"first call asks", withCmd("rm a"), judge.StatusOK, false, 1},
		{"same input is a hit", withCmd("rm a"), judge.StatusOK, true, 1},
		{"other input asks", withCmd("rm b"), judge.StatusOK, false, 2},
		{"invalid answer asks", withCmd("answer-invalid"), judge.StatusInvalid, false, 3},
		{"invalid answer is cached", withCmd("answer-invalid"), judge.StatusInvalid, true, 3},
		{"error asks", withCmd("answer-500"), judge.StatusError, false, 4},
		{"error is not cached", withCmd("answer-500"), judge.StatusError, false, 5},
	}
	var first judge.Response
	latencies := map[string]time.Duration{} // command → latency of its live call
	for i, tt := range tests {
		r := j.Judge(context.Background(), tt.req)
		if !r.Cached {
			latencies[tt.req.Input.Current.Tool.Arguments["command"].(string)] = r.Latency
		}
		if r.Status != tt.status || r.Cached != tt.cached || len(f.Requests()) != tt.calls {
			t.Fatalf("%s: status %q cached %v after %d calls; want %q %v %d", tt.name, r.Status, r.Cached, len(f.Requests()), tt.status, tt.cached, tt.calls)
		}
		if i == 0 {
			first = r
		}
		if tt.cached {
			if r.Attempts != 0 {
				t.Fatalf("%s: a hit reports %d attempts", tt.name, r.Attempts)
			}
			if want := latencies[tt.req.Input.Current.Tool.Arguments["command"].(string)]; r.Latency != want || want == 0 {
				t.Fatalf("%s: a hit reports latency %v, want the %v measured when it was made", tt.name, r.Latency, want)
			}
			if tt.status == judge.StatusOK && !fake.EqualDecisions(r.Decisions, first.Decisions) {
				t.Fatalf("%s: hit decisions %s, want %s", tt.name, fake.JS(r.Decisions), fake.JS(first.Decisions))
			}
			if tt.status == judge.StatusInvalid && !strings.Contains(r.Error, "not a JSON object") {
				t.Fatalf("%s: invalid hit lost its error: %q", tt.name, r.Error)
			}
		}
	}
	// Other settings are another cache scope.
	other := Cached(openOpenAI(t, f, judge.Config{Options: map[string]string{"temperature": "0.7"}}), cache)
	if r := other.Judge(context.Background(), withCmd("rm a")); r.Cached {
		t.Fatal("a judge with other options got a hit")
	}
	if err := cache.Close(); err != nil {
		t.Fatal(err)
	}
	// A rerun on the persisted cache asks nothing.
	cache2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer closeOrFail(t, cache2)
	before := len(f.Requests())
	j2 := Cached(openOpenAI(t, f, judge.Config{}), cache2)
	for _, cmd := range []string{"rm a", "rm b", "answer-invalid"} {
		if r := j2.Judge(context.Background(), withCmd(cmd)); !r.Cached {
			t.Fatalf("%s: not a hit after reopening: %+v", cmd, r)
		}
	}
	if len(f.Requests()) != before {
		t.Fatal("the rerun called the server")
	}
}

func TestCachedSkipsRecordedAndNone(t *testing.T) {
	t.Parallel()
	cache, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer closeOrFail(t, cache)
	rec := recorded.New("x")
	if Cached(rec, cache) != rec {
		t.Fatal("recorded judge wrapped")
	}
	if _, ok := Cached(recorded.NewNone(), cache).(recorded.None); !ok {
		t.Fatal("none judge wrapped")
	}
	if Cached(rec, nil) != rec {
		t.Fatal("nil cache wrapped")
	}
}

func TestCacheSharedByTwoRuns(t *testing.T) {
	defer func(l, m time.Duration) { cacheLockWait, cacheMergeWait = l, m }(cacheLockWait, cacheMergeWait)
	cacheLockWait, cacheMergeWait = 100*time.Millisecond, 100*time.Millisecond
	f := fake.NewOpenAI(t, fake.EchoReply)
	dir := t.TempDir()
	req := func(cmd string) judge.Request {
		r := fake.TwoRules()
		r.Input.Current.Tool.Arguments = map[string]any{"command": cmd}
		return r
	}
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(dir) // a holds the lock
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.Warning(), "in use by another run") || !strings.HasPrefix(filepath.Base(b.Path()), "pending-") {
		t.Fatalf("second run: warning %q path %s", b.Warning(), b.Path())
	}
	ja := Cached(openOpenAI(t, f, judge.Config{}), a)
	jb := Cached(openOpenAI(t, f, judge.Config{}), b)
	ja.Judge(context.Background(), req("from a"))
	jb.Judge(context.Background(), req("from b"))
	if r := jb.Judge(context.Background(), req("from b")); !r.Cached {
		t.Fatal("private cache misses its own answer")
	}
	// b finishes first: the shared file is still locked, its file waits.
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(b.Path()); err != nil {
		t.Fatalf("pending file gone before it was merged: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	// The next run merges it and sees both answers.
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer closeOrFail(t, c)
	if c.Warning() != "" {
		t.Fatalf("warning %q", c.Warning())
	}
	if _, err := os.Stat(b.Path()); !os.IsNotExist(err) {
		t.Fatalf("pending file not removed after the merge: %v", err)
	}
	jc := Cached(openOpenAI(t, f, judge.Config{}), c)
	calls := len(f.Requests())
	for _, cmd := range []string{"from a", "from b"} {
		if r := jc.Judge(context.Background(), req(cmd)); !r.Cached {
			t.Fatalf("%s: not cached after the merge", cmd)
		}
	}
	if len(f.Requests()) != calls {
		t.Fatal("merged answers asked again")
	}
}

func TestCachePrivateMergesWhenFree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	b.put([]byte("k"), []byte(`{"status":"ok","decisions":[]}`))
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil { // shared file free now: merged at once
		t.Fatal(err)
	}
	if _, err := os.Stat(b.Path()); !os.IsNotExist(err) {
		t.Fatalf("pending file left after a free merge: %v", err)
	}
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer closeOrFail(t, c)
	if v, ok := c.get([]byte("k")); !ok || !strings.Contains(string(v), `"ok"`) {
		t.Fatalf("merged entry: %q %v", v, ok)
	}
}

func closeOrFail(t *testing.T, c *Cache) {
	t.Helper()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCacheSharedAcrossProcesses runs a second run as a real process while
// this one holds the shared file: it must not block, and its answer must
// reach the shared file once this run is done.
func TestCacheSharedAcrossProcesses(t *testing.T) {
	t.Parallel()
	if dir := os.Getenv("APEVAL_CACHE_CHILD"); dir != "" {
		cacheLockWait, cacheMergeWait = 100*time.Millisecond, 100*time.Millisecond
		c, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(c.Warning(), "in use by another run") {
			t.Fatalf("child: warning %q", c.Warning())
		}
		c.put([]byte("from-child"), []byte(`{"status":"ok","decisions":[]}`))
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		return
	}
	dir := t.TempDir()
	parent, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCacheSharedAcrossProcesses$", "-test.count=1")
	cmd.Env = append(os.Environ(), "APEVAL_CACHE_CHILD="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child run: %v\n%s", err, out)
	}
	if err := parent.Close(); err != nil {
		t.Fatal(err)
	}
	next, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer closeOrFail(t, next)
	if _, ok := next.get([]byte("from-child")); !ok {
		t.Fatal("the other process's answer was lost")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "pending-*.db")); len(left) != 0 {
		t.Fatalf("pending files left after the merge: %v", left)
	}
}

// A cache file with bytes overwritten inside is never a panic: Open
// moves it aside, starts an empty cache and says so, naming --no-cache.
func TestDamagedCacheIsMovedAside(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2000 {
		c.put([]byte(fmt.Sprintf("key-%05d", i)), bytes.Repeat([]byte{'v'}, 200))
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, cacheFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Overwrite everything past the two meta pages and the freelist: the
	// branch and leaf pages of the answers.
	for i := 4 * 4096; i < len(data); i++ {
		data[i] = byte(i*7 + 13)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	c2, err := Open(dir)
	if err != nil {
		t.Fatalf("damaged cache: %v", err)
	}
	defer c2.Close()
	if w := c2.Warning(); !strings.Contains(w, "damaged") || !strings.Contains(w, "--no-cache") {
		t.Errorf("warning %q does not say what happened", w)
	}
	if _, ok := c2.get([]byte("key-00001")); ok {
		t.Error("an answer survived in the fresh cache")
	}
	aside, _ := filepath.Glob(filepath.Join(dir, cacheFile+".damaged-*"))
	if len(aside) != 1 {
		t.Errorf("damaged file not moved aside: %v", aside)
	}
}

// An entry written before the cache stored latencies has none to count
// with: it is asked again (and rewritten with one), never counted as 0 ms.
func TestCachedEntryWithoutLatencyIsAskedAgain(t *testing.T) {
	t.Parallel()
	f := fake.NewOpenAI(t, fake.EchoReply)
	cache, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	j := Cached(openOpenAI(t, f, judge.Config{}), cache).(*Judge)
	req := fake.TwoRules()
	key, err := j.key(req.Input)
	if err != nil {
		t.Fatal(err)
	}
	cache.put(key, []byte(`{"status":"ok","decisions":[]}`))
	if r := j.Judge(context.Background(), req); r.Cached || len(f.Requests()) != 1 {
		t.Fatalf("old entry: cached %v after %d calls; want a live call", r.Cached, len(f.Requests()))
	}
	r := j.Judge(context.Background(), req)
	if !r.Cached || r.Latency <= 0 || len(f.Requests()) != 1 {
		t.Fatalf("rewritten entry: cached %v latency %v after %d calls; want a hit with its latency", r.Cached, r.Latency, len(f.Requests()))
	}
}

// Identical inputs asked at once make one call: the others wait for it and
// are cache hits at its latency, so a warm rerun (every input a hit at the
// one stored latency) reproduces the cold run's latencies exactly.
func TestCachedJudgeAsksIdenticalInputsOnce(t *testing.T) {
	f := fake.NewOpenAI(t, func(n int, body map[string]any) fake.Reply {
		r := fake.EchoReply(n, body)
		r.Delay = 50 * time.Millisecond
		return r
	})
	cache, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	j := Cached(openOpenAI(t, f, judge.Config{}), cache)
	resps := make([]judge.Response, 6)
	var wg sync.WaitGroup
	for i := range resps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resps[i] = j.Judge(context.Background(), fake.TwoRules())
		}()
	}
	wg.Wait()
	if n := len(f.Requests()); n != 1 {
		t.Fatalf("%d server calls for one input, want 1", n)
	}
	var live judge.Response
	hits := 0
	for _, r := range resps {
		if r.Status != judge.StatusOK {
			t.Fatalf("response %+v", r)
		}
		if r.Cached {
			hits++
		} else {
			live = r
		}
	}
	for _, r := range resps {
		if r.Latency != live.Latency {
			t.Fatalf("a hit's latency %v differs from the call's %v", r.Latency, live.Latency)
		}
	}
	if hits != 5 {
		t.Fatalf("%d hits, want 5", hits)
	}
}

// Entries an older version cached for an error in an HTTP 200 body
// (OpenAI: no choices, no content) are misses.
func TestOldErrorEntriesAreMisses(t *testing.T) {
	for _, e := range []string{"completion has no choices", "completion has no content"} {
		if modelAnswer(cachedAnswer{Status: judge.StatusInvalid, Error: e}) {
			t.Errorf("%q counted as a model answer", e)
		}
	}
}

func openOpenAI(t *testing.T, f *fake.Server, cfg judge.Config) judge.Judge {
	t.Helper()
	cfg.OpenAIBaseURL = f.URL + "/v1"
	j, err := openai.New("judge-small", judge.DefaultPrompt(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return j
}
