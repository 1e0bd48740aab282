package importers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	gojson "github.com/goccy/go-json"

	"github.com/apeval/apeval/datasets"
)

func init() {
	register(format{"gemini-cli", 6, func(o Options) importer { return geminiCLI{workspace: o.Workspace} },
		func(r sniffed) bool {
			return r.has("sessionId", "projectHash") || r.has("$rewindTo") || r.has("$set") ||
				(r.typeIn("user", "gemini", "info") && r.has("id", "timestamp", "content") && !r.has("message"))
		}, 5})
}

// Gemini CLI session files (google-gemini/gemini-cli, chatRecordingService):
// ~/.gemini/tmp/<project_hash>/chats/session-<time>-<id>.json, one
// pretty-printed ConversationRecord
//
//	{sessionId, projectHash, startTime, lastUpdated, summary?, directories?, kind? (main|subagent),
//	 messages: [{id, timestamp, type: user|gemini|info|error|warning, content,
//	             toolCalls?: [{id, name, args, result?, status, timestamp, displayName?, description?}],
//	             thoughts?, tokens?, model?}]}
//
// and, in current releases, session-*.jsonl: a first line with the same
// metadata, then one MessageRecord a line (a message is written again,
// whole, when its tool calls or tokens change), {"$set": {…}} metadata
// updates and {"$rewindTo": id} lines. A sub-agent's file is
// chats/<parent session id>/<id>.jsonl. content is a string or a list of
// parts ({text}, {functionResponse}, …).

type gmRecord struct {
	SessionID   string            `json:"sessionId"`
	ProjectHash string            `json:"projectHash"`
	Directories []string          `json:"directories"`
	Messages    []json.RawMessage `json:"messages"`
	Kind        string            `json:"kind"`
	// A message line.
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	// ToolCalls are read one by one (gmState.message): a call with a
	// field of the wrong type is an error of its own, the message's other
	// calls still cases.
	ToolCalls []json.RawMessage `json:"toolCalls"`
	// Other lines.
	Set    *gmRecord `json:"$set"`
	Rewind *string   `json:"$rewindTo"`
}

type gmToolCall struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Args        json.RawMessage `json:"args"`
	Status      string          `json:"status"`
	Timestamp   string          `json:"timestamp"`
	Description string          `json:"description"`
}

type geminiCLI struct{ workspace string }

func (geminiCLI) stream() bool { return true }

// match takes chats/session-*.json(l) and sub-agents' chats/<id>/*.jsonl.
func (geminiCLI) match(p string) bool {
	q := stripCompression(p)
	if !strings.HasSuffix(q, ".json") && !strings.HasSuffix(q, ".jsonl") {
		return false
	}
	return strings.HasPrefix(filepath.Base(q), "session-") || filepath.Base(filepath.Dir(filepath.Dir(q))) == "chats"
}

// gmState follows one file's session.
type gmState struct {
	session, workspace, parent string
	kind                       string // the file's kind ("main", "subagent"), when it says
	cv                         convo
	calls                      map[string]bool // tool call ids made into cases
	texts                      map[string]bool // gemini message ids whose text is in the context
}

func (g geminiCLI) file(r io.Reader, sum *SourceSummary, out *output) error {
	st := &gmState{session: sessionFromPath(sum.Source), workspace: g.workspace, calls: map[string]bool{}, texts: map[string]bool{}}
	if dir := filepath.Base(filepath.Dir(sum.Source)); dir != "chats" && filepath.Base(filepath.Dir(filepath.Dir(sum.Source))) == "chats" {
		st.parent = dir // chats/<parent session id>/<id>.jsonl
	}
	return eachLine(r, sum, func(line []byte, n int) error {
		var rec gmRecord
		if err := gojson.Unmarshal(line, &rec); err != nil {
			sum.errorf(n, "%s", jsonError(line, err))
			return nil
		}
		switch {
		case rec.Rewind != nil:
			// The user rewound the conversation; the calls before it were
			// made all the same.
			sum.skip("$rewindTo")
			return nil
		case rec.Set != nil:
			st.meta(rec.Set)
			sum.skip("$set (metadata)")
			for i, m := range rec.Set.Messages {
				if err := st.message(m, fmt.Sprintf("$set.messages[%d]", i), n, sum, out); err != nil {
					return err
				}
			}
			return nil
		case rec.SessionID != "" && (rec.ID == "" || rec.Type == ""):
			// Session metadata. A line with an id and a type is a message,
			// even when it repeats the sessionId.
			st.meta(&rec)
			if len(rec.Messages) == 0 {
				sum.skip("session metadata")
			}
			for i, m := range rec.Messages {
				if err := st.message(m, fmt.Sprintf("messages[%d]", i), n, sum, out); err != nil {
					return err
				}
			}
			return nil
		case rec.ID != "":
			return st.message(line, "", n, sum, out)
		}
		sum.errorf(n, "neither session metadata (sessionId) nor a message (id)")
		return nil
	})
}

