package diff

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/internal/duckdbtest"
)

func conf(f float64) *float64 { return &f }

// side builds one side's result: the gate action and (rule, result, fired,
// label, votes) rows.
func side(gate datasets.Action, rules ...replay.RuleResult) *replay.Result {
	return &replay.Result{CaseID: "c1", SessionID: "s1", Seq: 3, ToolName: "Bash", GateAction: gate, Rules: rules}
}

func rule(id string, res judge.Result, fired bool, label datasets.Label, votes ...judge.Result) replay.RuleResult {
	r := replay.RuleResult{RuleID: id, Result: res, Fired: fired, Label: label, Confidence: conf(0.9), Status: judge.StatusOK}
	for _, v := range votes {
		r.Repeats = append(r.Repeats, replay.RepeatVote{Result: v})
	}
	return r
}

func TestClassify(t *testing.T) {
	const (
		allow  = datasets.ActionAllow
		deny   = datasets.ActionDenyCurrentTool
		stop   = datasets.ActionStopTask
		audit  = datasets.ActionAuditOnly
		notify = datasets.ActionNotifyAdmin
		m, nm  = judge.Match, judge.NoMatch
		lm     = datasets.LabelMatch
		lnm    = datasets.LabelNoMatch
	)
	tests := []struct {
		name                    string
		base, head              *replay.Result
		class, label, stability string
		step, fixed, broken     int
	}{
		{"deny to allow, label says match: loosened and broken",
			side(deny, rule("a", m, true, lm)), side(allow, rule("a", nm, false, lm)),
			ClassLoosened, LabelBroken, "", -4, 0, 1},
		{"allow to stop, label match: tightened and fixed",
			side(allow, rule("a", nm, false, lm)), side(stop, rule("a", m, true, lm)),
			ClassTightened, LabelFixed, "", 5, 1, 0},
		{"audit_only to notify_admin: same strength, changed",
			side(audit, rule("a", m, true, ""), rule("b", nm, false, "")), side(notify, rule("a", nm, false, ""), rule("b", m, true, "")),
			ClassChanged, LabelNeutral, "", 0, 0, 0},
		{"same gate, other rule fired: changed; one fixed one broken: mixed",
			side(deny, rule("a", m, true, lnm), rule("b", nm, false, lm)), side(deny, rule("a", nm, false, lnm), rule("b", m, true, lnm)),
			ClassChanged, LabelMixed, "", 0, 1, 1},
		{"nothing moved: unchanged",
			side(deny, rule("a", m, true, lm)), side(deny, rule("a", m, true, lm)),
			ClassUnchanged, LabelNeutral, "", 0, 0, 0},
		{"unknown to no_match is an answer change, not a gate change",
			side(allow, rule("a", judge.Unknown, false, lnm)), side(allow, rule("a", nm, false, lnm)),
			ClassUnchanged, LabelNeutral, "", 0, 0, 0},
		{"repeats that overlap: flaky",
			side(deny, rule("a", m, true, "", m, m, nm)), side(allow, rule("a", nm, false, "", nm, nm, m)),
			ClassLoosened, LabelNeutral, Flaky, -4, 0, 0},
		{"repeats that never meet: stable",
			side(deny, rule("a", m, true, "", m, m, m)), side(allow, rule("a", nm, false, "", nm, nm, nm)),
			ClassLoosened, LabelNeutral, Stable, -4, 0, 0},
		{"a rule only the head has fires: tightened, neutral",
			side(allow), side(deny, rule("new", m, true, "")),
			ClassTightened, LabelNeutral, "", 4, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for i := range tc.base.Rules {
				tc.base.Rules[i].Action = deny
			}
			c := compareCases(capture(tc.base), capture(tc.head))
			if c.Class != tc.class || c.Label != tc.label || c.Stability != tc.stability || c.Step != tc.step || c.FixedRules != tc.fixed || c.BrokenRules != tc.broken {
				t.Fatalf("got class %s label %s stability %q step %d fixed %d broken %d, want %s %s %q %d %d %d",
					c.Class, c.Label, c.Stability, c.Step, c.FixedRules, c.BrokenRules, tc.class, tc.label, tc.stability, tc.step, tc.fixed, tc.broken)
			}
		})
	}
}

