package reports

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

// TestCommentRendersAsGFM: each golden comment, rendered as GitHub does
// (GFM, raw HTML kept: .ci/commentpage.go, which comment-check opens in
// Chromium), keeps its marker hidden and its tables and folds whole: the
// Δ table and the folded per-rule tables come out as <table>, no table
// row leaks into a paragraph as raw pipes.
func TestCommentRendersAsGFM(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/comment-*.md")
	if len(files) < 4 {
		t.Fatalf("%d golden comments", len(files))
	}
	md := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := md.Convert(src, &b); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if !strings.HasPrefix(out, "<!-- apeval:") {
			t.Errorf("%s: the marker is not a hidden HTML comment first: %.80s", f, out)
		}
		if n := strings.Count(out, "<table>"); n < 8 {
			t.Errorf("%s: %d tables rendered, want the Δ table and the 7 folded figure tables", f, n)
		}
		if strings.Count(out, "<details>") != strings.Count(out, "</details>") {
			t.Errorf("%s: unbalanced <details>", f)
		}
		if strings.Contains(out, "<p>|") {
			t.Errorf("%s: a table row rendered as a paragraph", f)
		}
	}
}
