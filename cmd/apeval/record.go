package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/datasets/importers"
)

type recordOptions struct {
	out, log string
	noMask   bool
}

// newRecordCmd is `apeval record`; runF records the payload (runRecord at
// the current time) unless a test passes its own.
func newRecordCmd(io IO, runF func(context.Context, *recordOptions, IO) error) *cobra.Command {
	if runF == nil {
		runF = func(_ context.Context, o *recordOptions, io IO) error {
			runRecord(io, *o, time.Now())
			return nil
		}
	}
	o := &recordOptions{}
	cmd := &cobra.Command{
		Use:                "record",
		Short:              "Agent hook: append the tool call on stdin as one case, never block the agent",
		Args:               cobra.ArbitraryArgs,
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runF(cmd.Context(), o, io)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "out", "o", "", "cases file to append to (default $APEVAL_RECORD_FILE or ~/.apeval/cases.jsonl)")
	f.StringVar(&o.log, "log", "", "side log for problems (default record.log beside --out)")
	f.BoolVar(&o.noMask, "no-mask", false, "keep secrets in the recorded arguments and messages")
	return cmd
}

// runRecord records one payload; it never returns an error and never
// writes to stdout or stderr (importers.RunHook).
func runRecord(io IO, o recordOptions, now time.Time) {
	importers.RunHook(io.In, importers.HookOptions{Out: o.out, Log: o.log, NoMask: o.noMask, Getenv: io.Getenv}, now)
}
