// Command apeval-record is the agent hook of `apeval record` as a program of
// its own. It records the tool call a hook sends on stdin as one apeval case
// line, exactly as `apeval record` does (both call importers.RunHook), and
// exits 0 with no output whatever happens.
//
// It exists for speed: a hook runs before every tool call, and the apeval
// binary spends most of its start-up initialising packages the hook never
// uses (Parquet writers, charts, tables, cloud storage). This one links only
// the importer, so it starts in a few milliseconds (make bench measures
// both).
//
// Usage, e.g. in .claude/settings.json:
//
//	{"hooks": {"PreToolUse": [{"matcher": "*",
//	  "hooks": [{"type": "command", "command": "apeval-record --out ~/.apeval/cases.jsonl"}]}]}}
//
// Flags: --out FILE (default $APEVAL_RECORD_FILE, else ~/.apeval/cases.jsonl),
// --log FILE (default record.log beside --out), --no-mask.
package main

import (
	"flag"
	"io"
	"os"
	"time"

	"github.com/apeval/apeval/datasets/importers"
)

func main() {
	now := time.Now()
	var o importers.HookOptions
	fs := flag.NewFlagSet("apeval-record", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // a hook prints nothing, even on a bad flag
	fs.StringVar(&o.Out, "out", "", "cases file to append to (default $APEVAL_RECORD_FILE or ~/.apeval/cases.jsonl)")
	fs.StringVar(&o.Out, "o", "", "shorthand for --out")
	fs.StringVar(&o.Log, "log", "", "side log for problems (default record.log beside --out)")
	fs.BoolVar(&o.NoMask, "no-mask", false, "keep secrets in the recorded arguments and messages")
	if err := fs.Parse(os.Args[1:]); err == flag.ErrHelp {
		fs.SetOutput(os.Stderr)
		fs.Usage()
		return
	}
	// An unknown flag stops parsing; what was parsed before it still holds,
	// and the call is recorded all the same.
	o.Getenv = os.Getenv
	importers.RunHook(os.Stdin, o, now)
}
