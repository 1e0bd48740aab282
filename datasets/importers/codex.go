package importers

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	gojson "github.com/goccy/go-json"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/trunc"
)

func init() {
	register(format{"codex-rollout", 4, func(Options) importer { return &codexRollout{} },
		func(r sniffed) bool {
			return r.has("timestamp", "type", "payload") || r.has("record_type") || r.has("id", "timestamp", "instructions") ||
				(codexResponseTypes[r.typ] && !r.has("sessionId") && !r.has("session_id"))
		}, 4})
}

// Codex CLI rollout files ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl).
// Two layouts are read:
//
//   - current (RolloutLine): every line is {"timestamp", "type", "payload"}
//     with type session_meta, response_item, turn_context, event_msg or
//     compacted; tool calls are response_item payloads.
//   - legacy (before the RolloutLine wrapper): a first line {"id",
//     "timestamp", "instructions"?} naming the session, then bare
//     ResponseItem objects and {"record_type": "state"} lines.
//
// Tool calls are the ResponseItem variants function_call (arguments as a
// JSON string), local_shell_call (action.command as an argv list) and
// custom_tool_call (free-form input text).

type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	// Legacy layout: a bare ResponseItem or session header.
	RecordType string `json:"record_type"`
	ID         string `json:"id"`
}

type codexItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   []codexContent  `json:"content"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"` // a JSON string (function_call) or an object (tool_search_call)
	Input     string          `json:"input"`
	Execution string          `json:"execution"`
	Status    string          `json:"status"`
	CallID    string          `json:"call_id"`
	ID        string          `json:"id"`
	Action    *codexAction    `json:"action"`
	Cwd       string          `json:"cwd"`
	Output    json.RawMessage `json:"output"` // function_call_output, custom_tool_call_output
	Raw       json.RawMessage `json:"-"`
}

type codexContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// codexAction is a local_shell_call's action (exec) or a web_search_call's
// (search, open_page, find_in_page).
type codexAction struct {
	Type             string   `json:"type"`
	Command          []string `json:"command"`
	WorkingDirectory string   `json:"working_directory"`
	TimeoutMS        *int64   `json:"timeout_ms"`
	Query            string   `json:"query"`
	Queries          []string `json:"queries"`
	URL              string   `json:"url"`
	Pattern          string   `json:"pattern"`
}

type codexMeta struct {
	ID         string `json:"id"`
	Cwd        string `json:"cwd"`
	CLIVersion string `json:"cli_version"`
}

type codexRollout struct{}

func (codexRollout) stream() bool { return true }

func (codexRollout) match(p string) bool {
	b := filepath.Base(stripCompression(p))
	return strings.HasPrefix(b, "rollout-") && strings.HasSuffix(b, ".jsonl")
}

var codexResponseTypes = map[string]bool{"message": true, "reasoning": true, "function_call": true,
	"function_call_output": true, "local_shell_call": true, "custom_tool_call": true,
	"custom_tool_call_output": true, "web_search_call": true, "tool_search_call": true, "tool_search_output": true}

