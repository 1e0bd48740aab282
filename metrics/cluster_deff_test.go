package metrics

import "testing"

// TestClusteredDeffOnlyWhereSessionsSpread: the design effect is given
// where the sessions show a spread; with every session at one rate (all
// events, none, or a single session) the interval stays the
// beta-binomial's but deff is nil, not the "deff 4.77" that read as
// clustering beside 5999/5999. Sessions of one unit keep deff 1.
func TestClusteredDeffOnlyWhereSessionsSpread(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		ys, ms []int64
		deff   string // "nil", "1" or ">1"
	}{
		{"every unit an event", []int64{40, 30, 25, 12, 60}, []int64{40, 30, 25, 12, 60}, "nil"},
		{"no event", []int64{0, 0, 0, 0, 0, 0, 0, 0}, []int64{35, 35, 35, 35, 35, 35, 35, 35}, "nil"},
		{"one session", []int64{30}, []int64{40}, "nil"},
		{"every session at 1/2", []int64{5, 10, 2}, []int64{10, 20, 4}, "nil"},
		{"sessions spread", []int64{10, 2, 9, 1, 10, 0, 8}, []int64{10, 10, 10, 10, 10, 10, 10}, ">1"},
		{"one unit each", []int64{1, 1, 1, 1, 1}, []int64{1, 1, 1, 1, 1}, "1"},
	} {
		c := clusteredOf(&sessScratch{ys: tc.ys, ms: tc.ms}, 1.96, 0.95)
		if c.lo == nil || c.hi == nil || *c.lo >= *c.hi {
			t.Errorf("%s: no interval %v %v", tc.name, c.lo, c.hi)
			continue
		}
		got := "nil"
		switch {
		case c.deff == nil:
		case *c.deff == 1:
			got = "1"
		case *c.deff > 1:
			got = ">1"
		default:
			got = "<1"
		}
		if got != tc.deff {
			d := 0.0
			if c.deff != nil {
				d = *c.deff
			}
			t.Errorf("%s: deff %s (%.3f), want %s", tc.name, got, d, tc.deff)
		}
	}
}
