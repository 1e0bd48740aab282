//go:build browser

package diff

// diff.html in headless Chromium (make diff-browser, which installs
// Debian's chromium when missing): every filter clicked and its count
// checked against diff.parquet in DuckDB, a rule/tool permalink, keyboard
// navigation, no console error, no horizontal scroll at 1280 px; and at
// 100,000 differing cases the longest task while opening and filtering is
// measured and reported (not asserted).

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/apeval/apeval/reports/internal/duckdbtest"
)

func chromiumPath() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	return "/usr/bin/chromium"
}

// browser opens a headless Chromium at 1280 × 900 and gathers console
// errors, warnings and exceptions.
func browser(t *testing.T) (context.Context, func() []string) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath()), chromedp.NoSandbox, chromedp.WindowSize(1280, 900))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, 5*time.Minute)
	t.Cleanup(cancel)
	var mu sync.Mutex
	var errs []string
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			switch m.Type {
			case chromedp.ConsoleError, chromedp.ConsoleWarning, chromedp.ConsoleException:
				mu.Lock()
				errs = append(errs, m.String())
				mu.Unlock()
			}
		}
	}()
	return ctx, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), errs...) }
}

// filterSQL is each filter of the page as a condition on diff.parquet.
var filterSQL = map[string]string{
	"all":       "differs",
	"changed":   "differs AND class <> 'unchanged'",
	"loosened":  "differs AND class = 'loosened'",
	"tightened": "differs AND class = 'tightened'",
	"fixed":     "differs AND fixed_rules > 0",
	"broken":    "differs AND broken_rules > 0",
	"flaky":     "differs AND stability = 'flaky'",
}

var filterOrder = []string{"all", "changed", "loosened", "tightened", "fixed", "broken", "flaky"}

// sqlCounts counts diff.parquet's rows per filter, with extra ANDed on.
func sqlCounts(t *testing.T, path, extra string) map[string]string {
	t.Helper()
	var sel []string
	for _, k := range filterOrder {
		cond := filterSQL[k]
		if extra != "" {
			cond += " AND " + extra
		}
		sel = append(sel, fmt.Sprintf("count(*) FILTER (WHERE %s) AS %q", cond, k))
	}
	rows := duckdbtest.Query(t, "SELECT "+strings.Join(sel, ", ")+" FROM read_parquet("+duckdbtest.Literal(path)+")")
	out := map[string]string{}
	for k, v := range rows[0][0] {
		out[k] = toString(v)
	}
	return out
}

