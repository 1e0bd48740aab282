package metrics

import "testing"

func TestCohenKappaHandComputed(t *testing.T) {
	t.Parallel()
	// 10 items: both match on 4, both no_match on 4, 2 split (a match, b not).
	a := []bool{true, true, true, true, false, false, false, false, true, true}
	b := []bool{true, true, true, true, false, false, false, false, false, false}
	k := CohenKappa(a, b, 0.95)
	// p_o = 0.8; p_a = 0.6, p_b = 0.4; p_e = 0.24 + 0.24 = 0.48;
	// κ = 0.32/0.52 = 0.615385.
	nearW(t, "observed", k.Observed, 0.8, 1e-12)
	nearW(t, "kappa", *k.Kappa, 0.32/0.52, 1e-12)
	if !(*k.Lo < *k.Kappa && *k.Kappa < *k.Hi) || *k.Hi > 1 {
		t.Errorf("interval [%v, %v]", *k.Lo, *k.Hi)
	}
}

func TestFleissKappaHandComputed(t *testing.T) {
	t.Parallel()
	// Three raters on four items: 3/0, 0/3, 2/1, 1/2 match/no_match.
	items := [][]bool{{true, true, true}, {false, false, false}, {true, true, false}, {true, false, false}}
	k := FleissKappa(items, 3, 0.95)
	// P_i = 1, 1, 1/3, 1/3 → P̄ = 2/3; p_match = 6/12 → P_e = 0.5;
	// κ = (2/3 − 1/2)/(1/2) = 1/3.
	nearW(t, "observed", k.Observed, 2.0/3, 1e-12)
	nearW(t, "kappa", *k.Kappa, 1.0/3, 1e-12)
	// With two raters on every item Fleiss' κ differs from Cohen's only by
	// its pooled chance term.
	if k.Items != 4 || k.Method != "fleiss" {
		t.Errorf("%+v", k)
	}
}

func TestKappaUndefined(t *testing.T) {
	t.Parallel()
	k := CohenKappa([]bool{true, true}, []bool{true, true}, 0.95)
	if k.Kappa != nil || k.Observed != 1 {
		t.Errorf("%+v", k)
	}
}