func (st *gmState) meta(r *gmRecord) {
	if r.SessionID != "" {
		st.session = r.SessionID
	}
	if r.Kind != "" {
		st.kind = r.Kind
	}
	if len(r.Directories) > 0 && r.Directories[0] != "" {
		st.workspace = r.Directories[0]
	}
}

// message reads one MessageRecord; where names it inside a whole-file
// record ("messages[3]"), "" for a line of its own.
func (st *gmState) message(raw []byte, where string, n int, sum *SourceSummary, out *output) error {
	const format = "gemini-cli"
	at := func(field string) string {
		if where == "" {
			return field
		}
		return where + "." + field
	}
	var m gmRecord
	if err := gojson.Unmarshal(raw, &m); err != nil {
		sum.errorf(n, "%s: %s", cmpOr(where, "message"), jsonError(raw, err))
		return nil
	}
	switch m.Type {
	case "user":
		if text := gmText(m.Content); strings.HasPrefix(text, sessionContextTag) {
			sum.skip(skipGeminiSessionContext)
			return nil
		} else if text != "" {
			st.cv.user(out.text(text))
			sum.skip("user message (context)")
		} else {
			sum.skip("user message without text (tool responses)")
		}
		return nil
	case "gemini":
	case "":
		sum.errorf(n, "%s: required", at("type"))
		return nil
	default: // info, error, warning: the CLI's own notices
		sum.skip("message type " + m.Type)
		return nil
	}
	if text := gmText(m.Content); text != "" && !st.texts[m.ID] {
		st.texts[m.ID] = true
		st.cv.turn("assistant", out.text(text))
	}
	made := 0
	for i, raw := range m.ToolCalls {
		var tc gmToolCall
		if err := gojson.Unmarshal(raw, &tc); err != nil {
			// A field of the wrong type is named by its path
			// (messages[1].toolCalls[1].name: want a string, got number).
			if msg, ok := typeError(bytes.TrimSpace(raw), err); ok {
				sum.errorf(n, "%s.%s", at(fmt.Sprintf("toolCalls[%d]", i)), msg)
			} else {
				sum.errorf(n, "%s: %s", at(fmt.Sprintf("toolCalls[%d]", i)), jsonError(raw, err))
			}
			continue
		}
		if tc.Name == "" {
			sum.errorf(n, "%s: required", at(fmt.Sprintf("toolCalls[%d].name", i)))
			continue
		}
		id := cmpOr(tc.ID, fmt.Sprintf("%s-%d", m.ID, i))
		if st.calls[id] {
			continue // the message written again as the call went on
		}
		st.calls[id] = true
		c := &datasets.Case{SessionID: st.session, Workspace: st.workspace, Context: st.cv.context()}
		c.ID = "gemini-" + st.session + "-" + id
		c.Tool.Name = tc.Name
		c.Tool.Arguments, c.Tool.ArgumentsValid = rawArgs(tc.Args)
		if t, err := time.Parse(time.RFC3339Nano, cmpOr(tc.Timestamp, m.Timestamp)); err == nil {
			c.Time = &t
		}
		c.Provenance = provenance(format, sum.Source, n)
		c.Provenance["tool_use_id"] = id
		c.Provenance["message_id"] = m.ID
		if tc.Status != "" {
			c.Provenance["status"] = tc.Status
		}
		if st.parent != "" {
			c.Provenance["parent_session_id"] = st.parent
		}
		// A sub-agent's file may carry its parent's sessionId: its calls
		// then fall into the parent's session, and only this marker tells
		// them from the main agent's.
		if st.kind == "subagent" || st.parent != "" {
			c.Provenance["subagent"] = true
		}
		made++
		if err := out.add(c); err != nil {
			return err
		}
	}
	if made == 0 {
		if len(m.ToolCalls) > 0 {
			sum.skip("gemini message written again")
		} else {
			sum.skip("gemini message (context)")
		}
	}
	return nil
}

// Gemini CLI opens a chat with its environment as a user message,
// "<session_context>\nThis is the Gemini CLI. We are setting up the context
// for our chat. …" (getEnvironmentContext in packages/core): the date, the
// OS, the workspace's directory tree and the GEMINI.md files and
// extensions' instructions it loaded, up to tens of KB. The chat recording
// keeps it as the first user message (public Cloud Shell recordings:
// 58 KB, an extension's tool instructions included). It is not what the
// user asked: a judge reading it as the user's request could take an
// extension's "you MUST …" for the user's words. It is skipped and counted,
// never context.
const (
	sessionContextTag        = "<session_context>"
	skipGeminiSessionContext = "session context (the CLI's environment, not the user's words)"
)

// gmText is the text of a message's content: a string, or the text parts
// of a list of parts.
func gmText(raw json.RawMessage) string {
	raw = json.RawMessage(strings.TrimSpace(string(raw)))
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		var s string
		_ = gojson.Unmarshal(raw, &s)
		return strings.TrimSpace(s)
	}
	var parts []struct {
		Text *string `json:"text"`
	}
	if gojson.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var out []string
	for _, p := range parts {
		if p.Text != nil && strings.TrimSpace(*p.Text) != "" {
			out = append(out, *p.Text)
		}
	}
	return strings.Join(out, "\n")
}