func pageCounts(t *testing.T, ctx context.Context) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, k := range filterOrder {
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("n-`+k+`").textContent`))
		if err != nil {
			t.Fatal(err)
		}
		out[k] = s
	}
	return out
}

func TestDiffHTMLBrowser(t *testing.T) {
	dir := t.TempDir()
	base, head := genPair(t, dir, 40, 6, 7, false)
	in, err := Open([]string{base, head}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if _, err := Diff(in, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	pq, page := filepath.Join(out, ParquetFile), filepath.Join(out, HTMLFile)
	ctx, consoleErrs := browser(t)
	u := "file://" + page
	if err := chromedp.Do(ctx, chromedp.Navigate(u), chromedp.WaitReady("body[data-ready=true]")); err != nil {
		t.Fatal(err)
	}
	wide := func(when string) {
		t.Helper()
		w, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > document.documentElement.clientWidth`))
		if err != nil {
			t.Fatal(err)
		}
		if w {
			t.Errorf("%s: horizontal scroll at 1280 px", when)
		}
	}
	wide("opened")

	// Every filter: its count and the list's length equal diff.parquet's.
	want := sqlCounts(t, pq, "")
	t.Logf("diff.parquet's counts per filter: %v", want)
	if got := pageCounts(t, ctx); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("filter counts: page %v, diff.parquet %v", got, want)
	}
	for _, k := range filterOrder {
		if err := chromedp.Do(ctx, chromedp.Click("#f-"+k)); err != nil {
			t.Fatal(err)
		}
		shown, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("shown").textContent`))
		if err != nil {
			t.Fatal(err)
		}
		if shown != want[k]+" cases" {
			t.Errorf("filter %s lists %q, diff.parquet has %s", k, shown, want[k])
		}
		pressed, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("f-`+k+`").getAttribute("aria-pressed")`))
		if err != nil || pressed != "true" {
			t.Errorf("filter %s not pressed after its click (%v)", k, err)
		}
		wide("filter " + k)
	}

	// A permalink with a rule and a tool: the counts follow, from the URL.
	const rule, tool = "r-deny", "Bash"
	frag := url.Values{"f": {"loosened"}, "rule": {rule}, "tool": {tool}}.Encode()
	if err := chromedp.Do(ctx, chromedp.Navigate(u+"#"+frag), chromedp.Sleep(300*time.Millisecond), chromedp.WaitReady("body[data-ready=true]")); err != nil {
		t.Fatal(err)
	}
	ans := func(side string) string {
		return "CASE WHEN json_extract_string(x, '$." + side + ".in_scope') = 'true' THEN coalesce(json_extract_string(x, '$." + side + ".result'), '') ELSE 'no_match' END"
	}
	moved := "tool_name = '" + tool + "' AND list_contains(list_transform(CAST(json_extract(rules, '$[*]') AS JSON[]), x -> json_extract_string(x, '$.rule_id') = '" + rule +
		"' AND (" + ans("base") + " <> " + ans("head") + " OR coalesce(json_extract_string(x, '$.base.fired'), 'false') <> coalesce(json_extract_string(x, '$.head.fired'), 'false'))), true)"
	wantRule := sqlCounts(t, pq, moved)
	t.Logf("under %s: %v", frag, wantRule)
	if got := pageCounts(t, ctx); fmt.Sprint(got) != fmt.Sprint(wantRule) {
		t.Errorf("counts under %s: page %v, diff.parquet %v", frag, got, wantRule)
	}
	if v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("rule").value + "|" + document.getElementById("tool").value + "|" + document.querySelector("nav button[aria-pressed=true]").id`)); err != nil || v != rule+"|"+tool+"|f-loosened" {
		t.Errorf("permalink restored %q (%v), want %s|%s|f-loosened", v, err, rule, tool)
	}

	// Keyboard: j selects the first case, j again the second; the URL
	// names it, and the detail shows both sides.
	if err := chromedp.Do(ctx, chromedp.KeyEvent("j"), chromedp.KeyEvent("j")); err != nil {
		t.Fatal(err)
	}
	sel, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#rows li[aria-selected=true]").dataset.k + "|" + decodeURIComponent(location.hash)`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(sel, "1|") || !strings.Contains(sel, "case=c-") {
		t.Errorf("after j j: selection and hash %q, want the second row and case= in the URL", sel)
	}
	detail, err := chromedp.Run(ctx, chromedp.Text("#detail"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"base: recorded/base", "head: recorded/head", "judge input (base)", "judge input (head)", rule} {
		if !strings.Contains(detail, w) {
			t.Errorf("detail lacks %q:\n%s", w, detail)
		}
	}
	// Search narrows to one case by its ID.
	id := "c-00003-00"
	if err := chromedp.Do(ctx, chromedp.Navigate(u+"#f=all&q="+id), chromedp.Sleep(300*time.Millisecond), chromedp.WaitReady("body[data-ready=true]")); err != nil {
		t.Fatal(err)
	}
	if got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("n-all").textContent`)); err != nil || got != sqlCounts(t, pq, "case_id = '"+id+"'")["all"] {
		t.Errorf("search %s: All = %q (%v)", id, got, err)
	}
	wide("detail")
	if errs := consoleErrs(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// TestDiffHTML100k opens a diff.html of about 100,000 differing cases,
// clicks every filter and searches, and reports the longest task the page
// ran (PerformanceObserver "longtask", buffered from the page's load).
func TestDiffHTML100k(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 cases: run without -short (make diff-browser)")
	}
	dir := t.TempDir()
	base, head := genPair(t, dir, 30000, 5, 3, false)
	in, err := Open([]string{base, head}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	res, err := Diff(in, Options{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(out, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("diff.html: %d differing cases listed of %d, %.1f MB", res.PageCases, res.Summary.Counts.Cases, float64(st.Size())/1e6)
	if res.PageCases < 100000 {
		t.Fatalf("only %d differing cases; the test wants 100,000", res.PageCases)
	}
	ctx, consoleErrs := browser(t)
	t0 := time.Now()
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(out, HTMLFile)), chromedp.WaitReady("body[data-ready=true]")); err != nil {
		t.Fatal(err)
	}
	t.Logf("opened in %s (wall time, loaded machine)", time.Since(t0).Round(time.Millisecond))
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(window.__long = [], new PerformanceObserver(l => { for (const e of l.getEntries()) window.__long.push(e.duration); }).observe({type: "longtask", buffered: true}), true)`)); err != nil {
		t.Fatal(err)
	}
	want := sqlCounts(t, filepath.Join(out, ParquetFile), "")
	for _, k := range filterOrder {
		if err := chromedp.Do(ctx, chromedp.Click("#f-"+k), chromedp.Sleep(50*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
	}
	if got := pageCounts(t, ctx); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("filter counts at 100k: page %v, diff.parquet %v", got, want)
	}
	if err := chromedp.Do(ctx, chromedp.Click("#f-all"), chromedp.SendKeys("#q", "c-01234"), chromedp.Sleep(600*time.Millisecond),
		chromedp.KeyEvent("j")); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Sleep(300*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	longs, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`window.__long`))
	if err != nil {
		t.Fatal(err)
	}
	maxMS, over := 0.0, 0
	for _, d := range longs {
		maxMS = max(maxMS, d)
		if d > 200 {
			over++
		}
	}
	t.Logf("long tasks (> 50 ms) while opening, clicking the 7 filters and searching: %d, longest %.0f ms, %d over 200 ms: %s",
		len(longs), maxMS, over, strconv.Quote(fmt.Sprint(longs)))
	if errs := consoleErrs(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}
