//go:build e2e

// End-to-end tests of the Ollama backend against a real `ollama serve`
// serving the tiny generated model (judge/internal/tinymodel). Run them with
// .ci/e2e-ollama.sh (make e2e-ollama), which builds the server, creates the
// model "tiny" and sets APEVAL_E2E_OLLAMA_HOST, _BIN and _MODELS.

package ollama_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apeval/apeval/internal/ollamatest"
	"github.com/apeval/apeval/judge"
	_ "github.com/apeval/apeval/judge/ollama"
)

const e2eModel = ollamatest.Model

func e2eHost(t *testing.T) string { return ollamatest.Host(t) }

func tagsDigest(t *testing.T, host, model string) string {
	return ollamatest.TagsDigest(t, host, model)
}

// e2eInput is the i-th of a varied set of judge inputs asking about nRules
// rules (one to three), with different tools, arguments and context.
func e2eInput(i, nRules int) judge.Input {
	rules := []judge.Rule{
		{ID: "rule-delete", Condition: "The agent is about to delete something that is hard to restore."},
		{ID: "rule-send", Condition: "The agent is about to send data outside the organisation."},
		{ID: "rule-ja", Condition: "元に戻すことが難しい削除を行おうとしている"},
	}
	tools := []judge.Tool{
		{Name: "Bash", Category: "command_execution", ArgumentsSummary: "rm -rf build", Arguments: map[string]any{"command": fmt.Sprintf("rm -rf build-%d", i)}},
		{Name: "WebFetch", Category: "external_send", ArgumentsSummary: "POST https://example.com/upload", Arguments: map[string]any{"url": "https://example.com/upload", "n": i}},
		{Name: "Edit", Category: "file_change", ArgumentsSummary: "README.md", Arguments: map[string]any{"file_path": "README.md", "old": "a", "new": fmt.Sprint(i)}},
	}
	return judge.Input{
		Version: judge.SchemaVersion,
		Rules:   rules[:nRules],
		Current: judge.Current{Piece: "coding", Movement: "implement", HookPoint: "tool.before", Tool: tools[i%len(tools)]},
		Context: judge.InContext{
			LatestUserMessage: fmt.Sprintf("task %d: clean up and publish", i),
			RecentMessages:    []judge.Message{{Role: "assistant", Content: "I will run the command now."}},
			ApprovalState:     "none",
		},
	}
}

func openTiny(t *testing.T, host string) judge.Judge {
	t.Helper()
	j, err := judge.Open(context.Background(), "ollama:"+e2eModel, judge.Config{OllamaHost: host, Timeout: 60 * time.Second})
	if err != nil {
		t.Fatalf("open ollama:%s on %s: %v", e2eModel, host, err)
	}
	return j
}

func TestE2EOllamaIdentity(t *testing.T) {
	t.Parallel()
	host := e2eHost(t)
	digest := tagsDigest(t, host, e2eModel)
	j := openTiny(t, host)
	id := j.Identity()
	if id.Backend != "ollama" || id.Model != e2eModel+":latest" || id.PromptVersion != judge.DefaultPromptVersion {
		t.Errorf("identity %+v, want ollama/%s:latest+%s", id, e2eModel, judge.DefaultPromptVersion)
	}
	if len(digest) < 12 || id.Digest != digest[:12] {
		t.Errorf("identity digest %q, want the first 12 hex digits of /api/tags' %q", id.Digest, digest)
	}
	want := fmt.Sprintf("ollama/%s:latest@%s+%s", e2eModel, digest[:12], judge.DefaultPromptVersion)
	if got := id.String(); got != want {
		t.Errorf("identity %q, want %q", got, want)
	}
	d, ok := j.(judge.Describer)
	if !ok {
		t.Fatalf("%T does not describe itself", j)
	}
	details := d.Details()
	checks := map[string]string{"digest": digest, "family": "llama", "format": "gguf", "host": host}
	for k, v := range checks {
		if details[k] != v {
			t.Errorf("details[%q] = %q, want %q", k, details[k], v)
		}
	}
}

