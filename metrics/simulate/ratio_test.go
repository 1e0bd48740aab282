package simulate

import (
	"math"
	"testing"
)

// A row survives packing into 8 bytes, every field at its extremes.
func TestRowPack(t *testing.T) {
	for _, r := range []row{
		{},
		{rule: 65535, label: labNoMatch, outcome: outMissing, judged: true, scope: true, timedOut: true, fired: true, baseline: true, action: 7, conf: 0.25},
		{rule: 3, label: labMatch, outcome: outFailed, fired: true, action: 2, conf: float32(math.Inf(-1))},
		{rule: 1, outcome: outUnknown, judged: true, baseline: true, conf: 1},
	} {
		if got := r.pack().unpack(); got != r {
			t.Errorf("pack/unpack %+v = %+v", r, got)
		}
	}
	nan := row{conf: float32(math.NaN())}.pack().unpack()
	if !math.IsNaN(float64(nan.conf)) {
		t.Errorf("NaN confidence came back as %g", nan.conf)
	}
}

// chunked.run never splits a run across chunks, and extend zero-fills.
func TestChunked(t *testing.T) {
	var c chunked[int32]
	a := c.run(1<<chunkBits - 3)
	b := c.run(5) // does not fit the first chunk's 3 left
	if a != 0 || b != 1<<chunkBits {
		t.Fatalf("runs at %d and %d, want 0 and %d", a, b, 1<<chunkBits)
	}
	s := c.slice(b, 5)
	for i := range s {
		s[i] = int32(i + 1)
	}
	if *c.at(b + 4) != 5 || c.n != b+5 {
		t.Errorf("at(b+4) = %d, n = %d", *c.at(b + 4), c.n)
	}
	c.extend(3 << chunkBits)
	if len(c.cs) != 3 || *c.at(3<<chunkBits - 1) != 0 {
		t.Errorf("extend: %d chunks", len(c.cs))
	}
}
