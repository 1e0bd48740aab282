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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/browsertest"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/internal/duckdbtest"
	"github.com/apeval/apeval/reports/rundir"
)

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
	ctx, consoleErrs := browsertest.Open(t, 5*time.Minute)
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
	ctx, consoleErrs := browsertest.Open(t, 5*time.Minute)
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

// diff.html highlights the spans masking left in each side's judge input
// (issue 34 point 2): a case whose command carried a key shows the
// [MASKED] token in a <mark class="masked"> with the note counting it, a
// case without one shows neither, and the key itself is nowhere in the
// page.
func TestDiffHTMLMaskedSpans(t *testing.T) {
	dir := t.TempDir()
	base, head := genPair(t, dir, 6, 6, 7, false)
	// The runs' policies: the generated rules with conditions (the head's
	// adds r-new), named in run.json with their digests so that the page
	// can rebuild the judge inputs.
	for _, run := range []string{base, head} {
		var pol strings.Builder
		pol.WriteString("schema = \"apeval.policy/v1\"\n")
		rules := genRules
		if run == head {
			rules = append(rules[:len(rules):len(rules)], genRule{"r-new", replay.ClassDangerous, datasets.ActionDenyCurrentTool})
		}
		for _, gr := range rules {
			fmt.Fprintf(&pol, "[[rule]]\nid = %q\ncondition = \"The command is unsafe.\"\nclass = %q\naction = %q\n", gr.id, gr.class, gr.action)
		}
		polPath := run + "-policy.toml"
		if err := os.WriteFile(polPath, []byte(pol.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(pol.String()))
		p := filepath.Join(run, rundir.RunFile)
		var info map[string]any
		b, err := os.ReadFile(p)
		if err == nil {
			err = json.Unmarshal(b, &info)
		}
		if err != nil {
			t.Fatal(err)
		}
		info["policy"] = map[string]any{"name": polPath, "sha256": hex.EncodeToString(sum[:])}
		if b, err = json.Marshal(info); err == nil {
			err = os.WriteFile(p, b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	const secret = "sk-proj-Zq8LrT2wVb9NcX4mKp7HsD3f"
	withSecret := func(id string) bool { return strings.HasSuffix(id, "-00") || strings.HasSuffix(id, "-03") }
	cases := func(id string) (*datasets.Case, error) {
		cmd := "ls -la"
		if withSecret(id) {
			cmd = "curl -H 'Authorization: Bearer " + secret + "' https://api.example.com/v1/models"
		}
		return &datasets.Case{ID: id, Tool: datasets.Tool{Name: "Bash", Arguments: map[string]any{"command": cmd}}}, nil
	}
	in, err := Open([]string{base, head}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	res, err := Diff(in, Options{Out: out, Cases: cases})
	if err != nil {
		t.Fatal(err)
	}
	if res.InputsNote != "" {
		t.Fatalf("no judge inputs: %s", res.InputsNote)
	}
	html, err := os.ReadFile(filepath.Join(out, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(html), secret) || strings.Contains(string(html), secret[8:]) {
		t.Fatal("diff.html carries the key")
	}
	ctx, consoleErrs := browsertest.Open(t, 5*time.Minute)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(out, HTMLFile)), chromedp.WaitReady("body[data-ready=true]")); err != nil {
		t.Fatal(err)
	}
	var masked, plain int
	for range 12 {
		if err := chromedp.Do(ctx, chromedp.KeyEvent("j")); err != nil {
			t.Fatal(err)
		}
		type view struct {
			ID, Note string
			Marks    []string
			Inputs   int
			Text     string
		}
		v, err := chromedp.Run(ctx, chromedp.Evaluate[view](`(() => {
			const d = document.getElementById("detail");
			return {ID: d.querySelector("h2").firstChild.textContent.trim(),
				Note: Array.from(d.querySelectorAll(".masknote")).map(e => e.textContent).join("|"),
				Marks: Array.from(d.querySelectorAll("mark.masked")).map(e => e.textContent),
				Inputs: d.querySelectorAll("pre").length, Text: d.textContent};
		})()`))
		if err != nil {
			t.Fatal(err)
		}
		if v.Inputs == 0 {
			t.Fatalf("case %s: no judge input shown:\n%s", v.ID, v.Text)
		}
		if strings.Contains(v.Text, secret[8:]) {
			t.Errorf("case %s: the page shows the key", v.ID)
		}
		if withSecret(v.ID) {
			masked++
			// Two [MASKED] per side that asked the judge (the command and
			// its one-line summary), counted in that side's note.
			if len(v.Marks) == 0 || len(v.Marks) != 2*v.Inputs || strings.Count(v.Note, "2 masked spans (highlighted)") != v.Inputs {
				t.Errorf("case %s: marks %q over %d inputs, note %q", v.ID, v.Marks, v.Inputs, v.Note)
			}
			for _, m := range v.Marks {
				if m != "[MASKED]" {
					t.Errorf("case %s: highlighted %q, want [MASKED]", v.ID, m)
				}
			}
		} else {
			plain++
			if len(v.Marks) != 0 || v.Note != "" {
				t.Errorf("case %s holds no secret, yet marks %q, note %q", v.ID, v.Marks, v.Note)
			}
		}
	}
	if masked == 0 || plain == 0 {
		t.Errorf("the cases looked at hold %d with a key and %d without: both kinds are needed", masked, plain)
	}
	t.Logf("looked at %d cases with a masked key and %d without", masked, plain)
	if errs := consoleErrs(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// TestDiffHTMLBrowserHookFilter: against auto mode the page has a
// Hook-rewritten filter whose count and list are diff.parquet's differing
// hook_rewritten rows, whatever their class, and the header counts them;
// without auto mode there is no such filter.
func TestDiffHTMLBrowserHookFilter(t *testing.T) {
	dir := t.TempDir()
	base, head := genPair(t, dir, 40, 6, 7, false)
	in, err := Open([]string{base, head}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	hooked := func(id string) bool { return strings.HasSuffix(strings.Split(id, "-")[1], "0") }
	res, err := Diff(in, Options{Out: out, AutoMode: "recorded/head", HookRewritten: hooked})
	if err != nil {
		t.Fatal(err)
	}
	pq, page := filepath.Join(out, ParquetFile), filepath.Join(out, HTMLFile)
	rows := duckdbtest.Query(t, "SELECT count(*) FILTER (WHERE differs AND hook_rewritten) AS n, count(*) FILTER (WHERE differs AND hook_rewritten AND class = 'tightened') AS tight FROM read_parquet("+duckdbtest.Literal(pq)+")")
	want, tight := toString(rows[0][0]["n"]), toString(rows[0][0]["tight"])
	if want == "0" || tight == "0" || want != strconv.FormatInt(res.Summary.Counts.HookRewrittenDiffering, 10) {
		t.Fatalf("diff.parquet: %s differing hook-rewritten rows (%s tightened), summary %d", want, tight, res.Summary.Counts.HookRewrittenDiffering)
	}
	ctx, consoleErrs := browsertest.Open(t, 3*time.Minute)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page), chromedp.WaitReady("body[data-ready=true]")); err != nil {
		t.Fatal(err)
	}
	if has, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!document.getElementById("f-hook")`)); err != nil || !has {
		t.Fatalf("no Hook-rewritten filter against auto mode (%v)", err)
	}
	if err := chromedp.Do(ctx, chromedp.Click("#f-hook")); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[document.getElementById("n-hook").textContent, document.getElementById("shown").textContent,
		String(document.querySelectorAll("#rows .tag.hook").length), String(document.querySelectorAll("#rows .tag.tightened").length), document.getElementById("meta").textContent]`))
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != want || got[1] != want+" cases" || got[2] != want || got[3] != tight {
		t.Errorf("Hook-rewritten filter: count %s, %s, %s tagged, %s tightened; diff.parquet %s (%s tightened)", got[0], got[1], got[2], got[3], want, tight)
	}
	if !strings.Contains(got[4], want+" of the "+strconv.FormatInt(res.Summary.Counts.HookRewritten, 10)+" cases recorded/head judged on an input a PreToolUse hook changed differ") {
		t.Errorf("header: %q", got[4])
	}
	// Without auto mode: no such filter.
	in, err = Open([]string{base, head}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain")
	if _, err := Diff(in, Options{Out: plain}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(plain, HTMLFile)), chromedp.WaitReady("body[data-ready=true]")); err != nil {
		t.Fatal(err)
	}
	if has, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!document.getElementById("f-hook")`)); err != nil || has {
		t.Errorf("a Hook-rewritten filter without auto mode (%v)", err)
	}
	if errs := consoleErrs(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// TestDiffHTMLBrowserRuleHeaders: the rules table of a selected case names
// every column, the two "fired" ones included, and its header has as many
// cells as each of its rows.
func TestDiffHTMLBrowserRuleHeaders(t *testing.T) {
	dir := t.TempDir()
	base, head := genPair(t, dir, 10, 4, 7, false)
	in, err := Open([]string{base, head}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if _, err := Diff(in, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	ctx, consoleErrs := browsertest.Open(t, 2*time.Minute)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(out, HTMLFile)), chromedp.WaitReady("body[data-ready=true]"),
		chromedp.Click(`#rows li[data-k="0"]`), chromedp.WaitVisible("#detail thead")); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#detail thead th")].map(th => th.textContent.trim())`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"rule", "label", "base answer", "conf", "base fired", "head answer", "conf", "head fired"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("rules table headers %q, want %q", got, want)
	}
	for i, h := range got {
		if h == "" {
			t.Errorf("rules table header %d is blank: %q", i, got)
		}
	}
	cells, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`[...document.querySelectorAll("#detail tbody tr")].map(tr => tr.cells.length)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) == 0 {
		t.Fatal("the selected case shows no rule row")
	}
	for _, n := range cells {
		if n != len(got) {
			t.Errorf("a rule row has %d cells, the header %d", n, len(got))
		}
	}
	if errs := consoleErrs(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// TestDiffHTMLBrowserRuleNamesWrapAtHyphens: in the rules table of a
// selected case (eight columns in the right half of a 1280 px window), a
// long rule name wraps only after its hyphens, never inside a word
// ("secret-exfiltratio / n" before), no other cell wraps inside a word
// either, and no cell's text spills out of its cell.
func TestDiffHTMLBrowserRuleNamesWrapAtHyphens(t *testing.T) {
	dir := t.TempDir()
	ids := []string{"secret-exfiltration", "prod-data-destruction", "access-control-notify", "commit-message-style", "external-share-audit-with-a-long-name"}
	var bs, hs []*replay.Result
	for q := 0; q < 3; q++ {
		b := &replay.Result{RunID: "base", CaseID: fmt.Sprintf("c-%d", q), SessionID: "s-1", Seq: int64(q), Judge: "recorded/base", Model: "base",
			Permission: "off", ToolName: "WebFetch", Category: "network", HookPoint: "tool.before", JudgeCalled: true, Status: judge.StatusOK}
		h := &replay.Result{}
		*h = *b
		h.RunID, h.Judge, h.Model = "head", "recorded/head", "head"
		for i, id := range ids {
			conf := 0.9
			rb := replay.RuleResult{RuleID: id, RuleVersion: 1, Class: replay.ClassDangerous, Action: datasets.ActionDenyCurrentTool,
				Result: judge.NoMatch, Status: judge.StatusOK, Source: replay.SourceJudge, Confidence: &conf}
			rh := rb
			if i == 0 {
				rb.Result, rb.Fired = judge.Match, true
				rb.Label = datasets.LabelMatch
				rh.Label = datasets.LabelMatch
			}
			b.Rules, h.Rules = append(b.Rules, rb), append(h.Rules, rh)
		}
		for _, r := range []*replay.Result{b, h} {
			r.Calls = []replay.Call{{Rules: len(r.Rules), Status: judge.StatusOK, LatencyMS: 100}}
			r.RulesInScope, r.RulesJudged = len(r.Rules), len(r.Rules)
			r.GateAction = datasets.ActionAllow
			if r.Rules[0].Fired {
				r.GateAction = datasets.ActionDenyCurrentTool
			}
		}
		bs, hs = append(bs, b), append(hs, h)
	}
	base, head := filepath.Join(dir, "base"), filepath.Join(dir, "head")
	writeGenRun(t, base, "recorded/base", "base-policy.toml", bs)
	writeGenRun(t, head, "recorded/head", "head-policy.toml", hs)
	in, err := Open([]string{base, head}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if _, err := Diff(in, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	ctx, consoleErrs := browsertest.Open(t, 2*time.Minute)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(out, HTMLFile)), chromedp.WaitReady("body[data-ready=true]"),
		chromedp.Click(`#rows li[data-k="0"]`), chromedp.WaitVisible("#detail tbody")); err != nil {
		t.Fatal(err)
	}
	if shot := os.Getenv("APEVAL_DIFF_SHOT"); shot != "" {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil || os.WriteFile(shot, png, 0o644) != nil {
			t.Errorf("screenshot: %v", err)
		}
	}
	// Per cell of the rules table: its text, where its lines break (the
	// index of the first character of each new line), and whether its text
	// is wider than the cell.
	type cell struct {
		Text   string
		Breaks []int
		Spills bool
	}
	cells, err := chromedp.Run(ctx, chromedp.Evaluate[[]cell](`[...document.querySelectorAll("#detail table th, #detail table td")].map(td => {
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
	rules := 0
	for _, c := range cells {
		for _, id := range ids {
			if strings.HasPrefix(c.Text, id) {
				rules++
			}
		}
		for _, i := range c.Breaks {
			if prev := c.Text[i-1]; prev != '-' && prev != ' ' && c.Text[i] != ' ' {
				t.Errorf("%q wraps inside a word: %q / %q", c.Text, c.Text[:i], c.Text[i:])
			}
		}
		if c.Spills {
			t.Errorf("%q spills out of its cell", c.Text)
		}
	}
	if rules != len(ids) {
		t.Fatalf("%d rule rows, want %d", rules, len(ids))
	}
	if wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > document.documentElement.clientWidth`)); err != nil || wide {
		t.Errorf("the page scrolls sideways (%v)", err)
	}
	if errs := consoleErrs(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}
