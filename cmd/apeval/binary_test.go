package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// selfBinary is apeval as a program for tests that need a process of their
// own (signals, stdin pipes, the hook's output): this test binary, which
// TestMain (testscript.Main) puts first on $PATH as "apeval" and which runs
// Main when started under that name, exactly as main does. No go build.
// Benchmarks measure a real build instead (apevalBinary).
func selfBinary(tb testing.TB) string {
	tb.Helper()
	p, err := exec.LookPath("apeval")
	if err != nil {
		tb.Fatalf("apeval is not on $PATH (testscript.Main in TestMain puts it there): %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	a, errA := os.Stat(p)
	b, errB := os.Stat(self)
	if errA != nil || errB != nil || !os.SameFile(a, b) && a.Size() != b.Size() {
		tb.Fatalf("apeval on $PATH (%s) is not this test binary (%s)", p, self)
	}
	return p
}

// buildCached builds the main package pkg (relative to cmd/apeval) into
// <repo>/.cache/testbin/name and returns its path. go build does not
// relink a binary that is up to date, so a warm cache makes this a check.
func buildCached(name, pkg string) (string, error) {
	dir, err := filepath.Abs(filepath.Join("..", "..", ".cache", "testbin"))
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, name)
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin, nil
}
