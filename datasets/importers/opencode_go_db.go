package importers

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	gojson "github.com/goccy/go-json"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/trunc"
)

// The first OpenCode, written in Go (opencode-ai/opencode, 2025; its
// successor is Charm's Crush), kept each project's sessions in
// <project>/.opencode/opencode.db, migrated with goose. Public repositories
// committed that file by the dozen. The tables read here:
//
//	sessions (id, parent_session_id, title, …, created_at)
//	messages (id, session_id, role, parts, model, created_at, …)
//
// parts is a JSON array of {type, data}: "text" {text}, "tool_call" {id,
// name, input (the arguments as a JSON string), type, finished},
// "tool_result" {tool_call_id, name, content, metadata, is_error} (in a
// message of role "tool"), "finish" {reason, time}, "reasoning",
// "image_url", "binary". A sub-agent's session has the calling tool call's
// id as its id and the caller as parent_session_id. The timestamps are
// Unix seconds, though the schema's comments say milliseconds.

// Charm's Crush, the Go OpenCode's successor, kept these tables in
// <project>/.crush/crush.db (internal/db/migrations) and added columns the
// import has no use for (messages.provider, messages.is_summary_message,
// sessions.todos, a read_files table) and one part type: "shell_command"
// {command, output, exit_code}, a command the user ran in the prompt's
// shell mode (a user message: the agent made no call, so it is context).
// A Crush database is told by its messages.provider column (or its name)
// and its cases carry provenance schema "crush".
//
// Crush's tool_call part also has provider_executed (since its move to
// charm.land/fantasy): true would mark a call the model's provider ran
// (fantasy hands such calls to the same OnToolCall). Such a call is no
// case: skipped and counted (skipProviderExecuted), its tool_result with
// the other results. Crush at 37f36e9 writes false on every call and
// declares no provider-side tool, so real databases hold none.

// goOCPermissionDenied is the result the Go OpenCode (and Crush before
// its move to fantasy) writes for a call whose permission request the
// person denied: its agent's executeToolCalls answers a tool's
// permission.ErrorPermissionDenied with this content (is_error), the
// calls after it in the message with "Tool execution canceled by user",
// and finishes the message with reason permission_denied; the permission
// service's Request returns false only through Deny, the dialog's answer.
// Such a call is the person's refusal: approval_outcome denied.
const goOCPermissionDenied = "Permission denied"

const noteGoOCDenied = "permission denied by the user when asked (approval_outcome denied)"

// goOpenCodeTables reports whether the database has the Go OpenCode's
// tables (sessions, and messages with a parts column).
func goOpenCodeTables(ctx context.Context, tx *sql.Tx) bool {
	var cols []string
	rows, err := tx.QueryContext(ctx, "SELECT name FROM pragma_table_info('messages')")
	if err != nil {
		return false
	}
	for rows.Next() {
		var c string
		if rows.Scan(&c) == nil {
			cols = append(cols, c)
		}
	}
	if closeRows(rows) != nil {
		return false
	}
	var n int
	if tx.QueryRowContext(ctx, "SELECT count(*) FROM pragma_table_info('sessions') WHERE name IN ('id', 'parent_session_id')").Scan(&n) != nil {
		return false
	}
	return n == 2 && slices.Contains(cols, "parts") && slices.Contains(cols, "session_id") && slices.Contains(cols, "role")
}

type goOCPart struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

type goOCToolCall struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Input string `json:"input"`
	// ProviderExecuted is Crush's (internal/message.ToolCall): a call the
	// model's provider ran on its side (a server tool such as Anthropic's
	// web search), which no agent hook sees before it runs.
	ProviderExecuted bool `json:"provider_executed"`
}

// skipProviderExecuted is the skip reason of a call the provider ran.
const skipProviderExecuted = "provider-executed tool call (the model's provider ran it, not the agent: no hook could gate it)"

type goOCToolResult struct {
	ToolCallID string `json:"tool_call_id"`
	Content    string `json:"content"`
	IsError    bool   `json:"is_error"`
}

type goOCMessage struct {
	id, role, model string
	created         int64
	parts           []goOCPart
}

