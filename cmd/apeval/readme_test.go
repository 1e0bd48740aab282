package main

import (
	"os"
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
