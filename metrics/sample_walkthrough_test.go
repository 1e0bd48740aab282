package metrics

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestDrawnIntervalWalkthroughByHand recomputes, for docs/labeling.md's
// table (irreversible-delete, 38 labels of the sample's queue), the
// stratified draws' inputs from the run's own files rather than through
// PairTable: every pair's session and the two judges' results from
// decisions.parquet, the labels from the labels file
// (testdata/walkthrough_irreversible_delete.tsv holds both). It checks
// the strata's sizes against the labels' stratum_size, the labeled
// counts and matches per stratum, the weighted point estimates by hand,
// and that drawnInterval on these hand-built units and traffic (recall's
// lower bound widened by hand for the one unreached pair) gives the
// bounds report --labels printed (summary.json's precision_lo/hi,
// recall_lo/hi, full precision; the doc's table to 3 decimals).
func TestDrawnIntervalWalkthroughByHand(t *testing.T) {
	f, err := os.Open("testdata/walkthrough_irreversible_delete.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type pair struct{ session, a, b string }
	pairs := map[string]pair{}
	var order []string
	type label struct {
		id, stratum string
		size        int64
		match       bool
	}
	var labels []label
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		c := strings.Split(line, "\t")
		if c[0] == "label" {
			n, _ := strconv.ParseInt(c[3], 10, 64)
			labels = append(labels, label{c[1], c[2], n, c[4] == QueueMatch})
			continue
		}
		pairs[c[0]] = pair{c[1], c[2], c[3]}
		order = append(order, c[0])
	}
	if len(pairs) != 609 || len(labels) != 38 {
		t.Fatalf("%d pairs, %d labels; want 609, 38", len(pairs), len(labels))
	}
	und := func(r string) string {
		if r != QueueMatch && r != QueueNoMatch {
			return QueueUndecided
		}
		return r
	}
	stratum := func(p pair) string { return "A:" + und(p.a) + " B:" + und(p.b) }

	// Strata sizes from the run, labeled counts and matches from the
	// labels, by hand: the queue's stderr (docs/labeling.md) and the
	// txtar's irr.jsonl.
	size := map[string]int64{}
	for _, id := range order {
		size[stratum(pairs[id])]++
	}
	type nk struct{ n, k int }
	got := map[string]nk{}
	for _, l := range labels {
		if s := stratum(pairs[l.id]); s != l.stratum || size[s] != l.size {
			t.Fatalf("%s: stratum %q of %d pairs in the run, %q of %d in the label", l.id, s, size[s], l.stratum, l.size)
		}
		x := got[l.stratum]
		x.n++
		if l.match {
			x.k++
		}
		got[l.stratum] = x
	}
	wantSize := map[string]int64{"A:match B:match": 11, "A:match B:no_match": 5, "A:no_match B:match": 7, "A:no_match B:no_match": 580,
		"A:no_match B:undecided": 1, "A:undecided B:match": 3, "A:undecided B:no_match": 1, "A:undecided B:undecided": 1}
	wantNK := map[string]nk{"A:match B:match": {5, 5}, "A:match B:no_match": {5, 1}, "A:no_match B:match": {5, 4}, "A:no_match B:no_match": {18, 0},
		"A:no_match B:undecided": {1, 1}, "A:undecided B:match": {3, 3}, "A:undecided B:no_match": {1, 0}}
	for s, n := range wantSize {
		if size[s] != n {
			t.Errorf("stratum %q: %d pairs, want %d", s, size[s], n)
		}
	}
	for s, x := range wantNK {
		if got[s] != x {
			t.Errorf("stratum %q: %d labels, %d match; want %d, %d", s, got[s].n, got[s].k, x.n, x.k)
		}
	}

	// Judge A (qwen2.5:3b): precision on its match strata, 11·5/5 TP +
	// 5·1/5 TP, 5·4/5 FP: 12/16. Recall: FN 7·4/5 + 1·1/1 + 3·3/3 = 9.6:
	// 12/21.6. Judge B (qwen2.5:7b): TP 11 + 7·4/5 + 3 = 19.6, FP 1.4:
	// 19.6/21; FN 5·1/5 + 1 = 2: 19.6/21.6.
	for _, c := range []struct {
		judge              int
		name               string
		fn                 ratioFn
		est                float64
		printedLo, printed float64 // summary.json
		docLo, docHi       float64 // docs/labeling.md
	}{
		{0, "3b precision", precisionFn, 12.0 / 16, 0.5515711458269047, 0.9426313132506723, 0.552, 0.943},
		{0, "3b recall", recallFn, 12 / 21.6, 0.19623187773153258, 0.8075689758870596, 0.196, 0.808},
		{1, "7b precision", precisionFn, 19.6 / 21, 0.695664538422419, 0.995656884446366, 0.696, 0.996},
		{1, "7b recall", recallFn, 19.6 / 21.6, 0.3444840048442615, 0.9922451112424888, 0.344, 0.992},
	} {
		res := func(p pair) string { return []string{p.a, p.b}[c.judge] }
		var units []SampleUnit
		var y, x float64
		for _, l := range labels {
			p := pairs[l.id]
			u := SampleUnit{Stratum: l.stratum, StratumSize: l.size, Session: p.session, Label: l.match,
				Match: res(p) == QueueMatch, Undecided: und(res(p)) == QueueUndecided}
			units = append(units, u)
			yy, xx := c.fn(&u, u.Label)
			w := float64(l.size) / float64(got[l.stratum].n)
			y, x = y+w*yy, x+w*xx
		}
		// The traffic: every pair of the strata the labels reached.
		var traffic []TrafficPair
		for _, id := range order {
			p := pairs[id]
			if _, ok := got[stratum(p)]; ok {
				traffic = append(traffic, TrafficPair{Stratum: stratum(p), Session: p.session, Match: res(p) == QueueMatch})
			}
		}
		if len(traffic) != 608 {
			t.Fatalf("%s: %d traffic pairs, want 608 (609 less the unreached A:undecided B:undecided)", c.name, len(traffic))
		}
		if math.Abs(y/x-c.est) > 1e-12 {
			t.Errorf("%s: weighted estimate %v, by hand %v", c.name, y/x, c.est)
		}
		lo, hi, ok := drawnInterval(units, traffic, c.fn, c.est, 0.95)
		if !ok {
			t.Fatalf("%s: no draws", c.name)
		}
		if strings.HasSuffix(c.name, "recall") {
			// The unreached stratum (A:undecided B:undecided, 1 pair,
			// neither judge's match): recall's lower bound holds it
			// as a positive missed, lo·D/(D + 1), D the weighted
			// denominator (21.6); precision, which it does not enter,
			// is the draws' alone.
			lo = lo * x / (x + 1)
		}
		t.Logf("%s: %.4f [%.16g, %.16g]", c.name, c.est, lo, hi)
		if math.Abs(lo-c.printedLo) > 1e-12 || math.Abs(hi-c.printed) > 1e-12 {
			t.Errorf("%s: draws [%v, %v], report printed [%v, %v]", c.name, lo, hi, c.printedLo, c.printed)
		}
		if math.Abs(lo-c.docLo) > 0.0005 || math.Abs(hi-c.docHi) > 0.0005 {
			t.Errorf("%s: draws [%.4f, %.4f], the doc's table [%.3f, %.3f]", c.name, lo, hi, c.docLo, c.docHi)
		}
	}
}
