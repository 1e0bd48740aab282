package reports

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
)

func gateSummaryOf(rs []*replay.Result) *GateSummary {
	s := NewGateSummary()
	for _, r := range rs {
		s.Add(r)
	}
	return s
}

func TestGateSummaryCounts(t *testing.T) {
	t.Parallel()
	got := gateSummaryOf(fixtureResults()).Judges()
	// Hand count of fixtureResults: judge a has c-1 (request_approval,
	// expected request_approval, one live call), c-2 (allow, no expectation),
	// c-3 (request_approval, expected deny: a miss; a cache hit and a
	// timed-out live call: two calls, one of them cached, as summary.json
	// counts them). Judge b has c-1 (allow, expected approval).
	zero := func() map[datasets.Action]int64 {
		m := map[datasets.Action]int64{}
		for _, a := range GateActions {
			m[a] = 0
		}
		return m
	}
	aActions, bActions := zero(), zero()
	aActions[datasets.ActionRequestApproval], aActions[datasets.ActionAllow] = 2, 1
	bActions[datasets.ActionAllow] = 1
	half, none := 0.5, 0.0
	// Permissions: judge a's cases were allow, ask and off (not counted);
	// judge b's one case allow.
	want := []GateCounts{
		{Judge: "ollama/qwen2.5:3b@sha256:abc+p1", Cases: 3, Actions: aActions, Expected: 2, Matched: 1,
			MatchRate: &half, Calls: 3, CacheHits: 1, Failures: 1, Permissions: map[string]int64{"allow": 1, "ask": 1}},
		{Judge: "recorded/judge-v2", Cases: 1, Actions: bActions, Expected: 1, Matched: 0, MatchRate: &none,
			Permissions: map[string]int64{"allow": 1}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	if empty := NewGateSummary().Judges(); len(empty) != 0 {
		t.Fatalf("empty summary has %d judges", len(empty))
	}
}

func TestGateSummaryRender(t *testing.T) {
	t.Parallel()
	s := gateSummaryOf(fixtureResults())
	// A judge with no expected actions shows the N/A mark, not 0 %.
	s.Add(&replay.Result{Judge: "none", GateAction: datasets.ActionDenyCurrentTool})
	for _, tt := range []struct {
		format Format
		file   string
	}{
		{FormatTable, "gates.txt"},
		{FormatTSV, "gates.tsv"},
		{FormatMarkdown, "gates.md"},
		{FormatJSON, "gates.json"},
	} {
		t.Run(string(tt.format), func(t *testing.T) {
			var b bytes.Buffer
			if err := s.Render(&b, tt.format); err != nil {
				t.Fatal(err)
			}
			if tt.format == FormatJSON && !json.Valid(b.Bytes()) {
				t.Fatalf("invalid JSON: %s", b.String())
			}
			golden(t, tt.file, b.Bytes())
		})
	}
}

func TestParseFormat(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Format{"table": FormatTable, "TSV": FormatTSV, "csv": FormatCSV, "md": FormatMarkdown,
		"markdown": FormatMarkdown, "json": FormatJSON} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseFormat("xlsx"); err == nil {
		t.Error("ParseFormat(xlsx) succeeded")
	}
	if f := DefaultFormat(&bytes.Buffer{}); f != FormatTSV {
		t.Errorf("DefaultFormat(buffer) = %q, want tsv", f)
	}
}
