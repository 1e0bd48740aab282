package importers

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
)

const openCodeStorage = "testdata/opencode/storage"

// buildOpenCodeDB loads the legacy storage fixture into OpenCode 1.2's
// schema (testdata/opencode-db/schema-1.2.sql, from OpenCode's Drizzle
// migrations) the way OpenCode's own migration does: one row per object,
// the object's JSON in data without the ids the columns carry. A part file
// that is not JSON goes in as it is. wal puts the database in WAL mode, as
// OpenCode runs it.
func buildOpenCodeDB(t *testing.T, path string, wal bool) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if wal {
		mustExec(t, db, "PRAGMA journal_mode=WAL")
	}
	mustExec(t, db, string(mustRead(t, "testdata/opencode-db/schema-1.2.sql")))
	mustExec(t, db, "INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('add_worktree_settings', 1771070129000)")
	sessions, _ := filepath.Glob(filepath.Join(openCodeStorage, "session", "*", "*.json"))
	for _, sf := range sessions {
		var s struct {
			ID, ProjectID, Directory, Title, Version, ParentID string
			Time                                               struct{ Created, Updated int64 }
		}
		if err := json.Unmarshal(mustRead(t, sf), &s); err != nil {
			t.Fatal(err)
		}
		mustExec(t, db, "INSERT OR IGNORE INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES (?, ?, ?, ?, '[]')",
			s.ProjectID, s.Directory, s.Time.Created, s.Time.Updated)
		var parent any
		if s.ParentID != "" {
			parent = s.ParentID
		}
		mustExec(t, db, "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
			s.ID, s.ProjectID, parent, "blog", s.Directory, s.Title, s.Version, s.Time.Created, s.Time.Updated)
		msgs, _ := filepath.Glob(filepath.Join(openCodeStorage, "message", s.ID, "*.json"))
		for _, mf := range msgs {
			data, fields := withoutIDs(t, mustRead(t, mf), "id", "sessionID")
			id := strings.TrimSuffix(filepath.Base(mf), ".json")
			created := int64(fields["time"].(map[string]any)["created"].(float64))
			mustExec(t, db, "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)", id, s.ID, created, created, data)
			parts, _ := filepath.Glob(filepath.Join(openCodeStorage, "part", id, "*.json"))
			for _, pf := range parts {
				pdata, _ := withoutIDs(t, mustRead(t, pf), "id", "sessionID", "messageID")
				mustExec(t, db, "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)",
					strings.TrimSuffix(filepath.Base(pf), ".json"), id, s.ID, created, created, pdata)
			}
		}
	}
}

// withoutIDs drops the id fields a row's columns carry from an object's
// JSON; JSON that does not parse (the fixture's cut-off part) stays as is.
func withoutIDs(t *testing.T, raw []byte, keys ...string) (string, map[string]any) {
	t.Helper()
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return string(raw), nil
	}
	for _, k := range keys {
		delete(m, k)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), m
}

func mustExec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// caseView is what a case says about the call, whatever file it came from.
type caseView struct {
	ID, Session, Workspace, Tool, Category, Time, Status, Error string
	Args                                                        map[string]any
	Context                                                     datasets.Context
}

func views(cases []*datasets.Case) []caseView {
	var out []caseView
	for _, c := range cases {
		v := caseView{ID: c.ID, Session: c.SessionID, Workspace: c.Workspace, Tool: c.Tool.Name, Category: c.Tool.Category,
			Args: c.Tool.Arguments, Context: c.Context}
		if c.Time != nil {
			v.Time = c.Time.String()
		}
		v.Status, _ = c.Provenance["status"].(string)
		v.Error, _ = c.Provenance["tool_result_error"].(string)
		out = append(out, v)
	}
	return out
}

