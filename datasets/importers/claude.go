package importers

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	gojson "github.com/goccy/go-json"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/trunc"
)

func init() {
	register(format{"claude-code-hooks", 0, func(Options) importer { return &claudeHooks{} },
		func(r sniffed) bool { return r.has("hook_event_name") }, 0})
	register(format{"claude-code-transcript", 1, func(Options) importer { return &claudeTranscript{} },
		func(r sniffed) bool {
			return r.typeIn("user", "assistant", "summary", "system", "file-history-snapshot", "progress") &&
				(r.has("sessionId") || r.has("uuid") || r.has("leafUuid") || r.has("parentUuid") || r.has("messageId"))
		}, 8})
	register(format{"claude-code-stream-json", 2, func(Options) importer { return &claudeTranscript{streamJSON: true} },
		func(r sniffed) bool {
			// A transcript of Claude Code 2.1.2xx carries session_id too,
			// beside its own sessionId and parentUuid, which stream-json
			// messages never have.
			return r.has("session_id") && !r.has("sessionId") && !r.has("parentUuid") &&
				r.typeIn("system", "assistant", "user", "result", "stream_event")
		}, 7})
}

// Claude Code session transcripts (~/.claude/projects/<project>/<session>.jsonl):
// one JSON entry per line; "user" and "assistant" entries carry an
// Anthropic Messages API message whose content is a string or a list of
// blocks (text, tool_use, tool_result, …). See docs/import.md.

type ccEntry struct {
	Type        string     `json:"type"`
	SessionID   string     `json:"sessionId"`
	IsSidechain bool       `json:"isSidechain"`
	IsMeta      bool       `json:"isMeta"`
	AgentID     string     `json:"agentId"`
	Cwd         string     `json:"cwd"`
	Timestamp   string     `json:"timestamp"`
	Message     *ccMessage `json:"message"`
	// IsCompactSummary marks the summary Claude Code writes as a user entry
	// when it compacts the context; it is not what the user asked.
	IsCompactSummary bool `json:"isCompactSummary"`
	// ParentToolUseID and SessionIDSnake are stream-json's names
	// (parent_tool_use_id marks a sub-agent's message there).
	ParentToolUseID *string `json:"parent_tool_use_id"`
	SessionIDSnake  string  `json:"session_id"`
}

type ccMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type ccBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     any             `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
}

// ccEntryFast is ccEntry for the common line, decoded in one pass: content
// as blocks, tool results' content skipped (only an error's is kept, and
// such a line takes the general path).
type ccEntryFast struct {
	Type         string  `json:"type"`
	SessionID    string  `json:"sessionId"`
	IsSidechain  bool    `json:"isSidechain"`
	IsMeta       bool    `json:"isMeta"`
	AgentID      string  `json:"agentId"`
	Cwd          string  `json:"cwd"`
	Timestamp    string  `json:"timestamp"`
	Compact      bool    `json:"isCompactSummary"`
	Parent       *string `json:"parent_tool_use_id"`
	SessionSnake string  `json:"session_id"`
	Message      *struct {
		Content []ccBlockFast `json:"content"`
	} `json:"message"`
}

type ccBlockFast struct {
	Type      string `json:"type"`
	Text      string `json:"text"`
	ID        string `json:"id"`
	Name      string `json:"name"`
	Input     any    `json:"input"`
	ToolUseID string `json:"tool_use_id"`
	IsError   bool   `json:"is_error"`
}

// stringContent marks a line whose message content is a plain string (a
// user prompt as Claude Code writes it): the fast decoding would fail on it.
var stringContent = []byte(`"content":"`)

// decodeFast decodes a line with content blocks and no tool error in one
// pass; false sends the line to the general path.
func decodeEntryFast(line []byte, e *ccEntry) ([]ccBlock, bool) {
	if i := bytes.Index(line, stringContent); i >= 0 && bytes.Contains(line[max(0, i-20):i], []byte(`"role":"user",`)) {
		return nil, false
	}
	var f ccEntryFast
	if gojson.Unmarshal(line, &f) != nil || f.Message == nil {
		return nil, false
	}
	blocks := make([]ccBlock, len(f.Message.Content))
	for i, b := range f.Message.Content {
		if b.IsError {
			return nil, false
		}
		blocks[i] = ccBlock{Type: b.Type, Text: b.Text, ID: b.ID, Name: b.Name, Input: b.Input, ToolUseID: b.ToolUseID}
	}
	*e = ccEntry{Type: f.Type, SessionID: f.SessionID, IsSidechain: f.IsSidechain, IsMeta: f.IsMeta,
		AgentID: f.AgentID, Cwd: f.Cwd, Timestamp: f.Timestamp, Message: &ccMessage{},
		IsCompactSummary: f.Compact, ParentToolUseID: f.Parent, SessionIDSnake: f.SessionSnake}
	return blocks, true
}

