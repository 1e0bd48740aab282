package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/gctune"
	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/reports"
)

// version is set with -ldflags "-X main.version=…".
var version = "dev"

// Exit codes (see README.md, Exit codes, and docs/statistics.md); a
// verdict's are reports' (reports.VerdictExit). Nothing below Main calls
// os.Exit.
const (
	exitGo           = reports.ExitGo
	exitNoGo         = reports.ExitNoGo
	exitUsage        = reports.ExitError
	exitInconclusive = reports.ExitInconclusive
	exitInterrupted  = 130
)

// usageError marks a usage or input error: exit code 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// exitCodeError carries a verdict's exit code out of a command without
// printing anything more.
type exitCodeError struct{ code int }

func (e exitCodeError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// IO are the streams a command reads and writes; tests pass buffers.
type IO struct {
	In     io.Reader
	Out    io.Writer
	Err    io.Writer
	Getenv func(string) string
	// term holds the global terminal flags (--no-color, --wide) once
	// parsed; shared by every command of one invocation.
	term *termSettings
}

// Main runs apeval with args and returns the process exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The collector's headroom follows the live heap (internal/gctune) unless GOGC
	// or GOMEMLIMIT is set.
	gctune.Start(os.Getenv)
	// APEVAL_CPUPROFILE=FILE writes a CPU profile of the whole command, for
	// the performance work behind make bench.
	if path := os.Getenv("APEVAL_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				defer func() {
					pprof.StopCPUProfile()
					_ = f.Close()
				}()
			}
		}
	}
	// APEVAL_MEMPROFILE=FILE writes a heap profile when the command ends.
	if path := os.Getenv("APEVAL_MEMPROFILE"); path != "" {
		defer func() {
			if f, err := os.Create(path); err == nil {
				_ = pprof.Lookup("allocs").WriteTo(f, 0)
				_ = f.Close()
			}
		}()
	}
	return run(ctx, args, IO{In: stdin, Out: stdout, Err: stderr, Getenv: os.Getenv})
}

func run(ctx context.Context, args []string, io IO) int {
	root := newRootCmd(io)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	return exitCode(err, io.Err)
}

// exitCode maps an error to the process exit code and prints it once.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitGo
	}
	var ec exitCodeError
	if errors.As(err, &ec) {
		return ec.code
	}
	// An error can quote a server's answer or a dataset's text: it goes
	// through the masking pass like everything else apeval writes.
	msg := mask.Lines(err.Error())
	var in *datasets.InvalidInput
	if errors.As(err, &in) && in.Error() == err.Error() {
		// Its line errors are masked part by part.
		msg = in.Text(datasets.MaskedLineText)
	}
	if errors.Is(err, context.Canceled) {
		if err.Error() == context.Canceled.Error() {
			msg = "interrupted" // Ctrl-C or SIGTERM; "context canceled" says nothing to a user
		}
		fmt.Fprintln(stderr, "apeval:", msg)
		return exitInterrupted
	}
	fmt.Fprintln(stderr, "apeval:", msg)
	var ue usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	// Anything else (unreadable files, a run directory that can't be written)
	// is an input or environment problem the user has to fix: exit 2 too, so
	// that 1 and 3 always mean a verdict.
	return exitUsage
}
