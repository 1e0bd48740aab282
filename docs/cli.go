// Package docs holds apeval's command reference, docs/cli/<command>.md:
// one Markdown page per command, which is also the text `apeval COMMAND
// --help` prints (its description and examples), so the page a user reads on
// GitHub and the help are one text.
//
// A page is the command's path as its title, its description, and an
// "## Examples" section whose fenced block is what --help prints under
// Examples (a command with subcommands adds "## Commands", links to their
// pages, which --help leaves out: it lists them itself):
//
//	# apeval datasets validate
//
//	Reads every line of the files …
//
//	## Examples
//
//	```sh
//	  apeval datasets validate cases.jsonl
//	```
//
// Every page also has a "## Flags" section: a ```text block holding the
// command's own flags exactly as --help prints them under Flags (cobra's
// flag usages), which --help prints itself, so it is the page's only; the
// root's page adds the global flags every command takes. A test in
// cmd/apeval keeps the block equal to the flags and rewrites it with
// -update (SetFlags).
//
// In the description, fence lines (```), lines that are an HTML comment and
// the backslash of Markdown's escapes (\<) are Markdown only: --help leaves
// them out. A part the program generates
// (the registered judge backends, the importers) sits between
// <!--name--> and <!--/name--> markers: the page shows the text as it is
// written there, --help prints the program's own (Page.Help), and a test in
// cmd/apeval keeps the two equal.
//
// Where to look:
//
//	cli.go         Pages (every page read and checked), Page.Help (the
//	               description as --help prints it), Index
//	cli/*.md       the pages; cli/README.md the index
//	cli_test.go    a page's parts: fences, comments, escapes, generated parts
//	statistics_test.go
//	               statistics.md's "Where the goals stand": every in-page
//	               link names a heading, every test it cites exists
//
// cmd/apeval's applyHelp (root.go) puts the pages on the commands, and its
// TestHelpPages keeps pages and commands one set.
//
// Not a stable Go API.
package docs

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
)

//go:embed cli/*.md
var cli embed.FS

// Page is one command's reference page.
type Page struct {
	File    string // file name under docs/cli, e.g. "datasets-import.md"
	Command string // the title: the command's path, e.g. "apeval datasets import"
	body    string // the description as written, generated parts included
	Example string // the Examples block, as --help prints it
	Flags   string // the ## Flags block: the flags as --help lists them
	links   string // the page's other sections (## Commands), not help text
}

// Links reports whether the page links to the page file (outside its
// description and examples: its ## Commands).
func (p Page) Links(file string) bool { return strings.Contains(p.links, "]("+file+")") }

// Pages reads every page under docs/cli (its index, README.md, aside).
func Pages() ([]Page, error) {
	names, err := fs.Glob(cli, "cli/*.md")
	if err != nil {
		return nil, err
	}
	var pages []Page
	for _, name := range names {
		if path.Base(name) == "README.md" {
			continue
		}
		b, err := cli.ReadFile(name)
		if err != nil {
			return nil, err
		}
		p, err := parsePage(path.Base(name), string(b))
		if err != nil {
			return nil, err
		}
		pages = append(pages, p)
	}
	return pages, nil
}

// Index is docs/cli/README.md, the list of the pages.
func Index() string {
	b, _ := cli.ReadFile("cli/README.md")
	return string(b)
}

func parsePage(file, text string) (Page, error) {
	p := Page{File: file}
	title, rest, _ := strings.Cut(text, "\n")
	cmd, ok := strings.CutPrefix(title, "# ")
	if !ok {
		return p, fmt.Errorf("docs/cli/%s: the first line is not a title (# apeval …)", file)
	}
	p.Command = cmd
	// The description ends at the first section; of the sections only
	// Examples is help text, the others (## Commands) are the page's.
	body, sections, _ := strings.Cut(rest, "\n## ")
	p.body = body
	examples, hasExamples := "", false
	for _, sec := range strings.Split("## "+sections, "\n## ") {
		name := strings.TrimPrefix(sec, "## ")
		if e, ok := strings.CutPrefix(name, "Examples\n"); ok {
			examples, hasExamples = e, true
		} else if f, ok := strings.CutPrefix(name, "Flags\n"); ok {
			block, err := fenced(file, "Flags", "text", f)
			if err != nil {
				return p, err
			}
			p.Flags = block
		} else {
			p.links += sec + "\n"
		}
	}
	if hasExamples {
		block, err := fenced(file, "Examples", "sh", examples)
		if err != nil {
			return p, err
		}
		p.Example = block
	}
	return p, nil
}

// fenced is the first fenced block of a section, its fence marked lang.
func fenced(file, section, lang, text string) (string, error) {
	block, ok := strings.CutPrefix(strings.TrimLeft(text, "\n"), "```"+lang+"\n")
	if !ok {
		return "", fmt.Errorf("docs/cli/%s: ## %s holds no ```%s block", file, section, lang)
	}
	block, _, ok = strings.Cut(block, "\n```")
	if !ok {
		return "", fmt.Errorf("docs/cli/%s: the ```%s block of ## %s is not closed", file, lang, section)
	}
	return block, nil
}

// SetFlags returns a page's text with its ## Flags block set to flags
// (the text --help prints under Flags, without its last newline): the
// existing section's block replaced, or a new section added before
// ## Commands, else at the end. note, when not empty, is a line under the
// block (the global flags' pointer).
func SetFlags(text, flags, note string) string {
	sec := "## Flags\n\n```text\n" + flags + "\n```\n"
	if note != "" {
		sec += "\n" + note + "\n"
	}
	if i := strings.Index(text, "\n## Flags\n"); i >= 0 {
		end := len(text)
		if j := strings.Index(text[i+1:], "\n## "); j >= 0 {
			end = i + 1 + j + 1
		}
		rest := text[end:]
		if rest != "" {
			sec += "\n"
		}
		return text[:i+1] + sec + rest
	}
	if i := strings.Index(text, "\n## Commands\n"); i >= 0 {
		return text[:i+1] + sec + "\n" + text[i+1:]
	}
	return strings.TrimRight(text, "\n") + "\n\n" + sec
}

// region is a generated part: <!--name-->text<!--/name-->, on lines of its
// own (the text is then whole lines) or inside a line.
var region = regexp.MustCompile(`(?s)<!--([a-z-]+)-->\n?(.*?)<!--/([a-z-]+)-->\n?`)

// Help is the description --help prints: the page's, with each generated
// part replaced by gen[name] (the page's own text where gen lacks it).
func (p Page) Help(gen map[string]string) string {
	long := region.ReplaceAllStringFunc(p.body, func(m string) string {
		s := region.FindStringSubmatch(m)
		if v, ok := gen[s[1]]; ok {
			return v
		}
		return s[2]
	})
	var out []string
	fenced := false
	for _, l := range strings.Split(long, "\n") {
		switch {
		case strings.HasPrefix(l, "```"):
			fenced = !fenced
			continue
		case fenced:
		case strings.HasPrefix(l, "<!--") && strings.HasSuffix(l, "-->"):
			continue
		default:
			l = escaped.ReplaceAllString(l, "$1")
		}
		out = append(out, l)
	}
	return strings.Trim(strings.Join(out, "\n"), "\n")
}

// escaped is Markdown's backslash escape (\< prints <), outside fences.
var escaped = regexp.MustCompile("\\\\([!-/:-@\\[-`{-~])")

// Generated lists the names of the page's generated parts.
func (p Page) Generated() []string {
	var names []string
	for _, s := range region.FindAllStringSubmatch(p.body, -1) {
		names = append(names, s[1])
	}
	return names
}