// ccCall is a tool_use block with where it was found.
type ccCall struct {
	entry *ccEntry
	block *ccBlock
	line  int
}

// ccState follows the conversations of a transcript: one per session and
// agent (the main thread, and each sub-agent's sidechain), so a sub-agent's
// calls see its own prompt as their user message.
type ccState struct {
	convos map[string]*convo
	text   func(string) string
}

func (s *ccState) convo(e *ccEntry, fallback string) (string, *convo) {
	session := cmpOr(e.SessionID, cmpOr(e.SessionIDSnake, fallback))
	key := session
	switch {
	case e.IsSidechain:
		key += "\x00" + cmpOr(e.AgentID, "sidechain")
	case e.ParentToolUseID != nil && *e.ParentToolUseID != "":
		key += "\x00task:" + *e.ParentToolUseID // stream-json: the Task call that started the sub-agent
	}
	c := s.convos[key]
	if c == nil {
		c = &convo{}
		s.convos[key] = c
	}
	return session, c
}

// entry reads one transcript line. It calls call for each tool_use block
// (with the context before it) and result for each tool_result block; it
// returns the reason the line made no case ("" when it did), or an error
// message.
func (s *ccState) entry(line []byte, n int, fallback string,
	call func(session string, cv *convo, c ccCall), result func(b *ccBlock)) (skip, bad string) {
	var e ccEntry
	blocks, fast := decodeEntryFast(line, &e)
	if !fast {
		if err := gojson.Unmarshal(line, &e); err != nil {
			return "", jsonError(line, err)
		}
	}
	if e.Type != "user" && e.Type != "assistant" {
		if e.Type == "" {
			return "", "type: required"
		}
		return "entry type " + e.Type, ""
	}
	if e.Message == nil {
		return "", "message: required for a " + e.Type + " entry"
	}
	session, cv := s.convo(&e, fallback)
	content := bytes.TrimSpace(e.Message.Content)
	if len(content) > 0 && content[0] == '"' {
		var t string
		if err := gojson.Unmarshal(content, &t); err != nil {
			return "", "message.content: " + jsonError(content, err)
		}
		if e.Type == "user" {
			if e.IsCompactSummary || strings.HasPrefix(strings.TrimSpace(t), compactSummaryPrefix) {
				return "compaction summary", ""
			}
			if args, ok := slashCommand(t); ok && !e.IsMeta {
				cv.user(s.text(args))
				return "user message (context)", ""
			}
			if e.IsMeta || !realUserText(t) {
				return "user entry that is not a user message (meta, command output)", ""
			}
			cv.user(s.text(t))
			return "user message (context)", ""
		}
		cv.turn("assistant", s.text(t))
		return "assistant text (context)", ""
	}
	if len(content) > 0 && !fast {
		if err := gojson.Unmarshal(content, &blocks); err != nil {
			return "", "message.content" + fieldError(content, err)
		}
	}
	calls, results := 0, 0
	compact := false
	var userText []string
	for i := range blocks {
		b := &blocks[i]
		switch b.Type {
		case "text":
			if e.Type == "assistant" {
				cv.turn("assistant", s.text(b.Text))
			} else if e.IsCompactSummary || strings.HasPrefix(strings.TrimSpace(b.Text), compactSummaryPrefix) {
				compact = true
			} else if args, ok := slashCommand(b.Text); ok && !e.IsMeta {
				userText = append(userText, args)
			} else if !e.IsMeta && realUserText(b.Text) {
				userText = append(userText, b.Text)
			}
		case "tool_use":
			if e.Type != "assistant" {
				continue
			}
			if b.Name == "" {
				bad = fmt.Sprintf("message.content[%d]: tool_use without a name", i)
				continue
			}
			calls++
			call(session, cv, ccCall{entry: &e, block: b, line: n})
		case "tool_result":
			results++
			result(b)
		}
	}
	if len(userText) > 0 {
		cv.user(s.text(strings.Join(userText, "\n")))
	}
	switch {
	case bad != "":
		return "", bad
	case calls > 0:
		return "", ""
	case results > 0:
		return "tool results", ""
	case len(userText) > 0:
		return "user message (context)", ""
	case compact:
		return "compaction summary", ""
	case e.Type == "assistant":
		return "assistant text (context)", ""
	}
	return "user entry that is not a user message (meta, command output)", ""
}

