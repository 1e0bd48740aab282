package importers

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	gojson "github.com/goccy/go-json"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/trunc"
)

// RecordOptions tune RecordCase (`apeval record`).
type RecordOptions struct {
	NoMask     bool
	Categories datasets.CategoryMap
	Now        time.Time
}

// ErrNotToolCall is returned by RecordCase for a hook payload that is not a
// tool call about to run (another hook event): nothing is recorded.
var ErrNotToolCall = errors.New("not a tool call")

// RecordCase turns one hook payload into a case. It takes Claude Code's
// PreToolUse payload (and any agent's payload with the same tool_name /
// tool_input fields; hook_event_name may be absent), or an apeval case
// already (a "tool" object with a "name"). The context comes from the tail
// of the payload's transcript_path, when it can be read: the user message
// and recent turns before the call. The case id is "cc-" plus the tool-use
// id, so the same call imported later from the transcript has the same id;
// without one it is derived from the payload's bytes.
func RecordCase(payload []byte, opt RecordOptions) (*datasets.Case, error) {
	payload = bytes.TrimSpace(payload)
	if len(payload) == 0 {
		return nil, errors.New("empty payload")
	}
	var probe struct {
		Tool *struct {
			Name string `json:"name"`
		} `json:"tool"`
	}
	if err := gojson.Unmarshal(payload, &probe); err != nil {
		return nil, fmt.Errorf("payload: %s", jsonError(payload, err))
	}
	var c *datasets.Case
	if probe.Tool != nil && probe.Tool.Name != "" {
		var err error
		if c, err = datasets.Decode(payload, "stdin", 1, opt.Categories); err != nil {
			return nil, err
		}
	} else {
		var p hookPayload
		if err := gojson.Unmarshal(payload, &p); err != nil {
			return nil, fmt.Errorf("payload: %s", jsonError(payload, err))
		}
		if p.HookEventName != "" && !toolBefore(p.HookEventName) {
			return nil, fmt.Errorf("%w: hook_event_name %s", ErrNotToolCall, p.HookEventName)
		}
		if p.ToolName == "" {
			return nil, errors.New("payload: tool_name: required")
		}
		c, _ = hookCase(p, "", 0, func(path, id string) (datasets.Context, string) {
			return tailContext(path, id, p.SessionID), ""
		})
		delete(c.Provenance, "source")
		c.Provenance["recorded_by"] = "apeval record"
		if p.TranscriptPath != "" {
			c.Provenance["transcript_path"] = p.TranscriptPath
		}
		if p.ToolUseID == "" {
			c.ID = recordID(payload, opt.Now)
		}
	}
	if c.Time == nil && !opt.Now.IsZero() {
		t := opt.Now.UTC()
		c.Time = &t
	}
	if c.Tool.Category == "" {
		c.Tool.Category = opt.Categories.Of(c.Tool.Name)
	}
	if c.HookPoint == "" {
		c.HookPoint = datasets.DefaultHookPoint
	}
	if !opt.NoMask {
		maskCase(c)
		o := output{opt: Options{NoMask: opt.NoMask}}
		c.Context.LatestUserMessage = o.text(c.Context.LatestUserMessage)
		for i := range c.Context.RecentMessages {
			c.Context.RecentMessages[i].Content = o.text(c.Context.RecentMessages[i].Content)
		}
	}
	c.Seq = 0 // the reader numbers records of a recorded file in order
	return c, nil
}

// recordID names a recorded call that has no tool-use id. The payload
// alone would give two identical calls (`git status` twice) one id, and
// the second would be dropped as a duplicate: the time it was recorded and
// random bytes make each call's id its own.
func recordID(payload []byte, now time.Time) string {
	h := sha256.New()
	h.Write(payload)
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(now.UnixNano()))
	_, _ = rand.Read(b[8:])
	h.Write(b[:])
	return "rec-" + hex.EncodeToString(h.Sum(nil)[:8])
}

// tailBytes is how much of a transcript's end RecordCase reads for the
// context: enough for the last turns, small enough to stay fast on a
// transcript of any size.
const tailBytes = 256 << 10

// tailContext reads the end of a transcript and returns the context before
// the tool_use block toolUseID, or at the end when the block is not there
// yet.
func tailContext(path, toolUseID, sessionID string) datasets.Context {
	// O_NONBLOCK: opening a FIFO for reading would wait for a writer, and
	// a hook must never block; only a regular file is read.
	f, err := openNoBlock(path)
	if err != nil {
		return datasets.Context{}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return datasets.Context{}
	}
	off := max(st.Size()-tailBytes, 0)
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return datasets.Context{}
	}
	if off > 0 {
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[i+1:] // drop the partial first line
		}
	}
	s := &ccState{convos: map[string]*convo{}, text: func(t string) string { return trunc.Runes(t, maxMessageRunes) }}
	var found *datasets.Context
	fallback := sessionFromPath(path)
	for _, line := range bytes.Split(buf, []byte{'\n'}) {
		if found != nil {
			break
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		s.entry(line, 0, fallback, func(_ string, cv *convo, c ccCall) {
			if found == nil && toolUseID != "" && c.block.ID == toolUseID {
				ctx := cv.context()
				found = &ctx
			}
		}, func(*ccBlock) {})
	}
	if found != nil {
		return *found
	}
	if cv := s.convos[cmpOr(sessionID, fallback)]; cv != nil {
		return cv.context() // the call is not in the transcript yet: its end
	}
	return datasets.Context{}
}
