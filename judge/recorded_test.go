package judge

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/apeval/apeval/judge/internal/fake"
)

func inputFor(ids ...string) Input {
	in := Input{Version: SchemaVersion}
	for _, id := range ids {
		in.Rules = append(in.Rules, Rule{ID: id, Condition: "condition of " + id})
	}
	return in
}

func TestRecorded(t *testing.T) {
	t.Parallel()
	recs := []Recording{
		{Judge: "ollama/a", LatencyMS: 412.5, Status: StatusOK, Decisions: []Decision{
			{RuleID: "r1", Result: Match, Confidence: fake.Ptr(0.9)},
			{RuleID: "r2", Result: NoMatch},
			{RuleID: "old", Result: Match},
		}},
		{Judge: "ollama/b", LatencyMS: 1000, Status: StatusTimeout, Error: "deadline"},
		{Judge: "ollama/c", LatencyMS: 20, Status: StatusOK, Decisions: []Decision{{RuleID: "r1", Result: Unknown}}},
		{Judge: "ollama/c", LatencyMS: 30, Status: StatusOK, Decisions: []Decision{{RuleID: "r3", Result: Match}}},
	}
	tests := []struct {
		name  string
		judge string
		asked []string
		want  Response
	}{
		{
			name: "all present, unasked dropped", judge: "ollama/a", asked: []string{"r2", "r1"},
			want: Response{Status: StatusOK, Latency: 412500 * time.Microsecond, Attempts: 1,
				Decisions: []Decision{{RuleID: "r2", Result: NoMatch}, {RuleID: "r1", Result: Match, Confidence: fake.Ptr(0.9)}}},
		},
		{
			name: "rule added after the recording is missing", judge: "ollama/a", asked: []string{"r1", "r9"},
			want: Response{Status: StatusOK, Latency: 412500 * time.Microsecond, Attempts: 1,
				Decisions: []Decision{{RuleID: "r1", Result: Match, Confidence: fake.Ptr(0.9)}}, Missing: []string{"r9"}},
		},
		{
			name: "recorded failure taken as is", judge: "ollama/b", asked: []string{"r1"},
			want: Response{Status: StatusTimeout, Error: "deadline", Cause: CauseTimeout, Latency: time.Second, Attempts: 1},
		},
		{
			name: "entries merged, first with an asked decision is the call", judge: "ollama/c", asked: []string{"r3", "r1"},
			want: Response{Status: StatusOK, Latency: 20 * time.Millisecond, Attempts: 1,
				Decisions: []Decision{{RuleID: "r3", Result: Match}, {RuleID: "r1", Result: Unknown}}},
		},
		{
			name: "no recording for this judge", judge: "ollama/z", asked: []string{"r1", "r2"},
			want: Response{Status: StatusMissing, Error: "no recording for judge ollama/z", Missing: []string{"r1", "r2"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := NewRecorded(tt.judge)
			if got := j.Identity().String(); got != "recorded/"+tt.judge {
				t.Fatalf("identity %q", got)
			}
			got := j.Judge(context.Background(), Request{Input: inputFor(tt.asked...), Recorded: recs})
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
	got := j.Judge(context.Background(), Request{Input: inputFor("r1")})
	want := Response{Status: StatusError, Error: "no judge configured (--judge none)", Cause: CauseNoJudge}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}