// realUserText tells a message the user typed from the texts Claude Code
// stores as user entries on its own account: slash-command echoes, local
// command output, interruption notices and system reminders.
func realUserText(t string) bool {
	t = strings.TrimSpace(t)
	if t == "" {
		return false
	}
	for _, p := range []string{"<command-name>", "<command-message>", "<command-args>", "<local-command-stdout>", "<local-command-stderr>",
		"<system-reminder>", "<task-notification>", "[Request interrupted", "Caveat: The messages below were generated", compactSummaryPrefix} {
		if strings.HasPrefix(t, p) {
			return false
		}
	}
	return true
}

// compactSummaryPrefix starts the summary Claude Code writes as a user
// entry (isCompactSummary) when it compacts a long conversation.
const compactSummaryPrefix = "This session is being continued from a previous conversation"

// slashCommand reads the user entry Claude Code writes for a slash command
// the user typed (<command-name>/orchestrator</command-name>
// <command-args>create TODO app</command-args>): the request is the command
// with its arguments ("/orchestrator create TODO app"). A command without
// arguments (/clear, /compact) is not a request: ok is false.
func slashCommand(t string) (string, bool) {
	t = strings.TrimSpace(t)
	if !strings.HasPrefix(t, "<command-") {
		return "", false
	}
	args := strings.TrimSpace(tagText(t, "command-args"))
	if args == "" {
		return "", false
	}
	name := strings.TrimSpace(tagText(t, "command-name"))
	if name == "" {
		return args, true
	}
	if !strings.HasPrefix(name, "/") {
		name = "/" + name
	}
	return name + " " + args, true
}

// tagText is the text between <tag> and </tag> in s, or "".
func tagText(s, tag string) string {
	_, after, ok := strings.Cut(s, "<"+tag+">")
	if !ok {
		return ""
	}
	inner, _, ok := strings.Cut(after, "</"+tag+">")
	if !ok {
		return ""
	}
	return inner
}

// ccCase builds the case of one tool_use block.
func ccCase(format, source string, session string, cv *convo, c ccCall) *datasets.Case {
	b := c.block
	cs := &datasets.Case{SessionID: session, Workspace: c.entry.Cwd, Context: cv.context()}
	cs.Tool.Name = b.Name
	if b.ID != "" {
		cs.ID = "cc-" + b.ID
	} else {
		cs.ID = "cc-" + session + "-L" + strconv.Itoa(c.line)
	}
	cs.Tool.Arguments, cs.Tool.ArgumentsValid = objectArgs(b.Input)
	if t, err := time.Parse(time.RFC3339Nano, c.entry.Timestamp); err == nil {
		cs.Time = &t
	}
	cs.Provenance = provenance(format, source, c.line)
	if b.ID != "" {
		cs.Provenance["tool_use_id"] = b.ID
	}
	if c.entry.IsSidechain {
		cs.Provenance["sidechain"] = true
		if c.entry.AgentID != "" {
			cs.Provenance["agent_id"] = c.entry.AgentID
		}
	}
	if p := c.entry.ParentToolUseID; p != nil && *p != "" {
		cs.Provenance["sidechain"] = true
		cs.Provenance["parent_tool_use_id"] = *p
	}
	return cs
}

// objectArgs takes a tool input that should be a JSON object. Anything
// else is kept under "input" with arguments_valid = false.
func objectArgs(v any) (map[string]any, *bool) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return t, nil
	}
	f := false
	return map[string]any{"input": v}, &f
}

// rawArgs is objectArgs for undecoded JSON.
func rawArgs(raw json.RawMessage) (map[string]any, *bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, nil
	}
	var v any
	if err := gojson.Unmarshal(raw, &v); err != nil {
		f := false
		return map[string]any{"input": string(raw)}, &f
	}
	return objectArgs(v)
}

// resultText is the text of a tool_result's content (a string or text
// blocks), capped.
func resultText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		var s string
		_ = gojson.Unmarshal(raw, &s)
		return trunc.Runes(s, 500)
	}
	var blocks []ccBlock
	if gojson.Unmarshal(raw, &blocks) != nil {
		return trunc.Runes(string(raw), 500)
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return trunc.Runes(strings.Join(parts, "\n"), 500)
}

