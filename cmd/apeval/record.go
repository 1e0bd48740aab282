package main

import (
	"bytes"
	"errors"
	"fmt"
	goio "io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/datasets/importers"
)

type recordOptions struct {
	out, log string
	noMask   bool
}

// maxPayload caps the hook payload read from stdin.
const maxPayload = 64 << 20

func newRecordCmd(io IO) *cobra.Command {
	var o recordOptions
	cmd := &cobra.Command{
		Use:   "record",
		Short: "Agent hook: append the tool call on stdin as one case, never block the agent",
		Long: `A hook command for Claude Code (PreToolUse) and any agent whose hook sends the
tool call as JSON on stdin (tool_name, tool_input, …; or an apeval case). It
appends the call as one apeval.case/v1 line to --out, with one write under an
advisory file lock so concurrent agents never interleave lines, and exits 0 with
no output whatever happens: a hook that only observes can never block or change
the agent. Problems (an unreadable payload, a full disk) go to the side log.
Other hook events are ignored. Secrets are masked unless --no-mask.

Defaults: --out $APEVAL_RECORD_FILE, else ~/.apeval/cases.jsonl;
--log record.log next to --out.`,
		Example: `  # .claude/settings.json
  {"hooks": {"PreToolUse": [{"matcher": "*",
     "hooks": [{"type": "command", "command": "apeval record --out ~/.apeval/cases.jsonl"}]}]}}`,
		Args:               cobra.ArbitraryArgs,
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		RunE: func(cmd *cobra.Command, _ []string) error {
			runRecord(io, o, time.Now())
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "out", "o", "", "cases file to append to (default $APEVAL_RECORD_FILE or ~/.apeval/cases.jsonl)")
	f.StringVar(&o.log, "log", "", "side log for problems (default record.log beside --out)")
	f.BoolVar(&o.noMask, "no-mask", false, "keep secrets in the recorded arguments and messages")
	return cmd
}

// runRecord records one payload; it never returns an error and never
// writes to stdout or stderr.
func runRecord(io IO, o recordOptions, now time.Time) {
	out := o.out
	if out == "" && io.Getenv != nil {
		out = io.Getenv("APEVAL_RECORD_FILE")
	}
	if out == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return // nowhere to record and nowhere to log
		}
		out = filepath.Join(home, ".apeval", "cases.jsonl")
	}
	logPath := o.log
	if logPath == "" {
		logPath = filepath.Join(filepath.Dir(out), "record.log")
	}
	fail := func(err error) {
		_ = os.MkdirAll(filepath.Dir(logPath), 0o700)
		_ = importers.AppendLine(logPath, fmt.Appendf(nil, "%s apeval record: %v\n", now.UTC().Format(time.RFC3339), err))
	}
	defer func() {
		if r := recover(); r != nil {
			fail(fmt.Errorf("panic: %v", r))
		}
	}()
	if io.In == nil {
		fail(errors.New("no stdin"))
		return
	}
	payload, err := goio.ReadAll(goio.LimitReader(io.In, maxPayload+1))
	if err != nil {
		fail(fmt.Errorf("reading stdin: %w", err))
		return
	}
	if len(payload) > maxPayload {
		fail(fmt.Errorf("payload larger than %d bytes: not recorded", maxPayload))
		return
	}
	c, err := importers.RecordCase(payload, importers.RecordOptions{NoMask: o.noMask, Now: now})
	if errors.Is(err, importers.ErrNotToolCall) {
		return
	}
	if err != nil {
		fail(err)
		return
	}
	var line bytes.Buffer
	if err := datasets.WriteJSONL(&line, c); err != nil {
		fail(err)
		return
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o700); err != nil {
		fail(err)
		return
	}
	if err := importers.AppendLine(out, line.Bytes()); err != nil {
		fail(fmt.Errorf("%s: %w", out, err))
	}
}