// TestE2EOllamaCalls makes calls one at a time, so the client's latency can
// be held against the server's own total_duration: the client must never
// report less than the server spent, and the difference (HTTP, JSON) must
// stay within 50 ms. On a machine busy with other work a single call can
// miss that by a scheduling delay, so a call over it is measured again, up
// to three times in all: a systematic overhead fails every time.
func TestE2EOllamaCalls(t *testing.T) {
	t.Parallel()
	host := e2eHost(t)
	j := openTiny(t, host)
	ctx := context.Background()
	const n, tries, maxGap = 12, 3, 50 * time.Millisecond
	for i := range n {
		in := e2eInput(i, 1)
		var gaps []time.Duration
		for try := 1; ; try++ {
			resp := j.Judge(ctx, judge.Request{Input: in})
			checkAnswer(t, i, in, resp)
			s := resp.Server
			gaps = append(gaps, resp.Latency-s.Total)
			// The first call loads the model; its load time is reported apart.
			t.Logf("call %d: latency %v, server total %v (load %v, prompt %d tokens, %d completion tokens)",
				i, resp.Latency.Round(time.Millisecond), s.Total.Round(time.Millisecond),
				s.Load.Round(time.Millisecond), s.PromptTokens, s.CompletionTokens)
			if resp.Latency-s.Total <= maxGap || try == tries {
				break
			}
		}
		if last := gaps[len(gaps)-1]; last > maxGap {
			t.Errorf("call %d: client latency exceeds server total_duration by %v in %d tries (> %v)", i, gaps, tries, maxGap)
		}
	}
	// Every answer came through the JSON-schema format: the server supports
	// structured output and never made the backend step down.
	if mode := j.(interface{ StructuredMode() string }).StructuredMode(); mode != judge.ModeJSONSchema {
		t.Errorf("structured-output mode %q after %d calls, want %q", mode, n, judge.ModeJSONSchema)
	}
}

// checkAnswer holds one answered call to the contract: status ok, one valid
// decision per rule asked in order, server timings reported, and a client
// latency never below the server's total_duration.
func checkAnswer(t *testing.T, i int, in judge.Input, resp judge.Response) {
	t.Helper()
	if resp.Status != judge.StatusOK {
		t.Fatalf("call %d: status %s (%s), want ok", i, resp.Status, resp.Error)
	}
	if len(resp.Decisions) != len(in.Rules) {
		t.Fatalf("call %d: %d decisions for %d rules", i, len(resp.Decisions), len(in.Rules))
	}
	for k, d := range resp.Decisions {
		if d.RuleID != in.Rules[k].ID {
			t.Errorf("call %d: decision %d is for %q, want %q", i, k, d.RuleID, in.Rules[k].ID)
		}
		if d.Result != judge.Match && d.Result != judge.NoMatch && d.Result != judge.Unknown {
			t.Errorf("call %d: result %q", i, d.Result)
		}
		if d.Confidence != nil && (*d.Confidence < 0 || *d.Confidence > 1) {
			t.Errorf("call %d: confidence %v", i, *d.Confidence)
		}
	}
	s := resp.Server
	if s.Total <= 0 || s.Eval <= 0 || s.PromptEval <= 0 || s.PromptTokens <= 0 || s.CompletionTokens <= 0 {
		t.Errorf("call %d: server timings not populated: %+v", i, s)
	}
	if s.Total < s.Eval+s.PromptEval {
		t.Errorf("call %d: server total %v < prompt eval %v + eval %v", i, s.Total, s.PromptEval, s.Eval)
	}
	if resp.Latency < s.Total {
		t.Errorf("call %d: client latency %v < server total_duration %v", i, resp.Latency, s.Total)
	}
	if resp.Attempts != 1 {
		t.Errorf("call %d: %d attempts", i, resp.Attempts)
	}
}

