package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/apeval/apeval/datasets/importers"
)

// TestREADMEDocumentsEveryCommandAndFlag keeps README.md honest: every
// command and every flag of every command must be mentioned there.
func TestREADMEDocumentsEveryCommandAndFlag(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			return
		}
		if c.HasParent() && c.Runnable() && !strings.Contains(readme, c.CommandPath()) {
			t.Errorf("README does not mention %q", c.CommandPath())
		}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Name == "help" || f.Name == "version" {
				return
			}
			if !strings.Contains(readme, "--"+f.Name) {
				t.Errorf("README does not document %s --%s", c.CommandPath(), f.Name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(IO{}))
}

// TestREADMENamesEveryImporter: the README's datasets import row lists
// every format --from takes (it lacked opencode-run-json, assebench and
// redcode, which --help and docs/cli/datasets-import.md name).
func TestREADMENamesEveryImporter(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "| `apeval datasets import ") {
			row = l
		}
	}
	if row == "" {
		t.Fatal("README has no apeval datasets import row")
	}
	for _, f := range importers.Formats() {
		if !strings.Contains(row, "`"+f+"`") {
			t.Errorf("README's datasets import row does not name the format %s", f)
		}
	}
}

// TestREADMEFirstRunExcerpt: the README's "A first run" excerpt is what
// `apeval run` prints on a 100-column terminal, figure for figure (issue
// 32: every figure of the sample's story still true). The excerpt's parts
// between its "…" cuts must each appear as consecutive lines of the
// output, in order. .ci/readme-check.sh runs the README's commands but
// checks only their exit codes.
func TestREADMEFirstRunExcerpt(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	at := strings.Index(readme, "## A first run")
	if at < 0 {
		t.Fatal("README has no '## A first run' section")
	}
	start := strings.Index(readme[at:], "```text\n")
	if start < 0 {
		t.Fatal("no text block in the README's first run")
	}
	block := readme[at+start+len("```text\n"):]
	block = block[:strings.Index(block, "```")]
	var parts [][]string
	var cur []string
	for _, l := range strings.Split(block, "\n") {
		if strings.TrimSpace(l) == "…" {
			if len(cur) > 0 {
				parts = append(parts, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, strings.TrimRight(l, " "))
	}
	if len(cur) > 0 {
		parts = append(parts, cur)
	}
	for i, p := range parts { // blank lines at a cut are not part of the excerpt
		for len(p) > 0 && p[0] == "" {
			p = p[1:]
		}
		for len(p) > 0 && p[len(p)-1] == "" {
			p = p[:len(p)-1]
		}
		parts[i] = p
	}
	if len(parts) < 3 {
		t.Fatalf("the excerpt has %d parts between its cuts, want the judges' table, a rule's block and the verdict", len(parts))
	}
	code, out := ptyRun(t, 100, map[string]string{"NO_COLOR": "1"}, "run", "-q", "--out", filepath.Join(t.TempDir(), "first"))
	if code != exitNoGo {
		t.Errorf("exit %d, the README says NO-GO (exit 1)", code)
	}
	lines := strings.Split(out, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	from := 0
	for _, p := range parts {
		found := -1
		for i := from; i+len(p) <= len(lines) && found < 0; i++ {
			match := true
			for k := range p {
				if lines[i+k] != p[k] {
					match = false
					break
				}
			}
			if match {
				found = i
			}
		}
		if found < 0 {
			t.Errorf("README's excerpt part is not in apeval run's output (after line %d):\n%s\n--- the output:\n%s", from, strings.Join(p, "\n"), out)
			return
		}
		from = found + len(p)
	}
}
