package metrics

import (
	"math"
	"testing"
)

func TestDeffNote(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		d    float64
		want string
	}{
		{1, ""}, {1.05, ""}, {1.2, ""},
		{1.2049, ""}, // prints 1.20: not above the rule
		{1.206, "deff 1.21"}, {1.85, "deff 1.85"}, {4.8, "deff 4.80"},
		{math.Inf(1), ""}, {math.NaN(), ""},
	} {
		if got := DeffNote(tc.d); got != tc.want {
			t.Errorf("DeffNote(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}
