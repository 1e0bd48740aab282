package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// goalsSection is the heading of docs/statistics.md's status table of issue
// 32: each row links the section that measures it and names the tests that
// assert it.
const goalsSection = "## Where the goals stand"

// TestStatisticsGoalsLinksResolve: every in-page link of statistics.md's
// "Where the goals stand" (and of the rest of the page) names a heading the
// page has, as GitHub anchors it, so renaming a heading breaks this test
// rather than the status table.
func TestStatisticsGoalsLinksResolve(t *testing.T) {
	t.Parallel()
	text := readStatistics(t)
	anchors := headingAnchors(text)
	section := goalsText(t, text)
	link := regexp.MustCompile(`\]\(#([^)\s]+)\)`)
	inSection := link.FindAllStringSubmatch(section, -1)
	if len(inSection) < 10 {
		t.Fatalf("%q links %d sections, want every status row's (at least 10)", goalsSection, len(inSection))
	}
	for _, m := range link.FindAllStringSubmatch(text, -1) {
		if !anchors[m[1]] {
			t.Errorf("statistics.md links #%s, which no heading of the page is", m[1])
		}
	}
}

// TestStatisticsGoalsTestsExist: every test the status table cites is a
// func TestX in the repository's _test.go files, so removing or renaming
// a test the table says asserts a goal breaks this test.
func TestStatisticsGoalsTestsExist(t *testing.T) {
	t.Parallel()
	section := goalsText(t, readStatistics(t))
	cited := map[string]bool{}
	for _, m := range regexp.MustCompile("`(Test[A-Za-z0-9_]+)`").FindAllStringSubmatch(section, -1) {
		cited[m[1]] = true
	}
	if len(cited) < 20 {
		t.Fatalf("%q cites %d tests, want the tests of every row (at least 20)", goalsSection, len(cited))
	}
	defined := definedTests(t, "..")
	for name := range cited {
		if !defined[name] {
			t.Errorf("statistics.md's %q cites %s, which no _test.go defines", goalsSection, name)
		}
	}
}

func TestHeadingAnchor(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ heading, want string }{
		{"## Where the goals stand", "where-the-goals-stand"},
		{"#### Informative session size, few sessions", "informative-session-size-few-sessions"},
		{"### The upper bound's skew shift", "the-upper-bounds-skew-shift"},
		{"### The accumulator's settings", "the-accumulators-settings"},
		{"### Operating points (apeval simulate)", "operating-points-apeval-simulate"},
		{"### The recall gain: one rule on both paths", "the-recall-gain-one-rule-on-both-paths"},
		{"## `apeval plan` – guesses", "apeval-plan--guesses"},
	} {
		if got := anchor(c.heading); got != c.want {
			t.Errorf("anchor(%q) = %q, want %q", c.heading, got, c.want)
		}
	}
	got := headingAnchors("# A\n\n```\n# not a heading\n```\n## A\n### B b\n")
	for _, want := range []string{"a", "a-1", "b-b"} {
		if !got[want] {
			t.Errorf("headingAnchors: no #%s in %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Error("headingAnchors took a line in a code fence for a heading")
	}
}

func readStatistics(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("statistics.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// goalsText is the status section: from its heading to the next heading
// of the same level.
func goalsText(t *testing.T, text string) string {
	t.Helper()
	i := strings.Index(text, "\n"+goalsSection+"\n")
	if i < 0 {
		t.Fatalf("statistics.md has no %q", goalsSection)
	}
	rest := text[i+1+len(goalsSection):]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// headingAnchors is the set of anchors GitHub gives the page's headings:
// the text lowercased, punctuation dropped, spaces made hyphens; a repeated
// anchor gets -1, -2, …. Lines inside code fences are not headings.
func headingAnchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fence := false
	for line := range strings.SplitSeq(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
			continue
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		a := anchor(line)
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

func anchor(heading string) string {
	h := strings.TrimSpace(strings.TrimLeft(heading, "#"))
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// definedTests is every func TestX(…) of the _test.go files under root,
// leaving out hidden directories (.git, .cache).
func definedTests(t *testing.T, root string) map[string]bool {
	t.Helper()
	decl := regexp.MustCompile(`(?m)^func (Test[A-Za-z0-9_]+)\(`)
	out := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllSubmatch(b, -1) {
			out[string(m[1])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !out["TestStatisticsGoalsTestsExist"] {
		t.Fatalf("the walk from %s found %d tests and not this one: wrong root", root, len(out))
	}
	return out
}