// TestE2EOllamaConcurrent checks that concurrent calls, queued by the server,
// are all answered.
func TestE2EOllamaConcurrent(t *testing.T) {
	t.Parallel()
	host := e2eHost(t)
	j := openTiny(t, host)
	const n, workers = 8, 4
	var wg sync.WaitGroup
	resps := make([]judge.Response, n)
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			for i := range next {
				resps[i] = j.Judge(context.Background(), judge.Request{Input: e2eInput(i, 1)})
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, r := range resps {
		if r.Status != judge.StatusOK || len(r.Decisions) != 1 {
			t.Errorf("call %d: status %s (%s), %d decisions", i, r.Status, r.Error, len(r.Decisions))
		}
		if r.Latency < r.Server.Total {
			t.Errorf("call %d: client latency %v < server total_duration %v", i, r.Latency, r.Server.Total)
		}
	}
}

// TestE2EOllamaMultiRule asks about two and three rules in one call. The
// tiny model cannot tell rules apart; Ollama's format is the tuple schema
// (item k may only name the k-th asked rule), so every answer must still be
// valid, one decision per rule, in order.
func TestE2EOllamaMultiRule(t *testing.T) {
	t.Parallel()
	host := e2eHost(t)
	j := openTiny(t, host)
	for i := range 6 {
		in := e2eInput(i, 2+i%2)
		r := j.Judge(context.Background(), judge.Request{Input: in})
		switch r.Status {
		case judge.StatusOK:
			if len(r.Decisions) != len(in.Rules) {
				t.Fatalf("call %d: %d decisions for %d rules", i, len(r.Decisions), len(in.Rules))
			}
			for k, d := range r.Decisions {
				if d.RuleID != in.Rules[k].ID {
					t.Errorf("call %d: decision %d is for %q, want %q", i, k, d.RuleID, in.Rules[k].ID)
				}
			}
		default:
			t.Errorf("call %d: status %s (%s)", i, r.Status, r.Error)
		}
		if r.Server.Total <= 0 {
			t.Errorf("call %d: no server timings on a %s answer", i, r.Status)
		}
		t.Logf("call %d: %d rules: %s %s", i, len(in.Rules), r.Status, r.Error)
	}
}

// checkSampleOK accepts the check's sample call: it asks about two rules,
// and the tuple schema keeps even the tiny model's answer valid.
func checkSampleOK(status judge.Status, _ string) bool {
	return status == judge.StatusOK
}

func TestE2EOllamaCheck(t *testing.T) {
	t.Parallel()
	host := e2eHost(t)
	digest := tagsDigest(t, host, e2eModel)
	cfg := judge.Config{OllamaHost: host, Timeout: 60 * time.Second}

	r := judge.Check(context.Background(), "ollama:"+e2eModel, cfg)
	if !r.Reachable || !r.ModelPresent || r.Error != "" {
		t.Errorf("check: reachable %v, present %v, error %q; want reachable and present", r.Reachable, r.ModelPresent, r.Error)
	}
	if r.Digest != digest[:12] || r.Details["digest"] != digest || !strings.Contains(r.Identity, "@"+digest[:12]+"+") {
		t.Errorf("check: digest %q, details digest %q, identity %q; want /api/tags' %q", r.Digest, r.Details["digest"], r.Identity, digest)
	}
	if r.StructuredOutput != judge.ModeJSONSchema {
		t.Errorf("check: structured output %q, want %q", r.StructuredOutput, judge.ModeJSONSchema)
	}
	if !checkSampleOK(r.SampleStatus, r.SampleError) || r.SampleLatency <= 0 {
		t.Errorf("check: sample call %s (%s) in %v", r.SampleStatus, r.SampleError, r.SampleLatency)
	}
	if r.OK() != (r.SampleStatus == judge.StatusOK) {
		t.Errorf("check: OK() = %v with sample status %s", r.OK(), r.SampleStatus)
	}

	m := judge.Check(context.Background(), "ollama:missing", cfg)
	if !m.Reachable || m.ModelPresent || m.OK() || !strings.Contains(m.Error, "missing") {
		t.Errorf("check missing: reachable %v, present %v, OK %v, error %q; want reachable, absent, an error naming the model", m.Reachable, m.ModelPresent, m.OK(), m.Error)
	}
	found := false
	for _, name := range m.Models {
		found = found || name == e2eModel+":latest"
	}
	if !found {
		t.Errorf("check missing: models %v do not list %s:latest", m.Models, e2eModel)
	}
}

func TestE2EOllamaMissingModel(t *testing.T) {
	t.Parallel()
	host := e2eHost(t)
	_, err := judge.Open(context.Background(), "ollama:missing", judge.Config{OllamaHost: host, Timeout: 10 * time.Second})
	if err == nil {
		t.Fatal("opening ollama:missing succeeded")
	}
	for _, want := range []string{`"missing"`, "not found", e2eModel + ":latest"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
}

// TestE2EOllamaServerStops stops the server between calls: the next call is
// a counted failure (status error, a message, never a panic), and once the
// server is back the same judge answers again.
func TestE2EOllamaServerStops(t *testing.T) {
	t.Parallel()
	srv := ollamatest.StartServer(t)
	j := openTiny(t, srv.Host)
	ctx := context.Background()
	if r := j.Judge(ctx, judge.Request{Input: e2eInput(0, 1)}); r.Status != judge.StatusOK {
		t.Fatalf("before stop: status %s (%s)", r.Status, r.Error)
	}
	srv.Stop()
	for i := 1; i <= 3; i++ {
		r := j.Judge(ctx, judge.Request{Input: e2eInput(i, 1)})
		if r.Status != judge.StatusError || r.Error == "" || len(r.Decisions) != 0 {
			t.Errorf("server down, call %d: status %s, error %q, %d decisions; want error with a message", i, r.Status, r.Error, len(r.Decisions))
		}
		if r.Latency <= 0 || r.Server.Total != 0 {
			t.Errorf("server down, call %d: latency %v, server total %v", i, r.Latency, r.Server.Total)
		}
	}
	srv.Start()
	if r := j.Judge(ctx, judge.Request{Input: e2eInput(4, 1)}); r.Status != judge.StatusOK {
		t.Errorf("after restart: status %s (%s)", r.Status, r.Error)
	}
}
