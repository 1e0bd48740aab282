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
	parts := excerptParts(strings.Split(block, "\n"))
	if len(parts) < 3 {
		t.Fatalf("the excerpt has %d parts between its cuts, want the judges' table, a rule's block and the verdict", len(parts))
	}
	code, out := ptyRun(t, 100, map[string]string{"NO_COLOR": "1"}, "run", "-q", "--out", filepath.Join(t.TempDir(), "first"))
	if code != exitNoGo {
		t.Errorf("exit %d, the README says NO-GO (exit 1)", code)
	}
	if p := missingPart(parts, out); p != nil {
		t.Errorf("README's excerpt part is not in apeval run's output:\n%s\n--- the output:\n%s", strings.Join(p, "\n"), out)
	}
}

// excerptParts splits a printed excerpt at its "…" cuts into runs of
// lines (trailing spaces and blank lines at a cut dropped).
func excerptParts(lines []string) [][]string {
	var parts [][]string
	var cur []string
	flush := func() {
		for len(cur) > 0 && cur[0] == "" {
			cur = cur[1:]
		}
		for len(cur) > 0 && cur[len(cur)-1] == "" {
			cur = cur[:len(cur)-1]
		}
		if len(cur) > 0 {
			parts = append(parts, cur)
		}
		cur = nil
	}
	for _, l := range lines {
		if strings.TrimSpace(l) == "…" {
			flush()
			continue
		}
		cur = append(cur, strings.TrimRight(l, " "))
	}
	flush()
	return parts
}

// missingPart returns the first part that is not in out as consecutive
// lines after the previous part, nil when every part is.
func missingPart(parts [][]string, out string) []string {
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
			return p
		}
		from = found + len(p)
	}
	return nil
}

// TestREADMEPlanExcerpts: each command block of the README's "apeval plan"
// section prints what the README shows under it (the guesses' plans, and
// the plan from the sample as a pilot, run here first), figure for figure.
// A whole-process test (make e2e): the pilot's plan takes a minute or two.
func TestREADMEPlanExcerpts(t *testing.T) {
	wholeProcess(t)
	t.Parallel()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	sec := string(data)
	at := strings.Index(sec, "### apeval plan")
	if at < 0 {
		t.Fatal("README has no '### apeval plan' section")
	}
	sec = sec[at+len("### apeval plan"):]
	sec = sec[:strings.Index(sec, "\n### ")]
	blocks := strings.Split(sec, "\n```")
	dir := t.TempDir()
	pilot := filepath.Join(dir, "apeval-out", "sample")
	ran := 0
	for i := 1; i+1 < len(blocks); i += 2 { // the odd pieces are inside a fence
		lines := strings.Split(strings.TrimPrefix(blocks[i], "\n"), "\n")
		if !strings.HasPrefix(lines[0], "apeval plan ") {
			continue
		}
		cmd := ""
		k := 0
		for ; k < len(lines); k++ {
			l := strings.TrimSpace(lines[k])
			cmd += " " + strings.TrimSuffix(l, "\\")
			if !strings.HasSuffix(l, "\\") {
				k++
				break
			}
		}
		args := strings.Fields(cmd)[1:]
		usesPilot := false
		for j, a := range args {
			if a == "apeval-out/sample" {
				args[j], usesPilot = pilot, true
			}
		}
		if usesPilot {
			if _, err := os.Stat(pilot); err != nil {
				if code, _, stderr := apeval(t, "", "run", "-q", "--out", pilot); code == exitUsage {
					t.Fatal(stderr)
				}
			}
		}
		code, out, stderr := apeval(t, "", append(args, "--format", "table")...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", cmd, code, stderr)
			continue
		}
		out = strings.ReplaceAll(out, pilot, "apeval-out/sample")
		parts := excerptParts(lines[k:])
		if len(parts) == 0 {
			t.Errorf("README shows no output under%s", cmd)
		}
		if p := missingPart(parts, out); p != nil {
			t.Errorf("README's excerpt of%s is not what it prints:\n%s\n--- it prints:\n%s", cmd, strings.Join(p, "\n"), out)
		}
		ran++
	}
	if ran < 3 {
		t.Errorf("checked %d plan excerpts of the README, want its 3", ran)
	}
}
