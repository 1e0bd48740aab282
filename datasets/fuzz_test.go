package datasets

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
)

var fuzzSeeds = []string{
	okLine,
	`{"id":"c","session_id":"s","seq":3,"time":"2026-07-24T10:00:00Z","tool":{"name":"Bash","arguments":{"command":"rm -rf x","n":[1,2.5,{"a":null}]},"arguments_valid":true},"labels":{"r":"match"},"recorded":[{"judge":"j","latency_ms":1,"decisions":[{"rule_id":"r","result":"match","confidence":0.5}]}]}`,
	"{\"id\":\"\xff\",\"tool\":{\"name\":\"Bash\"}}",
	"{\"id\":\"a\tb\",\"tool\":{\"name\":\"Bash\"}}",
	`{"ID":"a","TOOL":{"Name":"Bash"}}`,
	`{"id":"a","tool":{"name":"Bash"},"labels":{"r":null}}`,
	`{"id":"a\ud800","tool":{"name":"x"}}`,
	`[1]`, `{`, `{"id":1e400}`, `{"seq":1e3}`,
	"{\t\"id\" : \"a\" ,\"tool\":{\"name\":\"Bash\",\"arguments\":{\"a\":[1,2,{\"b\":null}],\"c\":-0.5e3,\"d\":\"\\u00e9\\n\\ud83d\\ude00\"}}}",
	`{"id":"a","tool":{"name":"Bash"},"unknown":{"deep":[{"x":[true,false,null,"s",1.5]}]},"context":{"recent_messages":[{"role":"user","content":"日本語"}]}}`,
}

// FuzzDecode checks that the fast decoding path gives exactly what
// encoding/json alone gives: the same case or the same error.
func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		fc, ferr := decodeWith(line, "f", 1, nil, true)
		sc, serr := decodeWith(line, "f", 1, nil, false)
		if (ferr == nil) != (serr == nil) {
			t.Fatalf("fast err %v, encoding/json err %v", ferr, serr)
		}
		if ferr != nil {
			if ferr.Error() != serr.Error() {
				t.Fatalf("errors differ:\nfast %v\nstd  %v", ferr, serr)
			}
			var le *LineError
			if !errors.As(ferr, &le) || le.Line != 1 {
				t.Fatalf("not a LineError for line 1: %#v", ferr)
			}
			return
		}
		if !reflect.DeepEqual(fc, sc) {
			t.Fatalf("cases differ:\nfast %+v\nstd  %+v", fc, sc)
		}
	})
}

// FuzzReader reads arbitrary input: every record is exactly a case or a
// LineError on an existing line, and each case survives a write/read round trip.
func FuzzReader(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s + "\n" + okLine + "\n\n" + s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := bytes.Count(data, []byte("\n")) + 1
		r := Open([]string{"-"}, bytes.NewReader(data))
		r.MaxLineBytes = 4096
		recs, err := readAll(t, r)
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range recs {
			if rec.Err != nil {
				var le *LineError
				if !errors.As(rec.Err, &le) || le.Line < 1 || le.Line > lines || le.File != StdinName {
					t.Fatalf("bad error %#v (input has %d lines)", rec.Err, lines)
				}
				continue
			}
			var buf bytes.Buffer
			if err := WriteJSONL(&buf, rec.Case); err != nil {
				t.Fatal(err)
			}
			back, err := Decode(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), "rt", 1, nil)
			if err != nil {
				t.Fatalf("written case does not read back: %v\n%s", err, buf.Bytes())
			}
			a, b := *rec.Case, *back
			a.Source, b.Source = "", ""
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("round trip changed the case:\n%+v\n%+v", a, b)
			}
		}
	})
}

// TestDecodePathsAgreeOnMutations is a deterministic companion to
// FuzzDecode: it breaks real sample lines in small ways (a byte inserted,
// dropped or replaced by JSON punctuation, an unknown key added) and checks
// that the fast path and encoding/json still agree on every one.
func TestDecodePathsAgreeOnMutations(t *testing.T) {
	t.Parallel()
	data, err := io.ReadAll(SampleCases())
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	punct := []byte(`{}[],:"\ 0-.eE+tfnu` + "\t\x00\xff")
	state := uint64(1)
	rnd := func(n int) int {
		state ^= state << 13
		state ^= state >> 7
		state ^= state << 17
		return int(state % uint64(n))
	}
	checked := 0
	for i := 0; i < 20_000; i++ {
		line := bytes.Clone(lines[rnd(len(lines))])
		p := rnd(len(line))
		switch rnd(4) {
		case 0:
			line = append(line[:p], append([]byte{punct[rnd(len(punct))]}, line[p:]...)...)
		case 1:
			line = append(line[:p], line[p+1:]...)
		case 2:
			line[p] = punct[rnd(len(punct))]
		default:
			line = append([]byte(`{"zz_unknown":`+string([]byte{punct[rnd(len(punct))]})+`,`), line[1:]...)
		}
		fc, ferr := decodeWith(line, "m", 1, nil, true)
		sc, serr := decodeWith(line, "m", 1, nil, false)
		switch {
		case (ferr == nil) != (serr == nil):
			t.Fatalf("%q: fast err %v, encoding/json err %v", line, ferr, serr)
		case ferr != nil && ferr.Error() != serr.Error():
			t.Fatalf("%q: errors differ:\nfast %v\nstd  %v", line, ferr, serr)
		case ferr == nil && !reflect.DeepEqual(fc, sc):
			t.Fatalf("%q: cases differ", line)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("nothing checked")
	}
}
