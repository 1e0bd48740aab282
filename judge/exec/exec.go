// Package exec is the `exec:COMMAND` judge backend: a pool of long-lived
// plugin processes speaking the judge JSON one line per request (the
// protocol is in EXEC.md). It registers itself with the judge registry;
// judge/all imports it. Not a stable Go API: apeval is a command, its
// packages serve it.
//
// Where to look:
//
//	exec.go                     the backend: the pool, start-up handshake, calls, restarts, stderr
//	exec_unix.go, exec_other.go plugin process groups per platform
//	EXEC.md                     the plugin protocol
//	exec_test.go, exec_restart_test.go, exec_fault_test.go  against judge/plugin/example and shell plugins
package exec

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/judge"
)

// The registry line: name, what it reads, how it opens.
func init() {
	judge.Register(judge.Backend{Name: "exec", Arg: "COMMAND", Live: true, Order: 30,
		Help: "a long-lived plugin speaking judge JSON lines on stdin/stdout",
		Open: func(_ context.Context, arg string, _ *judge.Prompt, cfg judge.Config) (judge.Judge, error) {
			return New(arg, cfg)
		}})
}

// Judge is the `exec:COMMAND` backend: a pool of long-lived child processes
// speaking the judge JSON, one object per line (protocol in EXEC.md).
//
// COMMAND runs through /bin/sh -c, so quoting, pipes and environment
// assignments work as in a shell. The pool holds Config.Concurrency children
// (at least one), started on first use; each child handles one call at a
// time. A child that does not answer within the timeout is killed (its whole
// process group) and restarted on the next call, which then starts fresh. A
// child that exits fails its in-flight call with status error and is
// restarted after an exponential backoff (100 ms doubling to 5 s, reset by
// an answered call); the next call waits for the backoff. Waiting for a free
// child, the backoff and the process start are not part of a call's latency,
// which runs from writing the input line to reading the answer line: a new
// process is sent a warm-up request and its first line (the ready line, or
// the warm-up's answer) is waited for untimed before its first call.
type Judge struct {
	command  string
	shown    string // command through the masking pass, for the identity, details and log
	id       judge.Identity
	timeout  time.Duration
	retries  int
	log      io.Writer
	pool     chan *child
	stderr   *stderrSink
	closed   chan struct{}
	once     sync.Once
	closeErr error
}

// New prepares an exec judge; no process starts before the first call.
func New(command string, cfg judge.Config) (*Judge, error) {
	command = strings.TrimSpace(command)
	if command == "" {
		return nil, errors.New("exec judge needs a command")
	}
	// A plugin that cannot start is a usage error, not 100 % failed calls:
	// when the command's first word is a plain program name or path, it must
	// exist. (A command using shell syntax is left to the shell.)
	// The shell's own `command -v` knows builtins and keywords too.
	if prog := strings.Fields(command)[0]; !strings.ContainsAny(prog, "$`'\"=;|&()<>*?~{}[]\\") {
		if err := exec.Command("/bin/sh", "-c", `command -v -- "$1" >/dev/null`, "sh", prog).Run(); err != nil {
			return nil, fmt.Errorf("exec judge: %q is not a program the shell can run", prog)
		}
	}
	n := cfg.Concurrency
	if n < 1 {
		n = 1
	}
	// A secret typed into the command (--token sk-…, API_KEY=…) would reach
	// run.json, the reports and stderr through the identity: those show the
	// command masked. Masking is deterministic, so the identity is the same
	// on every run and runs still pair and merge.
	shown := mask.String(command)
	e := &Judge{
		command: command,
		shown:   shown,
		id:      judge.Identity{Backend: "exec", Model: shown, Digest: commandDigest(command)},
		timeout: cfg.Timeout,
		retries: cfg.Retries,
		log:     &lockedWriter{w: cfg.Logger()},
		pool:    make(chan *child, n),
		closed:  make(chan struct{}),
	}
	e.stderr = &stderrSink{w: e.log, mask: mask.String, tokens: stderrBurst}
	if cfg.Quiet {
		e.stderr.w = nil
	}
	for i := 0; i < n; i++ {
		e.pool <- &child{command: command, shown: shown, log: e.log, stderr: e.stderr, maxLine: cfg.MaxResponse(), startWait: startAllowance(cfg.Timeout)}
	}
	return e, nil
}

