package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type rawLine struct{ id, line, source string }

func scanAll(t *testing.T, paths []string, stdin string) ([]rawLine, error) {
	t.Helper()
	var got []rawLine
	err := ScanRaw(paths, strings.NewReader(stdin), func(id string, line []byte, source string) error {
		got = append(got, rawLine{id, string(line), source})
		return nil
	})
	return got, err
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestScanRaw(t *testing.T) {
	t.Parallel()
	a := writeTemp(t, "a.jsonl", "\xef\xbb\xbf{\"id\":\"c1\",\"x\":{\"id\":\"nested\"}}\r\n\n   \n{\"zz\":1, \"id\" : \"c2\"}\n")
	b := writeTemp(t, "b.jsonl", `{"id":"日本-3","note":"é"}`) // no final newline
	got, err := scanAll(t, []string{a, "-", b}, "{\"id\":\"s1\"}\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []rawLine{
		{"c1", `{"id":"c1","x":{"id":"nested"}}`, a + ":1"},
		{"c2", `{"zz":1, "id" : "c2"}`, a + ":4"},
		{"s1", `{"id":"s1"}`, "stdin:1"},
		{"日本-3", `{"id":"日本-3","note":"é"}`, b + ":1"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d lines %q, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestScanRawErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, content, want string
	}{
		{"syntax", "{\"id\":\"a\"}\n{\"id\":\n", ":2: invalid JSON: unexpected end of JSON input"},
		{"array", `["id"]`, ":1: not a JSON object: got array"},
		{"string", `"c1"`, ":1: not a JSON object: got string"},
		{"null", `null`, ":1: not a JSON object: null"},
		{"missing id", `{"ID":"x"}`, ":1: id: missing"},
		{"number id", `{"id":7}`, ":1: id: want a string, got number"},
		{"object id", `{"id":{"a":1}}`, ":1: id: want a string, got object"},
		{"empty id", "\n\n{\"id\":\"\"}", ":3: id: empty"},
		{"trailing data", `{"id":"a"} {"id":"b"}`, ":1: invalid JSON: invalid character '{' after top-level value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeTemp(t, "d.jsonl", tt.content)
			_, err := scanAll(t, []string{p}, "")
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("got %v, want a *LineError", err)
			}
			if !strings.HasPrefix(err.Error(), p) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %q, want %s…%s", err, p, tt.want)
			}
		})
	}
}

func TestScanRawLongLine(t *testing.T) {
	t.Parallel()
	p := writeTemp(t, "long.jsonl", `{"id":"ok"}`+"\n"+`{"id":"x","pad":"`+strings.Repeat("a", DefaultMaxLineBytes)+`"}`+"\n")
	got, err := scanAll(t, []string{p}, "")
	if err == nil || !strings.Contains(err.Error(), p+":2: line longer than") {
		t.Fatalf("got %v, want a line-2 length error", err)
	}
	if len(got) != 1 || got[0].id != "ok" {
		t.Errorf("lines before the long one: %+v", got)
	}
}

func TestScanRawStopsOnCallbackError(t *testing.T) {
	t.Parallel()
	stop := errors.New("stop")
	n := 0
	err := ScanRaw([]string{"-"}, strings.NewReader("{\"id\":\"a\"}\n{\"id\":\"b\"}\n"), func(string, []byte, string) error {
		n++
		return stop
	})
	if err != stop || n != 1 {
		t.Errorf("got err %v after %d calls, want stop after 1", err, n)
	}
	if err := ScanRaw([]string{"-"}, nil, func(string, []byte, string) error { return nil }); err == nil {
		t.Error("stdin without a reader: want an error")
	}
	if err := ScanRaw([]string{filepath.Join(t.TempDir(), "nope.jsonl")}, nil, func(string, []byte, string) error { return nil }); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: got %v", err)
	}
}

func TestLinesKeepsOnlyTheWantedLines(t *testing.T) {
	t.Parallel()
	in := "{\"id\":\"a\",\"x\":1}\n{\"id\":\"b\"}\n{\"id\":\"c\", \"y\":\"é\"}\n"
	lines, where, err := Lines([]string{"-"}, strings.NewReader(in), []string{"c", "missing", "a"})
	if err != nil {
		t.Fatal(err)
	}
	if string(lines[0]) != `{"id":"c", "y":"é"}` || lines[1] != nil || string(lines[2]) != `{"id":"a","x":1}` {
		t.Errorf("lines %q", lines)
	}
	if where[0] != "stdin:3" || where[2] != "stdin:1" {
		t.Errorf("where %q", where)
	}
	_, _, err = Lines([]string{"-"}, strings.NewReader(in+"{\"id\":\"a\"}\n"), []string{"a"})
	if err == nil || err.Error() != `stdin:4: id: "a" already at stdin:1` {
		t.Errorf("a duplicate: err %v", err)
	}
}

func TestCaseIndexFirstLineWins(t *testing.T) {
	in := `{"id":"a","session_id":"s","hook_point":"tool.before","tool":{"name":"Bash","arguments":{"command":"one"}}}
{"id":"b","session_id":"s","hook_point":"tool.before","tool":{"name":"Read","arguments":{"file_path":"x"}}}
{"id":"a","session_id":"s","hook_point":"tool.before","tool":{"name":"Bash","arguments":{"command":"two"}}}
`
	lookup, err := CaseIndex([]string{"-"}, strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	c, err := lookup("a")
	if err != nil || c == nil || c.Tool.Name != "Bash" || c.Tool.Arguments["command"] != "one" {
		t.Fatalf("a = %+v, %v; want the first line's case", c, err)
	}
	if c, err := lookup("zz"); c != nil || err != nil {
		t.Errorf("unknown id: %+v, %v", c, err)
	}
}
