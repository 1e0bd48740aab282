package config

import (
	"strings"
	"testing"

	"github.com/apeval/apeval/judge"
)

func TestParseJudgeFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, spec, url string }{
		{"openai:m@http://localhost:8000/v1", "openai:m", "http://localhost:8000/v1"},
		{" ollama:qwen2.5:3b@https://gpu:11434 ", "ollama:qwen2.5:3b", "https://gpu:11434"},
		{"openai:org@model", "openai:org@model", ""},                     // "@" in a model name
		{"exec:./j --url @http://x", "exec:./j --url @http://x", ""},     // no server for exec
		{"openai:a@b@http://h/v1", "openai:a@b", "http://h/v1"},          // the last server wins
		{"recorded:ollama/x@http://h", "recorded:ollama/x@http://h", ""}, // recorded has no server
	} {
		e, err := ParseJudgeFlag(tc.in)
		if err != nil || e.Spec != tc.spec || e.BaseURL != tc.url {
			t.Errorf("%q: %+v %v, want spec %q url %q", tc.in, e, err, tc.spec, tc.url)
		}
	}
	_, err := ParseJudgeFlag("openai:m@http://")
	if err == nil || !strings.HasPrefix(err.Error(), "--judge openai:m@http://: ") {
		t.Errorf("bad server: %v, want an error naming --judge and the value", err)
	}
}

func TestJudgeEntries(t *testing.T) {
	t.Parallel()
	file := []JudgeEntry{
		{Spec: "openai:m", BaseURL: "http://a/v1", KeyEnv: "K", Options: []string{"temperature=0"}},
		{Spec: "recorded", Options: []string{"x=1"}},
	}
	got, err := JudgeEntries(nil, file, true)
	if err != nil || len(got) != 2 || got[0].BaseURL != "http://a/v1" {
		t.Fatalf("from the file: %+v %v", got, err)
	}
	got[0].Spec = "changed"
	if file[0].Spec != "openai:m" {
		t.Error("JudgeEntries shares the file's slice")
	}
	got, err = JudgeEntries([]string{"openai:m@http://b/v1", "recorded:r1", "ollama:x"}, file, false)
	if err != nil {
		t.Fatal(err)
	}
	// A flag takes the table of its spec, its own @URL over the table's.
	if got[0].BaseURL != "http://b/v1" || got[0].KeyEnv != "K" || got[0].Options[0] != "temperature=0" {
		t.Errorf("flag over table: %+v", got[0])
	}
	if got[1].Options == nil || got[1].Options[0] != "x=1" {
		t.Errorf("recorded:NAME without the bare table's options: %+v", got[1])
	}
	if got[2].HasOwnSettings() || got[2].Options != nil {
		t.Errorf("a judge with no table: %+v", got[2])
	}
	if _, err := JudgeEntries([]string{"openai:m@http://"}, nil, false); err == nil || !strings.Contains(err.Error(), "--judge openai:m@http://") {
		t.Errorf("bad flag: %v", err)
	}
}

func TestJudgeDefaults(t *testing.T) {
	t.Parallel()
	d := JudgeDefaults{OllamaHost: "http://o:11434", OpenAIBaseURL: "http://oa/v1", OpenAIKeyEnv: "MY_KEY", Prompt: "p.txt",
		Options: map[string]string{"temperature": "0.5", OptPriceOut: "2"}}
	if e := d.Effective(JudgeEntry{Spec: "openai:m"}); e.BaseURL != "http://oa/v1" || e.KeyEnv != "MY_KEY" || e.Prompt != "p.txt" {
		t.Errorf("openai: %+v", e)
	}
	if e := d.Effective(JudgeEntry{Spec: "ollama:m", BaseURL: "http://own", Prompt: "own.txt"}); e.BaseURL != "http://own" || e.Prompt != "own.txt" || e.KeyEnv != "" {
		t.Errorf("ollama with its own: %+v", e)
	}
	if e := d.Effective(JudgeEntry{Spec: "recorded:x"}); e.Prompt != "" || e.BaseURL != "" {
		t.Errorf("recorded takes no prompt: %+v", e)
	}
	// The default key variable is not written as the judge's own.
	if e := (JudgeDefaults{OpenAIKeyEnv: "OPENAI_API_KEY"}).Effective(JudgeEntry{Spec: "openai:m"}); e.KeyEnv != "" {
		t.Errorf("default key variable: %+v", e)
	}

	e := JudgeEntry{Spec: "openai:m", Options: []string{"temperature=0", "price_in=1.5", "num_ctx=8"}}
	kv, p, err := d.OptionsFor(e)
	if err != nil || kv["temperature"] != "0.5" || kv["num_ctx"] != "8" || len(kv) != 2 || *p.In != 1.5 || *p.Out != 2 {
		t.Errorf("OptionsFor: %v %+v %v", kv, p, err)
	}
	if got := strings.Join(d.OptionList(e), " "); got != "num_ctx=8 price_in=1.5 price_out=2 temperature=0.5" {
		t.Errorf("OptionList: %q", got)
	}
	_, _, err = JudgeDefaults{}.OptionsFor(JudgeEntry{Spec: "openai:m", Options: []string{"price_in=-1"}})
	if err == nil || err.Error() != `judge openai:m: price_in="-1": want a price per million tokens (a number ≥ 0)` {
		t.Errorf("negative price: %v", err)
	}
	if got := WithoutPrices(map[string]string{OptPriceIn: "1", "a": "b"}); len(got) != 1 || got["a"] != "b" {
		t.Errorf("WithoutPrices: %v", got)
	}
}

func TestJudgeEntryConfigAndDisplay(t *testing.T) {
	t.Parallel()
	base := judge.Config{OllamaHost: "http://default", OpenAIKeyEnv: "OPENAI_API_KEY"}
	c := JudgeEntry{Spec: "ollama:m", BaseURL: "http://gpu:11434"}.Config(base)
	if c.OllamaHost != "http://gpu:11434" || c.Server != "http://gpu:11434" || c.OpenAIBaseURL != "" {
		t.Errorf("ollama: %+v", c)
	}
	c = JudgeEntry{Spec: "openai:m", BaseURL: "http://v/v1", KeyEnv: "K", Prompt: "p"}.Config(base)
	if c.OpenAIBaseURL != "http://v/v1" || c.OpenAIKeyEnv != "K" || c.KeyEnv != "K" || c.PromptFile != "p" || c.OllamaHost != "http://default" {
		t.Errorf("openai: %+v", c)
	}
	d := JudgeEntry{Spec: "openai:m", BaseURL: "https://user:secretpw@h/v1"}.Display()
	if strings.Contains(d, "secretpw") || !strings.HasPrefix(d, "openai:m@https://") {
		t.Errorf("Display shows the password: %q", d)
	}
	if e := (Judge{Spec: " openai:m ", APIKeyEnv: "K"}).Entry(); e.Spec != "openai:m" || e.KeyEnv != "K" {
		t.Errorf("Entry: %+v", e)
	}
}
