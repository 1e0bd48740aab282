// Package duckdbtest lets tests read files back through DuckDB, the engine
// users point at a run directory, so Parquet types are checked by a reader
// other than the one that wrote them. It runs node with @duckdb/node-api
// installed under <repo>/.cache/node by `make test`.
//
// A missing node or package skips the test with a message naming `make
// test`, which installs the package and runs these tests, so that plain
// `go test ./...` passes on a clean clone. Under `make test` (Required,
// from APEVAL_REQUIRE_DUCKDB=1) a missing package fails instead: there the
// checks must run. APEVAL_NO_DUCKDB=1 skips them on purpose.
package duckdbtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Package is the npm package version the tests are written against.
const Package = "@duckdb/node-api@1.5.6-r.1"

// script runs each query of the JSON array in $APEVAL_DUCKDB_QUERIES and
// prints one JSON array (per query, its rows as JSON-friendly objects).
const script = `
import { DuckDBInstance } from '@duckdb/node-api';
const con = await (await DuckDBInstance.create(':memory:')).connect();
const out = [];
for (const q of JSON.parse(process.env.APEVAL_DUCKDB_QUERIES)) {
  const r = await con.runAndReadAll(q);
  out.push(r.getRowObjectsJson());
}
process.stdout.write(JSON.stringify(out));
`

// Row is one result row: column name → value as DuckDB's JSON conversion
// gives it (BIGINT as a decimal string, DOUBLE as a number, lists as
// arrays, NULL as nil).
type Row = map[string]any

// Query runs the queries in one in-memory DuckDB and returns their rows.
func Query(t testing.TB, queries ...string) [][]Row {
	t.Helper()
	dir := nodeDir(t)
	qs, err := json.Marshal(queries)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "--input-type=module")
	cmd.Dir = dir // bare import resolution starts at the working directory
	cmd.Stdin = bytes.NewReader([]byte(script))
	cmd.Env = append(os.Environ(), "APEVAL_DUCKDB_QUERIES="+string(qs))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("duckdb: %v\n%s", err, stderr.String())
	}
	var out [][]Row
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("duckdb output: %v\n%s", err, stdout.String())
	}
	return out
}

// Column is one column of a DESCRIBE result.
type Column struct{ Name, Type string }

// Describe returns the columns of a Parquet file in file order with their
// DuckDB types (VARCHAR, BIGINT, VARCHAR[], …).
func Describe(t testing.TB, parquetPath string) []Column {
	t.Helper()
	rows := Query(t, fmt.Sprintf("DESCRIBE SELECT * FROM read_parquet(%s)", Literal(parquetPath)))[0]
	cols := make([]Column, len(rows))
	for i, r := range rows {
		cols[i] = Column{fmt.Sprint(r["column_name"]), fmt.Sprint(r["column_type"])}
	}
	return cols
}

// Literal quotes s as an SQL string literal.
func Literal(s string) string {
	var b bytes.Buffer
	b.WriteByte('\'')
	for _, c := range []byte(s) {
		if c == '\'' {
			b.WriteByte('\'')
		}
		b.WriteByte(c)
	}
	b.WriteByte('\'')
	return b.String()
}

// Skip skips the DuckDB checks instead of running them; Required fails a
// test whose checks cannot run. The importing tests set them from
// APEVAL_NO_DUCKDB=1 and APEVAL_REQUIRE_DUCKDB=1 (which `make test` sets),
// so that the environment is read by test code, never by a package below
// cmd.
var Skip, Required bool

// nodeDir finds <repo>/.cache/node with the package installed, or ends the
// test: skipped when Skip or when node or the package is missing, failed
// when it is missing and Required.
func nodeDir(t testing.TB) string {
	t.Helper()
	if Skip {
		t.Skip("APEVAL_NO_DUCKDB=1: DuckDB read-back checks skipped on request")
	}
	root, err := repoRoot()
	if err != nil {
		t.Fatalf("duckdb: %v", err)
	}
	dir := filepath.Join(root, ".cache", "node")
	missing := func(what string) {
		t.Helper()
		if Required {
			t.Fatalf("duckdb: %s; `make test` installs it (npm install --prefix %s %s)", what, dir, Package)
		}
		t.Skipf("DuckDB read-back checks skipped: %s; run `make test`, which installs it (npm install --prefix %s %s) and runs them", what, dir, Package)
	}
	if _, err := exec.LookPath("node"); err != nil {
		missing("node is not installed (install Node.js)")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api", "package.json")); err != nil {
		missing(fmt.Sprintf("%s is not installed in %s", Package, dir))
	}
	return dir
}

// repoRoot walks up from the working directory to the go.mod of the module.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