// OpenCode ≥ 1.2's database imports to the same cases as the storage tree
// it was migrated from, with --from opencode and --from auto, given as the
// file or as its directory; a part whose data is not JSON is reported by
// the file and the part's id.
func TestOpenCodeDB(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "opencode.db")
	buildOpenCodeDB(t, path, true)
	legacy, _, _ := importAll(t, "opencode", Options{}, "testdata/opencode")
	for _, src := range []string{path, dir} {
		for _, format := range []string{"opencode", Auto} {
			cases, sum, text := importAll(t, format, Options{}, src)
			if !reflect.DeepEqual(views(cases), views(legacy)) {
				t.Errorf("%s %s:\n got %+v\nwant %+v", format, src, views(cases), views(legacy))
			}
			wantErrors(t, sum.Sources[0], path+": part prt_c0e5d4a1b205Be: data: truncated JSON object")
			if sum.Sessions != 1 || sum.Records != 12 || strings.Contains(text, "wJalrXUtnFEMI") {
				t.Errorf("%s %s: %d sessions, %d records", format, src, sum.Sessions, sum.Records)
			}
			if cases[0].Provenance["part_id"] != "prt_c0e5d4a1b203Bc" && cases[0].Provenance["source"] != path {
				t.Errorf("provenance %v", cases[0].Provenance)
			}
		}
	}
	if f, why, err := Detect([]string{path}, nil); f != "opencode" || err != nil || !strings.Contains(why, "SQLite database") {
		t.Errorf("detect file: %s %s %v", f, why, err)
	}
	if f, why, err := Detect([]string{dir}, nil); f != "opencode" || err != nil || !strings.Contains(why, "opencode.db") {
		t.Errorf("detect dir: %s %s %v", f, why, err)
	}
}

// The import reads a database OpenCode is writing to: a write transaction
// open at that moment (WAL mode) neither blocks the import nor shows it
// the rows not yet committed; once they are, the next import has them.
func TestOpenCodeDBConcurrentWriter(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "opencode.db")
	buildOpenCodeDB(t, path, true)
	w, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	tx, err := w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	const sid = "ses_3f1a2b4c5ffeQk8Zr1Tn0aBcDe"
	if _, err := tx.Exec("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_c0e5d4a1b009Zz', ?, 1767225700000, 1767225700000, '{\"role\":\"assistant\",\"time\":{\"created\":1767225700000}}')", sid); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_c0e5d4a1b901Zz', 'msg_c0e5d4a1b009Zz', ?, 1767225700000, 1767225700000, '{\"type\":\"tool\",\"callID\":\"toolu_01Late\",\"tool\":\"bash\",\"state\":{\"status\":\"running\",\"input\":{\"command\":\"ls\"}}}')", sid); err != nil {
		t.Fatal(err)
	}
	during, _, _ := importAll(t, "opencode", Options{}, path)
	if len(during) != 3 {
		t.Errorf("during the write: %d cases (%v), want the 3 committed", len(during), ids(during))
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	after, _, _ := importAll(t, "opencode", Options{}, path)
	if len(after) != 4 || after[3].ID != "opencode-toolu_01Late" {
		t.Errorf("after the commit: %v", ids(after))
	}
}

// A database that cannot be read stops the import with an error naming the
// file and what was found, before any case is written.
func TestOpenCodeDBBad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good", "opencode.db")
	if err := os.MkdirAll(filepath.Dir(good), 0o755); err != nil {
		t.Fatal(err)
	}
	buildOpenCodeDB(t, good, false)
	data := mustRead(t, good)

	encrypted := filepath.Join(dir, "enc", "opencode.db")
	writeFile(t, encrypted, append([]byte("\x8e\x1f\x03\xa7SQLCipher-looking bytes"), data[100:4096]...))
	truncated := filepath.Join(dir, "cut", "opencode.db")
	writeFile(t, truncated, data[:len(data)/2])
	unknown := filepath.Join(dir, "old", "opencode.db")
	if err := os.MkdirAll(filepath.Dir(unknown), 0o755); err != nil {
		t.Fatal(err)
	}
	func() {
		db, err := sql.Open("sqlite", unknown)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		mustExec(t, db, "CREATE TABLE session (id text PRIMARY KEY, parent_id text, time_created integer)")
		mustExec(t, db, "CREATE TABLE message (id text PRIMARY KEY, session_id text, time_created integer, role text)")
		mustExec(t, db, "CREATE TABLE part (id text PRIMARY KEY, message_id text, session_id text, data text)")
	}()
	for _, c := range []struct{ path, want string }{
		{encrypted, "not an SQLite database"},
		{truncated, "truncated"},
		{unknown, "unknown schema: table message has no column data (it has id, session_id, time_created, role; no Drizzle migrations table)"},
	} {
		for _, format := range []string{"opencode", Auto} {
			n := 0
			_, err := Import(format, []string{c.path}, Options{}, func(*datasets.Case) error { n++; return nil }, nil)
			var bad badDBError
			if !errors.As(err, &bad) || !strings.HasPrefix(err.Error(), c.path+": ") || !strings.Contains(err.Error(), c.want) || n != 0 {
				t.Errorf("%s (%s): %v, %d cases", c.path, format, err, n)
			}
		}
	}
}