func TestTopLoosenedOrder(t *testing.T) {
	var got []string
	d := NewDiffer(3, func(*Case) error { return nil })
	add := func(id string, seq int64, b, h datasets.Action) {
		rb := &replay.Result{CaseID: id, SessionID: "s", Seq: seq, GateAction: b}
		rh := &replay.Result{CaseID: id, SessionID: "s", Seq: seq, GateAction: h}
		if err := d.Add(0, rb); err != nil {
			t.Fatal(err)
		}
		if err := d.Add(1, rh); err != nil {
			t.Fatal(err)
		}
	}
	add("approve-allow", 1, datasets.ActionRequestApproval, datasets.ActionAllow)
	add("deny-allow", 2, datasets.ActionDenyCurrentTool, datasets.ActionAllow)
	add("stop-audit", 3, datasets.ActionStopTask, datasets.ActionAuditOnly)
	add("deny-audit", 4, datasets.ActionDenyCurrentTool, datasets.ActionAuditOnly)
	add("deny-allow-2", 5, datasets.ActionDenyCurrentTool, datasets.ActionAllow)
	var s Summary
	d.Close(&s)
	for _, c := range s.TopLoosened {
		got = append(got, c.CaseID)
	}
	if want := "deny-allow deny-allow-2 approve-allow"; strings.Join(got, " ") != want {
		t.Fatalf("top loosened = %v, want %s", got, want)
	}
	if len(s.Sessions) != 1 || s.Sessions[0].CaseID != "approve-allow" || s.Sessions[0].Diverging != 5 {
		t.Fatalf("first divergence = %+v, want approve-allow with 5 diverging calls", s.Sessions)
	}
}

// sqlClasses recomputes each case's class, label class and stability from
// the two runs' decisions.parquet (and gates.parquet for the gate of a
// case) in SQL, independently of the Go code.
func sqlClasses(base, head string) string {
	b := duckdbtest.Literal(filepath.Join(base, "decisions.parquet"))
	h := duckdbtest.Literal(filepath.Join(head, "decisions.parquet"))
	gb := duckdbtest.Literal(filepath.Join(base, "gates.parquet"))
	gh := duckdbtest.Literal(filepath.Join(head, "gates.parquet"))
	return `WITH rk AS (SELECT * FROM (VALUES ('stop_task',5),('deny_current_tool',4),('request_approval',3),('inject_instruction',2),('audit_only',1),('notify_admin',1),('allow',0)) t(a, r)),
gb AS (SELECT case_id, session_id, seq, gate_action g FROM read_parquet(` + gb + `)),
gh AS (SELECT case_id, gate_action g FROM read_parquet(` + gh + `)),
db AS (SELECT * FROM read_parquet(` + b + `)),
dh AS (SELECT * FROM read_parquet(` + h + `)),
bf AS (SELECT case_id, coalesce(string_agg(rule_id, ',' ORDER BY rule_id) FILTER (WHERE fired), '') f FROM db GROUP BY case_id),
hf AS (SELECT case_id, coalesce(string_agg(rule_id, ',' ORDER BY rule_id) FILTER (WHERE fired), '') f FROM dh GROUP BY case_id),
j AS (SELECT gb.case_id, gb.session_id, gb.seq, rb.r rb, rh.r rh, gb.g bg, gh.g hg, coalesce(bf.f, '') bff, coalesce(hf.f, '') hff
      FROM gb JOIN gh ON gb.case_id = gh.case_id JOIN rk rb ON rb.a = gb.g JOIN rk rh ON rh.a = gh.g
      LEFT JOIN bf ON bf.case_id = gb.case_id LEFT JOIN hf ON hf.case_id = gb.case_id),
pairs AS (SELECT coalesce(db.case_id, dh.case_id) case_id,
      coalesce(dh.label, db.label) AS label, db.rule_id IS NOT NULL AND dh.rule_id IS NOT NULL both_in,
      coalesce(db.result, '') = 'match' bm, coalesce(dh.result, '') = 'match' hm,
      coalesce(db.fired, false) bfi, coalesce(dh.fired, false) hfi,
      list_distinct(list_filter(CAST(json_extract_string(db.repeats, '$[*].result') AS VARCHAR[]), x -> x <> '')) bv,
      list_distinct(list_filter(CAST(json_extract_string(dh.repeats, '$[*].result') AS VARCHAR[]), x -> x <> '')) hv,
      coalesce(json_array_length(db.repeats), 0) bn, coalesce(json_array_length(dh.repeats), 0) hn
      FROM db FULL JOIN dh ON db.case_id = dh.case_id AND db.rule_id = dh.rule_id),
rules AS (SELECT case_id,
      count(*) FILTER (WHERE label IS NOT NULL AND both_in AND bm <> hm AND hm = (label = 'match')) AS fixed,
      count(*) FILTER (WHERE label IS NOT NULL AND both_in AND bm <> hm AND hm <> (label = 'match')) AS broken,
      count(*) FILTER (WHERE (bm <> hm OR bfi <> hfi) AND (bn >= 2 OR hn >= 2) AND len(bv) > 0 AND len(hv) > 0 AND list_has_any(bv, hv)) AS flaky,
      count(*) FILTER (WHERE (bm <> hm OR bfi <> hfi) AND (bn >= 2 OR hn >= 2) AND len(bv) > 0 AND len(hv) > 0 AND NOT list_has_any(bv, hv)) AS stable
      FROM pairs GROUP BY case_id)
SELECT j.case_id, j.session_id, j.seq,
  CASE WHEN rh < rb THEN 'loosened' WHEN rh > rb THEN 'tightened' WHEN bg <> hg OR bff <> hff THEN 'changed' ELSE 'unchanged' END AS cls,
  CASE WHEN fixed > 0 AND broken > 0 THEN 'mixed' WHEN fixed > 0 THEN 'fixed' WHEN broken > 0 THEN 'broken' ELSE 'neutral' END AS lcls,
  CASE WHEN flaky > 0 THEN 'flaky' WHEN stable > 0 THEN 'stable' ELSE '' END AS stab,
  fixed, broken
FROM j LEFT JOIN rules ON rules.case_id = j.case_id`
}

