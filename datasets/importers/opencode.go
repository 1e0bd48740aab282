package importers

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	gojson "github.com/goccy/go-json"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/trunc"
)

func init() {
	register(format{"opencode", 7, func(o Options) importer { return openCode{busyMS: cmpInt(o.openCodeBusyMS, 5000)} },
		func(r sniffed) bool {
			return strings.HasPrefix(r.str("id"), "ses_") && (r.has("projectID") || r.has("directory"))
		}, 13})
}

// OpenCode's storage (sst/opencode, ~/.local/share/opencode/storage): one
// JSON file per object —
//
//	session/<projectID>/<sessionID>.json   {id, projectID, directory, parentID?, title, time{created, updated}}
//	message/<sessionID>/<messageID>.json   {id, sessionID, role: user|assistant, time{created}, path{cwd, root}?}
//	part/<messageID>/<partID>.json         {id, sessionID, messageID, type: text|tool|reasoning|step-start|…}
//
// A tool part is {type: "tool", callID, tool, state{status, input, output?,
// error?, time{start, end}}}; a text part {type: "text", text, synthetic?}.
// Ids sort in creation order, so a session's messages and a message's parts
// are read in the order they were written.

type ocSession struct {
	ID        string `json:"id"`
	ProjectID string `json:"projectID"`
	Directory string `json:"directory"`
	ParentID  string `json:"parentID"`
	Title     string `json:"title"`
}

type ocMessage struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionID"`
	Role      string `json:"role"`
	Time      struct {
		Created int64 `json:"created"`
	} `json:"time"`
	Path *struct {
		Cwd string `json:"cwd"`
	} `json:"path"`
}

type ocPart struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Text      string `json:"text"`
	Synthetic bool   `json:"synthetic"`
	CallID    string `json:"callID"`
	Tool      string `json:"tool"`
	State     *struct {
		Status string          `json:"status"`
		Input  json.RawMessage `json:"input"`
		Error  string          `json:"error"`
		Time   struct {
			Start int64 `json:"start"`
		} `json:"time"`
	} `json:"state"`
}

type openCode struct {
	busyMS int // how long a locked database is waited for
}

func (openCode) stream() bool { return false }

// match takes session files, storage/session/<projectID>/<sessionID>.json,
// and OpenCode ≥ 1.2's database, opencode.db.
func (openCode) match(p string) bool {
	return strings.HasSuffix(p, ".json") && filepath.Base(filepath.Dir(filepath.Dir(p))) == "session" || openCodeDBName(p) || crushDBName(p)
}

// openCodeRoot finds the storage directory at or just under dir.
func openCodeRoot(dir string) (string, bool) {
	for _, root := range []string{dir, filepath.Join(dir, "storage")} {
		ok := true
		for _, sub := range []string{"session", "message", "part"} {
			if st, err := os.Stat(filepath.Join(root, sub)); err != nil || !st.IsDir() {
				ok = false
				break
			}
		}
		if ok {
			return root, true
		}
	}
	return "", false
}

// jsonFiles lists the *.json files of dir in name (creation) order.
func jsonFiles(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out
}

// maxObjectFile caps one storage object read into memory.
const maxObjectFile = 64 << 20

func readObject(path string, v any) (bad string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	if len(data) > maxObjectFile {
		return "larger than 64 MB"
	}
	if err := gojson.Unmarshal(data, v); err != nil {
		return jsonError(data, err)
	}
	return ""
}

