package metrics

import (
	"strings"
	"testing"
)

// A kappa from one pair (or a few) gives no interval: N/A below
// MinKappaItems, never [0.000, 0.000] (issue 35 point 15).
func TestKappaIntervalNeedsItems(t *testing.T) {
	t.Parallel()
	k := CohenKappa([]bool{true, false}, []bool{true, true}, 0.95)
	if k.Lo != nil || k.Hi != nil || !strings.HasPrefix(k.IntervalNA, "N/A: 2 item(s)") {
		t.Fatalf("two items: %+v", k)
	}
	var a, b []bool
	for i := 0; i < 20; i++ {
		a, b = append(a, i%2 == 0), append(b, i%3 == 0)
	}
	if k := CohenKappa(a, b, 0.95); k.Lo == nil || k.Hi == nil || k.IntervalNA != "" {
		t.Fatalf("twenty items: %+v", k)
	}
}