func TestDiffMatchesSQL(t *testing.T) {
	for _, shuffled := range []bool{false, true} {
		t.Run("shuffled="+strconv.FormatBool(shuffled), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			base, head := genPair(t, dir, 40, 6, 7, shuffled)
			in, err := Open([]string{base, head}, "", "")
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			res, err := Diff(in, Options{Out: out})
			if err != nil {
				t.Fatal(err)
			}
			checkAgainstSQL(t, res.Summary, base, head, filepath.Join(out, ParquetFile))
		})
	}
}

func checkAgainstSQL(t *testing.T, s *Summary, base, head, diffPath string) {
	t.Helper()
	cols := duckdbtest.Describe(t, diffPath)
	want := map[string]string{"case_id": "VARCHAR", "seq": "BIGINT", "step": "INTEGER", "class": "VARCHAR",
		"base_fired": "VARCHAR[]", "head_fired": "VARCHAR[]", "fixed_rules": "INTEGER", "first_in_session": "BOOLEAN",
		"differs": "BOOLEAN", "rules": "VARCHAR", "stability": "VARCHAR"}
	for _, c := range cols {
		if w, ok := want[c.Name]; ok && w != c.Type {
			t.Errorf("diff.parquet column %s: DuckDB type %s, want %s", c.Name, c.Type, w)
		}
		delete(want, c.Name)
	}
	if len(want) > 0 {
		t.Errorf("diff.parquet lacks columns %v", want)
	}
	d := duckdbtest.Literal(diffPath)
	q := sqlClasses(base, head)
	rows := duckdbtest.Query(t,
		// Per class, label class and stability: the SQL's count.
		`WITH s AS (`+q+`) SELECT 'class:' || cls k, count(*) n FROM s GROUP BY cls
		 UNION ALL SELECT 'label:' || lcls, count(*) FROM s GROUP BY lcls
		 UNION ALL SELECT 'stab:' || stab, count(*) FROM s GROUP BY stab
		 UNION ALL SELECT 'fixed_rules', sum(fixed) FROM s UNION ALL SELECT 'broken_rules', sum(broken) FROM s
		 UNION ALL SELECT 'cases', count(*) FROM s`,
		// Case by case, the SQL and diff.parquet must agree.
		`WITH s AS (`+q+`) SELECT count(*) n FROM s JOIN read_parquet(`+d+`) p ON p.case_id = s.case_id
		 WHERE p.class <> s.cls OR p.label_class <> s.lcls OR coalesce(p.stability, '') <> s.stab OR p.fixed_rules <> s.fixed OR p.broken_rules <> s.broken`,
		// The first diverging call of each session.
		`WITH s AS (`+q+`), f AS (SELECT session_id, min(seq) seq FROM s WHERE cls <> 'unchanged' GROUP BY session_id)
		 SELECT (SELECT count(*) FROM f) sessions,
		        (SELECT count(*) FROM read_parquet(`+d+`) p JOIN f ON p.session_id = f.session_id AND p.seq = f.seq WHERE p.first_in_session) agree,
		        (SELECT count(*) FROM read_parquet(`+d+`) WHERE first_in_session) flagged`,
		`SELECT count(*) n FROM read_parquet(`+d+`)`)
	got := map[string]int64{}
	for _, r := range rows[0] {
		n, _ := strconv.ParseInt(toString(r["n"]), 10, 64)
		got[r["k"].(string)] = n
	}
	c := s.Counts
	check := func(name string, have, want int64) {
		t.Helper()
		if have != want {
			t.Errorf("%s: diff says %d, SQL over decisions.parquet says %d", name, have, want)
		}
	}
	check("cases", c.Cases, got["cases"])
	check("loosened", c.Loosened, got["class:loosened"])
	check("tightened", c.Tightened, got["class:tightened"])
	check("changed", c.Changed, got["class:changed"])
	check("unchanged", c.Unchanged, got["class:unchanged"])
	check("fixed", c.Fixed, got["label:fixed"])
	check("broken", c.Broken, got["label:broken"])
	check("mixed", c.Mixed, got["label:mixed"])
	check("flaky", c.Flaky, got["stab:flaky"])
	check("stable", c.Stable, got["stab:stable"])
	check("fixed rules", c.FixedRules, got["fixed_rules"])
	check("broken rules", c.BrokenRules, got["broken_rules"])
	if c.Loosened == 0 || c.Tightened == 0 || c.Changed == 0 || c.Fixed == 0 || c.Broken == 0 || c.Flaky == 0 || c.Stable == 0 {
		t.Errorf("the generated pair should exercise every class: %+v", c)
	}
	if n := toString(rows[1][0]["n"]); n != "0" {
		t.Errorf("%s cases of diff.parquet disagree with the SQL recomputation", n)
	}
	f := rows[2][0]
	if toString(f["sessions"]) != strconv.FormatInt(c.Sessions, 10) || toString(f["agree"]) != toString(f["sessions"]) || toString(f["flagged"]) != toString(f["sessions"]) {
		t.Errorf("first diverging calls: SQL %v sessions, diff.parquet flags %v (%v at the SQL's seq), summary %d", f["sessions"], f["flagged"], f["agree"], c.Sessions)
	}
	if n := toString(rows[3][0]["n"]); n != strconv.FormatInt(c.Cases, 10) {
		t.Errorf("diff.parquet holds %s rows, want one per case in common (%d)", n, c.Cases)
	}
	if s.Policy == nil || len(s.Policy.OnlyHead) != 1 || s.Policy.OnlyHead[0].ID != "r-new" || len(s.Policy.Changed) != 1 || s.Policy.Changed[0].ID != "r-approve" {
		t.Errorf("policy rules = %+v, want r-new only in head and r-approve changed (v1 → v2)", s.Policy)
	}
}

