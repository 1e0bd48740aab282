package datasets

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSetMember(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, obj, key, value, want, err string
	}{
		{"replace keeps the rest", `{"id":"a", "labels" : {"r1":"match"} ,"z":[1,2]}`, "labels", `{"r2":"no_match"}`,
			`{"id":"a", "labels" : {"r2":"no_match"} ,"z":[1,2]}`, ""},
		{"replace a number at the end", `{"a":1,"b":23}`, "b", `4`, `{"a":1,"b":4}`, ""},
		{"replace the first member", `{ "a" :true,"b":null}`, "a", `false`, `{ "a" :false,"b":null}`, ""},
		{"append after the last member", "{\"id\":\"a\",\"t\":{\"x\":[{}]}\n}", "labels", `{}`,
			"{\"id\":\"a\",\"t\":{\"x\":[{}]},\"labels\":{}\n}", ""},
		{"append to an empty object", `{}`, "r-1", `"match"`, `{"r-1":"match"}`, ""},
		{"append to an empty object with space", `{ }`, "k", `1`, `{ "k":1}`, ""},
		{"nested key of the same name untouched", `{"x":{"labels":1}}`, "labels", `2`, `{"x":{"labels":1},"labels":2}`, ""},
		{"escaped key matches", `{"lab\u0065ls":1}`, "labels", `2`, `{"lab\u0065ls":2}`, ""},
		{"new key is escaped, not HTML-escaped", `{}`, "a\"<b>", `1`, `{"a\"<b>":1}`, ""},
		{"unicode kept", `{"メモ":"削除 🚀","v":1}`, "v", `"ü"`, `{"メモ":"削除 🚀","v":"ü"}`, ""},
		{"duplicate key", `{"labels":1,"labels":2}`, "labels", `3`, "", `member "labels" appears twice`},
		{"not an object", `[1]`, "a", `1`, "", "not a JSON object"},
		{"invalid object", `{"a":}`, "a", `1`, "", "not valid JSON"},
		{"invalid value", `{}`, "a", `{`, "", "invalid JSON value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SetMember([]byte(tt.obj), tt.key, json.RawMessage(tt.value))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %s, %v; want error %q", got, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if !json.Valid(got) {
				t.Errorf("result is not valid JSON: %s", got)
			}
		})
	}
}

