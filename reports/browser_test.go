//go:build browser

package reports

// report.html in headless Chromium from Go (chromedp; make html-check runs
// it, installing Debian's chromium when missing): how the case tables wrap.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/apeval/apeval/internal/browsertest"
)

// TestReportHTMLBrowserToolNamesWrapAtSeparators: with every <details>
// open, each tool cell of the false-positive and false-negative tables (a
// tenth of a 1280 px window) wraps only after a separator (_ . / :), never
// inside a part ("mcp__postgre / s__drop_table" before), no cell's text
// spills out of it, and the page does not scroll sideways.
func TestReportHTMLBrowserToolNamesWrapAtSeparators(t *testing.T) {
	rep := pagesReport()
	tools := []string{"mcp__postgres__drop_table", "mcp__playwright__browser_take_screenshot", "mcp__slack__slack_post_message", "Bash"}
	i := 0
	for id := range rep.Cases.CaseIDs() {
		rep.Cases.Describe(id, tools[i%len(tools)], map[string]any{"table": "orders"})
		i++
	}
	page := filepath.Join(t.TempDir(), "report.html")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteHTML(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, consoleErrs := browsertest.Open(t, 2*time.Minute)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page), chromedp.WaitReady("body")); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("details").forEach(d => d.open = true), 0`)); err != nil {
		t.Fatal(err)
	}
	if shot := os.Getenv("APEVAL_REPORT_SHOT"); shot != "" {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil || os.WriteFile(shot, png, 0o644) != nil {
			t.Errorf("screenshot: %v", err)
		}
	}
	// Per tool cell: its text, where its lines break (the index of the
	// first character of each new line), and whether it spills.
	type cell struct {
		Text   string
		Breaks []int
		Spills bool
	}
	cells, err := chromedp.Run(ctx, chromedp.Evaluate[[]cell](`[...document.querySelectorAll("table.cases tbody td:nth-child(4)")].map(td => {
		const w = document.createTreeWalker(td, NodeFilter.SHOW_TEXT), breaks = [];
		let text = "", top = null;
		for (let tn = w.nextNode(); tn; tn = w.nextNode()) {
			for (let i = 0; i < tn.length; i++) {
				const r = document.createRange(); r.setStart(tn, i); r.setEnd(tn, i + 1);
				const rect = r.getBoundingClientRect();
				if (rect.width === 0 && rect.height === 0) continue;
				if (top !== null && rect.top > top + 2) breaks.push(text.length);
				top = rect.top;
				text += tn.data[i];
			}
		}
		const r = document.createRange(); r.selectNodeContents(td);
		return {Text: text, Breaks: breaks, Spills: r.getBoundingClientRect().right > td.getBoundingClientRect().right + 0.5};
	})`))
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) == 0 {
		t.Fatal("no tool cell in the case tables")
	}
	wrapped := 0
	for _, c := range cells {
		for _, b := range c.Breaks {
			if b == 0 || !strings.ContainsRune("_./:", rune(c.Text[b-1])) || strings.ContainsRune("_./:", rune(c.Text[b])) {
				t.Errorf("%q wraps inside a part: %q / %q", c.Text, c.Text[:b], c.Text[b:])
			}
		}
		if len(c.Breaks) > 0 {
			wrapped++
		}
		if c.Spills {
			t.Errorf("%q spills out of its cell", c.Text)
		}
	}
	if wrapped == 0 {
		t.Error("no tool name wrapped: the check saw no line break to judge")
	}
	if wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > document.documentElement.clientWidth`)); err != nil || wide {
		t.Errorf("the page scrolls sideways (%v)", err)
	}
	if errs := consoleErrs(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}
