package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary stand in for the commands the scripts run:
// `exec apeval …` in a script runs Main exactly as the installed binary would.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"apeval":           func() { os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"interrupt-apeval": interruptApeval,
		"keyword-judge":    keywordJudge,
	})
}

// TestScripts runs testdata/script/*.txtar: apeval used the way a user
// uses it, one scenario per file.
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"exits": cmdExits, "samefigures": cmdSameFigures, "p95steady": cmdP95Steady,
		},
		Setup: scriptServers,
		Condition: func(cond string) (bool, error) {
			if cond == "timing" {
				return timingChecks, nil
			}
			if cond == "procfs" {
				_, err := os.Stat("/proc/self/stat")
				return runtime.GOOS == "linux" && err == nil, nil
			}
			return false, errors.New("unknown condition " + cond)
		},
	})
}

// cmdExits is `exits CODE PROG [ARGS...]`: run PROG like exec and require
// exit status CODE, so a script tells NO-GO (1) from a usage error (2).
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %v", err)
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}

// interruptApeval is an exec judge plugin that, on its first request, sends
// SIGINT to the apeval process that started it (as Ctrl-C would) and then
// never answers, so the run is interrupted while a judge call is in flight.
func interruptApeval() {
	in := bufio.NewScanner(os.Stdin)
	if !in.Scan() {
		return
	}
	// apeval starts the plugin through /bin/sh -c, which may or may not exec.
	pid := os.Getppid()
	for range 3 {
		comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
		if err != nil {
			break
		}
		if strings.TrimSpace(string(comm)) == "apeval" {
			_ = syscall.Kill(pid, syscall.SIGINT)
			break
		}
		pid = parentOf(pid)
	}
	for in.Scan() {
	}
}

// parentOf reads a process's parent from /proc/PID/stat.
func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// pid (comm) state ppid …; comm may hold spaces, so split after ')'.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}
