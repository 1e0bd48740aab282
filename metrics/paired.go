package metrics

// PairedCounts is one session's units of a paired binary figure: Both had
// the event on both sides, BaseOnly on the baseline side only, CandOnly on
// the candidate side only, Neither on neither. Sessions, when above 1,
// says that many sessions have these same counts (0 and 1 mean one), so
// that many sessions take little memory.
type PairedCounts struct{ Both, BaseOnly, CandOnly, Neither, Sessions int64 }

// PairedBinary compares a binary figure of two configurations on the same
// units, grouped by session, the way Summary.Compare compares two judges
// (docs/statistics.md, "Comparing two judges"): the rates of both sides,
// Δ = candidate − baseline with Newcombe's paired interval at conf, and the
// session sign-flip test's two-sided p (seeded when Monte Carlo). Callers
// outside this package (apeval simulate) use it so that every paired figure
// has one method.
func PairedBinary(name string, sessions []PairedCounts, conf float64, seed uint64) Figure {
	var m mcnemar
	var a, b, c, d int64
	for _, s := range sessions {
		k := max(s.Sessions, 1)
		a, b, c, d = a+k*s.Both, b+k*s.BaseOnly, c+k*s.CandOnly, d+k*s.Neither
		if n := s.BaseOnly + s.CandOnly; n > 0 {
			m.addSessions(s.BaseOnly-s.CandOnly, n, k)
		}
	}
	f := Figure{Figure: name, N: a + b + c + d, Test: m.test()}
	if f.N == 0 {
		return f
	}
	n := float64(f.N)
	f.Baseline, f.Candidate = ptr(float64(a+b)/n), ptr(float64(a+c)/n)
	est, lo, hi := NewcombePaired(float64(a), float64(c), float64(b), float64(d), zScore(conf))
	f.Delta, f.DeltaLo, f.DeltaHi = ptr(est), ptr(lo), ptr(hi)
	fr := m.flip(seed)
	f.PValue, f.PValueMCError = ptr(fr.two), fr.mcErr
	f.DiscordantBaseline, f.DiscordantCandidate = &b, &c
	return f
}