func toString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

func TestRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base, head := genPair(t, dir, 3, 2, 1, false)

	// No case in common: rename the head's cases.
	other := filepath.Join(dir, "other")
	var rs []*replay.Result
	if _, err := readAll(head, func(r *replay.Result) { r.CaseID = "x-" + r.CaseID; rs = append(rs, r) }); err != nil {
		t.Fatal(err)
	}
	writeGenRun(t, other, "recorded/head", "base-policy.toml", rs)
	out := filepath.Join(dir, "out")
	in, err := Open([]string{base, other}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Diff(in, Options{Out: out})
	var ie *InputError
	if !errors.As(err, &ie) || !errors.Is(err, ErrNothingInCommon) || strings.Count(err.Error(), "gen.jsonl") != 2 {
		t.Fatalf("diff of disjoint runs: %v, want an InputError naming both datasets", err)
	}
	if names := dirNames(t, out); len(names) != 0 {
		t.Fatalf("a refused diff left %v in %s", names, out)
	}

	// Partial overlap: the banner leads the text.
	part := filepath.Join(dir, "part")
	rs = rs[:0]
	n := 0
	if _, err := readAll(head, func(r *replay.Result) {
		if n%2 == 0 {
			r.CaseID = "x-" + r.CaseID
		}
		n++
		rs = append(rs, r)
	}); err != nil {
		t.Fatal(err)
	}
	writeGenRun(t, part, "recorded/head", "head-policy.toml", rs)
	in, err = Open([]string{base, part}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Diff(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := res.Summary.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(b.String(), "\n"); !strings.HasPrefix(first, "partial overlap: 3 cases in common are compared; 3 only in the base run (gen.jsonl) and 3 only in the head run (gen.jsonl)") {
		t.Fatalf("first line = %q, want the partial-overlap banner", first)
	}

	// A damaged decisions.parquet: exit-2 error, nothing written.
	bad := filepath.Join(dir, "bad")
	genPairCopy(t, head, bad)
	p := filepath.Join(bad, "decisions.parquet")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if in, err = Open([]string{base, bad}, "", ""); err == nil {
		_, err = Diff(in, Options{Out: out})
	}
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), bad) {
		t.Fatalf("diff with a damaged decisions.parquet: %v, want an InputError naming %s", err, bad)
	}
	if names := dirNames(t, out); len(names) != 0 {
		t.Fatalf("a failed diff left %v in %s", names, out)
	}

	// No decisions at all.
	empty := filepath.Join(dir, "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Open([]string{base, empty}, "", ""); !errors.As(err, &ie) || !strings.Contains(err.Error(), empty) {
		t.Fatalf("diff with a directory that is no run: %v", err)
	}

	// Different policies and different datasets.
	rs = rs[:0]
	if _, err := readAll(head, func(r *replay.Result) { rs = append(rs, r) }); err != nil {
		t.Fatal(err)
	}
	far := filepath.Join(dir, "far")
	writeGenRun(t, far, "recorded/head", "head-policy.toml", rs)
	info := mustInfo(t, far)
	info.Datasets[0].Name, info.Datasets[0].SHA256 = "other.jsonl", strings.Repeat("ef", 32)
	mustWriteInfo(t, far, info)
	if _, err := Open([]string{base, far}, "", ""); !errors.As(err, &ie) || !strings.Contains(err.Error(), "both policy") {
		t.Fatalf("diff of runs differing in policy and dataset: %v", err)
	}
}

