package recorded

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/apeval/apeval/judge/core"
	"github.com/apeval/apeval/judge/internal/fake"
)

func inputFor(ids ...string) core.Input {
	in := core.Input{Version: core.SchemaVersion}
	for _, id := range ids {
		in.Rules = append(in.Rules, core.Rule{ID: id, Condition: "condition of " + id})
	}
	return in
}

func TestRecorded(t *testing.T) {
	t.Parallel()
	recs := []core.Recording{
		{Judge: "ollama/a", LatencyMS: 412.5, Status: core.StatusOK, Decisions: []core.Decision{
			{RuleID: "r1", Result: core.Match, Confidence: fake.Ptr(0.9)},
			{RuleID: "r2", Result: core.NoMatch},
			{RuleID: "old", Result: core.Match},
		}},
		{Judge: "ollama/b", LatencyMS: 1000, Status: core.StatusTimeout, Error: "deadline"},
		{Judge: "ollama/c", LatencyMS: 20, Status: core.StatusOK, Decisions: []core.Decision{{RuleID: "r1", Result: core.Unknown}}},
		{Judge: "ollama/c", LatencyMS: 30, Status: core.StatusOK, Decisions: []core.Decision{{RuleID: "r3", Result: core.Match}}},
	}
	tests := []struct {
		name  string
		judge string
		asked []string
		want  core.Response
	}{
		{
			name: "all present, unasked dropped", judge: "ollama/a", asked: []string{"r2", "r1"},
			want: core.Response{Status: core.StatusOK, Latency: 412500 * time.Microsecond, Attempts: 1,
				Decisions: []core.Decision{{RuleID: "r2", Result: core.NoMatch}, {RuleID: "r1", Result: core.Match, Confidence: fake.Ptr(0.9)}}},
		},
		{
			name: "rule added after the recording is missing", judge: "ollama/a", asked: []string{"r1", "r9"},
			want: core.Response{Status: core.StatusOK, Latency: 412500 * time.Microsecond, Attempts: 1,
				Decisions: []core.Decision{{RuleID: "r1", Result: core.Match, Confidence: fake.Ptr(0.9)}}, Missing: []string{"r9"}},
		},
		{
			name: "recorded failure taken as is", judge: "ollama/b", asked: []string{"r1"},
			want: core.Response{Status: core.StatusTimeout, Error: "deadline", Cause: core.CauseTimeout, Latency: time.Second, Attempts: 1},
		},
		{
			name: "entries merged, first with an asked decision is the call", judge: "ollama/c", asked: []string{"r3", "r1"},
			want: core.Response{Status: core.StatusOK, Latency: 20 * time.Millisecond, Attempts: 1,
				Decisions: []core.Decision{{RuleID: "r3", Result: core.Match}, {RuleID: "r1", Result: core.Unknown}}},
		},
		{
			name: "no recording for this judge", judge: "ollama/z", asked: []string{"r1", "r2"},
			want: core.Response{Status: core.StatusMissing, Error: "no recording for judge ollama/z", Missing: []string{"r1", "r2"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := New(tt.judge)
			if got := j.Identity().String(); got != "recorded/"+tt.judge {
				t.Fatalf("identity %q", got)
			}
			got := j.Judge(context.Background(), core.Request{Input: inputFor(tt.asked...), Recorded: recs})
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestNone(t *testing.T) {
	t.Parallel()
	j := NewNone()
	if got := j.Identity().String(); got != "none" {
		t.Fatalf("identity %q", got)
	}
	got := j.Judge(context.Background(), core.Request{Input: inputFor("r1")})
	want := core.Response{Status: core.StatusError, Error: "no judge configured (--judge none)", Cause: core.CauseNoJudge}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}