// goUnixTime reads the Go OpenCode's timestamps: seconds (what it wrote),
// or milliseconds (what its schema's comments say).
func goUnixTime(v int64) *time.Time {
	if v <= 0 {
		return nil
	}
	var t time.Time
	if v >= 1e12 {
		t = time.UnixMilli(v).UTC()
	} else {
		t = time.Unix(v, 0).UTC()
	}
	return &t
}

// goOpenCodeDB imports every session of a Go OpenCode database.
func goOpenCodeDB(ctx context.Context, tx *sql.Tx, path string, sum *SourceSummary, out *output) error {
	schema := "opencode-go"
	var n int
	if crushDBName(path) || tx.QueryRowContext(ctx, "SELECT count(*) FROM pragma_table_info('messages') WHERE name = 'provider'").Scan(&n) == nil && n > 0 {
		schema = "crush"
	}
	type sessionRow struct{ id, parent string }
	var sessions []sessionRow
	rows, err := tx.QueryContext(ctx, "SELECT id, coalesce(parent_session_id, '') FROM sessions ORDER BY created_at, id")
	if err != nil {
		return dbFailure(path, err)
	}
	for rows.Next() {
		var s sessionRow
		if err := rows.Scan(&s.id, &s.parent); err != nil {
			rows.Close()
			return dbFailure(path, err)
		}
		sessions = append(sessions, s)
	}
	if err := closeRows(rows); err != nil {
		return dbFailure(path, err)
	}
	for _, s := range sessions {
		sum.Records++
		sum.skip("session")
		if err := goOpenCodeSession(ctx, tx, path, schema, s.id, s.parent, sum, out); err != nil {
			return err
		}
	}
	return nil
}

// goOpenCodeSession reads one session's messages in the order they were
// written; a tool call becomes a case once the session's results are
// known, so a failed call carries its error.
func goOpenCodeSession(ctx context.Context, tx *sql.Tx, path, schema, sessionID, parentID string, sum *SourceSummary, out *output) error {
	rows, err := tx.QueryContext(ctx, "SELECT id, role, coalesce(model, ''), created_at, parts FROM messages WHERE session_id = ? ORDER BY created_at, rowid", sessionID)
	if err != nil {
		return dbFailure(path, err)
	}
	var msgs []goOCMessage
	for rows.Next() {
		var m goOCMessage
		var parts []byte
		if err := rows.Scan(&m.id, &m.role, &m.model, &m.created, &parts); err != nil {
			rows.Close()
			return dbFailure(path, err)
		}
		sum.Records++
		if err := gojson.Unmarshal(parts, &m.parts); err != nil {
			sum.errorf(0, "message %s: parts: %s", m.id, jsonError(parts, err))
			continue
		}
		m.parts = joinCallFragments(m.parts, sum)
		msgs = append(msgs, m)
	}
	if err := closeRows(rows); err != nil {
		return dbFailure(path, err)
	}
	failed := map[string]string{}
	for _, m := range msgs {
		for _, p := range m.parts {
			var r goOCToolResult
			if p.Type == "tool_result" && gojson.Unmarshal(p.Data, &r) == nil && r.IsError {
				failed[r.ToolCallID] = r.Content
			}
		}
	}
	cv := &convo{}
	for _, m := range msgs {
		sum.skip(m.role + " message")
		var userText []string
		for i, p := range m.parts {
			switch {
			case p.Type == "text" && (m.role == "user" || m.role == "assistant"):
				var t struct {
					Text string `json:"text"`
				}
				if err := gojson.Unmarshal(p.Data, &t); err != nil {
					sum.errorf(0, "message %s: parts[%d].data: %s", m.id, i, jsonError(p.Data, err))
					continue
				}
				if m.role == "user" {
					userText = append(userText, t.Text)
					sum.skip("user text (context)")
				} else {
					cv.turn("assistant", out.text(t.Text))
					sum.skip("assistant text (context)")
				}
			case p.Type == "tool_call":
				var tc goOCToolCall
				if err := gojson.Unmarshal(p.Data, &tc); err != nil {
					sum.errorf(0, "message %s: parts[%d].data: %s", m.id, i, jsonError(p.Data, err))
					continue
				}
				if tc.Name == "" {
					sum.errorf(0, "message %s: parts[%d].data.name: required", m.id, i)
					continue
				}
				if tc.ProviderExecuted {
					sum.skip(skipProviderExecuted)
					continue
				}
				c := &datasets.Case{SessionID: sessionID, Context: cv.context(), Time: goUnixTime(m.created)}
				c.Tool.Name = tc.Name
				c.Tool.Arguments, c.Tool.ArgumentsValid = rawArgs(json.RawMessage(tc.Input))
				id := cmpOr(tc.ID, m.id+"-"+strconv.Itoa(i))
				c.ID = "opencode-" + id
				c.Provenance = provenance("opencode", path, 0)
				c.Provenance["schema"] = schema
				c.Provenance["tool_use_id"] = id
				c.Provenance["message_id"] = m.id
				if m.model != "" {
					c.Provenance["model"] = m.model
				}
				if parentID != "" {
					c.Provenance["parent_session_id"] = parentID
				}
				if e, ok := failed[tc.ID]; ok && tc.ID != "" {
					c.Provenance["status"] = "error"
					if e != "" {
						c.Provenance["tool_result_error"] = trunc.Runes(e, 500)
					}
					if e == goOCPermissionDenied {
						c.ApprovalOutcome = datasets.ApprovalDenied
						sum.note(noteGoOCDenied)
					}
				}
				if err := out.add(c); err != nil {
					return err
				}
			case p.Type == "shell_command" && m.role == "user":
				var sc struct {
					Command string `json:"command"`
				}
				if err := gojson.Unmarshal(p.Data, &sc); err != nil {
					sum.errorf(0, "message %s: parts[%d].data: %s", m.id, i, jsonError(p.Data, err))
					continue
				}
				userText = append(userText, "$ "+sc.Command)
				sum.skip("user shell command (context)")
			case p.Type == "tool_result":
				sum.skip("tool results")
			default:
				sum.skip("part " + p.Type)
			}
		}
		if len(userText) > 0 {
			cv.user(out.text(strings.Join(userText, "\n")))
		}
	}
	return nil
}

