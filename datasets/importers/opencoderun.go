package importers

import (
	"io"
	"strings"
	"time"

	gojson "github.com/goccy/go-json"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/trunc"
)

func init() {
	register(format{"opencode-run-json", 7, func(o Options) importer { return &openCodeRun{workspace: o.Workspace} },
		func(r sniffed) bool {
			return r.has("sessionID", "part", "timestamp") &&
				r.typeIn("step_start", "step_finish", "tool_use", "text", "reasoning", "error")
		}, 14})
}

// `opencode run --format json` events (headless OpenCode, as CI runs it):
// one JSON object a line, each a part of the storage's shape with the event
// type, the time in milliseconds and the session —
//
//	{"type":"step_start","timestamp":…,"sessionID":"ses_…","part":{"type":"step-start",…}}
//	{"type":"tool_use","timestamp":…,"sessionID":"ses_…","part":{"id":"prt_…","messageID":"msg_…","type":"tool","callID":"…","tool":"bash","state":{"status","input","output","error","time":{"start","end"}}}}
//	{"type":"text","timestamp":…,"sessionID":"ses_…","part":{"type":"text","text":"…"}}
//	{"type":"step_finish",…}
//
// A tool_use event is a case, named as the storage names it
// ("opencode-<callID>"), so the same call read from the storage has the
// same id. The prompt is not in the output (it was the command line), and
// the working directory neither (--workspace gives one).

type ocRunEvent struct {
	Type      string  `json:"type"`
	Timestamp int64   `json:"timestamp"`
	SessionID string  `json:"sessionID"`
	Part      *ocPart `json:"part"`
}

type openCodeRun struct{ workspace string }

func (openCodeRun) stream() bool { return true }

func (openCodeRun) match(p string) bool {
	q := stripCompression(p)
	return strings.HasSuffix(q, ".jsonl") || strings.HasSuffix(q, ".json") || strings.HasSuffix(q, ".ndjson")
}

func (x *openCodeRun) file(r io.Reader, sum *SourceSummary, out *output) error {
	const format = "opencode-run-json"
	cv := &convo{}
	session := ""
	return eachLine(r, sum, func(line []byte, n int) error {
		var e ocRunEvent
		if err := gojson.Unmarshal(line, &e); err != nil {
			sum.errorf(n, "%s", jsonError(line, err))
			return nil
		}
		if e.Type == "" {
			sum.errorf(n, "type: required")
			return nil
		}
		if e.SessionID != session {
			session, cv = e.SessionID, &convo{}
		}
		switch e.Type {
		case "text":
			if e.Part != nil && e.Part.Text != "" {
				cv.turn("assistant", out.text(e.Part.Text))
			}
			sum.skip("text (context)")
			return nil
		case "tool_use":
		default:
			sum.skip(e.Type)
			return nil
		}
		p := e.Part
		if p == nil || p.Tool == "" || p.State == nil {
			sum.errorf(n, "part.tool and part.state: required for tool_use")
			return nil
		}
		if e.SessionID == "" {
			sum.errorf(n, "sessionID: required for tool_use")
			return nil
		}
		c := &datasets.Case{SessionID: e.SessionID, Workspace: x.workspace, Context: cv.context()}
		c.Tool.Name = p.Tool
		c.Tool.Arguments, c.Tool.ArgumentsValid = rawArgs(p.State.Input)
		c.ID = out.sessionScopedID("opencode-"+cmpOr(p.CallID, p.ID), e.SessionID)
		ms := p.State.Time.Start
		if ms == 0 {
			ms = e.Timestamp
		}
		if ms > 0 {
			t := time.UnixMilli(ms).UTC()
			c.Time = &t
		}
		c.Provenance = provenance(format, sum.Source, n)
		c.Provenance["tool_use_id"] = cmpOr(p.CallID, p.ID)
		c.Provenance["status"] = p.State.Status
		if p.State.Status == "error" && p.State.Error != "" {
			c.Provenance["tool_result_error"] = trunc.Runes(p.State.Error, 500)
		}
		return out.add(c)
	})
}
