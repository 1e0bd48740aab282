package examples

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// actionInputs runs .ci/action-inputs.sh MODE on text: the items, and
// whether it refused the text.
func actionInputs(t testing.TB, mode, text string) ([]string, bool) {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join(repoRoot, ".ci", "action-inputs.sh"), mode)
	cmd.Stdin = strings.NewReader(text)
	cmd.Dir = t.TempDir()
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 2 {
			return nil, false
		}
		t.Fatalf("action-inputs.sh %s: %v", mode, err)
	}
	var items []string
	for _, s := range strings.SplitAfter(string(out), "\x00") {
		if s != "" {
			items = append(items, strings.TrimSuffix(s, "\x00"))
		}
	}
	return items, true
}

// The Action reads judges one per line, whole, and dataset and args as
// words a shell would split, quotes honoured, nothing expanded (issue 35
// point 10).
func TestActionInputs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode, text string
		want       []string
	}{
		{"lines", "exec:python3 judge.py --model small\n  ollama:qwen2.5:7b  \n\n", []string{"exec:python3 judge.py --model small", "ollama:qwen2.5:7b"}},
		{"lines", "exec:./j --prompt \"be strict\"\r\nrecorded", []string{`exec:./j --prompt "be strict"`, "recorded"}},
		{"words", "a.jsonl b.jsonl\nc.jsonl", []string{"a.jsonl", "b.jsonl", "c.jsonl"}},
		{"words", `"my cases.jsonl" 'other one.jsonl' a\ b.jsonl`, []string{"my cases.jsonl", "other one.jsonl", "a b.jsonl"}},
		{"words", "*.go $HOME $(touch pwned) `touch pwned2` ~", []string{"*.go", "$HOME", "$(touch", "pwned)", "`touch", "pwned2`", "~"}},
		{"words", "--concurrency 8 --judge-option 'temperature=0.1'", []string{"--concurrency", "8", "--judge-option", "temperature=0.1"}},
		{"words", "", nil},
		{"lines", " \n\t\n", nil},
	} {
		got, ok := actionInputs(t, tc.mode, tc.text)
		if !ok || !slices.Equal(got, tc.want) {
			t.Errorf("%s %q: %q (ok %v), want %q", tc.mode, tc.text, got, ok, tc.want)
		}
	}
	if _, ok := actionInputs(t, "words", `"unclosed.jsonl`); ok {
		t.Error("an unmatched quote was accepted")
	}
}

// The run step builds apeval's command line from the inputs: one --judge
// per line with its spaces, datasets that hold spaces or glob characters
// as given. A stand-in apeval on PATH records the arguments it got.
func TestActionRunStepArguments(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fake := filepath.Join(dir, "bin", "apeval")
	os.MkdirAll(filepath.Dir(fake), 0o755)
	os.WriteFile(fake, []byte("#!/usr/bin/env bash\nprintf '%s\\0' \"$@\" >\"$APEVAL_ARGV\"\nexit 2\n"), 0o755)
	// A file the glob would match, and one whose name holds a space.
	os.WriteFile(filepath.Join(dir, "x.jsonl"), nil, 0o644)
	argv := filepath.Join(dir, "argv")
	cmd := exec.Command("bash", filepath.Join(repoRoot, ".ci", "gh-action.sh"), "run")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"PATH="+filepath.Dir(fake)+":"+os.Getenv("PATH"),
		"APEVAL_ARGV="+argv,
		"RUNNER_TEMP="+dir,
		"GITHUB_OUTPUT="+filepath.Join(dir, "output"),
		"APEVAL_CACHE_DIR="+filepath.Join(dir, "cache"),
		"APEVAL_DATASET=\"my cases.jsonl\" *.jsonl",
		"APEVAL_JUDGES=exec:python3 judge.py --model small\nollama:qwen2.5:7b",
		"APEVAL_ARGS=--judge-option 'prompt_note=be strict' --retries 2",
	)
	os.MkdirAll(filepath.Join(dir, "apeval"), 0o755)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("run step: %v\n%s", err, out)
	}
	data, err := os.ReadFile(argv)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
	want := []string{"--dataset", "my cases.jsonl", "--dataset", "*.jsonl",
		"--judge", "exec:python3 judge.py --model small", "--judge", "ollama:qwen2.5:7b",
		"--judge-option", "prompt_note=be strict", "--retries", "2"}
	i := slices.Index(got, "--dataset")
	if i < 0 || !slices.Equal(got[i:], want) {
		t.Fatalf("apeval got %q,\nwant it to end with %q", got, want)
	}
	if outs := parseCommandFile(t, filepath.Join(dir, "output")); outs["exit-code"] != "2" || outs["verdict"] != "ERROR" {
		t.Errorf("outputs %v", outs)
	}

	// An unmatched quote: no apeval at all, ERROR with exit 2 and a message.
	os.Remove(argv)
	cmd = exec.Command("bash", filepath.Join(repoRoot, ".ci", "gh-action.sh"), "run")
	cmd.Dir = dir
	cmd.Env = append(slices.Clone(cmd.Env[:0]), os.Environ()...)
	cmd.Env = append(cmd.Env, "PATH="+filepath.Dir(fake)+":"+os.Getenv("PATH"), "APEVAL_ARGV="+argv, "RUNNER_TEMP="+dir,
		"GITHUB_OUTPUT="+filepath.Join(dir, "output2"), "APEVAL_CACHE_DIR="+filepath.Join(dir, "cache"), `APEVAL_DATASET="oops.jsonl`)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "unmatched double quote") {
		t.Fatalf("unmatched quote: %v\n%s", err, out)
	}
	if _, err := os.Stat(argv); err == nil {
		t.Error("apeval ran with an input that could not be read")
	}
	if outs := parseCommandFile(t, filepath.Join(dir, "output2")); outs["exit-code"] != "2" || outs["verdict"] != "ERROR" {
		t.Errorf("outputs %v", outs)
	}
}

// quoteWord quotes a word so a shell (and the Action) reads it back as it is.
func quoteWord(w string) string {
	return "'" + strings.ReplaceAll(w, "'", `'"'"'`) + "'"
}

// FuzzActionWords: any words (no newline, no NUL), each quoted as a shell
// would quote it and joined by spaces or newlines, come back from the
// Action's word splitting exactly, globs, $, backquotes and quotes
// included; and each line of a judges input comes back whole, trimmed.
func FuzzActionWords(f *testing.F) {
	f.Add("exec:python3 judge.py --model small", "my cases.jsonl", "*.jsonl", true)
	f.Add(`don't`, `"quoted"`, `$(touch pwned) $HOME`, false)
	f.Add(`a\b`, " lead", "trail ", true)
	f.Fuzz(func(t *testing.T, a, b, c string, newline bool) {
		words := []string{a, b, c}
		for _, w := range words {
			if !utf8.ValidString(w) || strings.ContainsAny(w, "\n\r\x00") || w == "" {
				t.Skip()
			}
		}
		sep := " "
		if newline {
			sep = "\n"
		}
		var q []string
		for _, w := range words {
			q = append(q, quoteWord(w))
		}
		got, ok := actionInputs(t, "words", strings.Join(q, sep))
		if !ok || !slices.Equal(got, words) {
			t.Fatalf("words %q: got %q (ok %v)", words, got, ok)
		}
		var want []string
		for _, w := range words {
			if s := strings.TrimSpace(w); s != "" {
				want = append(want, s)
			}
		}
		if got, ok := actionInputs(t, "lines", strings.Join(words, "\n")); !ok || !slices.Equal(got, want) {
			t.Fatalf("lines %q: got %q, want %q", words, got, want)
		}
	})
}
