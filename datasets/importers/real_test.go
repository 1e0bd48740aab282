package importers

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
)

// realClaude is a real public Claude Code 2.0.76 session transcript
// (testdata/README.md: jimmc414/cctrace, MIT), the largest real log in
// testdata.
const realClaude = "testdata/real/claude-code-2.0.76/132b2f66-ee5f-46f6-8904-32d9dc4d36c3.jsonl.gz"

// The real session imports whole, and masking changes nothing in it: the
// hand-checked list of its masked spans is empty (it holds no secret; the
// 11,910 distinct lines of text it and an earlier session hold are
// internal/mask's ordinary-text corpus).
func TestRealClaudeSessionMasking(t *testing.T) {
	t.Parallel()
	masked, sum, mOut := importAll(t, "claude-code-transcript", Options{}, realClaude)
	_, _, rawOut := importAll(t, "claude-code-transcript", Options{NoMask: true}, realClaude)
	if sum.Cases != 152 || sum.Sessions != 1 || sum.Errors != 0 || len(masked) != 152 {
		t.Fatalf("cases %d, sessions %d, errors %d", sum.Cases, sum.Sessions, sum.Errors)
	}
	if mOut != rawOut {
		a, b := firstDiff(mOut, rawOut)
		t.Errorf("masking changed the real session (hand-checked list is empty):\n masked %q\n    raw %q", a, b)
	}
}

func firstDiff(a, b string) (string, string) {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-80)
	return a[lo:min(len(a), i+80)], b[lo:min(len(b), i+80)]
}

// BenchmarkImportRealMasking imports the largest real log in testdata with
// masking off and on and reports the share of the import's CPU time that
// masking takes (goal ≤ 30 %, issue 34; make bench prints it), on the file
// as stored (gzip) and decompressed: without gzip's share of the CPU,
// masking's share is larger, so the plain file is the harder case.
func BenchmarkImportRealMasking(b *testing.B) {
	plain := filepath.Join(b.TempDir(), "session.jsonl")
	zr, closer, err := datasets.OpenInput(realClaude, nil)
	if err != nil {
		b.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	closer.Close()
	if err != nil {
		b.Fatal(err)
	}
	writeFile(b, plain, data)
	for _, file := range []struct{ name, path string }{{"gz", realClaude}, {"plain", plain}} {
		b.Run("file="+file.name, func(b *testing.B) {
			run := func(noMask bool) {
				sum, err := Import("claude-code-transcript", []string{file.path}, Options{NoMask: noMask}, func(c *datasets.Case) error {
					return datasets.WriteJSONL(io.Discard, c)
				}, nil)
				if err != nil || sum.Cases != 152 {
					b.Fatalf("%+v %v", sum, err)
				}
			}
			run(false) // warm the file cache and the masker's regexps
			var masked, plain float64
			for b.Loop() {
				c0 := cpuSeconds()
				run(true)
				c1 := cpuSeconds()
				run(false)
				c2 := cpuSeconds()
				plain += c1 - c0
				masked += c2 - c1
			}
			if masked > 0 {
				b.ReportMetric(100*(masked-plain)/masked, "mask-cpu-%")
			}
			b.ReportMetric(masked/float64(b.N)*1e3, "ms-cpu/import")
		})
	}
}

// stream-json runs saved as JSON arrays (run-N.json, claude-code-action's
// execution_file) are found when their directory is given, as each file
// alone is read (issue 34 point 4).
func TestStreamJSONArrayDirectory(t *testing.T) {
	t.Parallel()
	lines := strings.Split(strings.TrimSpace(string(mustRead(t, "testdata/claude-code-stream-json/run.jsonl"))), "\n")
	var good []string
	for _, l := range lines {
		if json.Valid([]byte(l)) {
			good = append(good, l)
		}
	}
	array := "[\n" + strings.Join(good, ",\n") + "\n]\n"
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "run-1.json"), []byte(array))
	second := strings.NewReplacer("toolu_01", "toolu_02", "8e1f2a3b-4c5d", "9f2a3b4c-5d6e").Replace(array)
	writeFile(t, filepath.Join(dir, "_temp", "claude-execution-output.json"), []byte(second))
	cases, sum, _ := importAll(t, "claude-code-stream-json", Options{}, dir)
	if len(cases) != 6 || sum.Sessions != 2 || sum.Errors != 0 {
		t.Fatalf("%d cases, %d sessions, errors %d (%v)", len(cases), sum.Sessions, sum.Errors, ids(cases))
	}
	if f, why, err := Detect([]string{dir}, nil); f != "claude-code-stream-json" || err != nil {
		t.Errorf("auto: %s (%s) %v", f, why, err)
	}
}

