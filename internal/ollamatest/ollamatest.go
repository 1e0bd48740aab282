//go:build unix

// Package ollamatest is what the end-to-end tests against a real `ollama
// serve` share (judge/ollama's and cmd/apeval's, both built with the e2e
// tag by .ci/e2e-ollama.sh, `make e2e-ollama`): the shared server's
// address, the model's digest as the server reports it, and a server of a
// test's own that it may stop, restart or kill mid-run. It is test support,
// not a stable Go API.
//
// .ci/e2e-ollama.sh sets APEVAL_E2E_OLLAMA_HOST (the shared server),
// APEVAL_E2E_OLLAMA_BIN (the ollama binary) and APEVAL_E2E_OLLAMA_MODELS
// (the models directory holding the tiny model); without them the tests
// skip, saying which script to run.
package ollamatest

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// Model is the tiny generated model the script creates.
const Model = "tiny"

// Host is the shared server started by .ci/e2e-ollama.sh; the test skips
// without it.
func Host(t testing.TB) string {
	t.Helper()
	h := os.Getenv("APEVAL_E2E_OLLAMA_HOST")
	if h == "" {
		t.Skip("APEVAL_E2E_OLLAMA_HOST is not set; run .ci/e2e-ollama.sh")
	}
	return h
}

// TagsDigest reads model's digest from the server's /api/tags, the only
// place Ollama reports it; it depends on the models path, so it is never
// hard-coded. "tiny" matches "tiny" and "tiny:latest".
func TagsDigest(t testing.TB, host, model string) string {
	t.Helper()
	u, err := url.Parse(host)
	if err != nil {
		t.Fatal(err)
	}
	list, err := api.NewClient(u, http.DefaultClient).List(context.Background())
	if err != nil {
		t.Fatalf("list models on %s: %v", host, err)
	}
	for _, m := range list.Models {
		if m.Name == model || m.Name == model+":latest" {
			return strings.TrimPrefix(m.Digest, "sha256:")
		}
	}
	t.Fatalf("model %s not on %s", model, host)
	return ""
}

// Server is an `ollama serve` of a test's own on the script's models, on a
// free loopback port, so the test can stop or kill it without disturbing
// the shared server. It runs in its own process group: stopping it also
// ends the model runner it spawns.
type Server struct {
	Host string // http://127.0.0.1:PORT
	Log  *Log   // the server's output, kept across restarts

	t   testing.TB
	bin string
	env []string

	mu  sync.Mutex
	cmd *exec.Cmd
}

// StartServer starts a Server (the test skips without the script's
// environment) and stops it when the test ends.
func StartServer(t testing.TB) *Server {
	t.Helper()
	bin, models := os.Getenv("APEVAL_E2E_OLLAMA_BIN"), os.Getenv("APEVAL_E2E_OLLAMA_MODELS")
	if bin == "" || models == "" {
		t.Skip("APEVAL_E2E_OLLAMA_BIN or APEVAL_E2E_OLLAMA_MODELS is not set; run .ci/e2e-ollama.sh")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	s := &Server{Host: "http://" + addr, Log: &Log{}, t: t, bin: bin,
		env: append(os.Environ(), "HOME="+t.TempDir(), "OLLAMA_MODELS="+models, "OLLAMA_HOST="+addr)}
	s.Start()
	t.Cleanup(s.Stop)
	return s
}

// Start starts the server (again, after Stop) and waits until it answers.
func (s *Server) Start() {
	s.t.Helper()
	cmd := exec.Command(s.bin, "serve")
	cmd.Env = s.env
	cmd.Stdout, cmd.Stderr = s.Log, s.Log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.mu.Lock()
	s.cmd = cmd
	s.mu.Unlock()
	u, _ := url.Parse(s.Host)
	c := api.NewClient(u, http.DefaultClient)
	deadline := time.Now().Add(15 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := c.Version(ctx)
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("ollama serve on %s not ready: %v\n%s", s.Host, err, s.Log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Kill ends the server and its runner at once, as a crash would, without
// waiting for them: it may be called from a Log hook (which runs while the
// server's output is copied, so waiting there would never end).
func (s *Server) Kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil && s.cmd.Process != nil {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// Stop kills the server and waits for it; Start may start it again.
func (s *Server) Stop() {
	s.Kill()
	s.mu.Lock()
	cmd := s.cmd
	s.cmd = nil
	s.mu.Unlock()
	if cmd != nil {
		_ = cmd.Wait() // killed: its exit status is not news
	}
}

// Log is a server's output. It counts the finished /api/chat requests
// Ollama logs, one line each, and calls a hook with the count.
type Log struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	chats int
	hook  func(chats int)
}

// OnChat sets the function called with the number of chats answered so far
// each time the server logs more (from the goroutine copying its output).
func (l *Log) OnChat(hook func(chats int)) {
	l.mu.Lock()
	l.hook = hook
	l.mu.Unlock()
}

func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.buf.Write(p)
	l.chats += bytes.Count(p, []byte(`"/api/chat"`))
	chats, hook := l.chats, l.hook
	l.mu.Unlock()
	if hook != nil {
		hook(chats)
	}
	return len(p), nil
}

func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
