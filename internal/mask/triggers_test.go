package mask

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// The one-pass trigger search (findTriggers) must mask exactly as the
// search it replaced: every trigger of every rule looked for with
// strings.Index in the text (lower-cased for a case-insensitive rule).
// refString is that search, kept here as the reference; the test compares
// the two on the secrets, ordinary and real corpora and on texts made by
// splicing their pieces together with the triggers (so that triggers meet
// at word boundaries, in mixed case, next to masked spans).
func TestTriggerSearchMatchesReference(t *testing.T) {
	var texts []string
	for _, e := range readCorpus(t) {
		texts = append(texts, e.Text)
	}
	for _, l := range readReal(t) {
		texts = append(texts, l.Text)
	}
	f, err := os.Open("testdata/ordinary.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e struct{ Text string }
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, e.Text)
	}
	var trig []string
	for _, r := range maskRules {
		for _, tr := range r.triggers {
			trig = append(trig, tr, strings.ToUpper(tr), " "+tr, "x"+tr, tr+" ")
		}
	}
	rng := rand.New(rand.NewPCG(34, 2))
	n := len(texts)
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(4) {
			s := texts[rng.IntN(n)]
			if len(s) > 0 {
				i, j := rng.IntN(len(s)), rng.IntN(len(s))
				b.WriteString(s[min(i, j):max(i, j)])
			}
			b.WriteString(trig[rng.IntN(len(trig))])
		}
		texts = append(texts, b.String())
	}
	diffs := 0
	for _, s := range texts {
		if got, want := String(s), refString(s); got != want {
			if diffs++; diffs <= 5 {
				t.Errorf("String(%q)\n  = %q\nwant %q (the reference search)", s, got, want)
			}
		}
	}
	if diffs > 0 {
		t.Errorf("%d of %d texts differ", diffs, len(texts))
	}
}

func refString(s string) string {
	if plainWord(s) {
		return s
	}
	out := refPass(s)
	for range 4 {
		if out == s {
			break
		}
		s, out = out, refPass(out)
	}
	return out
}

func refPass(s string) string {
	for i := range maskRules {
		if s == "" {
			return s
		}
		s = refApply(&maskRules[i], s)
	}
	return s
}

func refApply(r *maskRule, s string) string {
	if r.scan != nil {
		return r.scan(s)
	}
	hay := s
	if r.fold {
		hay = asciiLower(s)
	}
	var b strings.Builder
	last := 0
	next := make([]int, len(r.triggers))
	for ti := range next {
		next[ti] = -2
	}
	for i := 0; i < len(s); {
		p := -1
		for ti, t := range r.triggers {
			if next[ti] == -1 {
				continue
			}
			if next[ti] < i {
				if k := strings.Index(hay[i:], t); k >= 0 {
					next[ti] = i + k
				} else {
					next[ti] = -1
					continue
				}
			}
			if p < 0 || next[ti] < p {
				p = next[ti]
			}
		}
		if p < 0 {
			break
		}
		i = p + 1
		if r.word && p > 0 && isWordChar(s[p-1]) {
			continue
		}
		start := p
		if r.back != nil {
			if start = r.back(s, p); start < 0 {
				continue
			}
		}
		if start < last {
			continue
		}
		m := r.re.FindStringSubmatchIndex(s[start:])
		if m == nil {
			continue
		}
		g0, g1 := start+m[2], start+m[3]
		secret := s[g0:g1]
		if secret == Masked || r.ok != nil && !r.ok(secret) {
			continue
		}
		b.WriteString(s[last:g0])
		b.WriteString(Masked)
		last = g1
		i = max(i, start+m[1])
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// asciiLower lower-cases ASCII letters only, so byte offsets stay valid.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// digitRun skips to the next digit outside a run; refDigitRun is the plain
// state machine it must agree with.
func TestDigitRunMatchesReference(t *testing.T) {
	texts := []string{"", "1", "a1b2", "4111 1111 1111 1111", "DE89 3704 0044 0532 0130 00", "+1 (555) 123-4567",
		"x--1--2", "AB12 CD", "12..34", "ab 12 - 34 x 56789"}
	for _, l := range readReal(t) {
		texts = append(texts, l.Text)
	}
	rng := rand.New(rand.NewPCG(34, 3))
	const alphabet = "0123456789 -./()+aZ:XY"
	for range 20000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	for _, s := range texts {
		if got, want := digitRun(s), refDigitRun(s); got != want {
			t.Fatalf("digitRun(%q) = %d, want %d", s, got, want)
		}
	}
}

func refDigitRun(s string) int {
	best, cur, sep := 0, 0, 0
	for i := 0; i < len(s); i++ {
		switch byteClass[s[i]] {
		case classDigit:
			cur++
			sep = 0
			best = max(best, cur)
		case classSep:
			if sep < 2 {
				sep++
				continue
			}
			cur, sep = 0, 0
		case classUpper:
			if !(i+1 < len(s) && byteClass[s[i+1]] == classUpper && cur == 0) {
				cur, sep = 0, 0
			}
		default:
			if cur != 0 || sep != 0 {
				cur, sep = 0, 0
			}
		}
	}
	return best
}
