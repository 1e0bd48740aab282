package datasets

import (
	"bytes"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// fastLines are shapes decodeFast must decode itself (and exactly as
// encoding/json does).
var fastLines = []string{
	okLine,
	`{"id":"a","seq":999999999999999999,"tool":{"name":"Bash"}}`,
	`{"id":"a","seq":-42,"tool":{"name":"Bash"}}`,
	`{"id":"a","seq":1234567890123456789,"tool":{"name":"Bash"}}`,
	`{"id":"c-0000001","session_id":"s-000000","seq":2,"piece":"coding","movement":"implement","workspace":"/srv/repo","tool":{"name":"Bash","arguments":{"command":"git commit -m 'change 1'"}},"context":{"latest_user_message":"please continue","approval_state":"none"},"labels":{"det-delete":"no_match"}}`,
	` { "id" : "a" , "seq" : -0 , "tool" : { "name" : "Write" , "category" : "file_change" , "arguments_valid" : false , "arguments" : { "content" : "line\nnext \"q\" \\ \/ \b\f\r\t \u00e9 \ud83d\ude00 \ud800 \udc00x \ud800\u0041" , "n" : [ 1 , -2.5e-3 , 1E2 , true , false , null , { } , [ ] , { "k" : { "deep" : [ "x" ] } } ] , "k\u0065y" : 0 } } } `,
	`{"id":"日本語","tool":{"name":"Read","arguments":{}},"labels":{},"tags":[],"context":{"approved_fingerprints":[]}}`,
	`{"id":"a","tool":{"name":"Bash","arguments":{"a":1,"a":{"b":2}}},"labels":{"r":"match","r":"no_match"}}`,
	`{"id":"a","time":"2026-07-01T00:47:52Z","hook_point":"tool.before","user_role":"member","tool":{"name":"Bash"},"expected_action":"allow","approval_outcome":"denied","tags":["en","x"],"context":{"approved_fingerprints":["ab"],"approval_state":"approved"}}`,
	`{"id":"a","tool":{"name":"Bash","x":[1,{"y":null}]},"context":{"z":"\u0000"},"unknown":{"deep":[{"x":[true,false,null,"s",1.5]}]},"":1}`,
	`{"\u0069d":"a","tool":{"name":"Bash"}}`,
	`{"id":"a","tool":{"name":"Bash"},"recorded":[]}`,
	`{"id":"a","tool":{"name":"Bash"},"context":{"recent_messages":[]}}`,
	`{"id":"a","tool":{"name":"Bash"},"context":{"recent_messages":[{"role":"user","content":"hi \u00e9"},{"content":"x","extra":[1]},{}]},` +
		`"recorded":[{"judge":"ollama/a","latency_ms":812.5,"status":"ok","error":"","decisions":[{"rule_id":"r","result":"match","confidence":0.91},{"rule_id":"s","result":"unknown"}]},` +
		`{"judge":"b","latency_ms":-1e3,"decisions":[]},{}]}`,
}

// slowLines must be left to the general path: encoding/json reads them in
// ways the parser does not reproduce, or rejects them.
var slowLines = []string{
	`{"ID":"a","tool":{"name":"Bash"}}`,
	`{"id":"a","Tool":{"name":"Bash"}}`,
	`{"id":"a","tool":{"NAME":"Bash"}}`,
	`{"id":"a","id":"b","tool":{"name":"Bash"}}`,
	`{"id":"a","tool":{"name":"Bash"},"tool":{"category":"git"}}`,
	`{"id":null,"tool":{"name":"Bash"}}`,
	`{"id":"a","tool":{"name":"Bash","arguments":null}}`,
	`{"id":"a","tool":{"name":"Bash"},"labels":{"r":null}}`,
	`{"id":"a","tool":{"name":"Bash"},"labels":{"r":1}}`,
	`{"id":"a","seq":1.0,"tool":{"name":"Bash"}}`,
	`{"id":"a","seq":1e3,"tool":{"name":"Bash"}}`,
	`{"id":"a","seq":9223372036854775808,"tool":{"name":"Bash"}}`,
	`{"id":"a","tool":{"name":"Bash","arguments":{"n":1e400}}}`,
	`{"id":"a","time":"yesterday","tool":{"name":"Bash"}}`,
	`{"id":"a","time":null,"tool":{"name":"Bash"}}`,
	`{"recorded":[],"seq":9223372036854775808,"id":"a","tool":{"name":"Bash"}}`,
	`{"recorded":[],"ſeq":1,"id":"a","tool":{"name":"Bash"}}`,
	`{"ſeq":1,"id":"a","tool":{"name":"Bash"}}`,
	`{"id":"a","tool":{"name":"Bash"},"recorded":[null]}`,
	`{"id":"a","tool":{"name":"Bash"},"recorded":[{"judge":"a","decisions":[{"rule_id":"r","confidence":null}]}]}`,
	`{"id":"a","tool":{"name":"Bash"},"recorded":[{"judge":"a","Latency_MS":1}]}`,
	`{"id":"a","tool":{"name":"Bash"},"recorded":[{"judge":"a","latency_ms":1e999}]}`,
	`{"id":"a","tool":{"name":"Bash"},"recorded":[{"judge":"a","judge":"b"}]}`,
	`{"id":"a","tool":{"name":"Bash"},"recorded":{}}`,
	`{"id":"a","tool":{"name":"Bash"},"context":{"recent_messages":[{"role":1}]}}`,
	`{"id":"a","tool":{"name":"Bash"},"context":{"recent_messages":[{"ROLE":"user"}]}}`,
	"{\"id\":\"\xff\",\"tool\":{\"name\":\"Bash\"}}",
	"{\"id\":\"a\tb\",\"tool\":{\"name\":\"Bash\"}}",
	`{"id":"a","tool":{"name":"Bash"}} x`,
	`{"id":"a","tool":{"name":"Bash"},}`,
	`{"id":"a","tool":{"name":"Bash"},"u":01}`,
	`{"id":"a","tool":{"name":"Bash"},"u":"\x"}`,
	`{"id":"a","tool":{"name":"Bash","arguments_valid":"yes"}}`,
	`{"id":"a","tool":"Bash"}`,
	`[1]`,
}

func TestDecodeFast(t *testing.T) {
	t.Parallel()
	for _, line := range fastLines {
		if ok := decodeFast([]byte(line), new(Case)); !ok {
			t.Errorf("decodeFast gave up on %s", line)
		}
		checkDecodePaths(t, []byte(line))
	}
	for _, line := range slowLines {
		if ok := decodeFast([]byte(line), new(Case)); ok {
			t.Errorf("decodeFast decoded %s; encoding/json must", line)
		}
		checkDecodePaths(t, []byte(line))
	}
}

// checkDecodePaths fails unless the fast and the reference path give the
// same case or the same error.
func checkDecodePaths(t *testing.T, line []byte) {
	t.Helper()
	fc, ferr := decodeWith(line, "f", 1, nil, true)
	sc, serr := decodeWith(line, "f", 1, nil, false)
	switch {
	case (ferr == nil) != (serr == nil):
		t.Fatalf("%q: fast err %v, encoding/json err %v", line, ferr, serr)
	case ferr != nil && ferr.Error() != serr.Error():
		t.Fatalf("%q: errors differ:\nfast %v\nstd  %v", line, ferr, serr)
	case ferr == nil && !reflect.DeepEqual(fc, sc):
		t.Fatalf("%q: cases differ:\nfast %#v\nstd  %#v", line, fc, sc)
	}
}

// Every line of the sample (recorded calls included) and of the benchmark
// goes the fast way.
func TestDecodeFastTakesCommonLines(t *testing.T) {
	t.Parallel()
	data, err := io.ReadAll(SampleCases())
	if err != nil {
		t.Fatal(err)
	}
	lines := append(bytes.Split(bytes.TrimSpace(data), []byte("\n")), bytes.Split(bytes.TrimSpace(benchLines(20)), []byte("\n"))...)
	fast := 0
	for _, line := range lines {
		if !decodeFast(line, new(Case)) {
			t.Fatalf("decodeFast gave up on %s", line)
		}
		fast++
		checkDecodePaths(t, line)
	}
	if fast < 1600 {
		t.Errorf("only %d lines took the fast path", fast)
	}
}

// FuzzDecodeFast is FuzzDecode seeded with the shapes the fast parser takes.
func FuzzDecodeFast(f *testing.F) {
	for _, s := range append(fastLines, slowLines...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkDecodePaths(t, line) })
}

