package judge

import (
	"context"
	"errors"
	"testing"
)

type idJudge struct{ id Identity }

func (j idJudge) Identity() Identity                      { return j.id }
func (j idJudge) Judge(context.Context, Request) Response { return Response{} }

func TestTellApartNamesTheServerOfSameIdentities(t *testing.T) {
	t.Parallel()
	qwen := Identity{Backend: "openai", Model: "qwen2.5-7b", PromptVersion: "p1"}
	other := Identity{Backend: "ollama", Model: "llama3", PromptVersion: "p1"}
	js := []Judge{idJudge{qwen}, idJudge{other}, idJudge{qwen}}
	servers := []string{"http://localhost:8000/v1", "http://localhost:11434", "https://api.example.com/openai/"}
	if err := TellApart(js, servers); err != nil {
		t.Fatal(err)
	}
	want := []string{"openai/qwen2.5-7b@localhost:8000+p1", "ollama/llama3+p1", "openai/qwen2.5-7b@api.example.com/openai+p1"}
	for i, j := range js {
		if got := j.Identity().String(); got != want[i] {
			t.Errorf("judge %d: %s, want %s", i, got, want[i])
		}
	}

	js = []Judge{idJudge{qwen}, idJudge{other}, idJudge{qwen}}
	var same *SameJudge
	err := TellApart(js, []string{"http://h:1/v1", "", "http://h:1/v1/"})
	if !errors.As(err, &same) || same.First != 0 || same.Second != 2 || same.Identity != "openai/qwen2.5-7b+p1" {
		t.Errorf("one server: err %v", err)
	}
	if err := TellApart([]Judge{idJudge{qwen}, idJudge{qwen}}, []string{"", "http://h:1"}); !errors.As(err, &same) || same.First != 1 || same.Second != 0 {
		t.Errorf("one without a server: err %v", err)
	}
}

// TestIsLiveByTheRegistry: a judge of an unregistered backend counts as
// live (recorded and none, registered as not live, are tested in
// judge/recorded).
func TestIsLiveByTheRegistry(t *testing.T) {
	t.Parallel()
	if !IsLive(idJudge{Identity{Backend: "some-wrapper", Model: "m"}}) {
		t.Error("an unregistered backend does not count as live")
	}
}
