package importers

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	gojson "github.com/goccy/go-json"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver ("sqlite")
)

// OpenCode 1.2 (February 2026) moved its sessions from the storage/ tree
// into one SQLite database, ~/.local/share/opencode/opencode.db, kept with
// Drizzle migrations (packages/opencode/migration in anomalyco/opencode,
// formerly sst/opencode). The tables read here, as the migrations lay
// them out:
//
//	session (id, project_id, parent_id, slug, directory, title, version, …, time_created, time_updated, …)
//	message (id, session_id, time_created, time_updated, data)   data: the message JSON the old files held
//	part    (id, message_id, session_id, time_created, time_updated, data)   data: the part JSON
//
// Later migrations dropped session.directory (the workspace then comes
// from each message's path.cwd); it is read when it is there.
//
// The database is opened read-only (mode=ro, query_only) and read inside
// one read transaction, so an OpenCode writing to it at the same moment
// (WAL mode) neither blocks the import nor shows it half a session: the
// import sees the database as it was when the transaction began.

// sqliteMagic starts every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// isOpenCodeDB reports whether a source is an OpenCode database: a .db
// file, or a file that starts like one.
func isOpenCodeDB(path string, r io.Reader) bool {
	if strings.HasSuffix(path, ".db") {
		return true
	}
	if br, ok := r.(*bufio.Reader); ok {
		head, _ := br.Peek(len(sqliteMagic))
		return string(head) == sqliteMagic
	}
	return false
}

// openCodeDBName is how OpenCode names its database (opencode.db, and
// opencode-<channel>.db for other release channels).
func openCodeDBName(p string) bool {
	b := filepath.Base(p)
	return strings.HasPrefix(b, "opencode") && strings.HasSuffix(b, ".db")
}

// findOpenCodeDB finds an OpenCode database at or just under dir.
func findOpenCodeDB(dir string) (string, bool) {
	for _, d := range []string{dir, filepath.Join(dir, "opencode")} {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if !e.IsDir() && (openCodeDBName(e.Name()) || crushDBName(e.Name())) {
				return filepath.Join(d, e.Name()), true
			}
		}
	}
	return "", false
}

// badDBError is a database that cannot be read at all (locked, encrypted,
// truncated, of an unknown schema): the import stops and writes nothing.
type badDBError struct {
	path, what string
}

func (e badDBError) Error() string { return e.path + ": " + e.what }

// openCodeDB imports every session of an OpenCode database.
func openCodeDB(path string, busyMS int, sum *SourceSummary, out *output) error {
	if err := checkSQLiteFile(path); err != nil {
		return err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	q := fmt.Sprintf("mode=ro&_pragma=busy_timeout(%d)&_pragma=query_only(1)", busyMS)
	dsn := (&url.URL{Scheme: "file", Path: abs, RawQuery: q}).String()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return badDBError{path, err.Error()}
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return dbFailure(path, err)
	}
	defer tx.Rollback() //nolint:errcheck // a read transaction: nothing to keep
	if goOpenCodeTables(ctx, tx) {
		return goOpenCodeDB(ctx, tx, path, sum, out)
	}
	cols, err := openCodeSchema(ctx, tx, path)
	if err != nil {
		return err
	}
	dirCol := "''"
	if slices.Contains(cols["session"], "directory") {
		dirCol = "coalesce(directory, '')"
	}
	type sessionRow struct{ id, parent, dir string }
	var sessions []sessionRow
	rows, err := tx.QueryContext(ctx, "SELECT id, coalesce(parent_id, ''), "+dirCol+" FROM session ORDER BY time_created, id")
	if err != nil {
		return dbFailure(path, err)
	}
	for rows.Next() {
		var s sessionRow
		if err := rows.Scan(&s.id, &s.parent, &s.dir); err != nil {
			rows.Close()
			return dbFailure(path, err)
		}
		sessions = append(sessions, s)
	}
	if err := rows.Close(); err != nil {
		return dbFailure(path, err)
	}
	if err := rows.Err(); err != nil {
		return dbFailure(path, err)
	}
	for _, s := range sessions {
		sum.Records++
		sum.skip("session")
		if err := openCodeDBSession(ctx, tx, path, ocSession{ID: s.id, ParentID: s.parent, Directory: s.dir}, sum, out); err != nil {
			return err
		}
	}
	return nil
}

// openCodeDBSession reads one session's messages and parts in the order
// OpenCode wrote them.
func openCodeDBSession(ctx context.Context, tx *sql.Tx, path string, s ocSession, sum *SourceSummary, out *output) error {
	parts := map[string][]ocPartRec{}
	rows, err := tx.QueryContext(ctx, "SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id", s.ID)
	if err != nil {
		return dbFailure(path, err)
	}
	for rows.Next() {
		var id, msg string
		var data []byte
		if err := rows.Scan(&id, &msg, &data); err != nil {
			rows.Close()
			return dbFailure(path, err)
		}
		sum.Records++
		r := ocPartRec{where: path, id: id}
		if err := gojson.Unmarshal(data, &r.p); err != nil {
			sum.errorf(0, "part %s: data: %s", id, jsonError(data, err))
			continue
		}
		if r.p.ID == "" {
			r.p.ID = id
		}
		parts[msg] = append(parts[msg], r)
	}
	if err := closeRows(rows); err != nil {
		return dbFailure(path, err)
	}
	type msgRow struct {
		id      string
		created int64
		data    []byte
	}
	var msgs []msgRow
	rows, err = tx.QueryContext(ctx, "SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id", s.ID)
	if err != nil {
		return dbFailure(path, err)
	}
	for rows.Next() {
		var m msgRow
		if err := rows.Scan(&m.id, &m.created, &m.data); err != nil {
			rows.Close()
			return dbFailure(path, err)
		}
		msgs = append(msgs, m)
	}
	if err := closeRows(rows); err != nil {
		return dbFailure(path, err)
	}
	cv := &convo{}
	for _, row := range msgs {
		sum.Records++
		var m ocMessage
		if err := gojson.Unmarshal(row.data, &m); err != nil {
			sum.errorf(0, "message %s: data: %s", row.id, jsonError(row.data, err))
			continue
		}
		m.ID, m.SessionID = row.id, s.ID
		if m.Time.Created == 0 {
			m.Time.Created = row.created
		}
		if err := ocMessageCases(s, m, parts[row.id], cv, sum, out); err != nil {
			return err
		}
	}
	return nil
}

