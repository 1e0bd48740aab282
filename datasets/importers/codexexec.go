package importers

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"

	gojson "github.com/goccy/go-json"

	"github.com/apeval/apeval/datasets"
)

func init() {
	register(format{"codex-exec-json", 5, func(o Options) importer { return &codexExec{workspace: o.Workspace} },
		func(r sniffed) bool {
			return strings.HasPrefix(r.typ, "thread.") || strings.HasPrefix(r.typ, "turn.") || strings.HasPrefix(r.typ, "item.")
		}, 3})
}

// Codex `exec --json` events (codex-rs/exec, ThreadEvent): one JSON object
// a line —
//
//	{"type":"thread.started","thread_id":"…"}
//	{"type":"turn.started"}
//	{"type":"item.started"|"item.updated"|"item.completed","item":{"id":"item_3","type":…,…}}
//	{"type":"turn.completed","usage":{…}} / {"type":"turn.failed","error":{…}} / {"type":"error","message":…}
//
// Item types that are calls: command_execution {command, aggregated_output,
// exit_code, status}, file_change {changes: [{path, kind}], status},
// mcp_tool_call {server, tool, arguments, result, error, status},
// web_search {query, action?}. agent_message and reasoning {text} are the
// agent's words; todo_list and error are neither. An item is reported when
// it starts and again when it ends: its first event makes the case.

type codexExecEvent struct {
	Type     string          `json:"type"`
	ThreadID string          `json:"thread_id"`
	Item     *codexExecItem  `json:"item"`
	Message  string          `json:"message"`
	Error    json.RawMessage `json:"error"`
}

type codexExecItem struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Command   string          `json:"command"`
	Status    string          `json:"status"`
	ExitCode  *int            `json:"exit_code"`
	Changes   []codexExecFile `json:"changes"`
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Query     string          `json:"query"`
	Action    *codexAction    `json:"action"`
}

type codexExecFile struct {
	Path string `json:"path"`
	Kind string `json:"kind"`
}

type codexExec struct{ workspace string }

func (codexExec) stream() bool { return true }

func (codexExec) match(p string) bool {
	q := stripCompression(p)
	return strings.HasSuffix(q, ".jsonl") || strings.HasSuffix(q, ".json")
}

func (x *codexExec) file(r io.Reader, sum *SourceSummary, out *output) error {
	const format = "codex-exec-json"
	session := sessionFromPath(sum.Source)
	cv := &convo{}
	seen := map[string]bool{}
	return eachLine(r, sum, func(line []byte, n int) error {
		var e codexExecEvent
		if err := gojson.Unmarshal(line, &e); err != nil {
			sum.errorf(n, "%s", jsonError(line, err))
			return nil
		}
		switch e.Type {
		case "":
			sum.errorf(n, "type: required")
			return nil
		case "thread.started":
			if e.ThreadID == "" {
				sum.errorf(n, "thread_id: required for thread.started")
				return nil
			}
			session = e.ThreadID
			cv = &convo{}
			clear(seen)
			sum.skip(e.Type)
			return nil
		case "item.started", "item.updated", "item.completed":
		default:
			sum.skip(e.Type)
			return nil
		}
		it := e.Item
		if it == nil || it.Type == "" {
			sum.errorf(n, "item.type: required for %s", e.Type)
			return nil
		}
		if it.ID != "" && seen[it.ID] {
			sum.skip("item seen before (" + e.Type + ")")
			return nil
		}
		if it.ID != "" {
			seen[it.ID] = true
		}
		c := &datasets.Case{SessionID: session, Workspace: x.workspace}
		switch it.Type {
		case "agent_message":
			if e.Type != "item.completed" && it.Text == "" {
				delete(seen, it.ID) // the text comes with a later event
				sum.skip("agent_message (empty yet)")
				return nil
			}
			cv.turn("assistant", out.text(it.Text))
			sum.skip("agent_message (context)")
			return nil
		case "command_execution":
			c.Tool.Name = "shell"
			c.Tool.Arguments = map[string]any{"command": unwrapShell(it.Command)}
			if c.Tool.Arguments["command"] != it.Command {
				c.Tool.Arguments["raw_command"] = it.Command
			}
		case "file_change":
			c.Tool.Name = "apply_patch"
			var files []any
			for _, f := range it.Changes {
				files = append(files, map[string]any{"path": f.Path, "kind": f.Kind})
			}
			c.Tool.Arguments = map[string]any{"changes": files}
			if len(it.Changes) == 1 {
				c.Tool.Arguments["file_path"] = it.Changes[0].Path
			}
		case "mcp_tool_call":
			if it.Tool == "" {
				sum.errorf(n, "item.tool: required for mcp_tool_call")
				return nil
			}
			c.Tool.Name = "mcp__" + it.Server + "__" + it.Tool
			c.Tool.Arguments, c.Tool.ArgumentsValid = rawArgs(it.Arguments)
		case "web_search":
			c.Tool.Name = "web_search"
			c.Tool.Arguments = map[string]any{}
			if it.Query != "" {
				c.Tool.Arguments["query"] = it.Query
			}
			if a := it.Action; a != nil {
				c.Tool.Arguments["action"] = a.Type
				if a.URL != "" {
					c.Tool.Arguments["url"] = a.URL
				}
			}
		default: // reasoning, todo_list, error, …
			sum.skip(it.Type)
			return nil
		}
		c.ID = "codexexec-" + session + "-" + cmpOr(it.ID, "L"+strconv.Itoa(n))
		c.Context = cv.context()
		c.Provenance = provenance(format, sum.Source, n)
		c.Provenance["item_type"] = it.Type
		c.Provenance["event"] = e.Type
		if it.ID != "" {
			c.Provenance["tool_use_id"] = it.ID
		}
		if it.Status != "" {
			c.Provenance["status"] = it.Status
		}
		return out.add(c)
	})
}

// unwrapShell takes the script out of `bash -lc '…'` (the form Codex
// reports a command in), so matchers read the command itself.
func unwrapShell(cmd string) string {
	for _, sh := range []string{"/bin/bash -lc ", "bash -lc ", "/bin/zsh -lc ", "zsh -lc ", "/bin/sh -c ", "sh -c ", "bash -c "} {
		rest, ok := strings.CutPrefix(cmd, sh)
		if !ok {
			continue
		}
		if len(rest) >= 2 && (rest[0] == '\'' || rest[0] == '"') && rest[len(rest)-1] == rest[0] {
			inner := rest[1 : len(rest)-1]
			if rest[0] == '\'' {
				inner = strings.ReplaceAll(inner, `'\''`, `'`)
			}
			return inner
		}
		return rest
	}
	return cmd
}
