package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestDocsDocumentEveryFlag: every flag of every command is documented in
// docs/ (the guides and docs/cli's pages), not only in the README's
// tables (--run-id was documented only there).
func TestDocsDocumentEveryFlag(t *testing.T) {
	t.Parallel()
	var docs strings.Builder
	for _, pat := range []string{"../../docs/*.md", "../../docs/cli/*.md"} {
		files, err := filepath.Glob(pat)
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %v", pat, err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			docs.Write(b)
		}
	}
	text := docs.String()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			return
		}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Name == "help" || f.Name == "version" {
				return
			}
			if !strings.Contains(text, "--"+f.Name) {
				t.Errorf("docs/ does not document %s --%s", c.CommandPath(), f.Name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(IO{}))
}
