package recorded

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/judge/cache"
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

// TestRegistersItself: recorded and none register through judge.Register
// like every backend, not live, so judge.Open makes them from a spec, the
// cache and the budget leave them as they are, and the help lists them.
func TestRegistersItself(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"recorded", "none"} {
		b, ok := judge.Lookup(name)
		if !ok || b.Live || b.Server || b.Prompt {
			t.Errorf("%s: registered %v, backend %+v", name, ok, b)
		}
	}
	rec, err := judge.Open(context.Background(), "recorded:ollama/a", judge.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := rec.(*Judge); !ok || rec.Identity().String() != "recorded/ollama/a" {
		t.Errorf("recorded:ollama/a opens %T %s", rec, rec.Identity())
	}
	none, err := judge.Open(context.Background(), "none", judge.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := none.(None); !ok {
		t.Errorf("none opens %T", none)
	}
	if judge.IsLive(rec) || judge.IsLive(none) {
		t.Error("a recorded or the none judge counts as live")
	}
	c, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b := judge.NewBudget(1, 0, 0, nil)
	for _, j := range []judge.Judge{rec, none} {
		if cache.Cached(j, c) != j || b.Limit(j, nil) != j {
			t.Errorf("%s is wrapped by the cache or the budget", j.Identity())
		}
	}
	help := judge.SpecHelp()
	if !strings.Contains(help, "  recorded[:NAME]  decisions recorded in the dataset") || !strings.Contains(help, "  none             no judge") {
		t.Errorf("help lacks recorded or none:\n%s", help)
	}
}
