package reports

import (
	"bytes"
	"strings"
	"testing"
)

// TestTSVCarriesEveryInterval: the per-rule TSV (the machine form CI
// scripts read) has, for every figure it prints that metrics.parquet gives
// an interval, that interval's bounds: a criterion decided on an interval
// (judge_required_rate_max, approval_reject_rate_max, the P95) can be
// checked from the TSV alone. It lacked judge_required_rate_lo/hi,
// approval_reject_rate_lo/hi and latency_p50_lo/hi_ms.
func TestTSVCarriesEveryInterval(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := fixtureReport().WriteTables(&b, FormatTSV); err != nil {
		t.Fatal(err)
	}
	var header []string
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(line, "rule_id\t") {
			header = strings.Split(line, "\t")
		}
	}
	if header == nil {
		t.Fatalf("no per-rule header in:\n%s", b.String())
	}
	has := func(c string) bool {
		for _, h := range header {
			if h == c {
				return true
			}
		}
		return false
	}
	for _, c := range metricsOrder {
		fig, ok := strings.CutSuffix(c, "_lo")
		if !ok {
			fig, ok = strings.CutSuffix(c, "_lo_ms")
			fig += "_ms"
		}
		if !ok || !has(fig) {
			continue
		}
		hi := strings.TrimSuffix(strings.TrimSuffix(c, "_ms"), "_lo") + "_hi"
		if strings.HasSuffix(c, "_ms") {
			hi += "_ms"
		}
		if !has(c) || !has(hi) {
			t.Errorf("the TSV prints %s but not its interval %s, %s", fig, c, hi)
		}
	}
}