// A database another process holds an exclusive lock on (a rollback
// journal being written) is reported as locked once the wait runs out.
func TestOpenCodeDBLocked(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "opencode.db")
	buildOpenCodeDB(t, path, false)
	w, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	if _, err := w.Exec("BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	defer w.Exec("ROLLBACK") //nolint:errcheck
	_, err = Import("opencode", []string{path}, Options{openCodeBusyMS: 100}, func(*datasets.Case) error { return nil }, nil)
	var bad badDBError
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), "locked") || !strings.HasPrefix(err.Error(), path) {
		t.Errorf("locked: %v", err)
	}
}

// Call ids a provider numbers per conversation ("functions.write:1",
// Moonshot's Kimi through OpenCode 1.17: a public ~/.local/share/opencode
// database of three sessions holds 12 such ids twice). Each id gave the
// case id opencode-<call id>, so a second session's calls were dropped as
// duplicates (77 tool parts, 65 cases). Now a later session's call is
// <id>@<session>; the first keeps its id, and one call read twice is one
// case.
func TestOpenCodeCallIDsPerSession(t *testing.T) {
	root := filepath.Join(t.TempDir(), "storage")
	put := func(rel, body string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i, s := range []struct{ ses, msg, prt, cmd string }{
		{"ses_12be9f828ffeaiYkWjPssYhKmB", "msg_ed42ec9b4001cazcN1qsMkZLs7", "prt_ed42ece89001rZ19GJnm8Xmznw", "ls -la *.html"},
		{"ses_1278e1f37ffelIDlCdpXIGV74U", "msg_ed87937b40016Ro0MSHPFLP5lE", "prt_ed8793c67001FoX64REVMHfh0b", "ls -la /home/"},
	} {
		at := 1782000000000 + int64(i)*60000
		put("session/proj1/"+s.ses+".json", fmt.Sprintf(`{"id":%q,"version":"1.17.3","projectID":"proj1","directory":"/home/build","title":"t","time":{"created":%d,"updated":%d}}`, s.ses, at, at))
		put("message/"+s.ses+"/"+s.msg+".json", fmt.Sprintf(`{"id":%q,"sessionID":%q,"role":"assistant","time":{"created":%d}}`, s.msg, s.ses, at+1000))
		put("part/"+s.msg+"/"+s.prt+".json", fmt.Sprintf(`{"id":%q,"sessionID":%q,"messageID":%q,"type":"tool","callID":"functions.bash:7","tool":"bash","state":{"status":"completed","input":{"command":%q},"output":"","time":{"start":%d,"end":%d}}}`,
			s.prt, s.ses, s.msg, s.cmd, at+2000, at+3000))
	}
	cases, sum, _ := importAll(t, "opencode", Options{}, root)
	var got []string
	for _, c := range cases {
		got = append(got, c.ID+" "+c.Tool.Arguments["command"].(string))
	}
	// Sessions are read in their files' order: ses_1278… first.
	want := []string{
		"opencode-functions.bash:7 ls -la /home/",
		"opencode-functions.bash:7@ses_12be9f828ffeaiYkWjPssYhKmB ls -la *.html",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("cases:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	notes, dups := 0, 0
	for _, src := range sum.Sources {
		notes += src.Notes[noteSessionScopedID]
		dups += src.Skipped["duplicate id"]
	}
	if notes != 1 || dups != 0 {
		t.Errorf("%d notes, %d duplicates skipped; want 1 and 0", notes, dups)
	}
	// The same tree read twice: each call once, with the same ids.
	again, _, _ := importAll(t, "opencode", Options{}, root, root)
	if len(again) != 2 || again[0].ID != cases[0].ID || again[1].ID != cases[1].ID {
		t.Errorf("read twice: %d cases", len(again))
	}
}
