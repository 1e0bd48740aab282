package metrics

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apeval/apeval/replay"
)

// TestWidenedSaysWhatWidened: a few-session interval's reason says what
// widened it. Sessions of one size: the beta-binomial over few sessions
// alone ("widened for few sessions as by a deff of …", the interval's
// own width as a deff). Ten sessions of one unit, all precise, beside
// four of ten units, 3 of 10 precise: the sessions' rates depend on their
// size, so the interval is also hulled toward the pooled rate
// (bbPosterior.sizeShift), and the reason says both, each with its deff;
// it said "widened for few sessions" alone, with the hull's deff.
func TestWidenedSaysWhatWidened(t *testing.T) {
	t.Parallel()
	e := newEvaluator(replay.DefaultKillCriteria())
	for _, tc := range []struct {
		name   string
		ys, ms []int64
		want   []string
		not    string
	}{
		{"one size", []int64{4, 3, 5, 4, 2, 4, 3, 5}, []int64{5, 5, 5, 5, 5, 5, 5, 5},
			[]string{", widened for few sessions as by a deff of "}, "pooled rate"},
		{"rates depend on size", []int64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 3}, []int64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 10, 10, 10, 10},
			[]string{", widened for few sessions as by a deff of ", ", and toward the pooled rate (rates may depend on session size) to a deff of "}, ""},
	} {
		post := newBBPosterior(tc.ys, tc.ms, 1)
		lo, hi, _ := ClusteredInterval(tc.ys, tc.ms, 0.95)
		var x, n int64
		for i := range tc.ys {
			x, n = x+tc.ys[i], n+tc.ms[i]
		}
		c := e.proportion(Criterion{Name: CriterionPrecisionMin, Threshold: 0.9}, "precision", x, n, &lo, &hi, dataDeff(post), post)
		if !strings.Contains(post.method(), "(few sessions)") {
			t.Fatalf("%s: method %q, want the few-session interval", tc.name, post.method())
		}
		for _, w := range tc.want {
			if !strings.Contains(c.Reason, w) {
				t.Errorf("%s: reason %q lacks %q", tc.name, c.Reason, w)
			}
		}
		if tc.not != "" && strings.Contains(c.Reason, tc.not) {
			t.Errorf("%s: reason %q says %q", tc.name, c.Reason, tc.not)
		}
		// The last deff printed is the interval's own width.
		if all := fmt.Sprintf("%.2f 95%% CI", intervalDeff(post, 0.95)); !strings.Contains(c.Reason, all) {
			t.Errorf("%s: reason %q does not end its widening on the interval's deff (%s)", tc.name, c.Reason, all)
		}
	}
}