func closeRows(rows *sql.Rows) error {
	if err := rows.Close(); err != nil {
		return err
	}
	return rows.Err()
}

// checkSQLiteFile tells a file that is not a readable SQLite database
// before the driver does: an encrypted database (SQLCipher) or another
// file has no SQLite header; a truncated one is shorter than its header
// says.
func checkSQLiteFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 100)
	n, _ := io.ReadFull(f, head)
	if n < len(sqliteMagic) || string(head[:len(sqliteMagic)]) != sqliteMagic {
		return badDBError{path, fmt.Sprintf("not an SQLite database: it does not start with %q (an encrypted database, or another file)", strings.TrimRight(sqliteMagic, "\x00"))}
	}
	if n < 100 {
		return badDBError{path, fmt.Sprintf("truncated: %d bytes, shorter than SQLite's 100-byte header", n)}
	}
	pageSize := int64(head[16])<<8 | int64(head[17])
	if pageSize == 1 {
		pageSize = 65536
	}
	pages := int64(head[28])<<24 | int64(head[29])<<16 | int64(head[30])<<8 | int64(head[31])
	st, err := f.Stat()
	if err != nil {
		return err
	}
	// The header's page count is valid when the change counter matches
	// "version-valid-for" (offsets 24 and 92); a WAL may hold pages beyond
	// it, so only a file shorter than the header says is truncated.
	valid := string(head[24:28]) == string(head[92:96])
	if valid && pages > 0 && pageSize >= 512 && st.Size() < pages*pageSize {
		return badDBError{path, fmt.Sprintf("truncated: %d bytes, but its header says %d pages of %d bytes (%d bytes)", st.Size(), pages, pageSize, pages*pageSize)}
	}
	return nil
}

// openCodeSchema checks the tables and columns the import reads and
// returns each table's columns; a database without them is of a schema
// this importer does not know, and the error says what it found.
func openCodeSchema(ctx context.Context, tx *sql.Tx, path string) (map[string][]string, error) {
	need := map[string][]string{
		"session": {"id", "parent_id", "time_created"},
		"message": {"id", "session_id", "time_created", "data"},
		"part":    {"id", "message_id", "session_id", "data"},
	}
	cols := map[string][]string{}
	for _, table := range []string{"session", "message", "part"} {
		rows, err := tx.QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", table)
		if err != nil {
			return nil, dbFailure(path, err)
		}
		for rows.Next() {
			var c string
			if err := rows.Scan(&c); err != nil {
				rows.Close()
				return nil, dbFailure(path, err)
			}
			cols[table] = append(cols[table], c)
		}
		if err := closeRows(rows); err != nil {
			return nil, dbFailure(path, err)
		}
	}
	for _, table := range []string{"session", "message", "part"} {
		if len(cols[table]) == 0 {
			return nil, badDBError{path, fmt.Sprintf("unknown schema: no %s table (found tables: %s%s); not an OpenCode ≥ 1.2 database, nor the Go OpenCode's (sessions, messages.parts)",
				table, strings.Join(tableNames(ctx, tx), ", "), migrationsFound(ctx, tx))}
		}
		for _, c := range need[table] {
			if !slices.Contains(cols[table], c) {
				return nil, badDBError{path, fmt.Sprintf("unknown schema: table %s has no column %s (it has %s%s)",
					table, c, strings.Join(cols[table], ", "), migrationsFound(ctx, tx))}
			}
		}
	}
	return cols, nil
}

func tableNames(ctx context.Context, tx *sql.Tx) []string {
	var out []string
	rows, err := tx.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
	if err != nil {
		return []string{"(unreadable: " + err.Error() + ")"}
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if rows.Scan(&n) == nil {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return []string{"none"}
	}
	return out
}

// migrationsFound says how many Drizzle migrations the database records,
// to name the schema version found.
func migrationsFound(ctx context.Context, tx *sql.Tx) string {
	var n int
	var last sql.NullInt64
	if err := tx.QueryRowContext(ctx, "SELECT count(*), max(created_at) FROM __drizzle_migrations").Scan(&n, &last); err != nil {
		return "; no Drizzle migrations table"
	}
	return fmt.Sprintf("; %d Drizzle migrations applied, the last created at %d", n, last.Int64)
}

// dbFailure names what the driver reports in terms a user acts on.
func dbFailure(path string, err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "database is locked") || strings.Contains(msg, "SQLITE_BUSY"):
		return badDBError{path, "locked: another process holds it (waited, then gave up): " + msg}
	case strings.Contains(msg, "file is not a database") || strings.Contains(msg, "SQLITE_NOTADB"):
		return badDBError{path, "not an SQLite database (encrypted, or another file): " + msg}
	case strings.Contains(msg, "malformed") || strings.Contains(msg, "SQLITE_CORRUPT"):
		return badDBError{path, "damaged or truncated: " + msg}
	}
	var bad badDBError
	if errors.As(err, &bad) {
		return err
	}
	return badDBError{path, msg}
}
