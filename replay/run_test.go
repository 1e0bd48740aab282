package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
)

const runPolicy = `
max_rules_per_call = 2
[permissions]
default_action = "allow"
[[permissions.rule]]
tool = "bash"
pattern = "rm -rf /*"
action = "deny"

[[rule]]
id = "delete"
condition = "irreversible deletion"
class = "dangerous"
action = "request_approval"
max_fires = 2
[rule.when]
command_prefix = ["rm", "shred"]
[rule.baseline]
command_prefix = ["rm"]

[[rule]]
id = "push"
condition = "pushes to a shared branch"
class = "approval"
action = "request_approval"
[rule.when]
command_prefix = ["git push"]

[[rule]]
id = "tone"
condition = "the user sounds upset"
class = "style"
action = "inject_instruction"

[[rule]]
id = "net"
class = "stop"
[rule.boundary]
kind = "network"

[[rule]]
id = "ws"
class = "stop"
[rule.boundary]
kind = "workspace"

[[rule]]
id = "audit-all"
class = "always"
action = "audit_only"
max_fires = 3
`

var commands = []string{"ls -la", "rm -rf build", "git push origin main", "curl https://e.test", "shred -u x", "go test ./...", "rm -rf /", "cat /etc/passwd"}

// genCases interleaves sessions; each session's seq increases.
func genCases(n, sessions int, seed uint64) []*datasets.Case {
	rng := rand.New(rand.NewPCG(seed, 1))
	seq := make([]int64, sessions)
	out := make([]*datasets.Case, n)
	for i := range out {
		s := rng.IntN(sessions)
		seq[s]++
		cmd := commands[rng.IntN(len(commands))]
		c := bash(cmd)
		if rng.IntN(4) == 0 {
			c = call("Write", "file_change", "file_path", []string{"src/a.go", "/etc/hosts", "../x"}[rng.IntN(3)])
		}
		c.ID = fmt.Sprintf("c%06d", i)
		c.SessionID = fmt.Sprintf("s%03d", s)
		c.Seq = seq[s]
		c.Source = fmt.Sprintf("gen.jsonl:%d", i+1)
		c.Context.LatestUserMessage = "please " + cmd
		if rng.IntN(10) == 0 {
			c.Context.ApprovalState = "approved"
		}
		c.Labels = map[string]datasets.Label{"delete": datasets.LabelMatch}
		out[i] = c
	}
	return out
}

// hashJudge answers from a hash of the input (so answers do not depend on
// timing) after sleeping a random small time (so completion order does).
func hashJudge(name string, salt string) *fakeJudge {
	return &fakeJudge{name: name, fn: func(ctx context.Context, req judge.Request) judge.Response {
		time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
		raw, _ := json.Marshal(req.Input)
		out := judge.Response{Status: judge.StatusOK, Latency: time.Duration(len(raw)) * time.Microsecond, Attempts: 1}
		for _, r := range req.Input.Rules {
			h := fnv.New32a()
			h.Write([]byte(salt + r.ID))
			h.Write(raw)
			v := h.Sum32()
			res := []judge.Result{judge.Match, judge.NoMatch, judge.Unknown}[v%3]
			if v%17 == 0 {
				return judge.Response{Status: judge.StatusInvalid, Error: "bad json", Latency: time.Millisecond}
			}
			out.Decisions = append(out.Decisions, judge.Decision{RuleID: r.ID, Result: res})
		}
		return out
	}}
}

func sliceNext(cases []*datasets.Case) func() (*datasets.Case, bool) {
	i := 0
	return func() (*datasets.Case, bool) {
		if i == len(cases) {
			return nil, false
		}
		i++
		return cases[i-1], true
	}
}