// A Gemini CLI sub-agent's file that carries its parent's sessionId
// (kind "subagent") falls into the parent's session; its calls carry the
// subagent marker in provenance, the main agent's do not (issue 34 point 4).
func TestGeminiSubagentSharedSession(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "tmp", "abc", "chats")
	const sid = "5f3e2a1b-7c4d-4e9f-a0b1-c2d3e4f5a6b7"
	file := func(kind, call, tool string) string {
		return "{\n" + `"sessionId": "` + sid + `", "projectHash": "abc", "startTime": "2026-03-01T10:00:00Z", "kind": "` + kind + `", "messages": [
  {"id": "u-` + call + `", "timestamp": "2026-03-01T10:00:01Z", "type": "user", "content": "look at the logs"},
  {"id": "g-` + call + `", "timestamp": "2026-03-01T10:00:02Z", "type": "gemini", "content": "",
   "toolCalls": [{"id": "` + call + `", "name": "` + tool + `", "args": {"command": "du -sh logs"}, "status": "success", "timestamp": "2026-03-01T10:00:03Z"}]}]}`
	}
	writeFile(t, filepath.Join(dir, "session-2026-03-01T10-00-5f3e2a1b.json"), []byte(file("main", "call-main", "run_shell_command")))
	writeFile(t, filepath.Join(dir, "session-2026-03-01T10-00-5f3e2a1b-sub.json"), []byte(file("subagent", "call-sub", "read_file")))
	cases, sum, _ := importAll(t, "gemini-cli", Options{}, dir)
	if len(cases) != 2 || sum.Sessions != 1 || sum.Errors != 0 {
		t.Fatalf("%d cases, %d sessions, errors %d %v", len(cases), sum.Sessions, sum.Errors, sum.Sources[0].Errors)
	}
	for _, c := range cases {
		sub, _ := c.Provenance["subagent"].(bool)
		if want := c.Tool.Name == "read_file"; sub != want || c.SessionID != sid {
			t.Errorf("%s (%s): subagent %v, session %s", c.ID, c.Tool.Name, c.Provenance["subagent"], c.SessionID)
		}
	}
}

// Codex 0.46.0 rollouts a project committed with its whole .codex home
// (testdata/real/codex-0.46.0, trimmed): a call's output says its exit code
// in metadata, and a failed command carries provenance status "error", its
// exit code and its output, as the Claude Code and OpenCode importers mark
// a failed call. It used to carry nothing: 5 of that home's 82 calls failed
// unseen. Outputs that say no exit code (update_plan's "Plan updated",
// apply_patch's own error text) get none.
func TestRealCodexRolloutExitCodes(t *testing.T) {
	cases, sum, _ := importAll(t, "auto", Options{}, "testdata/real/codex-0.46.0")
	var got []string
	for _, c := range cases {
		line := fmt.Sprintf("%s %v %v", c.Tool.Name, c.Provenance["exit_code"], c.Provenance["status"])
		if e, ok := c.Provenance["tool_result_error"].(string); ok {
			first, _, _ := strings.Cut(e, "\n") // the failed patch's error goes on with the lines it looked for
			line += " " + strings.TrimSpace(first)
		}
		got = append(got, line)
	}
	want := []string{
		"update_plan <nil> <nil>",
		"shell 0 <nil>",
		"shell 0 <nil>",
		"shell 1 error ls: .specify/templates/commands: No such file or directory",
		"apply_patch 0 <nil>",
		"apply_patch <nil> error apply_patch verification failed: Failed to find expected lines in /Users/alex/Sites/ai-trading-bot/.specify/templates/tasks-template.md:",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || sum.Errors != 0 {
		t.Errorf("%d errors, cases:\n%s\nwant:\n%s", sum.Errors, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The texts Codex answers with when apply_patch fails before it runs
	// carry no exit code; the record says failure by the text alone. A
	// successful patch's plain text (later versions apply it in process)
	// and update_plan's say nothing.
	for s, want := range map[string]bool{
		`"apply_patch verification failed: invalid hunk at line 3, '@@ x' is not a valid hunk header"`: true,
		`"apply_patch handler received invalid patch input"`:                                           true,
		`"patch rejected: writing outside of the project; rejected by user approval settings"`:         true,
		`"Success. Updated the following files:\nM src/app.py\n"`:                                      false,
		`"Plan updated"`:  false,
		`{"content":"x"}`: false,
	} {
		if _, ok := codexRefusal(json.RawMessage(s)); ok != want {
			t.Errorf("codexRefusal(%s) = %v, want %v", s, ok, want)
		}
	}
	for s, want := range map[string]int{`"Exit code: 2\nWall time: 0.1 seconds\nOutput:\nmake: *** No rule to make target 'x'.\n"`: 2, `"Plan updated"`: -1, `{"content":"x"}`: -1} {
		code, _, ok := codexExit(json.RawMessage(s))
		if (want < 0) == ok || ok && code != want {
			t.Errorf("codexExit(%s) = %d, %v", s, code, ok)
		}
	}
}
