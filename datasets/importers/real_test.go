package importers

import (
	"io"
	"testing"

	"github.com/apeval/apeval/datasets"
)

// realClaude is a real public Claude Code 2.0.76 session transcript
// (testdata/README.md: jimmc414/cctrace, MIT), the largest real log in
// testdata.
const realClaude = "testdata/real/claude-code-2.0.76/132b2f66-ee5f-46f6-8904-32d9dc4d36c3.jsonl.gz"

// The real session imports whole, and masking changes nothing in it: the
// hand-checked list of its masked spans is empty (it holds no secret; the
// 11,910 distinct lines of text it and an earlier session hold are
// internal/mask's ordinary-text corpus).
func TestRealClaudeSessionMasking(t *testing.T) {
	t.Parallel()
	masked, sum, mOut := importAll(t, "claude-code-transcript", Options{}, realClaude)
	_, _, rawOut := importAll(t, "claude-code-transcript", Options{NoMask: true}, realClaude)
	if sum.Cases != 152 || sum.Sessions != 1 || sum.Errors != 0 || len(masked) != 152 {
		t.Fatalf("cases %d, sessions %d, errors %d", sum.Cases, sum.Sessions, sum.Errors)
	}
	if mOut != rawOut {
		a, b := firstDiff(mOut, rawOut)
		t.Errorf("masking changed the real session (hand-checked list is empty):\n masked %q\n    raw %q", a, b)
	}
}

func firstDiff(a, b string) (string, string) {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-80)
	return a[lo:min(len(a), i+80)], b[lo:min(len(b), i+80)]
}

// BenchmarkImportRealMasking imports the largest real log in testdata with
// masking off and on and reports the share of the import's CPU time that
// masking takes (goal ≤ 30 %, issue 34; make bench prints it).
func BenchmarkImportRealMasking(b *testing.B) {
	run := func(noMask bool) {
		sum, err := Import("claude-code-transcript", []string{realClaude}, Options{NoMask: noMask}, func(c *datasets.Case) error {
			return datasets.WriteJSONL(io.Discard, c)
		}, nil)
		if err != nil || sum.Cases != 152 {
			b.Fatalf("%+v %v", sum, err)
		}
	}
	run(false) // warm the file cache and the masker's regexps
	var masked, plain float64
	for b.Loop() {
		c0 := cpuSeconds()
		run(true)
		c1 := cpuSeconds()
		run(false)
		c2 := cpuSeconds()
		plain += c1 - c0
		masked += c2 - c1
	}
	if masked > 0 {
		b.ReportMetric(100*(masked-plain)/masked, "mask-cpu-%")
	}
	b.ReportMetric(masked/float64(b.N)*1e3, "ms-cpu/import")
}