// A filter of diff.html named like a class shows that class and nothing
// else: the page's "Changed" filter showed every class but unchanged (58
// cases on the sample) beside a header counting 2 "changed".
func TestPageFiltersNamedLikeClasses(t *testing.T) {
	t.Parallel()
	filter := regexp.MustCompile(`\["(\w+)", "([^"]+)", c => ([^\]]+)\]`)
	classes := map[string]bool{ClassLoosened: true, ClassTightened: true, ClassChanged: true, ClassUnchanged: true}
	n := 0
	for _, m := range filter.FindAllStringSubmatch(pageTemplate, -1) {
		n++
		label := strings.ToLower(m[2])
		if classes[label] && m[3] != `c.c === "`+label+`"` {
			t.Errorf("filter %q is named like the class %q but shows %s", m[2], label, m[3])
		}
	}
	if n < 5 {
		t.Fatalf("found %d filters in page.html", n)
	}
}

// TestHookRewrittenListedWhateverClass: the cases auto mode judged on a
// hook's input are marked in the text whatever their class (top loosened
// lists loosened cases only, so a tightened one was counted and marked
// nowhere), and diff.parquet carries hook_rewritten, a BOOLEAN that is
// false on every other case.
func TestHookRewrittenListedWhateverClass(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base, head := genPair(t, dir, 40, 6, 7, false)
	in, err := Open([]string{base, head}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	// The calls of every tenth session were rewritten by a hook.
	hooked := func(id string) bool { return strings.HasSuffix(strings.Split(id, "-")[1], "0") }
	out := filepath.Join(dir, "out")
	res, err := Diff(in, Options{Out: out, Top: 1000, AutoMode: "recorded/head", HookRewritten: hooked})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	classes := map[string]int{}
	for _, c := range s.HookRewrittenCases {
		if !c.HookRewritten || !hooked(c.CaseID) || !c.Differs() {
			t.Errorf("listed %s: hook_rewritten %v, differs %v", c.CaseID, c.HookRewritten, c.Differs())
		}
		classes[c.Class]++
	}
	if int64(len(s.HookRewrittenCases)) != s.Counts.HookRewrittenDiffering || classes[ClassTightened] == 0 || classes[ClassLoosened] == 0 {
		t.Fatalf("listed %d hook-rewritten cases (%v), want all %d differing, tightened ones among them",
			len(s.HookRewrittenCases), classes, s.Counts.HookRewrittenDiffering)
	}
	var b strings.Builder
	if err := s.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	var tight *Case
	for _, c := range s.HookRewrittenCases {
		if c.Class == ClassTightened {
			tight = c
			break
		}
	}
	if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(tight.CaseID+" "+HookMark) + ` +\S+ +\S+ +tightened +`).MatchString(b.String()) {
		t.Errorf("the text does not mark the tightened case %s:\n%s", tight.CaseID, b.String())
	}
	if !strings.Contains(b.String(), `marked [hook-rewritten] and listed under "hook-rewritten, differing"`) {
		t.Errorf("the count line does not say where the cases are listed:\n%s", b.String())
	}
	// --top 2: two listed, the line says where the others are.
	in, err = Open([]string{base, head}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	res2, err := Diff(in, Options{Top: 2, AutoMode: "recorded/head", HookRewritten: hooked})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res2.Summary.HookRewrittenCases); n != 2 || res2.Summary.HookRewrittenCases[0].CaseID != s.HookRewrittenCases[0].CaseID {
		t.Errorf("--top 2 kept %d hook-rewritten cases, want the first 2 of the full list", n)
	}
	b.Reset()
	if err := res2.Summary.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `2 listed under "hook-rewritten, differing" (--top), all of them in diff.parquet's hook_rewritten column`) {
		t.Errorf("--top 2: the count line does not say where the rest are:\n%s", b.String())
	}

	p := filepath.Join(out, ParquetFile)
	typ := ""
	for _, c := range duckdbtest.Describe(t, p) {
		if c.Name == "hook_rewritten" {
			typ = c.Type
		}
	}
	if typ != "BOOLEAN" {
		t.Fatalf("diff.parquet hook_rewritten: DuckDB type %q, want BOOLEAN", typ)
	}
	d := duckdbtest.Literal(p)
	rows := duckdbtest.Query(t,
		`SELECT count(*) FILTER (WHERE hook_rewritten) h, count(*) FILTER (WHERE hook_rewritten AND differs) hd,
		        count(*) FILTER (WHERE hook_rewritten IS NULL) nul,
		        count(*) FILTER (WHERE hook_rewritten <> (split_part(case_id, '-', 2) LIKE '%0')) wrong
		 FROM read_parquet(`+d+`)`)
	r := rows[0][0]
	if toString(r["h"]) != strconv.FormatInt(s.Counts.HookRewritten, 10) || toString(r["hd"]) != strconv.FormatInt(s.Counts.HookRewrittenDiffering, 10) ||
		toString(r["nul"]) != "0" || toString(r["wrong"]) != "0" || s.Counts.HookRewritten == 0 {
		t.Errorf("diff.parquet hook_rewritten: %v, want %d true (%d differing), no null, none wrong", r, s.Counts.HookRewritten, s.Counts.HookRewrittenDiffering)
	}
}

