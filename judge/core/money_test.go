package core

import "testing"

// A tiny budget is never shown as $0.0000 (issue 35 point 15).
func TestUSD(t *testing.T) {
	for v, want := range map[float64]string{0: "0.0000", 1.5: "1.5000", 0.0012: "0.0012", 0.000001: "0.0000010", 0.00042: "0.00042", 0.0000123: "0.000012"} {
		if got := USD(v); got != want {
			t.Errorf("USD(%g) = %q, want %q", v, got, want)
		}
	}
}
