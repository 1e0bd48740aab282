package datasets

import (
	"strings"
	"testing"
	"time"
)

func TestReadWeakLabelsInDatasetAndRuleOrderCountingBadLines(t *testing.T) {
	in := `{"id":"c2","session_id":"s","hook_point":"tool.before","tool":{"name":"Bash","arguments":{"command":"ls"}},"weak_labels":{"rm":"match","curl":"no_match"}}
not json
{"id":"c1","session_id":"s","hook_point":"tool.before","tool":{"name":"Bash","arguments":{"command":"ls"}}}
{"id":"c3","session_id":"s","hook_point":"tool.before","tool":{"name":"Bash","arguments":{"command":"ls"}},"time":"2026-01-02T03:04:05Z","weak_labels":{"rm":"no_match"}}
`
	r := Open([]string{"-"}, strings.NewReader(in))
	defer r.Close()
	var bad []error
	weak, n, err := ReadWeakLabels(r, func(e error) { bad = append(bad, e) })
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 || len(bad) != 1 || !strings.Contains(bad[0].Error(), ":2") {
		t.Fatalf("unreadable = %d, %v; want 1 naming line 2", n, bad)
	}
	var got []string
	for _, w := range weak {
		got = append(got, w.CaseID+"/"+w.RuleID+"="+string(w.Label))
	}
	if want := "c2/curl=no_match c2/rm=match c3/rm=no_match"; strings.Join(got, " ") != want {
		t.Fatalf("weak = %v, want %s", got, want)
	}
	if weak[0].Time != nil || weak[2].Time == nil || !weak[2].Time.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("times: %v %v", weak[0].Time, weak[2].Time)
	}
	m := WeakLabelMap(weak)
	if len(m) != 3 || m[[2]string{"c2", "rm"}] != LabelMatch || m[[2]string{"c3", "rm"}] != LabelNoMatch {
		t.Errorf("map = %v", m)
	}
}

func TestWeakSampleLabelsAreMarkedWeakAndSizedPerRule(t *testing.T) {
	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	lines, rules := WeakSampleLabels([]WeakLabel{
		{CaseID: "a", RuleID: "rm", Label: LabelMatch},
		{CaseID: "b", RuleID: "curl", Label: LabelNoMatch, Time: &at},
		{CaseID: "c", RuleID: "rm", Label: LabelNoMatch},
	})
	if rules != 2 || len(lines) != 3 {
		t.Fatalf("rules = %d, lines = %d", rules, len(lines))
	}
	l := lines[2]
	if l.Schema != SampleLabelsSchema || l.Stratum != "weak" || l.StratumSize != 2 || l.Order != 3 ||
		l.Labeler != "weak" || l.LabelSource != LabelSourceWeak || l.Label != LabelNoMatch || !l.Time.Equal(time.Unix(0, 0)) {
		t.Errorf("line 3 = %+v", l)
	}
	if lines[1].StratumSize != 1 || !lines[1].Time.Equal(at) {
		t.Errorf("line 2 = %+v", lines[1])
	}
	var sb strings.Builder
	if err := WriteSampleLabels(&sb, lines); err != nil {
		t.Fatal(err)
	}
	back, errs := readSampleLabels(strings.NewReader(sb.String()), "weak.jsonl", false)
	if len(errs) > 0 || len(back) != 3 || back[0].LabelSource != LabelSourceWeak {
		t.Errorf("read back: %v %+v", errs, back)
	}
}