// claudeTranscript imports session transcripts.
type claudeTranscript struct {
	state *ccState
	// streamJSON reads `claude -p --output-format stream-json` output: the
	// same messages, with session_id, the working directory in the
	// system/init line, and no timestamps.
	streamJSON bool
}

// streamLine is what stream-json's own lines carry.
type streamLine struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	Cwd       string `json:"cwd"`
	SessionID string `json:"session_id"`
	Model     string `json:"model"`
	Mode      string `json:"permissionMode"`
}

func (t *claudeTranscript) stream() bool { return true }

func (t *claudeTranscript) match(p string) bool {
	q := stripCompression(p)
	if t.streamJSON {
		// stream-json runs are saved as JSON arrays as often as as lines
		// (run-1.json, claude-code-action's execution_file
		// claude-execution-output.json): a directory of them is read whole.
		return strings.HasSuffix(q, ".jsonl") || strings.HasSuffix(q, ".json") || strings.HasSuffix(q, ".ndjson")
	}
	return strings.HasSuffix(q, ".jsonl")
}

// maxPending bounds the cases held back waiting for their tool_result.
const maxPending = 256

func (t *claudeTranscript) file(r io.Reader, sum *SourceSummary, out *output) error {
	return t.read([]*recordReader{newRecordReader(r, sum)}, []*SourceSummary{sum}, out)
}

// groups puts each session's sub-agent files with the session's own file,
// so their calls are merged with the main thread's by time: Claude Code
// 2.x writes a sub-agent's transcript to <session>/subagents/agent-<id>.jsonl
// (2.0: agent-<id>.jsonl beside the session's file, its sessionId inside).
// A sub-agent file whose session's file is not among them is read alone.
func (t *claudeTranscript) groups(files []string) [][]string {
	index := map[string]int{}
	for i, f := range files {
		index[stripCompression(f)] = i
	}
	parent := make([]int, len(files))
	for i, f := range files {
		parent[i] = -1
		if f == "-" {
			continue
		}
		dir, base := filepath.Dir(f), filepath.Base(stripCompression(f))
		var main string
		switch {
		case filepath.Base(dir) == "subagents":
			main = filepath.Dir(dir) + ".jsonl"
		case strings.HasPrefix(base, "agent-"):
			if sid := firstSessionID(f); sid != "" {
				main = filepath.Join(dir, sid+".jsonl")
			}
		}
		if j, ok := index[main]; ok && j != i {
			parent[i] = j
		}
	}
	var out [][]string
	for i, f := range files {
		if parent[i] >= 0 {
			continue
		}
		g := []string{f}
		for j := range files {
			if parent[j] == i {
				g = append(g, files[j])
			}
		}
		out = append(out, g)
	}
	return out
}

