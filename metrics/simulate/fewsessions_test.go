package simulate

import (
	"strings"
	"testing"

	"github.com/apeval/apeval/metrics"
)

// TestOperatingPointFewSessions: an operating point claims no decision on
// a precision resting on 1 or 2 sessions (metrics.MinSessions), whatever
// its interval shows: a threshold chosen on the selection half whose
// holdout precision over 2 large sessions clears precision_min 0.5 is refused, with the
// reason and a "+N"; precision 0.5 over 2 sessions is not demoted; the
// same over 3 sessions is chosen / demoted.
func TestOperatingPointFewSessions(t *testing.T) {
	items := func(sessions, per int, pos func(i int) bool, conf func(i int) float64) []Item {
		var out []Item
		for s := range sessions {
			for i := range per {
				out = append(out, Item{Sess: uint32(s), Pos: pos(i), Match: true, Conf: conf(i)})
			}
		}
		return out
	}
	sep := func(n int) []Item {
		return items(n, 200, func(i int) bool { return i%2 == 0 }, func(i int) float64 { return 0.9 * float64(1-i%2) })
	}
	bad := func(n int) []Item {
		return items(n, 200, func(i int) bool { return i%2 == 0 }, func(int) float64 { return 0.9 })
	}
	if h := Evaluate(sep(2), 0.9, 0.95); h.PrecisionLo == nil || *h.PrecisionLo < 0.5 {
		t.Fatalf("2 holdout sessions: precision lower bound %v below 0.5: the test does not show the rule", h.PrecisionLo)
	}
	if b := Evaluate(bad(2), 0, 0.95); b.PrecisionHi == nil || *b.PrecisionHi >= 0.9 {
		t.Fatalf("2 bad sessions: precision upper bound %v reaches 0.9: the test does not show the rule", b.PrecisionHi)
	}
	var op OpPoint
	op.decide(sep(60), sep(2), 0.5, 0.95)
	if op.Decision != OpRefused || !strings.Contains(op.Reason, "on the holdout half is not decided: 2 sessions cannot show how much sessions differ") || op.MoreSessions == nil || *op.MoreSessions < 1 {
		t.Errorf("holdout of 2 sessions: %s, +N %v: %s", op.Decision, op.MoreSessions, op.Reason)
	}
	op = OpPoint{}
	op.decide(bad(2), bad(2), 0.9, 0.95)
	if op.Decision != OpRefused || !strings.Contains(op.Reason, metrics.FewSessionsReason(2)) {
		t.Errorf("precision 0.5 over 2 sessions: %s: %s, want refused", op.Decision, op.Reason)
	}
	op = OpPoint{}
	op.decide(sep(60), sep(3), 0.5, 0.95)
	if op.Decision != OpChosen {
		t.Errorf("holdout of 3 sessions: %s: %s, want chosen", op.Decision, op.Reason)
	}
	op = OpPoint{}
	op.decide(bad(3), bad(3), 0.9, 0.95)
	if op.Decision != OpDemote {
		t.Errorf("precision 0.5 over 3 sessions: %s: %s, want demote", op.Decision, op.Reason)
	}
}
