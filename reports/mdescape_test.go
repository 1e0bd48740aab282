package reports

import (
	"strings"
	"testing"

	"github.com/apeval/apeval/metrics/simulate"
)

// A cascade's name "A>B" reads the same in raw Markdown as rendered: ">"
// is markup only at a line's start, so only a leading one is escaped;
// "<" (an HTML tag or autolink) and "|" (a cell's end) always are.
func TestMarkdownEscapesOnlyWhatIsMarkup(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"A>B:match,unknown @1s": "A>B:match,unknown @1s",
		"> quoted":              `\> quoted`,
		"<script>":              "&lt;script>",
		"a|b\nc":                `a\|b c`,
		"deff where > 1.2":      "deff where > 1.2",
	} {
		if got := mdEscape(in); got != want {
			t.Errorf("mdEscape(%q) = %q, want %q", in, got, want)
		}
	}
	res := &simulate.Result{Rows: []simulate.Row{{Config: "A>B:match,unknown @1s", Kind: "cascade", RuleID: "*"}}}
	var b strings.Builder
	if err := WriteSimulateTable(&b, res, FormatMarkdown, false); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "| A>B:match,unknown @1s") || strings.Contains(out, "&gt;") {
		t.Errorf("the cascade's name is not written as given:\n%s", out)
	}
}