// An imported case's provenance object reads back the same on the fast
// path, through encoding/json, and after WriteJSONL.
func TestProvenanceRoundTrip(t *testing.T) {
	t.Parallel()
	line := []byte(`{"id":"cc-toolu_1","tool":{"name":"Bash","arguments":{"command":"ls"}},"provenance":{"format":"claude-code-transcript","source":"s.jsonl","line":7,"tool_use_id":"toolu_1","sidechain":true}}`)
	fast, err := decodeWith(line, "f", 1, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := decodeWith(line, "f", 1, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fast.Provenance, ref.Provenance) {
		t.Fatalf("fast %v != reference %v", fast.Provenance, ref.Provenance)
	}
	if fast.Provenance["line"] != 7.0 || fast.Provenance["tool_use_id"] != "toolu_1" || fast.Provenance["sidechain"] != true {
		t.Fatalf("provenance = %v", fast.Provenance)
	}
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, fast); err != nil {
		t.Fatal(err)
	}
	back, err := decodeWith(bytes.TrimSpace(buf.Bytes()), "f", 1, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Provenance, fast.Provenance) {
		t.Fatalf("after WriteJSONL: %v", back.Provenance)
	}
	// A provenance that is not an object is an error on both paths.
	if _, err := decodeWith([]byte(`{"id":"x","tool":{"name":"a"},"provenance":"s"}`), "f", 1, nil, true); err == nil {
		t.Fatal("string provenance accepted")
	}
}

// The fast parser's field lists must be the JSON names of Case, Tool and
// Context, in any order: a field added to a struct but not to the parser
// would be silently dropped on the fast path.
func TestFastParserKnowsEveryField(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		typ    reflect.Type
		fields []string
	}{
		{reflect.TypeFor[Case](), caseFields[:]},
		{reflect.TypeFor[Tool](), toolFields[:]},
		{reflect.TypeFor[Context](), contextFields[:]},
		{reflect.TypeFor[Message](), messageFields[:]},
		{reflect.TypeFor[Recorded](), recordedFields[:]},
		{reflect.TypeFor[RecordedDecision](), decisionFields[:]},
	} {
		var want []string
		for f := range tc.typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			want = append(want, name)
		}
		got := slices.Clone(tc.fields)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: fast parser knows %v, the struct has %v", tc.typ.Name(), got, want)
		}
	}
}
