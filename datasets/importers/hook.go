package importers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/apeval/apeval/datasets"
)

// MaxHookPayload caps the hook payload read from stdin. It is the
// reader's line limit: the case line written is shorter than its payload,
// and a line over the limit would be refused by every reader of the file.
const MaxHookPayload = datasets.DefaultMaxLineBytes

// HookOptions are the settings of the record hook (`apeval record`,
// `apeval-record`).
type HookOptions struct {
	Out    string // cases file; "" is $APEVAL_RECORD_FILE, else ~/.apeval/cases.jsonl
	Log    string // side log; "" is record.log beside Out
	NoMask bool
	Getenv func(string) string // the environment; nil is an empty one
}

// RunHook records one hook payload read from in as one case line appended
// to the cases file. It never returns an error and never writes to stdout
// or stderr: a hook that only observes must not block or change the agent,
// so every problem goes to the side log.
func RunHook(in io.Reader, o HookOptions, now time.Time) {
	out := o.Out
	if out == "" && o.Getenv != nil {
		out = o.Getenv("APEVAL_RECORD_FILE")
	}
	if out == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return // nowhere to record and nowhere to log
		}
		out = filepath.Join(home, ".apeval", "cases.jsonl")
	}
	logPath := o.Log
	if logPath == "" {
		logPath = filepath.Join(filepath.Dir(out), "record.log")
	}
	fail := func(err error) {
		_ = os.MkdirAll(filepath.Dir(logPath), 0o700)
		_ = AppendLine(logPath, fmt.Appendf(nil, "%s apeval record: %v\n", now.UTC().Format(time.RFC3339), err))
	}
	defer func() {
		if r := recover(); r != nil {
			fail(fmt.Errorf("panic: %v", r))
		}
	}()
	if in == nil {
		fail(errors.New("no stdin"))
		return
	}
	payload, err := io.ReadAll(io.LimitReader(in, MaxHookPayload+1))
	if err != nil {
		fail(fmt.Errorf("reading stdin: %w", err))
		return
	}
	if len(payload) > MaxHookPayload {
		fail(fmt.Errorf("payload larger than %d bytes: not recorded", MaxHookPayload))
		return
	}
	c, err := RecordCase(payload, RecordOptions{NoMask: o.NoMask, Now: now})
	if errors.Is(err, ErrNotToolCall) {
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
	if line.Len() > datasets.DefaultMaxLineBytes {
		fail(fmt.Errorf("case line of %d bytes is longer than the %d bytes a dataset line may hold: not recorded", line.Len(), datasets.DefaultMaxLineBytes))
		return
	}
	// The reader numbers records without a seq in file order, which is
	// the order of the calls: an explicit "seq":0 on every line would lose
	// it. (The first ,"seq":0, of the line is the top-level field: inside a
	// JSON string its quotes would be escaped.)
	b := bytes.Replace(line.Bytes(), []byte(`,"seq":0,`), []byte(","), 1)
	if err := os.MkdirAll(filepath.Dir(out), 0o700); err != nil {
		fail(err)
		return
	}
	if err := AppendLine(out, b); err != nil {
		fail(fmt.Errorf("%s: %w", out, err))
	}
}
