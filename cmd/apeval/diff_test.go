package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/judge/judgetest"
)

// diff.html shows each side's judge input exactly as that judge received
// it: two runs of the first 300 sample cases against two fake
// OpenAI-compatible servers that answer differently and record every
// input; every input on the page is one a server received, the base's from
// the base's server and the head's from the head's.
func TestDiffShowsTheJudgeInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	canon := func(in judge.Input) string {
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	type seen struct {
		mu sync.Mutex
		in map[string]bool
	}
	server := func(decide func(judge.Input) judge.Output) (*judgetest.Server, *seen) {
		s := &seen{in: map[string]bool{}}
		srv := judgetest.NewOpenAI(judgetest.Options{Model: "m", Decide: func(in judge.Input) judge.Output {
			s.mu.Lock()
			s.in[canon(in)] = true
			s.mu.Unlock()
			return decide(in)
		}})
		t.Cleanup(srv.Close)
		return srv, s
	}
	everything := func(in judge.Input) judge.Output {
		out := judge.Output{Version: judge.SchemaVersion}
		for _, r := range in.Rules {
			out.Decisions = append(out.Decisions, judge.Decision{RuleID: r.ID, Result: judge.Match})
		}
		return out
	}
	srvB, seenB := server(judgetest.Keywords)
	srvH, seenH := server(everything)
	for _, r := range []struct {
		name string
		srv  *judgetest.Server
	}{{"base", srvB}, {"head", srvH}} {
		code, _, stderr := apeval(t, "", "run", "--judge", "openai:m", "--openai-base-url", r.srv.URL+"/v1", "--limit", "300",
			"--no-cache", "--out", filepath.Join(dir, r.name), "--format", "tsv")
		if code == 2 {
			t.Fatalf("run %s: exit 2\n%s", r.name, stderr)
		}
	}
	out := filepath.Join(dir, "d")
	if code, stdout, stderr := apeval(t, "", "diff", "--out", out, filepath.Join(dir, "base"), filepath.Join(dir, "head")); code != 0 {
		t.Fatalf("diff: exit %d\n%s%s", code, stdout, stderr)
	}
	page, err := os.ReadFile(filepath.Join(out, "diff.html"))
	if err != nil {
		t.Fatal(err)
	}
	chunks := regexp.MustCompile(`<script class="cases" type="application/json">(.*)</script>`).FindAllSubmatch(page, -1)
	var shown [2]int
	for _, m := range chunks {
		var cases []struct {
			ID string          `json:"id"`
			BI json.RawMessage `json:"bi"`
			HI json.RawMessage `json:"hi"`
		}
		if err := json.Unmarshal(m[1], &cases); err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			for side, raw := range []json.RawMessage{c.BI, c.HI} {
				if raw == nil {
					continue
				}
				var in judge.Input
				if err := json.Unmarshal(raw, &in); err != nil {
					t.Fatal(err)
				}
				s := []*seen{seenB, seenH}[side]
				if !s.in[canon(in)] {
					t.Errorf("case %s: the %s input on the page is not one its judge received:\n%s", c.ID, []string{"base", "head"}[side], raw)
				}
				shown[side]++
			}
		}
	}
	if shown[0] == 0 || shown[1] == 0 {
		t.Fatalf("the page shows %d base and %d head judge inputs; want some of each", shown[0], shown[1])
	}
	if strings.Contains(string(page), "sk-") {
		t.Errorf("diff.html carries something like a key")
	}
}
