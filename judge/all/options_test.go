package all

import (
	"context"
	"strings"
	"testing"

	"github.com/apeval/apeval/judge"
)

// A sampling option that is not a number in its range is refused when the
// judge is opened, never sent on every call (issue 35 point 15).
func TestJudgeOptionValuesChecked(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"openai:m", "ollama:m"} {
		for opt, bad := range map[string]string{"temperature": "abc", "top_p": "1.5"} {
			_, err := judge.Open(context.Background(), spec, judge.Config{OpenAIBaseURL: "http://127.0.0.1:1/v1", OllamaHost: "http://127.0.0.1:1",
				Options: map[string]string{opt: bad}})
			if err == nil || !strings.Contains(err.Error(), "judge option "+opt) {
				t.Errorf("%s %s=%s: %v", spec, opt, bad, err)
			}
		}
		if _, err := judge.Open(context.Background(), spec, judge.Config{OpenAIBaseURL: "http://127.0.0.1:1/v1", OllamaHost: "http://127.0.0.1:1",
			Options: map[string]string{"temperature": "0.2"}}); err != nil && strings.Contains(err.Error(), "judge option") {
			t.Errorf("%s temperature=0.2: %v", spec, err)
		}
	}
}