func TestRunIdenticalAtAnyConcurrency(t *testing.T) {
	t.Parallel()
	p := mustPolicy(t, runPolicy)
	cases := genCases(3000, 40, 7)
	var outputs []string
	// Recycled Results (ReuseResults) must give the same output too.
	for _, o := range []Options{{Concurrency: 1}, {Concurrency: 4}, {Concurrency: 16}, {Concurrency: 1, ReuseResults: true}, {Concurrency: 16, ReuseResults: true}} {
		conc := o.Concurrency
		o.RunID = "run-1"
		judges := []judge.Judge{hashJudge("a", "x"), hashJudge("b", "y")}
		var b strings.Builder
		enc := json.NewEncoder(&b)
		k := 0
		stats, err := Run(context.Background(), p, sliceNext(cases), judges, o, func(r *Result) error {
			wantCase, wantJudge := cases[k/2].ID, []string{"fake/a@d1+p1", "fake/b@d1+p1"}[k%2]
			if r.CaseID != wantCase || r.Judge != wantJudge {
				t.Fatalf("concurrency %d: result %d is %s/%s, want %s/%s", conc, k, r.CaseID, r.Judge, wantCase, wantJudge)
			}
			k++
			return enc.Encode(r)
		})
		if err != nil {
			t.Fatal(err)
		}
		if stats.Cases != 3000 || stats.Results != 6000 || stats.Calls == 0 || stats.Failures == 0 {
			t.Errorf("concurrency %d: stats %+v", conc, stats)
		}
		outputs = append(outputs, b.String())
	}
	for i := 1; i < len(outputs); i++ {
		if outputs[i] != outputs[0] {
			a, b := strings.Split(outputs[0], "\n"), strings.Split(outputs[i], "\n")
			for k := range a {
				if k >= len(b) || a[k] != b[k] {
					t.Fatalf("output differs at line %d:\n%s\n%s", k, a[k], b[min(k, len(b)-1)])
				}
			}
			t.Fatalf("output %d differs in length", i)
		}
	}
	// The outputs exercise state: some cases hit max_fires, boundaries and failures.
	for _, want := range []string{`"GateAction":"stop_task"`, `"GateAction":"deny_current_tool"`, `"Source":"failure"`, `"Status":"unknown"`} {
		if !strings.Contains(outputs[0], want) {
			t.Errorf("generated run never produced %s", want)
		}
	}
}

func TestRunSeqOrderError(t *testing.T) {
	t.Parallel()
	p := mustPolicy(t, runPolicy)
	mk := func(id, session string, seq int64) *datasets.Case {
		c := bash("ls")
		c.ID, c.SessionID, c.Seq, c.Source = id, session, seq, "data.jsonl:"+id
		return c
	}
	cases := []*datasets.Case{mk("1", "a", 1), mk("2", "b", 5), mk("3", "a", 2), mk("4", "a", 2), mk("5", "a", 1), mk("6", "b", 6)}
	var got []string
	_, err := Run(context.Background(), p, sliceNext(cases), []judge.Judge{answer(judge.NoMatch)}, Options{Concurrency: 3}, func(r *Result) error {
		got = append(got, r.CaseID)
		return nil
	})
	var se *SeqError
	if !errors.As(err, &se) || se.Source != "data.jsonl:5" || se.SessionID != "a" || se.Seq != 1 || se.Prev != 2 {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), `data.jsonl:5: session "a": seq 1 comes after seq 2`) {
		t.Errorf("message = %q", err)
	}
	if strings.Join(got, ",") != "1,2,3,4" {
		t.Errorf("emitted %v, want the cases before the bad one", got)
	}
}