func (o openCode) file(r io.Reader, sum *SourceSummary, out *output) error {
	if isOpenCodeDB(sum.Source, r) {
		return openCodeDB(sum.Source, o.busyMS, sum, out)
	}
	data, err := io.ReadAll(io.LimitReader(r, maxObjectFile))
	if err != nil {
		return err
	}
	sum.Records++
	var s ocSession
	if err := gojson.Unmarshal(data, &s); err != nil {
		sum.errorf(1, "%s", jsonError(data, err))
		return nil
	}
	if s.ID == "" {
		sum.errorf(1, "id: required")
		return nil
	}
	sum.skip("session")
	root := filepath.Dir(filepath.Dir(filepath.Dir(sum.Source)))
	cv := &convo{}
	for _, mf := range jsonFiles(filepath.Join(root, "message", s.ID)) {
		sum.Records++
		var m ocMessage
		if bad := readObject(mf, &m); bad != "" {
			sum.errorIn(mf, 1, "%s", bad)
			continue
		}
		var parts []ocPartRec
		for _, pf := range jsonFiles(filepath.Join(root, "part", m.ID)) {
			sum.Records++
			r := ocPartRec{where: pf, line: 1}
			if bad := readObject(pf, &r.p); bad != "" {
				sum.errorIn(pf, 1, "%s", bad)
				continue
			}
			parts = append(parts, r)
		}
		if err := ocMessageCases(s, m, parts, cv, sum, out); err != nil {
			return err
		}
	}
	return nil
}

// ocPartRec is a part read and where it came from (its file, or the
// database and the part's id), for provenance and errors.
type ocPartRec struct {
	p     ocPart
	where string
	line  int    // the line errors about it name (1 for a file, 0 for a row)
	id    string // the part's row id (database)
}

// ocMessageCases turns one message's parts into cases and context: the
// legacy storage tree and the 1.2 database hold the same JSON.
func ocMessageCases(s ocSession, m ocMessage, parts []ocPartRec, cv *convo, sum *SourceSummary, out *output) error {
	const format = "opencode"
	workspace := s.Directory
	if m.Path != nil && m.Path.Cwd != "" {
		workspace = m.Path.Cwd
	}
	var userText []string
	if len(parts) == 0 {
		sum.skip(m.Role + " message without parts")
	} else {
		sum.skip(m.Role + " message")
	}
	for _, r := range parts {
		p := r.p
		switch {
		case p.Type == "text" && m.Role == "user" && !p.Synthetic:
			userText = append(userText, p.Text)
			sum.skip("user text (context)")
		case p.Type == "text" && m.Role == "assistant":
			cv.turn("assistant", out.text(p.Text))
			sum.skip("assistant text (context)")
		case p.Type == "tool":
			if p.Tool == "" || p.State == nil {
				if r.line > 0 {
					sum.errorIn(r.where, r.line, "tool part without tool or state")
				} else {
					sum.errorf(0, "part %s: tool part without tool or state", r.id)
				}
				continue
			}
			c := &datasets.Case{SessionID: s.ID, Workspace: workspace, Context: cv.context()}
			c.Tool.Name = p.Tool
			c.Tool.Arguments, c.Tool.ArgumentsValid = rawArgs(p.State.Input)
			c.ID = out.sessionScopedID("opencode-"+cmpOr(p.CallID, p.ID), s.ID)
			ms := p.State.Time.Start
			if ms == 0 {
				ms = m.Time.Created
			}
			if ms > 0 {
				t := time.UnixMilli(ms).UTC()
				c.Time = &t
			}
			c.Provenance = provenance(format, r.where, 0)
			if r.id != "" {
				c.Provenance["part_id"] = r.id
			}
			c.Provenance["tool_use_id"] = cmpOr(p.CallID, p.ID)
			c.Provenance["message_id"] = m.ID
			c.Provenance["status"] = p.State.Status
			if s.ParentID != "" {
				c.Provenance["parent_session_id"] = s.ParentID
			}
			if p.State.Status == "error" && p.State.Error != "" {
				c.Provenance["tool_result_error"] = trunc.Runes(p.State.Error, 500)
			}
			if err := out.add(c); err != nil {
				return err
			}
		default:
			sum.skip("part " + p.Type)
		}
	}
	if len(userText) > 0 {
		cv.user(out.text(strings.Join(userText, "\n")))
	}
	return nil
}
