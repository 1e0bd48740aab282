package importers

import (
	"io"
	"strconv"
	"time"

	gojson "github.com/goccy/go-json"

	"github.com/apeval/apeval/datasets"
)

func init() {
	register(format{"trajectory-events", 12, func(o Options) importer { return &trajectory{workspace: o.Workspace} },
		func(r sniffed) bool { return r.has("kind", "target") }, 9})
}

// Trajectory events (docs/import.md): JSON lines {"kind", "target", "approved"},
// written from a runner's audit log. kind is "command" (target: the
// command's working directory), "write" (target: the path written) or
// "network" (target: the URL or host). Optional fields apeval reads too:
// session (or session_id), workspace, time.

type trajEvent struct {
	Kind      string  `json:"kind"`
	Target    *string `json:"target"`
	Approved  bool    `json:"approved"`
	Session   string  `json:"session"`
	SessionID string  `json:"session_id"`
	Workspace string  `json:"workspace"`
	Time      string  `json:"time"`
}

type trajectory struct{ workspace string }

func (trajectory) stream() bool { return true }

func (trajectory) match(p string) bool {
	q := stripCompression(p)
	return len(q) > 6 && q[len(q)-6:] == ".jsonl"
}

func (tr *trajectory) file(r io.Reader, sum *SourceSummary, out *output) error {
	fallback := sessionFromPath(sum.Source)
	return eachLine(r, sum, func(line []byte, n int) error {
		var e trajEvent
		if err := gojson.Unmarshal(line, &e); err != nil {
			sum.errorf(n, "%s", jsonError(line, err))
			return nil
		}
		if e.Kind == "" {
			sum.errorf(n, "kind: required")
			return nil
		}
		if e.Target == nil {
			sum.errorf(n, "target: required")
			return nil
		}
		session := cmpOr(e.SessionID, cmpOr(e.Session, fallback))
		c := &datasets.Case{SessionID: session, Workspace: cmpOr(e.Workspace, tr.workspace)}
		c.ID = "traj-" + session + "-L" + strconv.Itoa(n)
		switch e.Kind {
		case "command":
			c.Tool.Name = "shell"
			c.Tool.Arguments = map[string]any{"cwd": *e.Target}
		case "write":
			c.Tool.Name = "write"
			c.Tool.Arguments = map[string]any{"file_path": *e.Target}
		case "network":
			c.Tool.Name = "fetch"
			c.Tool.Arguments = map[string]any{"url": *e.Target}
		default:
			c.Tool.Name = e.Kind
			c.Tool.Arguments = map[string]any{"target": *e.Target}
		}
		c.Context.ApprovalState = "none"
		if e.Approved {
			c.Context.ApprovalState = "approved"
		}
		if t, err := time.Parse(time.RFC3339Nano, e.Time); err == nil {
			c.Time = &t
		}
		c.Provenance = provenance("trajectory-events", sum.Source, n)
		c.Provenance["kind"] = e.Kind
		return out.add(c)
	})
}
