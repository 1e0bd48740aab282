package metrics

import (
	"strings"
	"testing"
)

// TestSizeNoteSaysWhenFewSessionsDifferInSize: with few sessions (the
// beta-binomial branch) of very different sizes whose rates move with
// size, the reason's method says so — there the interval, about the
// sessions' mean rate, can miss the pooled figure without the size test
// rejecting (docs/statistics.md, "Informative session size, few
// sessions"). Sessions of one size, or rates that do not move with size,
// get no note.
func TestSizeNoteSaysWhenFewSessionsDifferInSize(t *testing.T) {
	cases := []struct {
		name   string
		ys, ms []int64
		want   string
	}{
		{"rates rise with size", []int64{4, 12, 60, 150}, []int64{20, 40, 100, 200}, "rates rise with size"},
		{"rates fall with size", []int64{16, 28, 40, 50}, []int64{20, 40, 100, 200}, "rates fall with size"},
		{"one size", []int64{4, 12, 60, 150}, []int64{200, 200, 200, 200}, ""},
		{"rates flat", []int64{10, 21, 49, 101}, []int64{20, 40, 100, 200}, ""},
		{"sizes within 4-fold", []int64{10, 20, 45, 60}, []int64{20, 30, 60, 70}, ""},
	}
	for _, c := range cases {
		p := newBBPosterior(c.ys, c.ms, 1)
		m := p.method()
		if !strings.Contains(m, "(few sessions)") {
			t.Fatalf("%s: method %q, want the few-session branch", c.name, m)
		}
		switch {
		case c.want == "" && strings.Contains(m, "apart in size"):
			t.Errorf("%s: method %q, want no size note", c.name, m)
		case c.want != "" && !strings.Contains(m, c.want):
			t.Errorf("%s: method %q, want a note saying %q", c.name, m, c.want)
		}
	}
}
