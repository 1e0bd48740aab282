package datasets

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// readAll reads every record and the fatal error.
func readAll(t *testing.T, r *Reader) ([]Record, error) {
	t.Helper()
	var recs []Record
	for r.Scan() {
		rec := r.Record()
		if (rec.Case == nil) == (rec.Err == nil) {
			t.Fatalf("record %d: want exactly one of Case and Err, got %+v", len(recs), rec)
		}
		recs = append(recs, rec)
	}
	err := r.Err()
	if cerr := r.Close(); cerr != nil {
		t.Fatalf("Close: %v", cerr)
	}
	return recs, err
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const okLine = `{"id":"ok","tool":{"name":"Bash"}}`

func TestReaderBadLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, line, want string
	}{
		{"not JSON", `hello`, `t:2: invalid JSON: invalid character 'h' looking for beginning of value (at byte 1)`},
		{"truncated", `{"id":"a"`, `t:2: invalid JSON: unexpected end of JSON input (at byte 9)`},
		{"trailing data", `{"id":"a","tool":{"name":"Bash"}} {}`, `t:2: invalid JSON: invalid character '{' after top-level value (at byte 35)`},
		{"control character in string", "{\"id\":\"a\tb\",\"tool\":{\"name\":\"Bash\"}}", `t:2: invalid JSON: invalid character '\t' in string literal (at byte 9)`},
		{"array", `[1,2]`, `t:2: not a JSON object (got array)`},
		{"null", `null`, `t:2: not a JSON object (got null)`},
		{"missing id", `{"tool":{"name":"Bash"}}`, `t:2: id: required`},
		{"empty id", `{"id":"","tool":{"name":"Bash"}}`, `t:2: id: required`},
		{"missing tool name", `{"id":"a","tool":{"arguments":{}}}`, `t:2: tool.name: required`},
		{"id not a string", `{"id":7,"tool":{"name":"Bash"}}`, `t:2: id: expected string, got number`},
		{"arguments_valid not a boolean", `{"id":"a","tool":{"name":"Bash","arguments_valid":"yes"}}`, `t:2: tool.arguments_valid: expected boolean, got string`},
		{"arguments not an object", `{"id":"a","tool":{"name":"Bash","arguments":"rm -rf /"}}`, `t:2: tool.arguments: expected object, got string`},
		{"seq not an integer", `{"id":"a","seq":1.5,"tool":{"name":"Bash"}}`, `t:2: seq: expected integer, got number 1.5`},
		{"number out of range", `{"id":"a","tool":{"name":"Bash","arguments":{"n":1e400}}}`,
			`t:2: tool.arguments.n: number 1e400 is out of range (a JSON number apeval reads must fit a 64-bit float)`},
		{"seq out of range", `{"id":"a","seq":99999999999999999999,"tool":{"name":"Bash"}}`,
			`t:2: seq: integer 99999999999999999999 is out of range (a 64-bit integer)`},
		{"seq huge float", `{"id":"a","seq":1e400,"tool":{"name":"Bash"}}`,
			`t:2: seq: number 1e400 is out of range (a JSON number apeval reads must fit a 64-bit float)`},
		{"negative seq", `{"id":"a","seq":-1,"tool":{"name":"Bash"}}`, `t:2: seq: must be 0 or more, got -1`},
		{"bad time", `{"id":"a","time":"yesterday","tool":{"name":"Bash"}}`, `t:2: time: want an RFC 3339 time string, got "yesterday"`},
		{"time not a string", `{"id":"a","time":3,"tool":{"name":"Bash"}}`, `t:2: time: want an RFC 3339 time string, got 3`},
		{"unknown hook point", `{"id":"a","hook_point":"tool.maybe","tool":{"name":"Bash"}}`,
			`t:2: hook_point: unknown value "tool.maybe" (want one of tool.before, tool.after, tool.denied, completion.before_accept, runtime.error)`},
		{"unknown category", `{"id":"a","tool":{"name":"Bash","category":"shell"}}`,
			`t:2: tool.category: unknown value "shell" (want one of command_execution, file_change, data_deletion, web_search, external_send, git, browser, remote_shell, sub_agent, other)`},
		{"bad label", `{"id":"a","tool":{"name":"Bash"},"labels":{"r1":"match","r2":"yes"}}`, `t:2: labels.r2: unknown value "yes" (want match or no_match)`},
		{"label not a string", `{"id":"a","tool":{"name":"Bash"},"labels":{"r1":true}}`, `t:2: labels.r1: expected string, got bool`},
		{"bad expected action", `{"id":"a","tool":{"name":"Bash"},"expected_action":"block"}`,
			`t:2: expected_action: unknown value "block" (want one of allow, inject_instruction, deny_current_tool, request_approval, stop_task, audit_only, notify_admin)`},
		{"bad approval outcome", `{"id":"a","tool":{"name":"Bash"},"approval_outcome":"maybe"}`,
			`t:2: approval_outcome: unknown value "maybe" (want one of approved, denied, ignored)`},
		{"bad approval state", `{"id":"a","tool":{"name":"Bash"},"context":{"approval_state":"granted"}}`,
			`t:2: context.approval_state: unknown value "granted" (want one of none, pending, approved, denied)`},
		{"message without role", `{"id":"a","tool":{"name":"Bash"},"context":{"recent_messages":[{"content":"hi"}]}}`,
			`t:2: context.recent_messages[0].role: required`},
		{"recorded without judge", `{"id":"a","tool":{"name":"Bash"},"recorded":[{"latency_ms":3}]}`, `t:2: recorded[0].judge: required`},
		{"negative latency", `{"id":"a","tool":{"name":"Bash"},"recorded":[{"judge":"j","latency_ms":-3}]}`,
			`t:2: recorded[0].latency_ms: must not be negative, got -3`},
		{"latency not a number", `{"id":"a","tool":{"name":"Bash"},"recorded":[{"judge":"j","latency_ms":"3"}]}`,
			`t:2: recorded[0].latency_ms: expected number, got string`},
		{"bad status", `{"id":"a","tool":{"name":"Bash"},"recorded":[{"judge":"j","status":"slow"}]}`,
			`t:2: recorded[0].status: unknown value "slow" (want one of ok, unknown, invalid, timeout, error)`},
		{"bad result", `{"id":"a","tool":{"name":"Bash"},"recorded":[{"judge":"j","decisions":[{"rule_id":"r","result":"yes"}]}]}`,
			`t:2: recorded[0].decisions[0].result: unknown value "yes" (want match, no_match or unknown)`},
		{"confidence out of range", `{"id":"a","tool":{"name":"Bash"},"recorded":[{"judge":"j"},{"judge":"k","decisions":[{"rule_id":"r","result":"match","confidence":1.5}]}]}`,
			`t:2: recorded[1].decisions[0].confidence: 1.5 is outside [0, 1]`},
		{"decision without rule", `{"id":"a","tool":{"name":"Bash"},"recorded":[{"judge":"j","decisions":[{"result":"match"}]}]}`,
			`t:2: recorded[0].decisions[0].rule_id: required`},
		{"duplicate rule in call", `{"id":"a","tool":{"name":"Bash"},"recorded":[{"judge":"j","decisions":[{"rule_id":"r","result":"match"},{"rule_id":"r","result":"no_match"}]}]}`,
			`t:2: recorded[0].decisions[1].rule_id: duplicate rule id "r" in one call`},
		// A type error names the element by its index (encoding/json names
		// "context.recent_messages.content" for all of them).
		{"message content not a string", `{"id":"a","tool":{"name":"Bash"},"context":{"recent_messages":[{"role":"user","content":"a"},{"role":"user","content":"b"},{"role":"assistant","content":"c"},{"role":"user","content":5}]}}`,
			`t:2: context.recent_messages[3].content: expected string, got number`},
		{"message key in another case", `{"id":"a","tool":{"name":"Bash"},"context":{"recent_messages":[{"role":"user","Content":"a"},{"role":"user","Content":["b"]}]}}`,
			`t:2: context.recent_messages[1].Content: expected string, got array`},
		{"tag not a string", `{"id":"a","tool":{"name":"Bash"},"tags":["en","ja",3]}`, `t:2: tags[2]: expected string, got number`},
		{"fingerprint not a string", `{"id":"a","tool":{"name":"Bash"},"context":{"approved_fingerprints":["f1",{}]}}`,
			`t:2: context.approved_fingerprints[1]: expected string, got object`},
		{"second label not a string", `{"id":"a","tool":{"name":"Bash"},"labels":{"r1":"match","r2":1}}`, `t:2: labels.r2: expected string, got number`},
		{"recorded judge not a string", `{"id":"a","tool":{"name":"Bash"},"recorded":[{"judge":"j"},{"judge":5}]}`, `t:2: recorded[1].judge: expected string, got number`},
		{"confidence not a number", `{"id":"a","tool":{"name":"Bash"},"recorded":[{"judge":"j"},{"judge":"k","decisions":[{"rule_id":"r","result":"match"},{"rule_id":"q","result":"match","confidence":"high"}]}]}`,
			`t:2: recorded[1].decisions[1].confidence: expected number, got string`},
		{"decisions not a list", `{"id":"a","tool":{"name":"Bash"},"recorded":[{"judge":"j","decisions":[]},{"judge":"k","decisions":{}}]}`,
			`t:2: recorded[1].decisions: expected array, got object`},
		{"duplicate id", `{"id":"ok","tool":{"name":"Write"}}`, `t:2: id: duplicate id "ok" (first at t:1)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The bad line sits between two good ones: it must not hide them.
			in := okLine + "\n" + tt.line + "\n" + `{"id":"after","tool":{"name":"Bash"}}` + "\n"
			recs, err := readFrom(t, "t", in)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != 3 {
				t.Fatalf("got %d records, want 3", len(recs))
			}
			if recs[0].Case == nil || recs[2].Case == nil {
				t.Fatalf("good lines around the bad one: %+v %+v", recs[0], recs[2])
			}
			if recs[1].Err == nil {
				t.Fatalf("bad line accepted: %+v", recs[1].Case)
			}
			if got := recs[1].Err.Error(); got != tt.want {
				t.Errorf("error\n got %s\nwant %s", got, tt.want)
			}
			var le *LineError
			if !errors.As(recs[1].Err, &le) || le.Line != 2 || le.File != "t" {
				t.Errorf("want *LineError at t:2, got %#v", recs[1].Err)
			}
		})
	}
}

// readFrom reads content as a file with the given name shown in errors.
func readFrom(t *testing.T, name, content string) ([]Record, error) {
	t.Helper()
	p := writeFile(t, t.TempDir(), name, content)
	r := Open([]string{p}, nil)
	recs, err := readAll(t, r)
	// Show errors under the short name so expectations stay readable.
	for _, rec := range recs {
		var le *LineError
		if errors.As(rec.Err, &le) {
			le.File = name
			le.Msg = strings.ReplaceAll(le.Msg, p, name)
		}
	}
	return recs, err
}

func TestReaderLineTooLong(t *testing.T) {
	t.Parallel()
	long := `{"id":"long","tool":{"name":"Bash","arguments":{"command":"` + strings.Repeat("x", 300) + `"}}}`
	in := okLine + "\n" + long + "\n" + `{"id":"after","tool":{"name":"Bash"}}` + "\n"
	r := Open([]string{"-"}, strings.NewReader(in))
	r.MaxLineBytes = 100
	recs, err := readAll(t, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || recs[1].Err == nil {
		t.Fatalf("want the long line as an error between two cases, got %+v", recs)
	}
	if got, want := recs[1].Err.Error(), "stdin:2: line longer than 100 bytes"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if recs[2].Case == nil || recs[2].Case.ID != "after" || recs[2].Case.Seq != 3 {
		t.Errorf("line after the long one: %+v", recs[2])
	}
}

// A line longer than the read buffer (1 MiB) is assembled, and one longer
// than the limit is skipped without losing the next line.
func TestReaderLongLinesAcrossBuffer(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("y", 3<<20)
	in := `{"id":"big","tool":{"name":"Bash","arguments":{"command":"` + big + `"}}}` + "\n" +
		`{"id":"huge","tool":{"name":"Bash","arguments":{"command":"` + big + big + `"}}}` + "\n" +
		`{"id":"last","tool":{"name":"Bash"}}`
	r := Open([]string{"-"}, strings.NewReader(in))
	r.MaxLineBytes = 4 << 20
	recs, err := readAll(t, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 {
		t.Fatalf("got %d records", len(recs))
	}
	if c := recs[0].Case; c == nil || c.Tool.Arguments["command"] != big {
		t.Errorf("3 MiB line not read back intact: %v", recs[0].Err)
	}
	if recs[1].Err == nil || recs[1].Err.Error() != "stdin:2: line longer than 4194304 bytes" {
		t.Errorf("6 MiB line: %v", recs[1].Err)
	}
	if c := recs[2].Case; c == nil || c.ID != "last" {
		t.Errorf("last line (no trailing newline): %+v", recs[2])
	}
}

func TestReaderDefaultsAndLayout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := writeFile(t, dir, "a.jsonl", "\ufeff"+
		`{"id":"a1","tool":{"name":"Bash"},"extra":{"kept":"ignored"}}`+"\r\n"+
		"\n   \t\n"+
		`{"id":"a2","session_id":"s","seq":7,"hook_point":"tool.after","tool":{"name":"Write","category":"other","arguments_valid":false}}`+"\n"+
		`{"id":"a3","tool":{"name":"mcp__playwright__browser_click"}}`)
	b := writeFile(t, dir, "b.jsonl", `{"id":"b1","tool":{"name":"WebFetch"}}`+"\n")
	stdin := `{"id":"s1","tool":{"name":"custom_tool"}}` + "\n"
	r := Open([]string{a, "-", b}, strings.NewReader(stdin))
	r.Categories = CategoryMap{"custom_tool": "external_send"}
	recs, err := readAll(t, r)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		ID, Session   string
		Seq           int64
		Hook, Cat     string
		Valid         bool
		ValidExplicit bool
		Source        string
	}
	var got []row
	for _, rec := range recs {
		if rec.Err != nil {
			t.Fatal(rec.Err)
		}
		c := rec.Case
		got = append(got, row{c.ID, c.SessionID, c.Seq, c.HookPoint, c.Tool.Category, c.Tool.Valid(), c.Tool.ArgumentsValid != nil, c.Source})
	}
	want := []row{
		{"a1", "a1", 1, "tool.before", "command_execution", true, false, a + ":1"},
		{"a2", "s", 7, "tool.after", "other", false, true, a + ":4"},
		{"a3", "a3", 3, "tool.before", "browser", true, false, a + ":5"},
		{"s1", "s1", 4, "tool.before", "external_send", true, false, "stdin:1"},
		{"b1", "b1", 5, "tool.before", "web_search", true, false, b + ":1"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
}

func TestReaderDuplicateAcrossFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := writeFile(t, dir, "a.jsonl", "\n"+okLine+"\n")
	b := writeFile(t, dir, "b.jsonl", `{"id":"x","tool":{"name":"Bash"}}`+"\n"+okLine+"\n")
	recs, err := readAll(t, Open([]string{a, b}, nil))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`%s:2: id: duplicate id "ok" (first at %s:2)`, b, a)
	if len(recs) != 3 || recs[2].Err == nil || recs[2].Err.Error() != want {
		t.Fatalf("got %+v, want last record %q", recs, want)
	}
}

func TestReaderMissingFileIsFatal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := writeFile(t, dir, "a.jsonl", okLine+"\n")
	missing := filepath.Join(dir, "missing.jsonl")
	recs, err := readAll(t, Open([]string{a, missing, a}, nil))
	if len(recs) != 1 || recs[0].Case == nil {
		t.Errorf("records before the missing file: %+v", recs)
	}
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("Err() = %v, want not-exist naming %s", err, missing)
	}
}

func TestReaderStdinName(t *testing.T) {
	t.Parallel()
	r := Open([]string{"-"}, strings.NewReader(okLine+"\nbad\n"))
	r.StdinName = "sample"
	recs, err := readAll(t, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Case.Source != "sample:1" || recs[1].Err == nil || !strings.HasPrefix(recs[1].Err.Error(), "sample:2: ") {
		t.Errorf("got %+v", recs)
	}
}

func TestReaderStdinWithoutInput(t *testing.T) {
	t.Parallel()
	recs, err := readAll(t, Open([]string{"-"}, nil))
	if len(recs) != 0 || err == nil || err.Error() != "stdin: no input" {
		t.Errorf("got %v, %v", recs, err)
	}
}

// Many batches decoded in parallel still come out in file order.
func TestReaderKeepsOrder(t *testing.T) {
	t.Parallel()
	const n = 20_000
	var buf bytes.Buffer
	for i := range n {
		if i%1000 == 999 {
			buf.WriteString("not json\n")
			continue
		}
		fmt.Fprintf(&buf, `{"id":"c%d","tool":{"name":"Bash","arguments":{"command":"echo %d"}}}`+"\n", i, i)
	}
	for _, workers := range []int{1, 3} {
		r := Open([]string{"-"}, bytes.NewReader(buf.Bytes()))
		r.Workers = workers
		recs, err := readAll(t, r)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != n {
			t.Fatalf("workers=%d: %d records, want %d", workers, len(recs), n)
		}
		for i, rec := range recs {
			if i%1000 == 999 {
				want := fmt.Sprintf("stdin:%d: invalid JSON", i+1)
				if rec.Err == nil || !strings.HasPrefix(rec.Err.Error(), want) {
					t.Fatalf("workers=%d record %d: %v, want %s…", workers, i, rec.Err, want)
				}
				continue
			}
			if rec.Case == nil || rec.Case.ID != fmt.Sprintf("c%d", i) || rec.Case.Seq != int64(i+1) {
				t.Fatalf("workers=%d record %d out of order: %+v", workers, i, rec)
			}
		}
	}
}

func TestReaderCloseEarly(t *testing.T) {
	t.Parallel()
	data := benchLines(50_000)
	r := Open([]string{"-"}, bytes.NewReader(data))
	for i := 0; i < 5 && r.Scan(); i++ {
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if r.Scan() {
		t.Error("Scan after Close returned true")
	}
	if err := r.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	in := `{"id":"c-1","session_id":"s","seq":2,"time":"2026-07-24T10:00:00.5Z","hook_point":"tool.before","piece":"coding","movement":"implement","user_role":"member","workspace":"/srv/repo",` +
		`"tool":{"name":"Bash","category":"command_execution","arguments":{"command":"rm -rf build <x> & y","n":3,"list":[1,"a",null,true],"obj":{"k":"v"}},"arguments_valid":false},` +
		`"context":{"latest_user_message":"ビルドを消して","recent_messages":[{"role":"assistant","content":"ok"}],"approval_state":"pending","approved_fingerprints":["ab"]},` +
		`"labels":{"r1":"match","r2":"no_match"},"expected_action":"request_approval","approval_outcome":"denied","tags":["ja"],` +
		`"recorded":[{"judge":"j","latency_ms":412.5,"status":"ok","decisions":[{"rule_id":"r1","result":"match","confidence":0.91}]},{"judge":"k","latency_ms":1000,"status":"timeout","error":"deadline"}]}` + "\n" +
		`{"id":"c-2","tool":{"name":"Read"}}` + "\n"
	first, err := readFrom(t, "in", in)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, rec := range first {
		if rec.Err != nil {
			t.Fatal(rec.Err)
		}
		if err := WriteJSONL(&out, rec.Case); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(out.String(), "rm -rf build <x> & y") {
		t.Errorf("HTML characters escaped in output:\n%s", out.String())
	}
	second, err := readFrom(t, "out", out.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(second) != len(first) {
		t.Fatalf("%d records after round trip, want %d", len(second), len(first))
	}
	for i := range first {
		if second[i].Err != nil {
			t.Fatal(second[i].Err)
		}
		a, b := *first[i].Case, *second[i].Case
		a.Source, b.Source = "", ""
		if !reflect.DeepEqual(a, b) {
			t.Errorf("case %d changed in the round trip:\n%+v\n%+v", i, a, b)
		}
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteJSONLReportsWriteError(t *testing.T) {
	t.Parallel()
	if err := WriteJSONL(failWriter{}, &Case{ID: "a"}); err == nil || err.Error() != "disk full" {
		t.Errorf("got %v, want the write error", err)
	}
}

// An explicit seq of 0 is a value, on every decoding path (plain lines take
// the hand-written parser, a null or anything it gives up on
// encoding/json), and a default seq numbers records across files.
func TestReaderSeqZeroAndAcrossFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := writeFile(t, dir, "a.jsonl",
		`{"id":"z0","session_id":"s","seq":0,"tool":{"name":"Bash"}}`+"\n"+
			`{"id":"z1","session_id":"s","seq":0,"tool":{"name":"Bash"},"recorded":[{"judge":"j","latency_ms":1}]}`+"\n"+
			`{"id":"z2","session_id":"s","seq":0,"piece":null,"tool":{"name":"Bash"}}`+"\n"+
			`{"id":"n1","session_id":"t","seq":null,"tool":{"name":"Bash"}}`+"\n"+
			`{"id":"d1","session_id":"u","tool":{"name":"Bash"}}`+"\n")
	b := writeFile(t, dir, "b.jsonl", `{"id":"d2","session_id":"u","tool":{"name":"Bash"}}`+"\n")
	recs, err := readAll(t, Open([]string{a, b}, nil))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, rec := range recs {
		if rec.Err != nil {
			t.Fatal(rec.Err)
		}
		got = append(got, fmt.Sprintf("%s=%d", rec.Case.ID, rec.Case.Seq))
	}
	// z0..z2 keep their explicit 0; n1 (null) and d1 are records 4 and 5
	// of the input; d2 is the 6th record of the whole input, not the 1st of b.
	want := "z0=0 z1=0 z2=0 n1=4 d1=5 d2=6"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("seqs = %s, want %s", g, want)
	}
}

// A batch's cases share one string for their sources: each must still be
// its own file:line, across batches, blank lines and invalid lines.
func TestReaderSourcesAcrossBatches(t *testing.T) {
	t.Parallel()
	var sb strings.Builder
	want := map[string]string{} // case id → source
	line := 0
	for i := range 3 * batchLines {
		line++
		switch {
		case i%97 == 5:
			sb.WriteString("{not json\n")
		case i%89 == 7:
			sb.WriteString("\n")
		default:
			id := fmt.Sprint("c", i)
			fmt.Fprintf(&sb, `{"id":%q,"tool":{"name":"Bash"}}`+"\n", id)
			want[id] = fmt.Sprint("F:", line)
		}
	}
	path := writeFile(t, t.TempDir(), "many.jsonl", sb.String())
	recs, _ := readAll(t, Open([]string{path}, nil))
	got := 0
	for _, rec := range recs {
		if rec.Err != nil {
			continue
		}
		w := strings.Replace(want[rec.Case.ID], "F", path, 1)
		if rec.Case.Source != w {
			t.Fatalf("case %s: source %q, want %q", rec.Case.ID, rec.Case.Source, w)
		}
		got++
	}
	if got != len(want) {
		t.Fatalf("%d cases read, want %d", got, len(want))
	}
}

func TestDecimalLen(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 9, 10, 11, 99, 100, 999_999, 1_000_000, 9_999_999, 10_000_000, 1 << 40} {
		if got, want := decimalLen(n), len(fmt.Sprint(n)); got != want {
			t.Errorf("decimalLen(%d) = %d, want %d", n, got, want)
		}
	}
}
