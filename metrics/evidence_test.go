package metrics

import (
	"strings"
	"testing"

	"github.com/apeval/apeval/replay"
)

func altered(r replay.RuleResult) replay.RuleResult {
	r.EvidenceAltered = true
	return r
}

// The share of a rule's judge inputs with altered evidence, by hand:
// judged pairs (judge, cache, failure) count, deterministic and missing
// ones do not; the judge's summary warns about a rule above
// EvidenceAlteredWarn (5 %) and not about one at it.
func TestEvidenceAlteredRate(t *testing.T) {
	t.Parallel()
	var results []*replay.Result
	add := func(id string, rules ...replay.RuleResult) {
		results = append(results, &replay.Result{RunID: "run", CaseID: id, Judge: "J", JudgeCalled: true,
			Calls: []replay.Call{call(10, "ok", false)}, Rules: rules})
	}
	// A: 4 judged pairs, 1 altered (judge), 1 altered failure → 2/4 = 50 %,
	// warned. An altered deterministic pair and a missing one are not
	// judged: left out.
	add("c1", altered(rr("A", "style", "judge", "match", "", "ok", true, 0)), rr("B", "style", "judge", "no_match", "", "ok", false, 0))
	add("c2", altered(rr("A", "style", "failure", "no_match", "", "timeout", false, 0)), rr("B", "style", "cache", "no_match", "", "ok", false, 0))
	add("c3", rr("A", "style", "cache", "no_match", "", "ok", false, 0), altered(rr("B", "style", "judge", "no_match", "", "ok", false, 0)))
	add("c4", rr("A", "style", "judge", "no_match", "", "ok", false, 0), altered(rr("B", "style", "deterministic", "no_match", "", "ok", false, -1)))
	add("c5", altered(rr("A", "style", "judge", "", "", "missing", false, -1)))
	// B: judged in c1, c2, c3 and 17 more cases, one altered (c3) → 1/20 =
	// 5 %, at the threshold: not warned.
	for i := range 17 {
		add("b"+string(rune('a'+i)), rr("B", "style", "judge", "no_match", "", "ok", false, 0))
	}
	s := summarize(t, Config{Criteria: replay.DefaultKillCriteria()}, results)
	j := s.Judge("J")
	a, b := j.Rule("A"), j.Rule("B")
	if a.Judged != 4 || a.EvidenceAltered != 2 || b.Judged != 20 || b.EvidenceAltered != 1 {
		t.Fatalf("A judged %d altered %d; B judged %d altered %d", a.Judged, a.EvidenceAltered, b.Judged, b.EvidenceAltered)
	}
	eqPtr(t, "A rate", a.EvidenceAlteredRate, f(0.5))
	eqPtr(t, "B rate", b.EvidenceAlteredRate, f(0.05))
	eqPtr(t, "total rate", j.Total.EvidenceAlteredRate, f(3.0/24))
	var warned []string
	for _, w := range j.Warnings {
		if strings.Contains(w, "evidence_altered_rate") {
			warned = append(warned, w)
		}
	}
	want := "rule A: in 2 of 4 judge inputs (50 %) masking or the input's length bound changed an argument its condition refers to"
	if len(warned) != 1 || !strings.HasPrefix(warned[0], want) {
		t.Errorf("warnings = %q, want one starting %q", warned, want)
	}
}
