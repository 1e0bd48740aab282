package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apeval/apeval/docs"
	"github.com/spf13/cobra"
)

// TestHelpPages keeps docs/cli and the commands one set: every command has
// its page (pageFile, titled with its path), every page names a command,
// the index and a command's page (## Commands) link the pages of its
// subcommands, every command has an example, and each page's generated parts (the judge specs, the
// importers) show what the program prints, so the page read on GitHub is
// the help.
func TestHelpPages(t *testing.T) {
	t.Parallel()
	pages, err := docs.Pages()
	if err != nil {
		t.Fatal(err)
	}
	byCommand := map[string]docs.Page{}
	for _, p := range pages {
		byCommand[p.Command] = p
	}
	gen := helpGenerated()
	index := docs.Index()
	seen := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Name() == "help" || c.Name() == "completion" {
			return
		}
		path := c.CommandPath()
		seen[path] = true
		p, ok := byCommand[path]
		want := pageFile(path)
		switch {
		case !ok:
			t.Errorf("%s has no page docs/cli/%s", path, want)
		case p.File != want:
			t.Errorf("%s's page is docs/cli/%s, want docs/cli/%s", path, p.File, want)
		}
		if !strings.Contains(index, "]("+want+")") {
			t.Errorf("docs/cli/README.md does not link %s", want)
		}
		if ok && c.Long != p.Help(gen) {
			t.Errorf("%s --help does not print its page's description", path)
		}
		// Every command's --help shows how it is typed (apeval datasets,
		// judges and policy had none).
		if c.Example == "" {
			t.Errorf("%s --help has no example: add ## Examples to docs/cli/%s", path, want)
		}
		for _, name := range p.Generated() {
			if _, ok := gen[name]; !ok {
				t.Errorf("docs/cli/%s: the program does not generate <!--%s-->", p.File, name)
			}
		}
		if ok && p.Help(nil) != p.Help(gen) {
			t.Errorf("docs/cli/%s: a generated part (%s) is out of date: the page shows\n%s\n--help prints\n%s",
				p.File, strings.Join(p.Generated(), ", "), p.Help(nil), p.Help(gen))
		}
		for _, sub := range c.Commands() {
			if f := pageFile(sub.CommandPath()); ok && sub.Name() != "help" && sub.Name() != "completion" && !p.Links(f) {
				t.Errorf("docs/cli/%s: its ## Commands does not link %s", p.File, f)
			}
			walk(sub)
		}
	}
	walk(newRootCmd(IO{}))
	for _, p := range pages {
		if !seen[p.Command] {
			t.Errorf("docs/cli/%s: %q is not a command", p.File, p.Command)
		}
	}
}

// updateFlags rewrites the ## Flags block of every docs/cli page from the
// commands' flags: go test ./cmd/apeval -run TestHelpPageFlags -update.
var updateFlags = flag.Bool("update", false, "rewrite the ## Flags block of docs/cli's pages from the commands' flags")

// TestHelpPageFlags: every docs/cli page lists its command's flags as
// --help prints them (cobra's flag usages), so each flag --help shows is on
// the page a user reads on GitHub (most pages named only a few of theirs:
// run's page lacked 25 of its flags, replay's 33). The root's page ends with
// the global flags every command takes; the others point there.
func TestHelpPageFlags(t *testing.T) {
	pages, err := docs.Pages()
	if err != nil {
		t.Fatal(err)
	}
	byCommand := map[string]docs.Page{}
	for _, p := range pages {
		byCommand[p.Command] = p
	}
	checked := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Name() == "help" || c.Name() == "completion" {
			return
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
		p, ok := byCommand[c.CommandPath()]
		if !ok {
			return // TestHelpPages names the missing page
		}
		// cobra adds -h (and the root's --version) when it runs.
		c.InitDefaultHelpFlag()
		c.InitDefaultVersionFlag()
		want := strings.TrimRight(c.LocalFlags().FlagUsages(), "\n")
		if want == "" {
			t.Fatalf("%s has no flags: --help prints at least -h", c.CommandPath())
		}
		checked++
		if p.Flags == want {
			return
		}
		if !*updateFlags {
			t.Errorf("docs/cli/%s: its ## Flags block is not what %s --help lists (go test ./cmd/apeval -run TestHelpPageFlags -update rewrites it):\n%s", p.File, c.CommandPath(), want)
			return
		}
		file := filepath.Join("..", "..", "docs", "cli", p.File)
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		note := "Global flags, which every command takes: [`apeval`](apeval.md#flags)."
		if !c.HasParent() {
			note = ""
		}
		if err := os.WriteFile(file, []byte(docs.SetFlags(string(b), want, note)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	walk(newRootCmd(IO{}))
	if checked < 30 {
		t.Errorf("checked the flags of %d pages; the tree has over 30 commands", checked)
	}
}

// TestHelpSetInGoPanics: a command whose Long or Example is set in Go
// (an old branch merged) stops every test instead of losing the edit to
// its page.
func TestHelpSetInGoPanics(t *testing.T) {
	t.Parallel()
	root := &cobra.Command{Use: "apeval"}
	root.AddCommand(&cobra.Command{Use: "run", Long: "set in Go"})
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "apeval run sets its Long or Example in Go: its help text is its page, docs/cli/run.md") {
			t.Errorf("recovered %v", r)
		}
	}()
	applyHelp(root)
}
