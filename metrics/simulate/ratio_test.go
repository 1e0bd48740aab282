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