// joinCallFragments puts back together a tool call that Crush stored in
// pieces: with some providers' streams each delta of the arguments became
// a tool_call part of its own, with a new id and no name, after the named
// part (whose input is then empty). A real crush.db holds
//
//	{"type":"tool_call","data":{"id":"call_WU7…","name":"bash","input":""}}
//	{"type":"tool_call","data":{"id":"1ec6…","name":"","input":"{\""}}
//	{"type":"tool_call","data":{"id":"8368…","name":"","input":"command\":\"kubectl …\"}"}}
//
// Each nameless part right after a named call (or its fragments) whose
// input is not yet whole JSON is appended to that call's input and counted as "tool call fragment
// (joined)"; a nameless part with no call before it stays, and is
// reported as a call without a name.
func joinCallFragments(parts []goOCPart, sum *SourceSummary) []goOCPart {
	out := parts[:0:0]
	last := -1 // index in out of the named call fragments join
	for _, p := range parts {
		if p.Type != "tool_call" {
			out = append(out, p)
			last = -1
			continue
		}
		var tc map[string]any
		if gojson.Unmarshal(p.Data, &tc) != nil {
			out = append(out, p)
			last = -1
			continue
		}
		name, _ := tc["name"].(string)
		input, _ := tc["input"].(string)
		if name == "" && last >= 0 {
			var prev map[string]any
			_ = gojson.Unmarshal(out[last].Data, &prev)
			prevInput, _ := prev["input"].(string)
			prev["input"] = prevInput + input
			if data, err := json.Marshal(prev); err == nil && !json.Valid([]byte(prevInput)) {
				out[last].Data = data
				sum.skip("tool call fragment (joined)")
				continue
			}
		}
		out = append(out, p)
		last = -1
		if name != "" {
			last = len(out) - 1
		}
	}
	return out
}
