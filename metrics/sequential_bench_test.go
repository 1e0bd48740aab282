package metrics

import (
	"math/rand/v2"
	"testing"
)

// seqBenchValues are n session rates as the gate feeds them: sessions of
// 1–20 calls at a rate drawn around mu (ICC about 0.1).
func seqBenchValues(n int, mu float64) []float64 {
	rng := rand.New(rand.NewPCG(7, 8))
	xs := make([]float64, n)
	for i := range xs {
		m := 1 + rng.IntN(20)
		p := sessionRate(rng, mu, 0.1)
		y := 0
		for range m {
			if rng.Float64() < p {
				y++
			}
		}
		xs[i] = float64(y) / float64(m)
	}
	return xs
}

// benchSequence feeds 10,000 sessions to a fresh sequence per iteration
// and reports the cost per session.
func benchSequence(b *testing.B, mk func(float64) *ConfidenceSequence, mu float64) {
	xs := seqBenchValues(10000, mu)
	b.ReportAllocs()
	for b.Loop() {
		cs := mk(0.05)
		for _, x := range xs {
			cs.Add(x)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(xs)), "ns/session")
}

// BenchmarkConfidenceSequence: the two-sided sequence of every rate lane,
// 10,000 sessions at 0.55 (the one-sided benchmark's values, so that the
// two compare).
func BenchmarkConfidenceSequence(b *testing.B) { benchSequence(b, NewConfidenceSequence, 0.55) }

// BenchmarkOneSidedSequence: the recall gain's lane (a gain of 0.1 on
// [−1, 1] mapped onto [0, 1]), 10,000 sessions.
func BenchmarkOneSidedSequence(b *testing.B) { benchSequence(b, NewOneSidedSequence, 0.55) }