func TestReadLabels(t *testing.T) {
	t.Parallel()
	labels := writeTemp(t, "labels.jsonl", strings.Join([]string{
		`{"id":"c1","labels":{"rule-12":"match"}}`,
		// A disagreements line: full case, labels member, a rule labeled in apeval_disagreement.
		`{"id":"c2","tool":{"name":"Bash"},"labels":{"r0":"no_match","r9":null},"apeval_disagreement":{"rules":[` +
			`{"rule_id":"r1","baseline":{"judge":"a","result":"match"},"candidate":{"judge":"b","result":"no_match"},"label":"match"},` +
			`{"rule_id":"r2","label":null}]}}`,
		`{"id":"c3","apeval_disagreement":{"rules":[{"rule_id":"r1","label":null}]}}`, // nobody labeled it
		`{"id":"c1","labels":{"rule-13":"no_match","rule-12":"match"}}`,               // same id again, consistent
	}, "\n"))
	l, err := ReadLabels([]string{labels}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]string{
		"c1": {"rule-12": "match", "rule-13": "no_match"},
		"c2": {"r0": "no_match", "r1": "match"},
	}
	got := map[string]map[string]string{}
	for id, c := range l.cases {
		got[id] = map[string]string{}
		for r, v := range c.rules {
			got[id][r] = v.value
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("labels: got %v, want %v", got, want)
	}
	if l.Cases() != 2 || l.Count() != 4 || l.Empty() != 1 {
		t.Errorf("Cases %d Count %d Empty %d, want 2 4 1", l.Cases(), l.Count(), l.Empty())
	}
	if src := l.cases["c1"].rules["rule-13"].source; src != labels+":4" {
		t.Errorf("rule-13 source %q, want %s:4", src, labels)
	}
}

func TestReadLabelsErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		lines []string
		want  []string
	}{
		{"bad value", []string{`{"id":"a","labels":{"r1":"yes"}}`}, []string{`:1: labels.r1: want "match", "no_match" or null, got "yes"`}},
		{"number value", []string{`{"id":"a","labels":{"r1":1}}`}, []string{`:1: labels.r1: want "match", "no_match" or null, got number`}},
		{"labels not an object", []string{`{"id":"a","labels":["r1"]}`}, []string{`:1: labels: wrong type (got array)`}},
		{"empty rule id", []string{`{"id":"a","labels":{"":"match"}}`}, []string{`:1: labels.: empty rule ID`}},
		{"empty rule id in disagreement", []string{`{"id":"a","apeval_disagreement":{"rules":[{"rule_id":" ","label":"match"}]}}`},
			[]string{`:1: apeval_disagreement.rules[0].label: empty rule ID`}},
		{"contradiction on one line", []string{`{"id":"a","labels":{"r1":"no_match"},"apeval_disagreement":{"rules":[{"rule_id":"r1","label":"match"}]}}`},
			[]string{`:1: apeval_disagreement.rules[0].label: "match" contradicts labels.r1 = "no_match" on the same line`}},
		{"conflict across lines", []string{`{"id":"a","labels":{"r1":"match"}}`, `{"id":"b","labels":{"r1":"match"}}`, `{"id":"a","labels":{"r1":"no_match"}}`},
			[]string{`:3: labels.r1: "no_match", but `, `:1 says "match" for case a`}},
		{"all errors reported", []string{`{"id":"a","labels":{"r1":"x"}}`, `{"id":"b","labels":{"r1":"y"}}`}, []string{`:1: labels.r1`, `:2: labels.r1`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeTemp(t, "l.jsonl", strings.Join(tt.lines, "\n"))
			_, err := ReadLabels([]string{p}, nil)
			if err == nil {
				t.Fatal("want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// decodeLines decodes every line of JSONL into generic values.
func decodeLines(t *testing.T, data string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(data, "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		out = append(out, m)
	}
	return out
}

func memberKeys(t *testing.T, line string) []string {
	t.Helper()
	ms, _, err := objectMembers([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, m := range ms {
		keys = append(keys, m.key)
	}
	return keys
}

const mergeDataset = `{"id":"c1","session_id":"s1","tool":{"name":"Bash","arguments":{"command":"rm -rf build","env":{"A":"1"}}},"labels":{"r-old":"no_match","r1":"match"},"x_unknown":{"deep":[1,{"k":"v"}],"n":1.50},"tags":["ja"]}
{"id":"c2","tool":{"name":"Write","arguments":{"file_path":"/tmp/メモ.txt","content":"削除してください 🚀 \u00e9\u003c"}},"context":{"latest_user_message":"消して"},"custom":null}
{"id":"c3","tool":{"name":"Read"},"labels":null,"z":true}
{"id":"c4","tool":{"name":"Read"}}
`

func TestMergeLabelsRoundTrip(t *testing.T) {
	t.Parallel()
	ds := writeTemp(t, "cases.jsonl", mergeDataset)
	lf := writeTemp(t, "labeled.jsonl", `{"id":"c1","labels":{"r2":"no_match","r1":"match"}}
{"id":"c2","labels":{"r1":"match"},"apeval_disagreement":{"rules":[{"rule_id":"r3","label":"no_match"}]}}
{"id":"c3","labels":{"r1":"no_match"}}
`)
	labels, err := ReadLabels([]string{lf}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	st, err := MergeLabels(&out, []string{ds}, nil, labels, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantSt := MergeStats{Lines: 4, Updated: 3, Added: 4, Kept: 1}
	if !reflect.DeepEqual(st, wantSt) {
		t.Errorf("stats %+v, want %+v", st, wantSt)
	}
	before := decodeLines(t, mergeDataset)
	after := decodeLines(t, out.String())
	if len(after) != len(before) {
		t.Fatalf("%d lines out, want %d", len(after), len(before))
	}
	wantLabels := []any{
		map[string]any{"r-old": "no_match", "r1": "match", "r2": "no_match"},
		map[string]any{"r1": "match", "r3": "no_match"},
		map[string]any{"r1": "no_match"},
		nil,
	}
	for i := range before {
		if got := after[i]["labels"]; !reflect.DeepEqual(got, wantLabels[i]) {
			t.Errorf("line %d labels: got %v, want %v", i+1, got, wantLabels[i])
		}
		b, a := before[i], after[i]
		delete(b, "labels")
		delete(a, "labels")
		if !reflect.DeepEqual(a, b) {
			t.Errorf("line %d: fields other than labels changed:\nbefore %v\nafter  %v", i+1, b, a)
		}
	}
	inLines := strings.Split(mergeDataset, "\n")
	outLines := strings.Split(out.String(), "\n")
	// Untouched lines are byte-identical; rewritten ones keep key order.
	if outLines[3] != inLines[3] {
		t.Errorf("unlabeled line changed:\n%s\n%s", inLines[3], outLines[3])
	}
	if want := `{"id":"c1","session_id":"s1","tool":{"name":"Bash","arguments":{"command":"rm -rf build","env":{"A":"1"}}},"labels":{"r-old":"no_match","r1":"match","r2":"no_match"},"x_unknown":{"deep":[1,{"k":"v"}],"n":1.50},"tags":["ja"]}`; outLines[0] != want {
		t.Errorf("line 1:\ngot  %s\nwant %s", outLines[0], want)
	}
	if want := `{"id":"c2","tool":{"name":"Write","arguments":{"file_path":"/tmp/メモ.txt","content":"削除してください 🚀 \u00e9\u003c"}},"context":{"latest_user_message":"消して"},"custom":null,"labels":{"r1":"match","r3":"no_match"}}`; outLines[1] != want {
		t.Errorf("line 2:\ngot  %s\nwant %s", outLines[1], want)
	}
	if got, want := memberKeys(t, outLines[2]), []string{"id", "tool", "labels", "z"}; !reflect.DeepEqual(got, want) {
		t.Errorf("line 3 key order %v, want %v", got, want)
	}
	// Merging the same labels again changes nothing.
	ds2 := writeTemp(t, "merged.jsonl", out.String())
	var again bytes.Buffer
	st2, err := MergeLabels(&again, []string{ds2}, nil, labels, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again.String() != out.String() || st2.Updated != 0 || st2.Kept != 5 {
		t.Errorf("second merge: updated %d kept %d, output changed: %v", st2.Updated, st2.Kept, again.String() != out.String())
	}
}

func TestMergeLabelsConflicts(t *testing.T) {
	t.Parallel()
	ds := writeTemp(t, "cases.jsonl", mergeDataset)
	tests := []struct {
		name    string
		labels  string
		opt     MergeOptions
		wantErr []string
		refused string // how Refused ends the error
		check   func(t *testing.T, out string, st MergeStats)
	}{
		{
			name:    "conflict names both lines",
			labels:  "{\"id\":\"c4\",\"labels\":{\"r1\":\"match\"}}\n{\"id\":\"c1\",\"labels\":{\"r-old\":\"match\"}}\n",
			wantErr: []string{ds + `:1: labels.r-old: the dataset says "no_match", `, `labeled.jsonl:2 says "match"`},
			refused: "\nnothing written (--overwrite replaces conflicting labels)",
			check: func(t *testing.T, _ string, st MergeStats) {
				if st.Conflicts != 1 || st.Added != 1 {
					t.Errorf("stats %+v, want 1 conflict and 1 added", st)
				}
			},
		},
		{
			name:   "overwrite replaces in place",
			labels: `{"id":"c1","labels":{"r-old":"match"}}`,
			opt:    MergeOptions{Overwrite: true},
			check: func(t *testing.T, out string, st MergeStats) {
				if !strings.Contains(out, `"labels":{"r-old":"match","r1":"match"},"x_unknown"`) || st.Changed != 1 {
					t.Errorf("changed %d, output %s", st.Changed, out)
				}
			},
		},
		{
			name:    "unknown ids listed",
			labels:  "{\"id\":\"zz\",\"labels\":{\"r1\":\"match\"}}\n{\"id\":\"c4\",\"labels\":{\"r1\":\"match\"}}\n{\"id\":\"aa\",\"labels\":{\"r1\":\"match\"}}\n",
			wantErr: []string{"labels for 2 id(s) not in the dataset: aa (", "labeled.jsonl:3), zz (", "labeled.jsonl:1)"},
			refused: "\nnothing written (--ignore-unknown skips unknown ids)",
		},
		{
			name:   "unknown ids ignored",
			labels: "{\"id\":\"zz\",\"labels\":{\"r1\":\"match\"}}\n{\"id\":\"c4\",\"labels\":{\"r1\":\"match\"}}\n",
			opt:    MergeOptions{IgnoreUnknown: true},
			check: func(t *testing.T, out string, st MergeStats) {
				if !reflect.DeepEqual(st.Unknown, []string{"zz"}) || st.Added != 1 || !strings.Contains(out, `{"id":"c4","tool":{"name":"Read"},"labels":{"r1":"match"}}`) {
					t.Errorf("stats %+v, output %s", st, out)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ReadLabels([]string{writeTemp(t, "labeled.jsonl", tt.labels)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			st, err := MergeLabels(&out, []string{ds}, nil, l, tt.opt)
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatal("want an error")
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
				// Refused says which option lets it through, and keeps err.
				if r := st.Refused(err, tt.opt); !errors.Is(r, err) || !strings.HasSuffix(r.Error(), tt.refused) {
					t.Errorf("refused: %q, want it to end %q", r, tt.refused)
				}
				if tt.check != nil {
					tt.check(t, out.String(), st)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, out.String(), st)
		})
	}
}

func TestMergeLabelsDuplicateAndBadDataset(t *testing.T) {
	t.Parallel()
	l, err := ReadLabels([]string{"-"}, strings.NewReader(`{"id":"c1","labels":{"r1":"match"}}`))
	if err != nil {
		t.Fatal(err)
	}
	dup := writeTemp(t, "dup.jsonl", "{\"id\":\"c1\"}\n{\"id\":\"c1\"}\n")
	if _, err := MergeLabels(&bytes.Buffer{}, []string{dup}, nil, l, MergeOptions{}); err == nil || !strings.Contains(err.Error(), dup+`:2: id: "c1" already at `+dup+":1") {
		t.Errorf("duplicate id: got %v", err)
	}
	bad := writeTemp(t, "bad.jsonl", `{"id":"c1","labels":"match"}`)
	if _, err := MergeLabels(&bytes.Buffer{}, []string{bad}, nil, l, MergeOptions{}); err == nil || !strings.Contains(err.Error(), bad+":1: labels: want an object of rule ID → label, got string") {
		t.Errorf("labels not an object: got %v", err)
	}
	odd := writeTemp(t, "odd.jsonl", `{"id":"c1","labels":{"r1":1}}`)
	if _, err := MergeLabels(&bytes.Buffer{}, []string{odd}, nil, l, MergeOptions{}); err == nil || !strings.Contains(err.Error(), `labels.r1: the dataset says "1"`) {
		t.Errorf("non-string existing label: got %v", err)
	}
}

// FuzzSetMember checks SetMember's contract on arbitrary objects: the result
// is valid JSON holding key = value and every other member unchanged.
func FuzzSetMember(f *testing.F) {
	f.Add(`{"id":"a","labels":{"r":"match"}}`, "labels")
	f.Add(`{ }`, "x")
	f.Add(`{"a":[1,{"b":"\u00e9"}] , "c" : -1.5e3}`, "c")
	f.Fuzz(func(t *testing.T, obj, key string) {
		var before map[string]any
		// Keys come from decoded JSON in practice, so they are valid UTF-8.
		if !utf8.ValidString(key) || json.Unmarshal([]byte(obj), &before) != nil || before == nil {
			return
		}
		got, err := SetMember([]byte(obj), key, json.RawMessage(`{"v":["新",1]}`))
		if err != nil {
			if strings.Contains(err.Error(), "appears twice") {
				return
			}
			t.Fatalf("SetMember(%s, %q): %v", obj, key, err)
		}
		var after map[string]any
		if err := json.Unmarshal(got, &after); err != nil {
			t.Fatalf("result %s: %v", got, err)
		}
		if !reflect.DeepEqual(after[key], map[string]any{"v": []any{"新", float64(1)}}) {
			t.Fatalf("result %s: %q = %v", got, key, after[key])
		}
		delete(before, key)
		delete(after, key)
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("other members changed: %s → %s", obj, got)
		}
	})
}

// The labels file apeval label serve writes (apeval.labels/v1) is what
// simulate's message tells users to merge with label-import; label-import
// refused it ("id: missing"). Skips carry no label; two people's different
// labels on one pair and weak labels are errors naming the lines.
func TestReadLabelsServeFile(t *testing.T) {
	t.Parallel()
	line := func(caseID, rule, label, labeler, extra string) string {
		return `{"schema":"apeval.labels/v1","case_id":"` + caseID + `","rule_id":"` + rule + `","stratum":"A:no_match","stratum_size":7,"order":1,"label":"` + label + `","labeler":"` + labeler + `","time":"2026-12-06T23:35:20Z"` + extra + `}`
	}
	ok := writeTemp(t, "labels-ana.jsonl", strings.Join([]string{
		line("c1", "secret-exfiltration", "match", "ana", ""),
		line("c1", "commit-message-style", "no_match", "ana", ""),
		line("c2", "secret-exfiltration", "skip", "ana", ""),
		line("c3", "secret-exfiltration", "no_match", "ana", ""),
	}, "\n")+"\n")
	other := writeTemp(t, "labels-ben.jsonl", line("c3", "secret-exfiltration", "no_match", "ben", "")+"\n")
	l, err := ReadLabels([]string{ok, other}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if l.Cases() != 2 || l.Count() != 3 || l.Empty() != 1 || l.cases["c1"].rules["secret-exfiltration"].value != "match" {
		t.Errorf("Cases %d Count %d Empty %d, c1 %v; want 2 cases, 3 labels, 1 skip", l.Cases(), l.Count(), l.Empty(), l.cases["c1"])
	}
	differ := writeTemp(t, "labels-cy.jsonl", line("c1", "secret-exfiltration", "no_match", "cy", "")+"\n")
	if _, err := ReadLabels([]string{ok, differ}, nil); err == nil || !strings.Contains(err.Error(), `labels-cy.jsonl:1: labels.secret-exfiltration: "no_match", but `) {
		t.Errorf("two people's labels differ: %v", err)
	}
	weak := writeTemp(t, "weak.jsonl", line("c9", "secret-exfiltration", "match", "override", `,"label_source":"weak"`)+"\n")
	if _, err := ReadLabels([]string{weak}, nil); err == nil || !strings.Contains(err.Error(), "weak.jsonl:1: label_source") {
		t.Errorf("weak label: %v", err)
	}
}