func (codexRollout) file(r io.Reader, sum *SourceSummary, out *output) error {
	const format = "codex-rollout"
	session := codexSessionFromPath(sum.Source)
	workspace, version := "", ""
	cv := &convo{}
	// Cases wait (at most maxPending) for the auto-review of their call,
	// which comes after the call (docs/vendor-judges.md).
	var pending []*datasets.Case
	byCall := map[string]*datasets.Case{}
	flush := func(all bool) error {
		for len(pending) > 0 && (all || len(pending) > maxPending) {
			c := pending[0]
			pending = pending[1:]
			if id, _ := c.Provenance["tool_use_id"].(string); id != "" {
				delete(byCall, id)
			}
			if err := out.add(c); err != nil {
				return err
			}
		}
		return nil
	}
	err := eachLine(r, sum, func(line []byte, n int) error {
		var l codexLine
		if err := gojson.Unmarshal(line, &l); err != nil {
			sum.errorf(n, "%s", jsonError(line, err))
			return nil
		}
		var item codexItem
		var ts string
		switch {
		case l.Payload != nil && l.Type != "":
			ts = l.Timestamp
			switch l.Type {
			case "session_meta":
				var m codexMeta
				if err := gojson.Unmarshal(l.Payload, &m); err != nil {
					sum.errorf(n, "payload: %s", jsonError(l.Payload, err))
					return nil
				}
				session = cmpOr(m.ID, session)
				workspace = cmpOr(m.Cwd, workspace)
				version = cmpOr(m.CLIVersion, version)
				sum.skip("session_meta")
				return nil
			case "turn_context":
				var m codexMeta
				if gojson.Unmarshal(l.Payload, &m) == nil && m.Cwd != "" {
					workspace = m.Cwd
				}
				sum.skip("turn_context")
				return nil
			case "response_item":
				if err := gojson.Unmarshal(l.Payload, &item); err != nil {
					sum.errorf(n, "payload: %s", jsonError(l.Payload, err))
					return nil
				}
			case "event_msg":
				if bytes.Contains(l.Payload, []byte(`"guardian_assessment"`)) {
					autoReview(l.Payload, byCall, version, sum, n)
					return nil
				}
				sum.skip(l.Type) // it repeats the response items for the UI
				return nil
			default: // compacted is a summary
				sum.skip(l.Type)
				return nil
			}
		case l.RecordType != "":
			sum.skip("legacy record_type " + l.RecordType)
			return nil
		case codexResponseTypes[l.Type]:
			if err := gojson.Unmarshal(line, &item); err != nil {
				sum.errorf(n, "%v", err)
				return nil
			}
		case l.Type == "" && l.ID != "" && l.Timestamp != "":
			session = l.ID // legacy session header
			sum.skip("session_meta")
			return nil
		default:
			if l.Type == "" {
				sum.errorf(n, "type: required")
			} else {
				sum.skip("type " + l.Type)
			}
			return nil
		}
		c := &datasets.Case{SessionID: session, Workspace: workspace}
		switch item.Type {
		case "message":
			var parts []string
			for _, p := range item.Content {
				if p.Text != "" {
					parts = append(parts, p.Text)
				}
			}
			text := strings.Join(parts, "\n")
			switch {
			case item.Role == "user" && codexRealUser(text):
				cv.user(out.text(text))
				sum.skip("user message (context)")
			case item.Role == "assistant":
				cv.turn("assistant", out.text(text))
				sum.skip("assistant message (context)")
			default:
				sum.skip(item.Role + " message (instructions, environment)")
			}
			return nil
		case "function_call":
			c.Tool.Name = item.Name
			c.Tool.Arguments, c.Tool.ArgumentsValid = codexArgs(item.Arguments)
		case "tool_search_call":
			// The model searching the tools it may call (arguments is an
			// object: {query, limit}); execution says who runs it.
			c.Tool.Name = "tool_search"
			c.Tool.Arguments, c.Tool.ArgumentsValid = codexArgs(item.Arguments)
		case "web_search_call":
			// A search the model's server-side web tool runs: a network
			// call like any fetch, so the network boundary must see it.
			c.Tool.Name = "web_search"
			c.Tool.Arguments = map[string]any{}
			if a := item.Action; a != nil {
				c.Tool.Arguments["action"] = a.Type
				for k, v := range map[string]string{"query": a.Query, "url": a.URL, "pattern": a.Pattern} {
					if v != "" {
						c.Tool.Arguments[k] = v
					}
				}
				if len(a.Queries) > 0 {
					c.Tool.Arguments["queries"] = argvAny(a.Queries)
				}
			}
		case "local_shell_call":
			c.Tool.Name = "local_shell"
			if item.Action == nil {
				sum.errorf(n, "payload.action: required for local_shell_call")
				return nil
			}
			m := map[string]any{"command": argvAny(item.Action.Command)}
			if item.Action.WorkingDirectory != "" {
				m["workdir"] = item.Action.WorkingDirectory
			}
			c.Tool.Arguments = codexShellArgs(m)
		case "custom_tool_call":
			c.Tool.Name = item.Name
			c.Tool.Arguments = map[string]any{"input": item.Input}
		case "function_call_output", "custom_tool_call_output":
			if call := byCall[item.CallID]; call != nil {
				if code, text, ok := codexExit(item.Output); ok {
					call.Provenance["exit_code"] = code
					if code != 0 {
						call.Provenance["status"] = "error"
						call.Provenance["tool_result_error"] = trunc.Runes(text, 500)
					}
				} else if text, ok := codexRefusal(item.Output); ok {
					call.Provenance["status"] = "error"
					call.Provenance["tool_result_error"] = trunc.Runes(text, 500)
				}
			}
			sum.skip(item.Type)
			return nil
		default:
			sum.skip(item.Type)
			return nil
		}
		if c.Tool.Name == "" {
			sum.errorf(n, "payload.name: required for %s", item.Type)
			return nil
		}
		callID := cmpOr(item.CallID, item.ID)
		if callID != "" {
			c.ID = "codex-" + session + "-" + callID
		} else {
			c.ID = "codex-" + session + "-L" + strconv.Itoa(n)
		}
		c.Context = cv.context()
		if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
			c.Time = &t
		}
		c.Provenance = provenance(format, sum.Source, n)
		if callID != "" {
			c.Provenance["tool_use_id"] = callID
		}
		c.Provenance["item_type"] = item.Type
		if item.Execution != "" {
			c.Provenance["execution"] = item.Execution
		}
		pending = append(pending, c)
		if callID != "" {
			byCall[callID] = c
		}
		return flush(false)
	})
	if ferr := flush(true); err == nil {
		err = ferr
	}
	return err
}

