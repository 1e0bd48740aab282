package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"

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

// TestDocsRecordedJudgesAreTheSamples: every recorded:NAME of the sample's
// judges in the README and docs names one of its recordings exactly (a run
// takes no prefix there): docs/cli/label.md's example, also `apeval label
// --help`, read recorded:recorded/ollama/qwen2.5:3b and
// recorded:recorded/ollama/qwen2.5:7b, and exited 2.
func TestDocsRecordedJudgesAreTheSamples(t *testing.T) {
	t.Parallel()
	r := datasets.Open([]string{"../../datasets/sample/cases.jsonl"}, nil)
	defer r.Close()
	st := datasets.NewStats()
	for r.Scan() {
		if rec := r.Record(); rec.Err == nil {
			st.Add(rec.Case)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	names := st.RecordedJudgeNames()
	if len(names) == 0 {
		t.Fatal("the sample holds no recorded judge")
	}
	files, _ := filepath.Glob("../../docs/*.md")
	cli, _ := filepath.Glob("../../docs/cli/*.md")
	files = append(append(files, cli...), "../../README.md")
	spec := regexp.MustCompile("recorded:([^\\s`\"')\\]]*qwen[^\\s`\"')\\]]*)")
	checked := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range spec.FindAllStringSubmatch(string(b), -1) {
			checked++
			if !slices.Contains(names, m[1]) {
				t.Errorf("%s: %s is not a recording of the sample (%s)", f, m[0], strings.Join(names, ", "))
			}
		}
	}
	if checked == 0 {
		t.Error("no recorded:…qwen… spec found: the check checked nothing")
	}
}
