package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// compare of runs with nothing in common is exit 2 naming both datasets;
// a partial overlap leads the table, the Markdown and the comment with a
// banner that gives the counts (issue 35 point 12).
func TestCompareCaseOverlap(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sample := filepath.Join(dir, "s")
	if c, _, e := apeval(t, "", "datasets", "sample", "--out", sample); c != 0 {
		t.Fatalf("datasets sample: %d %s", c, e)
	}
	pol := filepath.Join(sample, "policy.toml")
	data, err := os.ReadFile(filepath.Join(sample, "cases.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSpace(string(data)), "\n")
	// other: every case id renamed; half: the first half as they are, the
	// second half renamed.
	rename := func(l string) string {
		return strings.Replace(strings.Replace(l, `"id":"`, `"id":"z-`, 1), `"session_id":"`, `"session_id":"z-`, 1)
	}
	var other, half strings.Builder
	for i, l := range lines {
		other.WriteString(rename(l))
		if i < len(lines)/2 {
			half.WriteString(l)
		} else {
			half.WriteString(rename(l))
		}
	}
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	runOf := func(name, ds, judge string) string {
		out := filepath.Join(dir, name)
		if c, _, e := apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--judge", judge, "--out", out, "-q"); c == exitUsage {
			t.Fatalf("run %s: %s", name, e)
		}
		return out
	}
	base := runOf("base", filepath.Join(sample, "cases.jsonl"), "recorded:ollama/qwen2.5:3b")
	disjoint := runOf("disjoint", write("other.jsonl", other.String()), "recorded:ollama/qwen2.5:7b-instruct-q4_K_M")
	partial := runOf("partial", write("half.jsonl", half.String()), "recorded:ollama/qwen2.5:7b-instruct-q4_K_M")

	code, stdout, stderr := apeval(t, "", "compare", "--format", "table", base, disjoint)
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, "share no case") ||
		!strings.Contains(stderr, "cases.jsonl") || !strings.Contains(stderr, "other.jsonl") {
		t.Fatalf("disjoint runs: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	if code, stdout, _ = apeval(t, "", "compare", "--comment", base, disjoint); code != exitUsage || stdout != "" {
		t.Fatalf("disjoint runs, comment: exit %d, stdout %q", code, stdout)
	}

	n := len(lines)
	shared := n / 2
	want := "partial overlap: " + itoa(shared) + " cases in common are compared; " + itoa(n-shared) + " only in the base run"
	for _, format := range []string{"table", "markdown"} {
		code, stdout, stderr = apeval(t, "", "compare", "--format", format, base, partial)
		if code == exitUsage {
			t.Fatalf("%s: exit 2: %s", format, stderr)
		}
		first, _, _ := strings.Cut(stdout, "\n")
		if !strings.Contains(first, want) {
			t.Errorf("%s: first line %q, want the banner %q", format, first, want)
		}
	}
	_, stdout, _ = apeval(t, "", "compare", "--comment", base, partial)
	ls := strings.Split(stdout, "\n")
	if len(ls) < 2 || !strings.HasPrefix(ls[0], "<!-- apeval:") || !strings.Contains(ls[1], want) {
		t.Errorf("comment: the banner is not the first visible line:\n%s", stdout)
	}
	// JSON carries the counts; the banner goes to stderr.
	_, stdout, stderr = apeval(t, "", "compare", "--json", base, partial)
	if !strings.Contains(stdout, `"shared": `+itoa(shared)) || !strings.Contains(stderr, want) {
		t.Errorf("json: stdout lacks the counts or stderr the banner: %s", stderr)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