// codexExit reads a call's exit code from its output, where the output
// says it: a JSON string {"output": …, "metadata": {"exit_code": N}} (shell
// and apply_patch, Codex 0.4x), or text that starts "Exit code: N" (later
// versions' exec output). ok is false otherwise (update_plan's "Plan
// updated", a tool's own error text): no status is made up.
func codexExit(raw json.RawMessage) (code int, text string, ok bool) {
	var s string
	if gojson.Unmarshal(raw, &s) != nil {
		return 0, "", false
	}
	var o struct {
		Output   string `json:"output"`
		Metadata *struct {
			ExitCode *int `json:"exit_code"`
		} `json:"metadata"`
	}
	if strings.HasPrefix(s, "{") && gojson.Unmarshal([]byte(s), &o) == nil && o.Metadata != nil && o.Metadata.ExitCode != nil {
		return *o.Metadata.ExitCode, o.Output, true
	}
	if rest, found := strings.CutPrefix(s, "Exit code: "); found {
		line, body, _ := strings.Cut(rest, "\n")
		if n, err := strconv.Atoi(strings.TrimSpace(line)); err == nil {
			if _, out, found := strings.Cut(body, "Output:\n"); found {
				body = out
			}
			return n, body, true
		}
	}
	return 0, "", false
}

// codexRefusals are the texts Codex answers the model with when a tool
// call fails before it runs (codex-rs/core: FunctionCallError::RespondToModel
// in the apply_patch handler and the argument parsing of every function
// tool). Codex marks such an output success: false, but the rollout does
// not keep that flag: FunctionCallOutputPayload serializes as its text
// alone (protocol models.rs, test serializes_failure_as_string), a
// custom_tool_call_output has no flag at all, and patch_apply_end (which
// says success) is not among the events a rollout keeps (rollout/policy.rs).
// So the text is all the record says.
var codexRefusals = []string{
	"apply_patch verification failed: ", // the patch does not apply (lines not found, bad hunk)
	"apply_patch handler received ",     // invalid patch input, non-apply_patch input, unsupported payload
	"patch rejected: ",                  // the safety check refused it (e.g. a write outside the workspace)
	"failed to parse function arguments: ",
}

// codexRefusal reports whether a call's output is one of codexRefusals,
// and returns it.
func codexRefusal(raw json.RawMessage) (string, bool) {
	var s string
	if gojson.Unmarshal(raw, &s) != nil {
		return "", false
	}
	for _, p := range codexRefusals {
		if strings.HasPrefix(s, p) {
			return s, true
		}
	}
	return "", false
}

// codexArgs reads a call's arguments: a JSON string holding an object
// (function_call) or an object itself (tool_search_call). Anything else is
// kept under input with arguments_valid = false.
func codexArgs(raw json.RawMessage) (map[string]any, *bool) {
	f := false
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return map[string]any{}, nil
	}
	var args any
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return map[string]any{"input": string(raw)}, &f
		}
		if err := json.Unmarshal([]byte(s), &args); err != nil {
			return map[string]any{"input": s}, &f
		}
	} else if err := json.Unmarshal(raw, &args); err != nil {
		return map[string]any{"input": string(raw)}, &f
	}
	if m, ok := args.(map[string]any); ok {
		return codexShellArgs(m), nil
	}
	return map[string]any{"input": args}, &f
}

// codexShellArgs gives a shell call a command string: Codex sends the
// command as an argv list (["bash", "-lc", "ls -la"]), and apeval's
// matchers look at a command string. The list is kept as argv.
func codexShellArgs(m map[string]any) map[string]any {
	if cmd, ok := m["cmd"].(string); ok && m["command"] == nil {
		m["command"] = cmd // exec_command names it cmd
	}
	list, ok := m["command"].([]any)
	if !ok {
		return m
	}
	argv := make([]string, 0, len(list))
	for _, a := range list {
		s, ok := a.(string)
		if !ok {
			return m
		}
		argv = append(argv, s)
	}
	m["argv"] = list
	if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") && isShell(argv[0]) {
		m["command"] = argv[2]
	} else {
		m["command"] = joinArgv(argv)
	}
	return m
}

func isShell(s string) bool {
	switch filepath.Base(s) {
	case "bash", "sh", "zsh", "dash":
		return true
	}
	return false
}

// joinArgv quotes the words that need it, POSIX-shell style.
func joinArgv(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`|&;<>()*?[]{}!#~") {
			b.WriteString(a)
			continue
		}
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(a, "'", `'\''`))
		b.WriteByte('\'')
	}
	return b.String()
}

func argvAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// codexRealUser tells the user's own messages from the ones Codex sends as
// the user on its own account (environment context, AGENTS.md
// instructions).
func codexRealUser(t string) bool {
	t = strings.TrimSpace(t)
	for _, p := range []string{"<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<turn_aborted>"} {
		if strings.HasPrefix(t, p) {
			return false
		}
	}
	return t != ""
}

// codexSessionFromPath takes the session id from a rollout file name
// (rollout-2025-05-07T17-24-21-<uuid>.jsonl): the last five dash-separated
// groups; else the whole base name.
func codexSessionFromPath(p string) string {
	b := strings.TrimSuffix(filepath.Base(stripCompression(p)), ".jsonl")
	parts := strings.Split(b, "-")
	if len(parts) >= 6 {
		return strings.Join(parts[len(parts)-5:], "-")
	}
	return b
}
