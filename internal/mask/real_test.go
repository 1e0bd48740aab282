package mask

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// realLine is one line of testdata/ordinary-real.jsonl.gz: a distinct line
// of text from a real public Claude Code session (testdata/README.md names
// the files and commits) and where it came from.
type realLine struct {
	Src, Text string
}

func readReal(tb testing.TB) []realLine {
	tb.Helper()
	f, err := os.Open("testdata/ordinary-real.jsonl.gz")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	sc := bufio.NewScanner(z)
	sc.Buffer(nil, 1<<24)
	var out []realLine
	for sc.Scan() {
		var l realLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			tb.Fatal(err)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// realMasked is the hand-checked list of lines of the real corpus that
// masking changes (testdata/ordinary-real-masked.jsonl): each with what
// masking makes of it, whether the span is a secret, and why.
type realMasked struct {
	Line   int    `json:"line"`
	Masked string `json:"masked"`
	Secret bool   `json:"secret"`
	Why    string `json:"why"`
}

func readRealMasked(tb testing.TB) map[int]realMasked {
	tb.Helper()
	b, err := os.ReadFile("testdata/ordinary-real-masked.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	out := map[int]realMasked{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l == "" {
			continue
		}
		var m realMasked
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			tb.Fatal(err)
		}
		out[m.Line] = m
	}
	return out
}

// realScore masks every line of the real corpus: the lines changed, those
// changed that the hand-checked list does not name (or names with another
// result), and the false positives (changed lines whose span is no secret).
func realScore(lines []realLine, checked map[int]realMasked) (changed, unlisted, falsePos int, surprises []string) {
	for i, l := range lines {
		m := String(l.Text)
		if m == l.Text {
			if c, ok := checked[i+1]; ok {
				surprises = append(surprises, "no longer masked: line "+itoa(i+1)+": "+c.Why)
			}
			continue
		}
		changed++
		c, ok := checked[i+1]
		if !ok || c.Masked != m {
			unlisted++
			falsePos++
			surprises = append(surprises, "line "+itoa(i+1)+": "+trunc(l.Text)+"\n  became "+trunc(m))
			continue
		}
		if !c.Secret {
			falsePos++
		}
	}
	return
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

func trunc(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// The masker on 11,910 distinct lines of two real public Claude Code
// sessions (code being written, commands, their output, prose): every line
// it changes is in the hand-checked list, and the false positives stay
// under 1 per 1,000 lines (docs/safety.md).
func TestMaskerRealOrdinary(t *testing.T) {
	t.Parallel()
	lines := readReal(t)
	if len(lines) < 5000 {
		t.Fatalf("real corpus too small: %d lines", len(lines))
	}
	changed, unlisted, falsePos, surprises := realScore(lines, readRealMasked(t))
	for _, s := range surprises {
		t.Error(s)
	}
	if unlisted > 0 {
		t.Errorf("%d changed lines not in testdata/ordinary-real-masked.jsonl", unlisted)
	}
	if rate := float64(falsePos) * 1000 / float64(len(lines)); rate >= 1 {
		t.Errorf("false positives %.2f per 1,000 lines (%d of %d), goal under 1", rate, falsePos, len(lines))
	}
	t.Logf("%d lines, %d changed, %d false positives", len(lines), changed, falsePos)
}

// BenchmarkMaskerReal masks the real corpus's lines and reports its false
// positives per 1,000 lines (make bench) and the masker's speed.
func BenchmarkMaskerReal(b *testing.B) {
	lines := readReal(b)
	_, _, falsePos, _ := realScore(lines, readRealMasked(b))
	var n int
	for _, l := range lines {
		n += len(l.Text)
	}
	b.SetBytes(int64(n))
	b.ResetTimer()
	for b.Loop() {
		for _, l := range lines {
			String(l.Text)
		}
	}
	b.ReportMetric(float64(falsePos)*1000/float64(len(lines)), "fp-per-1000-lines")
}
