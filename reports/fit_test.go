package reports

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func widest(s string) int {
	m := 0
	for _, l := range strings.Split(s, "\n") {
		m = max(m, utf8.RuneCountInString(l))
	}
	return m
}

// TestFitSteps walks a grid through every narrowing step: as it is, judge
// keys, detail lines, dropped columns, and the vertical layout.
func TestFitSteps(t *testing.T) {
	t.Parallel()
	g := func() *grid {
		g := &grid{header: []string{"rule", "judge", "cases", "precision", "open"},
			right: []bool{false, false, true, true, false}}
		g.add("irreversible-delete", "recorded/ollama/qwen2.5:3b", "608", "0.75 [0.51, 0.90]", "recall vs baseline +495")
		g.add("irreversible-delete", "recorded/ollama/qwen2.5:7b", "608", "0.95 [0.77, 0.99]", "–")
		g.notes = []string{"open: INCONCLUSIVE criteria; +N: about N more samples at the observed rate would decide it."}
		g.fit = fitOptions{judgeCol: 2, detail: []int{4}, drop: []int{2}}
		return g
	}
	render := func(width int) string {
		var b strings.Builder
		h := g()
		h.width = width
		if err := h.render(&b, FormatTable); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	// Unlimited: the full names, one line per row.
	full := render(0)
	if !strings.Contains(full, "recorded/ollama/qwen2.5:3b") || strings.Contains(full, "A = ") {
		t.Fatalf("width 0:\n%s", full)
	}
	// 80: the table is 99 wide; judge keys bring it to 80.
	out := render(80)
	if !strings.Contains(out, "A = recorded/ollama/qwen2.5:3b") || strings.Contains(out, "\n     open:") || widest(out) > 80 {
		t.Fatalf("width 80:\n%s", out)
	}
	// 60: the open column goes under its row ("–" rows get none).
	out = render(60)
	if !strings.Contains(out, "\n     open: recall vs baseline +495\n") || strings.Count(out, "open: ") != 2 || widest(out) > 60 {
		t.Fatalf("width 60:\n%s", out)
	}
	// 50: cases is left out and named.
	out = render(50)
	if strings.Contains(out, "608") || !strings.Contains(out, "cases (--wide") || widest(out) > 50 {
		t.Fatalf("width 50:\n%s", out)
	}
	// 30: nothing fits: one block per row, every value back.
	out = render(30)
	if widest(out) > 30 || !strings.Contains(out, "  cases      608") || !strings.Contains(out, "irreversible-delete  A") ||
		!strings.Contains(out, "  open       recall vs\n             baseline +495\n") {
		t.Fatalf("width 30:\n%s", out)
	}
}