func TestRunCancelAndEmitError(t *testing.T) {
	t.Parallel()
	p := mustPolicy(t, runPolicy)
	infinite := func() func() (*datasets.Case, bool) {
		i := 0
		return func() (*datasets.Case, bool) {
			i++
			c := bash("rm -rf build")
			c.ID, c.SessionID, c.Seq = fmt.Sprint(i), fmt.Sprint(i%50), int64(i)
			return c, true
		}
	}
	t.Run("cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		// Cases that finished before the interruption are still emitted
		// (an interrupted run keeps what it finished), in order and whole;
		// none carries a failure made by the cancellation itself.
		var emitted, bad atomic.Int64
		var last atomic.Int64
		stats, err := Run(ctx, p, infinite(), []judge.Judge{hashJudge("a", "x")}, Options{Concurrency: 4}, func(r *Result) error {
			id, _ := strconv.ParseInt(r.CaseID, 10, 64)
			if id != last.Add(1) {
				bad.Add(1)
			}
			for _, rr := range r.Rules {
				if rr.Status != "ok" {
					bad.Add(1)
				}
			}
			if emitted.Add(1) == 500 {
				cancel()
			}
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
		if bad.Load() != 0 || stats.Results != emitted.Load() || emitted.Load() < 500 {
			t.Errorf("emitted %d (stats %d), %d out of order or failed", emitted.Load(), stats.Results, bad.Load())
		}
	})
	t.Run("emit error", func(t *testing.T) {
		boom := errors.New("disk full")
		n := 0
		_, err := Run(context.Background(), p, infinite(), []judge.Judge{answer(judge.Match), answer(judge.NoMatch)}, Options{}, func(r *Result) error {
			n++
			if n == 7 {
				return boom
			}
			return nil
		})
		if !errors.Is(err, boom) || n != 7 {
			t.Errorf("err = %v after %d emits", err, n)
		}
	})
	t.Run("no judge", func(t *testing.T) {
		if _, err := Run(context.Background(), p, infinite(), nil, Options{}, func(*Result) error { return nil }); err == nil {
			t.Error("no error without judges")
		}
	})
}

func TestRunProgress(t *testing.T) {
	t.Parallel()
	p := mustPolicy(t, runPolicy)
	cases := genCases(700, 10, 3)
	var calls []ProgressStats
	_, err := Run(context.Background(), p, sliceNext(cases), []judge.Judge{hashJudge("a", "x")},
		Options{ProgressInterval: time.Millisecond, Progress: func(s ProgressStats) { calls = append(calls, s) }},
		func(*Result) error { time.Sleep(10 * time.Microsecond); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) == 0 {
		t.Fatal("progress never called")
	}
	last := calls[len(calls)-1]
	if last.Cases != 700 || last.Results != 700 || last.Calls == 0 || last.Failures == 0 {
		t.Errorf("final progress = %+v", last)
	}
	for i := 1; i < len(calls); i++ {
		if calls[i].Cases < calls[i-1].Cases {
			t.Errorf("progress went backwards: %+v then %+v", calls[i-1], calls[i])
		}
	}
}

const benchPolicy = `
[permissions]
default_action = "allow"
[[permissions.rule]]
tool = "bash"
pattern = "rm -rf /*"
action = "deny"
[[permissions.rule]]
tool = "write"
pattern = "*.env"
action = "ask"

[[rule]]
id = "delete"
class = "dangerous"
action = "request_approval"
[rule.when]
command_prefix = ["rm", "shred", "git clean"]

[[rule]]
id = "force-push"
class = "approval"
action = "request_approval"
categories = ["command_execution"]
[rule.when]
command_regex = ['git\s+push\s+.*--force']

[[rule]]
id = "env-files"
class = "dangerous"
action = "deny_current_tool"
[rule.when]
arg_glob = { file_path = "*.env" }

[[rule]]
id = "outside"
class = "dangerous"
action = "deny_current_tool"
[rule.when]
path_outside_workspace = true

[[rule]]
id = "japanese"
class = "style"
action = "inject_instruction"
[rule.when]
min_non_ascii_ratio = 0.3

[[rule]]
id = "net"
class = "stop"
[rule.boundary]
kind = "network"

[[rule]]
id = "ws"
class = "stop"
[rule.boundary]
kind = "workspace"

[[rule]]
id = "audit"
class = "always"
action = "audit_only"
max_fires = 5
`

// BenchmarkRunDeterministic replays generated in-memory cases through a
// policy with only deterministic rules (no judge calls) and reports cases/s.
func BenchmarkRunDeterministic(b *testing.B) {
	p := mustPolicy(b, benchPolicy)
	pool := make([]*datasets.Case, 8192)
	cmds := append(commands, "FOO=1 sudo rm -rf /tmp/x && echo done", "git push --force origin main", "python -c 'print(1)'")
	for i := range pool {
		var c *datasets.Case
		switch i % 4 {
		case 0, 1:
			c = bash(cmds[i%len(cmds)])
		case 2:
			c = call("Write", "file_change", "file_path", []string{"src/main.go", ".env", "/etc/hosts"}[i%3], "content", "日本語とEnglish")
		default:
			c = call("WebFetch", "web_search", "url", "https://example.test/api")
		}
		c.ID = fmt.Sprintf("b%06d", i)
		c.SessionID = fmt.Sprintf("s%05d", i/8)
		c.Seq = int64(i % 8)
		pool[i] = c
	}
	none := failing(judge.StatusError)
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	next := func() (*datasets.Case, bool) {
		if n == b.N {
			return nil, false
		}
		// Cases are reused once the pool wraps (far beyond the cases in
		// flight); a global seq keeps every session in order.
		c := pool[n%len(pool)]
		n++
		c.Seq = int64(n)
		return c, true
	}
	start := time.Now()
	var rows int64
	// Results are recycled as `apeval run` does (its emit keeps no pointer).
	stats, err := Run(context.Background(), p, next, []judge.Judge{none}, Options{Concurrency: 2, ReuseResults: true}, func(r *Result) error {
		rows += int64(len(r.Rules))
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	if stats.Cases != int64(b.N) || stats.Calls != 0 {
		b.Fatalf("stats %+v", stats)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "cases/s")
	b.ReportMetric(float64(rows)/float64(b.N), "rows/case")
}

// BenchmarkRunDistinctSessions gives every case its own session (the
// default when a dataset has no session_id), the worst case for the
// per-session state Run keeps; run it under /usr/bin/time -v for peak RSS.
func BenchmarkRunDistinctSessions(b *testing.B) {
	p := mustPolicy(b, benchPolicy)
	proto := []*datasets.Case{bash("rm -rf build"), call("WebFetch", "web_search", "url", "https://e.test"),
		call("Write", "file_change", "file_path", "/etc/hosts")}
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	next := func() (*datasets.Case, bool) {
		if n == b.N {
			return nil, false
		}
		c := *proto[n%len(proto)]
		c.ID = "case-" + strconv.Itoa(n)
		c.SessionID = c.ID
		n++
		return &c, true
	}
	start := time.Now()
	stats, err := Run(context.Background(), p, next, []judge.Judge{failing(judge.StatusError)}, Options{Concurrency: 2}, func(*Result) error { return nil })
	if err != nil || stats.Cases != int64(b.N) {
		b.Fatal(err, stats)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "cases/s")
}

// TestRunConcurrencyBound: Concurrency is the number of judge calls in
// flight per judge, reached even when session hashes fall unevenly.
func TestRunConcurrencyBound(t *testing.T) {
	t.Parallel()
	p := mustPolicy(t, runPolicy)
	for _, conc := range []int{1, 3, 8} {
		var inFlight, peak atomic.Int64
		j := &fakeJudge{name: "slow", fn: func(ctx context.Context, req judge.Request) judge.Response {
			n := inFlight.Add(1)
			for {
				m := peak.Load()
				if n <= m || peak.CompareAndSwap(m, n) {
					break
				}
			}
			time.Sleep(3 * time.Millisecond)
			inFlight.Add(-1)
			return answer(judge.Match).fn(ctx, req)
		}}
		var cases []*datasets.Case
		for i := range 120 {
			c := bash(fmt.Sprintf("rm -rf build/%d", i))
			c.ID, c.SessionID, c.Seq = fmt.Sprint(i), fmt.Sprint(i%40), int64(i)
			cases = append(cases, c)
		}
		if _, err := Run(context.Background(), p, sliceNext(cases), []judge.Judge{j}, Options{Concurrency: conc}, func(*Result) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if got := peak.Load(); got != int64(conc) {
			t.Errorf("concurrency %d: peak %d calls in flight", conc, got)
		}
	}
}

// Every result carries its session's ordinal in the run's session table:
// the same for every case and judge of a session, different between
// sessions (a bijection with the session IDs), and given in order of first
// appearance.
func TestRunSessionOrdinals(t *testing.T) {
	t.Parallel()
	p := mustPolicy(t, runPolicy)
	cases := genCases(2000, 37, 3)
	ordOf := map[string]uint32{}
	idOf := map[uint32]string{}
	var next uint32 = 1
	_, err := Run(context.Background(), p, sliceNext(cases), []judge.Judge{hashJudge("a", "x"), hashJudge("b", "y")}, Options{Concurrency: 8, ReuseResults: true}, func(r *Result) error {
		if r.SessionOrd == 0 {
			t.Fatalf("case %s: no session ordinal", r.CaseID)
		}
		if o, ok := ordOf[r.SessionID]; ok {
			if o != r.SessionOrd {
				t.Fatalf("session %s: ordinal %d, earlier %d", r.SessionID, r.SessionOrd, o)
			}
			return nil
		}
		if id, ok := idOf[r.SessionOrd]; ok {
			t.Fatalf("ordinal %d given to sessions %s and %s", r.SessionOrd, id, r.SessionID)
		}
		if r.SessionOrd != next {
			t.Fatalf("session %s first seen gets ordinal %d, want %d", r.SessionID, r.SessionOrd, next)
		}
		next++
		ordOf[r.SessionID], idOf[r.SessionOrd] = r.SessionOrd, r.SessionID
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ordOf) < 10 {
		t.Fatalf("only %d sessions: the test data should have many", len(ordOf))
	}
}

// An interrupted run emits exactly the cases that had finished, in input
// order, up to the first that had not. Case 300's judge call hangs until
// the run is cancelled, which happens once every case before it has been
// answered: the run emits cases 1 to 299, whole and in order, and none
// after 300, though many of those had finished too.
func TestRunInterruptEmitsFinishedPrefix(t *testing.T) {
	t.Parallel()
	p := mustPolicy(t, runPolicy)
	const n, stuck = 1000, 300
	cases := make([]*datasets.Case, n)
	for i := range cases {
		c := bash("ls")
		c.ID, c.SessionID, c.Seq, c.Piece = fmt.Sprint(i+1), fmt.Sprint("s", i%50), int64(i+1), fmt.Sprint(i+1)
		cases[i] = c
	}
	ok := answer(judge.NoMatch)
	// One case's calls, to know when every case before the stuck one has
	// been answered.
	var perCase atomic.Int64
	counting := &fakeJudge{name: "count", fn: func(ctx context.Context, req judge.Request) judge.Response {
		perCase.Add(1)
		return ok.fn(ctx, req)
	}}
	if _, err := Run(context.Background(), p, sliceNext(cases[:1]), []judge.Judge{counting}, Options{}, func(*Result) error { return nil }); err != nil || perCase.Load() == 0 {
		t.Fatalf("one case: %d calls, err %v", perCase.Load(), err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var answered atomic.Int64 // calls answered for cases before the stuck one
	j := &fakeJudge{name: "stuck", fn: func(callCtx context.Context, req judge.Request) judge.Response {
		id, _ := strconv.Atoi(req.Input.Current.Piece)
		if id == stuck {
			go func() {
				for answered.Load() < (stuck-1)*perCase.Load() {
					time.Sleep(time.Millisecond)
				}
				time.Sleep(100 * time.Millisecond) // their results are stored
				cancel()
			}()
			<-callCtx.Done()
			return judge.Response{Status: judge.StatusError, Error: callCtx.Err().Error()}
		}
		r := ok.fn(callCtx, req)
		if id < stuck {
			answered.Add(1)
		}
		return r
	}}
	var got []string
	stats, err := Run(ctx, p, sliceNext(cases), []judge.Judge{j}, Options{Concurrency: 4}, func(r *Result) error {
		for _, rr := range r.Rules {
			if rr.Status != "ok" {
				t.Errorf("case %s: rule %s emitted with status %s", r.CaseID, rr.RuleID, rr.Status)
			}
		}
		got = append(got, r.CaseID)
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	want := make([]string, stuck-1)
	for i := range want {
		want[i] = fmt.Sprint(i + 1)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("emitted %d cases %v…, want cases 1 to %d in order", len(got), got[:min(len(got), 5)], stuck-1)
	}
	if stats.Cases != stuck-1 || stats.Results != stuck-1 {
		t.Errorf("stats %+v, want %d cases and results", stats, stuck-1)
	}
}