// TestTopAndPageMaxNone: a negative Top and PageMax list none (the CLI's
// --top 0 and --page-max 0, which listed 10 loosened cases and the whole
// page: 0 was taken for the default), while 0 keeps the defaults.
func TestTopAndPageMaxNone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base, head := genPair(t, dir, 40, 6, 7, false)
	for _, tc := range []struct {
		top, page     int
		loosened, hw  int
		pageAllListed bool
	}{
		{0, 0, 10, 10, true},
		{-1, -1, 0, 0, false},
	} {
		in, err := Open([]string{base, head}, "", "")
		if err != nil {
			t.Fatal(err)
		}
		res, err := Diff(in, Options{Top: tc.top, PageMax: tc.page, Out: filepath.Join(dir, fmt.Sprint("out", tc.top)),
			AutoMode: "recorded/head", HookRewritten: func(string) bool { return true }})
		if err != nil {
			t.Fatal(err)
		}
		s := res.Summary
		if len(s.TopLoosened) != tc.loosened || len(s.HookRewrittenCases) != tc.hw {
			t.Errorf("Top %d: %d loosened, %d hook-rewritten listed, want %d and %d", tc.top, len(s.TopLoosened), len(s.HookRewrittenCases), tc.loosened, tc.hw)
		}
		if all := res.PageCases == s.Counts.Listed && res.PageOmitted == 0; all != tc.pageAllListed || (!tc.pageAllListed && (res.PageCases != 0 || res.PageOmitted != s.Counts.Listed)) {
			t.Errorf("PageMax %d: %d cases on the page, %d omitted, of %d differing", tc.page, res.PageCases, res.PageOmitted, s.Counts.Listed)
		}
	}
}