// commandDigest hashes the files a command names (the executable found on
// PATH and any argument that is an existing file, such as a script), so a
// rebuilt plugin gets a new identity and never reuses cached answers. It is
// "" when the command names no file.
func commandDigest(command string) string {
	h := sha256.New()
	found := false
	for i, f := range strings.Fields(command) {
		path := f
		if i == 0 {
			if p, err := exec.LookPath(f); err == nil {
				path = p
			}
		}
		st, err := os.Stat(path)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		sum := sha256.Sum256(data)
		h.Write(sum[:])
		found = true
	}
	if !found {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// Identity is exec/COMMAND@DIGEST12, COMMAND masked (mask.String); there
// is no prompt: the plugin gets the judge input itself.
func (e *Judge) Identity() judge.Identity { return e.id }

// Details reports the command (masked) and pool size.
func (e *Judge) Details() map[string]string {
	return map[string]string{"command": e.shown, "children": fmt.Sprint(cap(e.pool))}
}

// Judge sends the input to a free child and reads its answer.
func (e *Judge) Judge(ctx context.Context, req judge.Request) judge.Response {
	line, err := json.Marshal(req.Input)
	if err != nil {
		return judge.Response{Status: judge.StatusError, Error: "encode judge input: " + err.Error()}
	}
	line = append(line, '\n')
	asked := judge.AskedIDs(req.Input)
	var excluded time.Duration
	resp := judge.RunAttempts(ctx, 0, e.retries, func(ctx context.Context) (judge.Response, bool) {
		waitStart := time.Now()
		c, err := e.acquire(ctx)
		if err != nil {
			excluded += time.Since(waitStart)
			if errors.Is(err, errExecClosed) {
				return judge.Response{Status: judge.StatusError, Error: err.Error()}, false
			}
			return judge.Failed(ctx, err)
		}
		defer func() { e.pool <- c }()
		if err := c.ready(ctx); err != nil {
			var sf *startFailure
			if errors.As(err, &sf) {
				excluded += time.Since(waitStart) - sf.counted
				return sf.resp, sf.retry
			}
			excluded += time.Since(waitStart)
			return judge.Failed(ctx, err)
		}
		excluded += time.Since(waitStart)
		actx, cancel := ctx, context.CancelFunc(func() {})
		if e.timeout > 0 {
			actx, cancel = context.WithTimeout(ctx, e.timeout)
		}
		defer cancel()
		resp, retry := c.call(actx, line, asked)
		if c.lost {
			// A one-shot plugin found out: its next process, started
			// without a warm-up, answers this call.
			c.lost = false
			if err := c.ready(actx); err == nil {
				resp, retry = c.call(actx, line, asked)
			}
		}
		return resp, retry
	})
	resp.Latency -= excluded
	if resp.Status == judge.StatusError && (resp.Cause == "" || resp.Cause == judge.CauseTransport || resp.Cause == judge.CauseOther) {
		resp.Cause = judge.CausePlugin // a pipe or process failure is the plugin's
	}
	return resp
}

var errExecClosed = errors.New("exec judge is closed")

// acquire takes an idle child from the pool.
func (e *Judge) acquire(ctx context.Context) (*child, error) {
	select {
	case <-e.closed:
		return nil, errExecClosed
	default:
	}
	select {
	case c := <-e.pool:
		return c, nil
	case <-e.closed:
		return nil, errExecClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close ends every child: stdin is closed so a plugin can exit cleanly, and
// a child still running after a second is killed. Calls after Close fail.
func (e *Judge) Close() error {
	e.once.Do(func() {
		close(e.closed)
		var errs []error
		for i := 0; i < cap(e.pool); i++ {
			c := <-e.pool
			if err := c.stop(time.Second); err != nil {
				errs = append(errs, err)
			}
		}
		e.stderr.report(e.id.String())
		e.closeErr = errors.Join(errs...)
	})
	return e.closeErr
}

// child is one plugin process; only the goroutine holding it from the pool
// touches it.
type child struct {
	command   string
	shown     string // command masked, for the log
	log       io.Writer
	stderr    *stderrSink
	proc      *exec.Cmd
	stdin     *os.File
	lines     chan []byte   // answer lines; closed when stdout ends
	maxLine   int64         // longest answer line read; a longer one is sent as overLine
	exited    chan struct{} // closed once the process has been waited for
	exitErr   error
	crashes   int
	nextStart time.Time
	// handshake: this process's first line was the ready line; answered:
	// the calls it answered. oneShot: the plugin answers one request per
	// process (it exited after its warm-up answer without a ready line), so
	// its processes get no warm-up and their exit after an answer is no
	// crash. lost: the call found such a process gone and is sent again.
	handshake, oneShot, lost bool
	answered                 int
	// startWait bounds the wait for a new process's first line (the ready
	// line or its answer to the warm-up request).
	startWait time.Duration
}

// Start-up is not latency (EXEC.md, "Start-up"). A new process is sent a
// warm-up request at once, and its first line is waited for untimed: the
// ready line a plugin may write when it is ready, or — a plugin that does
// not know the handshake — its answer to the warm-up request. Only then is
// the first call written, so an interpreter's or a model's start never
// counts in a call's latency.
var (
	readyLine    = []byte(`{"ready":true}`)
	warmupRuleID = "apeval-warmup"
	warmupLine   = func() []byte {
		in := struct {
			Warmup bool `json:"warmup"`
			judge.Input
		}{true, judge.Input{Version: judge.SchemaVersion,
			Rules:   []judge.Rule{{ID: warmupRuleID, Condition: "warm-up request: apeval ignores this answer"}},
			Current: judge.Current{HookPoint: "tool.before", Tool: judge.Tool{Name: "warmup", Arguments: map[string]any{}}},
			Context: judge.InContext{RecentMessages: []judge.Message{}, PreviousRuleFires: []judge.RuleFires{}, ApprovalState: "none"}}}
		b, err := json.Marshal(in)
		if err != nil {
			panic(err)
		}
		return append(b, '\n')
	}()
)

// startAllowance is how long a new process may take to its first line: the
// call timeout (0: no limit but the call's own context). Before the
// handshake a start longer than the timeout failed every first call too.
func startAllowance(timeout time.Duration) time.Duration { return timeout }

// overLine stands for an answer line longer than the cap (compared by
// identity: it is never a real line).
var overLine = []byte{0}

// maxExecBackoff caps the restart backoff of a crashing plugin.
const maxExecBackoff = 5 * time.Second

// ready starts the process if it is not running, after the restart backoff,
// and waits until it is ready (warmUp).
func (c *child) ready(ctx context.Context) (err error) {
	if c.proc != nil {
		select {
		case <-c.exited:
			// A one-shot plugin's process ends after its answer: expected.
			c.reap(!c.oneShot || c.answered == 0)
		default:
			return nil
		}
	}
	if wait := time.Until(c.nextStart); wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	cmd := exec.Command("/bin/sh", "-c", c.command)
	setProcessGroup(cmd)
	// Our own pipes, not StdinPipe/StdoutPipe or a Writer as Stderr: an
	// *os.File takes write deadlines, so a plugin that stops reading cannot
	// block a call past its timeout, and Wait never waits for a helper the
	// plugin left running with our stdout or stderr open (its read ends are
	// closed execWaitDelay after the plugin exits).
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			// Closing our copy of a pipe end cannot fail in a way that matters.
			_ = f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	stdinR, stdin, err := pipe()
	if err != nil {
		return err
	}
	stdout, stdoutW, err := pipe()
	if err != nil {
		closeAll()
		return err
	}
	stderr, stderrW, err := pipe()
	if err != nil {
		closeAll()
		return err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, stdoutW, stderrW
	err = cmd.Start()
	// The child holds its own copies of its ends.
	_ = stdinR.Close()
	_ = stdoutW.Close()
	_ = stderrW.Close()
	if err != nil {
		_ = stdin.Close()
		_ = stdout.Close()
		_ = stderr.Close()
		c.crashed()
		return fmt.Errorf("start plugin: %w", err)
	}
	c.proc, c.stdin = cmd, stdin
	c.lines = make(chan []byte, 1)
	c.exited = make(chan struct{})
	lines, exited, maxLine := c.lines, c.exited, c.maxLine
	c.handshake, c.answered = false, 0
	defer func() {
		// A one-shot plugin's only answer is its call's: no warm-up.
		if err == nil && !c.oneShot {
			err = c.warmUp(ctx)
		}
	}()
	outDone, errDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(outDone)
		defer stdout.Close()
		// Lines are assembled up to maxLine; past it the rest of the line
		// is read and dropped (memory stays bounded whatever the plugin
		// writes) and the call is told at once.
		r := bufio.NewReaderSize(stdout, 64<<10)
		var line []byte
		over := false
		for {
			chunk, err := r.ReadSlice('\n')
			if !over {
				if int64(len(line)+len(chunk)) > maxLine {
					over, line = true, nil
					lines <- overLine
				} else {
					line = append(line, chunk...)
				}
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if t := bytes.TrimSpace(line); len(t) > 0 && !over {
				lines <- append([]byte(nil), t...)
			}
			line, over = line[:0], false
			if err != nil {
				break
			}
		}
		close(lines)
	}()
	go func() {
		defer close(errDone)
		defer stderr.Close()
		c.stderr.copyFrom(stderr)
	}()
	go func() {
		c.exitErr = cmd.Wait()
		// A helper that left the process group (setsid) may still hold
		// stdout or stderr: after a grace, our read ends are closed, which
		// ends the readers. graceOver stays closed once the grace is over,
		// so a helper holding both pipes has both closed (a timer's channel
		// fires once: the second pipe used to wait for the helper's exit).
		graceOver := make(chan struct{})
		t := time.AfterFunc(execWaitDelay, func() { close(graceOver) })
		defer t.Stop()
		for _, p := range []struct {
			done chan struct{}
			f    *os.File
		}{{outDone, stdout}, {errDone, stderr}} {
			select {
			case <-p.done:
			case <-graceOver:
				_ = p.f.Close()
				<-p.done
			}
		}
		close(exited)
	}()
	return nil
}

// execWaitDelay is how long the pipes of an exited plugin stay open for
// its last output when something else still holds them.
const execWaitDelay = 500 * time.Millisecond

// startFailure is a new process that did not become ready: the call's
// response, and for a timeout how long of the call it counts (a timeout
// counts at its timeout, as any call's).
type startFailure struct {
	resp    judge.Response
	retry   bool
	counted time.Duration
}

func (f *startFailure) Error() string { return f.resp.Error }

// warmUp writes the warm-up request and waits for the new process's first
// line, whatever it says (the ready line, or any answer), for at most the
// call timeout: a plugin that cannot start within it fails the call as a
// timeout, as it always did.
func (c *child) warmUp(ctx context.Context) error {
	wctx, cancel := ctx, context.CancelFunc(func() {})
	if c.startWait > 0 {
		wctx, cancel = context.WithTimeout(ctx, c.startWait)
	}
	defer cancel()
	began := time.Now()
	stop := context.AfterFunc(wctx, func() { _ = c.stdin.SetWriteDeadline(time.Now()) })
	_, werr := c.stdin.Write(warmupLine)
	stop()
	if werr == nil {
		select {
		case line, ok := <-c.lines:
			if ok && &line[0] == &overLine[0] {
				c.kill()
				c.reap(false)
				return &startFailure{resp: judge.TooLarge(c.maxLine)}
			}
			if ok {
				c.handshake = bytes.Equal(line, readyLine)
				return nil
			}
		case <-wctx.Done():
		}
	}
	c.kill()
	if ctx.Err() != nil {
		c.reap(false)
		resp, retry := judge.Failed(ctx, ctx.Err())
		return &startFailure{resp: resp, retry: retry}
	}
	if wctx.Err() != nil {
		c.reap(false) // killed for its timeout: the next call starts at once
		return &startFailure{resp: judge.Response{Status: judge.StatusTimeout,
			Error: fmt.Sprintf("timeout: the plugin wrote no first line within %s of starting (the ready line, or its answer to the warm-up request; see EXEC.md)", c.startWait)},
			retry: true, counted: time.Since(began)}
	}
	return &startFailure{resp: judge.Response{Status: judge.StatusError, Cause: judge.CausePlugin, Error: "plugin exited: " + c.reap(true)}, retry: true}
}

// call writes one input line and waits for the answer line.
func (c *child) call(ctx context.Context, line []byte, asked []string) (judge.Response, bool) {
	// Clear a deadline an earlier call's cancellation may have left, then
	// unblock a write the plugin does not read when this call ends.
	_ = c.stdin.SetWriteDeadline(time.Time{})
	stop := context.AfterFunc(ctx, func() {
		// Setting a deadline on an open pipe cannot fail in a way that matters.
		_ = c.stdin.SetWriteDeadline(time.Now())
	})
	_, err := c.stdin.Write(line)
	stop()
	if err != nil {
		c.kill()
		if ctx.Err() != nil {
			c.reap(false)
			return judge.Failed(ctx, ctx.Err())
		}
		return c.gone()
	}
	for {
		select {
		case ans, ok := <-c.lines:
			if !ok {
				return c.gone()
			}
			if isWarmupAnswer(ans) {
				continue // a plugin that wrote the ready line and answered the warm-up too
			}
			if &ans[0] == &overLine[0] {
				// A fresh process is the only way past the rest of that line.
				c.kill()
				c.reap(false)
				return judge.TooLarge(c.maxLine), false
			}
			c.crashes = 0
			c.answered++
			return judge.Answered(ans, asked), false
		case <-ctx.Done():
			// The answer may still come; a fresh process is the only way to
			// keep the next call from reading it.
			c.kill()
			c.reap(false)
			return judge.Failed(ctx, ctx.Err())
		}
	}
}

// gone is the call's response when its process exited without answering.
// A process that said no ready line, answered its warm-up and exited
// before any call is a one-shot plugin: the warm-up took its only answer,
// so it is restarted without a warm-up and the call sent again (lost).
func (c *child) gone() (judge.Response, bool) {
	if !c.oneShot && !c.handshake && c.answered == 0 {
		c.oneShot, c.lost = true, true
		c.reap(false)
		return judge.Response{Status: judge.StatusError, Cause: judge.CausePlugin, Error: "plugin exited after its warm-up answer"}, true
	}
	if c.oneShot && c.answered > 0 {
		// Its process had given its one answer and was on its way out.
		c.lost = true
		c.reap(false)
		return judge.Response{Status: judge.StatusError, Cause: judge.CausePlugin, Error: "plugin exited after its answer"}, true
	}
	return judge.Response{Status: judge.StatusError, Cause: judge.CausePlugin, Error: "plugin exited: " + c.reap(true)}, true
}

// isWarmupAnswer reports whether a line is the ready line or an answer to
// the warm-up request, which a call must skip rather than take as its own.
func isWarmupAnswer(line []byte) bool {
	return bytes.Equal(line, readyLine) || bytes.Contains(line, []byte(`"`+warmupRuleID+`"`))
}

// crashed schedules the next start after the backoff.
func (c *child) crashed() {
	c.crashes++
	d := 100 * time.Millisecond << (c.crashes - 1)
	if d > maxExecBackoff || d <= 0 {
		d = maxExecBackoff
	}
	c.nextStart = time.Now().Add(d)
	_, _ = fmt.Fprintf(c.log, "judge exec/%s: plugin exited; restarting in %v\n", c.shown, d)
}

// reap waits for the dead process and forgets it; crash says whether the
// exit was unexpected (backoff) or caused by a kill (restart at once). It
// returns the exit status for error messages.
func (c *child) reap(crash bool) string {
	if c.proc == nil {
		return "not running"
	}
	for range c.lines {
		// Drain so the reader goroutine reaches Wait.
	}
	<-c.exited
	msg := "exit status unknown"
	if c.exitErr != nil {
		msg = c.exitErr.Error()
	} else {
		msg = "exit status 0"
	}
	// Our write end of the old stdin; the process is gone.
	_ = c.stdin.Close()
	c.proc, c.stdin = nil, nil
	if crash {
		c.crashed()
	}
	return msg
}

// kill ends the child's whole process group (sh and what it started).
func (c *child) kill() {
	if c.proc != nil && c.proc.Process != nil {
		killProcessGroup(c.proc)
	}
}

// stop closes stdin, gives the plugin grace to exit, then kills it.
func (c *child) stop(grace time.Duration) error {
	if c.proc == nil {
		return nil
	}
	// The process may already be gone; a failed close changes nothing.
	_ = c.stdin.Close()
	select {
	case <-c.exited:
	case <-time.After(grace):
		c.kill()
	}
	c.reap(false)
	return nil
}

// lockedWriter serialises writes from several children's stderr copiers.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Plugin stderr is copied to the log line by line, each line masked, at
// most maxPluginStderr bytes in all and stderrRate lines a second (bursts
// of stderrBurst) per judge; a line is cut at maxStderrLine bytes. What is
// left out is counted and reported once when the judge closes.
const (
	maxPluginStderr = 1 << 20
	maxStderrLine   = 4 << 10
	stderrRate      = 50.0
	stderrBurst     = 200.0
)

// stderrSink is the shared, bounded destination of a judge's children's
// stderr.
type stderrSink struct {
	mu           sync.Mutex
	w            io.Writer // nil: --quiet, every line is dropped silently
	mask         func(string) string
	written      int64
	tokens       float64
	last         time.Time
	droppedLines int64
	droppedBytes int64
}

// copyFrom reads r to its end, passing each line to the sink.
func (s *stderrSink) copyFrom(r io.Reader) {
	br := bufio.NewReaderSize(r, maxStderrLine)
	cut := false
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case cut:
			s.drop(0, len(chunk))
		case err == bufio.ErrBufferFull:
			s.line(chunk, true)
		default:
			s.line(chunk, false)
		}
		cut = err == bufio.ErrBufferFull
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
	}
}

func (s *stderrSink) drop(lines, n int) {
	s.mu.Lock()
	s.droppedLines += int64(lines)
	s.droppedBytes += int64(n)
	s.mu.Unlock()
}

// line writes one line (cut: the first maxStderrLine bytes of a longer
// one) if the budget and the rate allow.
func (s *stderrSink) line(b []byte, cut bool) {
	b = bytes.TrimRight(b, "\r\n")
	if len(b) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if !s.last.IsZero() {
		s.tokens = min(stderrBurst, s.tokens+now.Sub(s.last).Seconds()*stderrRate)
	}
	s.last = now
	if s.w == nil || s.tokens < 1 || s.written+int64(len(b)) > maxPluginStderr {
		s.droppedLines++
		s.droppedBytes += int64(len(b))
		return
	}
	s.tokens--
	text := string(b)
	if s.mask != nil {
		text = s.mask(text)
	}
	text = judge.QuoteControls(text)
	if cut {
		text += " … (line cut)"
	}
	s.written += int64(len(b))
	_, _ = io.WriteString(s.w, text+"\n")
}

// report says how much stderr was left out (not under --quiet).
func (s *stderrSink) report(judge string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == nil || s.droppedLines+s.droppedBytes == 0 {
		return
	}
	msg := fmt.Sprintf("judge %s: plugin stderr dropped: %d lines, %d bytes (apeval copies at most %d KiB in all and %g lines a second per judge)",
		judge, s.droppedLines, s.droppedBytes, maxPluginStderr>>10, stderrRate)
	if s.mask != nil {
		msg = s.mask(msg)
	}
	_, _ = io.WriteString(s.w, msg+"\n")
}
