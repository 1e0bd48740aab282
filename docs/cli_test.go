package docs

import (
	"slices"
	"testing"
)

func TestPageHelp(t *testing.T) {
	text := "# apeval x\n\n" +
		"<!-- a note for readers of the Markdown -->\n" +
		"One line with a \\<tag> and one: <!--inline-->a, b<!--/inline-->,\n" +
		"then a block:\n" +
		"```text\n  {\"k\": \\\"v\"}\n```\n" +
		"Specs:\n<!--block-->\n```text\n  one\n  two\n```\n<!--/block-->\n\n" +
		"Last line.\n\n## Examples\n\n```sh\n  apeval x\n  apeval x --y\n```\n"
	p, err := parsePage("x.md", text)
	if err != nil {
		t.Fatal(err)
	}
	if p.Command != "apeval x" || p.Example != "  apeval x\n  apeval x --y" {
		t.Errorf("command %q, example %q", p.Command, p.Example)
	}
	want := "One line with a <tag> and one: a, b,\nthen a block:\n  {\"k\": \\\"v\"}\n" +
		"Specs:\n  one\n  two\n\nLast line."
	if got := p.Help(nil); got != want {
		t.Errorf("Help(nil) =\n%q\nwant\n%q", got, want)
	}
	want = "One line with a <tag> and one: c,\nthen a block:\n  {\"k\": \\\"v\"}\n" +
		"Specs:\n  three\n\nLast line."
	if got := p.Help(map[string]string{"inline": "c", "block": "  three\n"}); got != want {
		t.Errorf("Help(gen) =\n%q\nwant\n%q", got, want)
	}
	if g := p.Generated(); !slices.Equal(g, []string{"inline", "block"}) {
		t.Errorf("Generated() = %q", g)
	}
}

func TestPageErrors(t *testing.T) {
	for _, text := range []string{
		"apeval x\n",
		"# apeval x\n\n## Examples\n\n  apeval x\n",
		"# apeval x\n\n## Examples\n\n```sh\n  apeval x\n",
	} {
		if _, err := parsePage("x.md", text); err == nil {
			t.Errorf("no error for %q", text)
		}
	}
}

func TestPagesRead(t *testing.T) {
	pages, err := Pages()
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 || Index() == "" {
		t.Fatalf("%d pages, index %d bytes", len(pages), len(Index()))
	}
}

func TestPageSections(t *testing.T) {
	p, err := parsePage("x.md", "# apeval x\n\nText.\n\n## Commands\n\n- [`apeval x y`](x-y.md)\n\n## Examples\n\n```sh\n  apeval x y\n```\n")
	if err != nil {
		t.Fatal(err)
	}
	if p.Help(nil) != "Text." || p.Example != "  apeval x y" || !p.Links("x-y.md") || p.Links("x-z.md") {
		t.Errorf("help %q, example %q, links x-y.md %v", p.Help(nil), p.Example, p.Links("x-y.md"))
	}
	p, err = parsePage("x.md", "# apeval x\n\n## Commands\n\n- [`apeval x y`](x-y.md)\n")
	if err != nil || p.Help(nil) != "" || p.Example != "" || !p.Links("x-y.md") {
		t.Errorf("a page of links only: help %q, example %q, err %v", p.Help(nil), p.Example, err)
	}
}

func TestPageFlags(t *testing.T) {
	const flags = "      --json   print JSON\n  -h, --help   help for x"
	plain := "# apeval x\n\nText.\n\n## Examples\n\n```sh\n  apeval x\n```\n"
	withCmds := "# apeval x\n\nText.\n\n## Examples\n\n```sh\n  apeval x\n```\n\n## Commands\n\n- [`apeval x y`](x-y.md)\n"
	want := "# apeval x\n\nText.\n\n## Examples\n\n```sh\n  apeval x\n```\n\n## Flags\n\n```text\n" + flags + "\n```\n\nGlobal: see apeval.md.\n"
	if got := SetFlags(plain, flags, "Global: see apeval.md."); got != want {
		t.Errorf("SetFlags appended\n%q\nwant\n%q", got, want)
	}
	// Before ## Commands, and the same again when set twice or replaced.
	wantCmds := "# apeval x\n\nText.\n\n## Examples\n\n```sh\n  apeval x\n```\n\n## Flags\n\n```text\n" + flags + "\n```\n\n## Commands\n\n- [`apeval x y`](x-y.md)\n"
	got := SetFlags(withCmds, flags, "")
	if got != wantCmds {
		t.Errorf("SetFlags before Commands\n%q\nwant\n%q", got, wantCmds)
	}
	if again := SetFlags(SetFlags(got, "  -h, --help   old", ""), flags, ""); again != wantCmds {
		t.Errorf("SetFlags replacing\n%q\nwant\n%q", again, wantCmds)
	}
	if again := SetFlags(SetFlags(want, "old", ""), flags, "Global: see apeval.md."); again != want {
		t.Errorf("SetFlags replacing the last section\n%q\nwant\n%q", again, want)
	}
	p, err := parsePage("x.md", wantCmds)
	if err != nil {
		t.Fatal(err)
	}
	// The block is the page's, not help text; ## Commands still links.
	if p.Flags != flags || p.Help(nil) != "Text." || p.Example != "  apeval x" || !p.Links("x-y.md") {
		t.Errorf("flags %q, help %q, example %q", p.Flags, p.Help(nil), p.Example)
	}
	if _, err := parsePage("x.md", "# apeval x\n\nText.\n\n## Flags\n\n  --json\n"); err == nil {
		t.Error("no error for a ## Flags section without a ```text block")
	}
}