// companions are the sub-agent files of a session's transcript given
// alone: <session>/subagents/*.jsonl beside it.
func (t *claudeTranscript) companions(file string) []string {
	q := stripCompression(file)
	if !strings.HasSuffix(q, ".jsonl") {
		return nil
	}
	dir := filepath.Join(strings.TrimSuffix(q, ".jsonl"), "subagents")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() && t.match(e.Name()) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// firstSessionID is the sessionId of a transcript's first entry that has one.
func firstSessionID(p string) string {
	br, closer, err := datasets.OpenInput(p, nil)
	if err != nil {
		return ""
	}
	defer closer.Close()
	scratch := &SourceSummary{Source: p, Skipped: map[string]int{}}
	rr := newRecordReader(br, scratch)
	for i := 0; i < 8; i++ {
		rec, _, err := rr.next()
		if err != nil || rec == nil {
			return ""
		}
		var e struct {
			SessionID string `json:"sessionId"`
		}
		if gojson.Unmarshal(rec, &e) == nil && e.SessionID != "" {
			return e.SessionID
		}
	}
	return ""
}

func (t *claudeTranscript) group(files []string, sums []*SourceSummary, out *output, opt Options) error {
	readers := make([]*recordReader, len(files))
	for i, f := range files {
		br, closer, err := datasets.OpenInput(f, opt.Stdin)
		if err != nil {
			return err
		}
		defer closer.Close()
		readers[i] = newRecordReader(br, sums[i])
	}
	return t.read(readers, sums, out)
}

// transcriptPending is a case waiting for its tool_result.
type transcriptPending struct {
	c   *datasets.Case
	sum *SourceSummary
}

// read imports the entries of one session's files; with more than one
// (the session and its sub-agents) the entries are taken in time order, so
// seq follows the order the calls were made in.
func (t *claudeTranscript) read(readers []*recordReader, sums []*SourceSummary, out *output) error {
	format := "claude-code-transcript"
	var cwd, mode string // stream-json: from the system/init line
	if t.streamJSON {
		format = "claude-code-stream-json"
	}
	if t.state == nil {
		t.state = &ccState{convos: map[string]*convo{}, text: out.text}
	}
	fallback := sessionFromPath(sums[0].Source)
	gate := vendorGate{blocked: map[string]bool{}} // the permission mode and version so far, the line's denial
	// Cases wait, in order, until their tool_result is seen (its error is
	// provenance) or too many are waiting.
	var pending []transcriptPending
	byID := map[string]*datasets.Case{}
	done := map[*datasets.Case]bool{}
	rewritten := map[*datasets.Case]*SourceSummary{} // calls a PreToolUse hook changed
	defer func() {
		type count struct{ all, gated int }
		per := map[*SourceSummary]*count{}
		for cs, sum := range rewritten {
			if per[sum] == nil {
				per[sum] = &count{}
			}
			per[sum].all++
			if _, ok := cs.Provenance["vendor_decision"]; ok {
				per[sum].gated++
			}
		}
		for _, sum := range sums {
			if n := per[sum]; n != nil {
				msg := fmt.Sprintf("%d calls ran with an input a PreToolUse hook changed: their cases keep the model's input, provenance.hook_updated_input has what ran", n.all)
				if n.gated > 0 {
					msg += fmt.Sprintf("; %d of them carry auto mode's decision, made on the changed input", n.gated)
				}
				sum.warnf("%s", msg)
			}
		}
	}()
	flush := func(all bool) error {
		for len(pending) > 0 && (all || done[pending[0].c] || len(pending) > maxPending) {
			p := pending[0]
			pending = pending[1:]
			delete(done, p.c)
			if id, _ := p.c.Provenance["tool_use_id"].(string); id != "" {
				delete(byID, id)
			}
			out.sum = p.sum
			if err := out.add(p.c); err != nil {
				return err
			}
		}
		return nil
	}
	type head struct {
		rec []byte
		n   int
		ts  time.Time
	}
	heads := make([]*head, len(readers))
	advance := func(i int) {
		heads[i] = nil
		rec, n, err := readers[i].next()
		if err != nil {
			sums[i].errorf(0, "%v", err) // a truncated stream: what was read so far stays
			return
		}
		if rec == nil {
			return
		}
		h := &head{rec: rec, n: n}
		if len(readers) > 1 {
			var e struct {
				Timestamp string `json:"timestamp"`
			}
			if gojson.Unmarshal(rec, &e) == nil {
				h.ts, _ = time.Parse(time.RFC3339Nano, e.Timestamp)
			}
			h.rec = bytes.Clone(rec) // the reader's buffer moves on while other files are read
		}
		heads[i] = h
	}
	for i := range readers {
		advance(i)
	}
	for {
		// The earliest entry next; one without a time goes first (it
		// keeps its place in its own file).
		i := -1
		for j, h := range heads {
			if h == nil {
				continue
			}
			if i < 0 || h.ts.IsZero() || (!heads[i].ts.IsZero() && h.ts.Before(heads[i].ts)) {
				i = j
				if h.ts.IsZero() {
					break
				}
			}
		}
		if i < 0 {
			break
		}
		h, sum := heads[i], sums[i]
		if t.streamJSON {
			var l streamLine
			if gojson.Unmarshal(h.rec, &l) == nil {
				switch l.Type {
				case "system":
					if l.Subtype == "init" {
						cwd, mode = cmpOr(l.Cwd, cwd), cmpOr(l.Mode, mode)
						gate.mode = cmpOr(l.Mode, gate.mode)
					}
					sum.skip("system " + cmpOr(l.Subtype, "message"))
					advance(i)
					continue
				case "result", "stream_event":
					sum.skip(l.Type)
					advance(i)
					continue
				}
			}
		}
		gate.denial = ""
		if bytes.Contains(h.rec, gateMarkMode) || bytes.Contains(h.rec, gateMarkDenial) {
			gate.read(h.rec, sum, h.n)
		}
		if bytes.Contains(h.rec, hookRewriteMark) {
			if id, by, input, ok := hookRewrite(h.rec); ok {
				if cs := byID[id]; cs != nil {
					cs.Provenance["hook_updated_input"] = input
					cs.Provenance["hook_updated_by"] = by
					sum.note(noteHookRewrite)
					rewritten[cs] = sum
				}
			}
		}
		skip, bad := t.state.entry(h.rec, h.n, fallback,
			func(session string, cv *convo, c ccCall) {
				cs := ccCase(format, sum.Source, session, cv, c)
				if t.streamJSON {
					cs.Workspace = cmpOr(cs.Workspace, cwd)
					if mode != "" {
						cs.Provenance["permission_mode"] = mode
					}
				}
				pending = append(pending, transcriptPending{cs, sum})
				if c.block.ID != "" {
					byID[c.block.ID] = cs
				}
			},
			func(b *ccBlock) {
				cs := byID[b.ToolUseID]
				if cs == nil {
					if gate.denial != "" {
						// A gate decision about a call this import has no
						// case for: counted, not dropped silently.
						sum.warnf("%s:%d: %s decision for tool_use_id %q names no tool call read before it; not recorded", sum.Source, h.n, gate.denial, b.ToolUseID)
						sum.note("auto mode: decision naming no tool call")
					}
					return
				}
				g := gate
				g.isError = b.IsError
				if b.IsError {
					g.text = resultText(b.Content)
					cs.Provenance["tool_result_error"] = g.text
				}
				if outcome := g.record(cs); outcome != "" {
					sum.note("auto mode: " + outcome)
					cs.Provenance["vendor_decision_line"] = h.n // the tool_result that carries it
				}
				done[cs] = true
			})
		switch {
		case bad != "":
			sum.errorf(h.n, "%s", bad)
		case skip != "":
			sum.skip(skip)
		}
		if err := flush(false); err != nil {
			return err
		}
		advance(i)
	}
	return flush(true)
}

// hookRewriteMark is on a transcript line that may hold a PreToolUse
// hook's changed input for a call.
var hookRewriteMark = []byte(`updatedInput`)

// noteHookRewrite counts the calls whose input a PreToolUse hook changed.
const noteHookRewrite = "input changed by a PreToolUse hook (provenance.hook_updated_input)"

// hookRewrite reads a transcript's "attachment" entry of a PreToolUse hook
// that changed a call's input before it ran (Claude Code 2.1: type
// hook_success, hookEvent PreToolUse, toolUseID, hookName, and the hook's
// stdout {"hookSpecificOutput": {"updatedInput": {…}}}), as a command
// rewriter such as rtk leaves it:
//
//	{"type":"attachment","attachment":{"type":"hook_success","hookName":"PreToolUse:Bash",
//	 "toolUseID":"toolu_…","hookEvent":"PreToolUse","stdout":"{\"hookSpecificOutput\":
//	 {\"hookEventName\":\"PreToolUse\",\"updatedInput\":{\"command\":\"rtk npm run build\"}}}",
//	 "command":"rtk hook claude"}}
//
// The call's tool_use keeps the model's input; what ran, and what Claude
// Code's own permission check (auto mode's classifier) judged, is the
// changed one.
func hookRewrite(line []byte) (toolUseID, by string, input map[string]any, ok bool) {
	var e struct {
		Type       string `json:"type"`
		Attachment *struct {
			Type      string `json:"type"`
			HookName  string `json:"hookName"`
			HookEvent string `json:"hookEvent"`
			ToolUseID string `json:"toolUseID"`
			Stdout    string `json:"stdout"`
			Command   string `json:"command"`
		} `json:"attachment"`
	}
	if gojson.Unmarshal(line, &e) != nil || e.Type != "attachment" || e.Attachment == nil {
		return "", "", nil, false
	}
	a := e.Attachment
	if a.HookEvent != "PreToolUse" || a.ToolUseID == "" {
		return "", "", nil, false
	}
	var out struct {
		Specific struct {
			UpdatedInput map[string]any `json:"updatedInput"`
		} `json:"hookSpecificOutput"`
	}
	if gojson.Unmarshal([]byte(strings.TrimSpace(a.Stdout)), &out) != nil || out.Specific.UpdatedInput == nil {
		return "", "", nil, false
	}
	by = cmpOr(a.HookName, "PreToolUse")
	if a.Command != "" {
		by += " (" + a.Command + ")"
	}
	return a.ToolUseID, by, out.Specific.UpdatedInput, true
}

// sessionFromPath is a transcript's file name without extensions: Claude
// Code names a session's file after its id.
func sessionFromPath(p string) string {
	b := filepath.Base(stripCompression(p))
	return strings.TrimSuffix(b, filepath.Ext(b))
}

// claudeHooks imports hook payloads as Claude Code sends them on stdin,
// one JSON object per line.
type claudeHooks struct {
	cache map[string]map[string]datasets.Context // transcript path → tool_use_id → context
	order []string
}

func (h *claudeHooks) stream() bool { return true }

func (h *claudeHooks) match(p string) bool {
	q := stripCompression(p)
	return strings.HasSuffix(q, ".jsonl") || strings.HasSuffix(q, ".json")
}

// skipNoEvent is the skip reason of a hook log's record that is no hook
// payload: neither hook_event_name nor any tool field.
const skipNoEvent = "not a hook payload (no event, no tool call)"

// lineList is "line 2, 6 and 9" (the first five, then "… (N in all)").
func lineList(lines []int) string {
	var parts []string
	for i, n := range lines {
		if i == 5 {
			break
		}
		parts = append(parts, strconv.Itoa(n))
	}
	s := strings.Join(parts, ", ")
	if len(lines) > 5 {
		return "lines " + s + ", … (" + strconv.Itoa(len(lines)) + " in all)"
	}
	if len(parts) > 1 {
		return "lines " + strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	}
	return "line " + s
}

type hookPayload struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	PermissionMode string          `json:"permission_mode"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	AgentID        string          `json:"agent_id"`
	// Time is not part of Claude Code's payload; `apeval record` adds it.
	Time string `json:"time"`
	// Timestamp is Gemini CLI's: its hooks send it on every event.
	Timestamp string `json:"timestamp"`
}

// toolBefore reports whether a hook event is a tool call about to run:
// Claude Code's PreToolUse, or Gemini CLI's BeforeTool (its hooks
// reference: the same session_id, transcript_path, cwd, tool_name and
// tool_input, plus timestamp). A Gemini CLI BeforeTool hook running
// apeval record recorded nothing, silently.
func toolBefore(event string) bool { return event == "PreToolUse" || event == "BeforeTool" }

func (h *claudeHooks) file(r io.Reader, sum *SourceSummary, out *output) error {
	noInput := 0
	var noEvent []int
	defer func() {
		if noInput > 0 {
			sum.warnf("%d PreToolUse payloads have no tool_input: their cases have no arguments (does the log keep only some fields of the payload?)", noInput)
		}
		if len(noEvent) > 0 {
			sum.warnf("%d records are not hook payloads (no hook_event_name and no tool call; lines typed to try a hook script?): skipped, at %s", len(noEvent), lineList(noEvent))
		}
	}()
	return eachLine(r, sum, func(line []byte, n int) error {
		var p hookPayload
		if err := gojson.Unmarshal(line, &p); err != nil {
			sum.errorf(n, "%s", jsonError(line, err))
			return nil
		}
		if !toolBefore(p.HookEventName) {
			if p.HookEventName == "" {
				if p.ToolName == "" && len(p.ToolInput) == 0 && p.ToolUseID == "" {
					// A line a developer typed to try the hook script
					// ({"test": "notification test"}, {"session_id":
					// "test", "prompt": "test"}): no event, no call.
					sum.skip(skipNoEvent)
					noEvent = append(noEvent, n)
					return nil
				}
				sum.errorf(n, "hook_event_name: required (the record has a tool call: tool_name %q)", p.ToolName)
				return nil
			}
			sum.skip("event " + p.HookEventName)
			return nil
		}
		if p.ToolName == "" {
			sum.errorf(n, "tool_name: required for PreToolUse")
			return nil
		}
		if len(bytes.TrimSpace(p.ToolInput)) == 0 {
			noInput++
		}
		c, note := hookCase(p, sum.Source, n, h.context)
		c.Context.LatestUserMessage = out.text(c.Context.LatestUserMessage)
		for i := range c.Context.RecentMessages {
			c.Context.RecentMessages[i].Content = out.text(c.Context.RecentMessages[i].Content)
		}
		before := sum.Cases
		err := out.add(c)
		if note != "" && sum.Cases > before {
			sum.note(note)
		}
		return err
	})
}

// hookCase maps one PreToolUse payload; ctx finds the context of the call
// in its transcript.
func hookCase(p hookPayload, source string, line int, ctx func(path, toolUseID string) (datasets.Context, string)) (*datasets.Case, string) {
	c := &datasets.Case{SessionID: p.SessionID, Workspace: p.Cwd}
	c.Tool.Name = p.ToolName
	c.Tool.Arguments, c.Tool.ArgumentsValid = rawArgs(p.ToolInput)
	// Without a tool_use_id (older Claude Code, other agents' hooks) the
	// call is named by where it was logged: the session, the log file and
	// the line (or, in a JSON array, the line its record starts on), so
	// identical calls in one log, or at one line of two logs, stay apart.
	switch {
	case p.ToolUseID != "":
		c.ID = "cc-" + p.ToolUseID
	case p.SessionID != "":
		c.ID = "cch-" + p.SessionID + "-" + fileTag(source) + "L" + strconv.Itoa(line)
	default:
		c.ID = "cch-" + fileTag(source) + "L" + strconv.Itoa(line)
	}
	stamp := p.Time
	if stamp == "" {
		stamp = p.Timestamp
	}
	if t, err := time.Parse(time.RFC3339Nano, stamp); err == nil {
		c.Time = &t
	}
	c.Provenance = provenance("claude-code-hooks", source, line)
	if p.HookEventName == "BeforeTool" {
		c.Provenance["hook_event_name"] = p.HookEventName // Gemini CLI's hook
	}
	if p.ToolUseID != "" {
		c.Provenance["tool_use_id"] = p.ToolUseID
	}
	if p.PermissionMode != "" {
		c.Provenance["permission_mode"] = p.PermissionMode
	}
	if p.AgentID != "" {
		c.Provenance["agent_id"] = p.AgentID
	}
	note := ""
	if ctx != nil && p.TranscriptPath != "" {
		c.Context, note = ctx(p.TranscriptPath, p.ToolUseID)
	}
	return c, note
}

// fileTag is a short tag of a log file's name for ids ("" for stdin and
// for RecordCase, which has no file): the same name gives the same tag.
func fileTag(source string) string {
	if source == "" || source == datasets.StdinName {
		return ""
	}
	sum := sha256.Sum256([]byte(filepath.Base(source)))
	return hex.EncodeToString(sum[:4]) + "-"
}

// maxCachedTranscripts bounds the transcripts whose contexts are kept.
const maxCachedTranscripts = 8

// context finds the context of a tool call in its transcript: the user
// message and recent turns before the tool_use block with that id.
func (h *claudeHooks) context(path, toolUseID string) (datasets.Context, string) {
	if toolUseID == "" {
		return datasets.Context{}, "no tool_use_id: context left empty"
	}
	if h.cache == nil {
		h.cache = map[string]map[string]datasets.Context{}
	}
	m, ok := h.cache[path]
	if !ok {
		m = readTranscriptContexts(path)
		if len(h.order) == maxCachedTranscripts {
			delete(h.cache, h.order[0])
			h.order = h.order[1:]
		}
		h.cache[path] = m
		h.order = append(h.order, path)
	}
	if m == nil {
		return datasets.Context{}, "transcript not readable: context left empty"
	}
	c, ok := m[toolUseID]
	if !ok {
		return datasets.Context{}, "tool_use_id not in transcript: context left empty"
	}
	return c, "context from transcript"
}

// readTranscriptContexts maps each tool_use id of a transcript to the
// context before it (masking happens when the case is emitted); nil when
// the file cannot be read.
func readTranscriptContexts(path string) map[string]datasets.Context {
	br, closer, err := datasets.OpenInput(path, nil)
	if err != nil {
		return nil
	}
	defer closer.Close()
	st := &ccState{convos: map[string]*convo{}, text: func(s string) string { return trunc.Runes(s, maxMessageRunes) }}
	m := map[string]datasets.Context{}
	scratch := &SourceSummary{Source: path, Skipped: map[string]int{}}
	fallback := sessionFromPath(path)
	_ = eachLine(br, scratch, func(line []byte, n int) error {
		st.entry(line, n, fallback, func(_ string, cv *convo, c ccCall) {
			if c.block.ID != "" {
				m[c.block.ID] = cv.context()
			}
		}, func(*ccBlock) {})
		return nil
	})
	return m
}
