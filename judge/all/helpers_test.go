package all

import (
	"context"
	"os"
	"testing"

	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/judge/exec"
	"github.com/apeval/apeval/judge/internal/fake"
	"github.com/apeval/apeval/judge/ollama"
	"github.com/apeval/apeval/judge/openai"
)

func TestMain(m *testing.M) {
	code := m.Run()
	fake.RemovePlugin()
	os.Exit(code)
}

func openOllama(t *testing.T, f *fake.Server, cfg judge.Config) *ollama.Judge {
	t.Helper()
	cfg.OllamaHost = f.URL
	j, err := judge.Open(context.Background(), "ollama:qwen2.5:3b", cfg)
	if err != nil {
		t.Fatal(err)
	}
	return j.(*ollama.Judge)
}

func openOpenAI(t *testing.T, f *fake.Server, cfg judge.Config) *openai.Judge {
	t.Helper()
	cfg.OpenAIBaseURL = f.URL + "/v1"
	j, err := judge.Open(context.Background(), "openai:judge-small", cfg)
	if err != nil {
		t.Fatal(err)
	}
	return j.(*openai.Judge)
}

func openExec(t *testing.T, command string, cfg judge.Config) *exec.Judge {
	t.Helper()
	j, err := judge.Open(context.Background(), "exec:"+command, cfg)
	if err != nil {
		t.Fatal(err)
	}
	e := j.(*exec.Judge)
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return e
}
