package metrics

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
)

// TestBuildQueueReach: a queue with Reach holds only the strata where
// the judges disagree, each brought to Reach labels counting the
// dataset's labels of it (or all its pairs); the strata where they agree
// get none; the sizes are the run's (the unlabeled pairs of the stratum,
// as a budget queue names them); the same seed draws the same queue and
// another seed other pairs; and the first items are the first two of
// every stratum, as in any queue.
func TestBuildQueueReach(t *testing.T) {
	t.Parallel()
	ps := queuePairs()
	letters := []string{"A", "B"}
	labeled := map[[2]string]int{
		{"r1", "A:match B:no_match"}: 12, // 40 unlabeled: 28 to reach 40
		{"r1", "A:no_match B:match"}: 2,  // 3 unlabeled: all of them
		{"r1", "A:match B:match"}:    50, // agree: none, labeled or not
	}
	q, err := BuildQueue(ps, QueueConfig{Reach: 40, Labeled: labeled, Seed: 3, Letters: letters})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{
		"r1 A:match B:no_match": 28, "r1 A:no_match B:match": 3,
		"r1 A:no_match B:no_match": 0, "r1 A:match B:match": 0,
		// r2's B is undecided where A says no_match: they disagree, and
		// none of its 500 pairs is labeled.
		"r2 A:no_match B:undecided": 40, "r2 A:match B:match": 0,
	}
	budget, err := BuildQueue(ps, QueueConfig{Budget: len(ps), Seed: 3, Letters: letters})
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[string]int64{}
	for _, s := range budget.Strata {
		sizes[s.RuleID+" "+s.Name] = s.Size
	}
	got := map[string]int{}
	for _, s := range q.Strata {
		k := s.RuleID + " " + s.Name
		got[k] = s.Allocated
		if s.Size != sizes[k] || s.Labeled != labeled[[2]string{s.RuleID, s.Name}] {
			t.Errorf("%s: size %d (a budget queue's %d), labeled %d", k, s.Size, sizes[k], s.Labeled)
		}
	}
	if !reflect.DeepEqual(got, want) || len(q.Items) != 28+3+40 || q.Reach != 40 || q.Budget != len(q.Items) {
		t.Errorf("allocation %v (want %v), %d items, reach %d, budget %d", got, want, len(q.Items), q.Reach, q.Budget)
	}
	n := map[string]int{}
	for _, it := range q.Items {
		k := it.RuleID + " " + it.Stratum
		n[k]++
		if it.StratumSize != sizes[k] {
			t.Errorf("%s: item %s has stratum_size %d, the run's is %d", k, it.CaseID, it.StratumSize, sizes[k])
		}
	}
	for k, w := range want {
		if n[k] != w {
			t.Errorf("%s: %d items, want %d", k, n[k], w)
		}
	}
	// The first two items of every queued stratum come first.
	first := map[string]int{}
	for _, it := range q.Items[:6] {
		first[it.RuleID+" "+it.Stratum]++
	}
	if first["r1 A:match B:no_match"] != 2 || first["r1 A:no_match B:match"] != 2 || first["r2 A:no_match B:undecided"] != 2 {
		t.Errorf("first six items by stratum: %v", first)
	}
	again, _ := BuildQueue(ps, QueueConfig{Reach: 40, Labeled: labeled, Seed: 3, Letters: letters})
	other, _ := BuildQueue(ps, QueueConfig{Reach: 40, Labeled: labeled, Seed: 4, Letters: letters})
	if !reflect.DeepEqual(q.Items, again.Items) {
		t.Error("the same seed drew another queue")
	}
	if reflect.DeepEqual(q.Items, other.Items) {
		t.Error("another seed drew the same queue")
	}
	// A stratum at or above its reach gets none; a reach with nothing
	// left to queue is an empty queue, not an error.
	full, err := BuildQueue(ps, QueueConfig{Reach: 3, Labeled: map[[2]string]int{{"r1", "A:match B:no_match"}: 3, {"r1", "A:no_match B:match"}: 9, {"r2", "A:no_match B:undecided"}: 4}, Letters: letters})
	if err != nil || len(full.Items) != 0 {
		t.Errorf("every stratum reached: %v items, %v", full, err)
	}
	if _, err := BuildQueue(ps, QueueConfig{Reach: -1, Budget: 10, Letters: letters}); err == nil {
		t.Error("a negative reach is accepted")
	}
}

// TestReachLabelsWeighLikeAnyQueue: labels of a --reach queue added to a
// pilot's (the pilot's imported into the dataset: census) give the same
// figures, estimate and interval, as the same pairs labeled from a
// budget queue over the same run — and the weighted counts are the
// census's plus N_h/n_h per label, N_h the stratum's unlabeled pairs in
// the run, counted here by hand.
func TestReachLabelsWeighLikeAnyQueue(t *testing.T) {
	t.Parallel()
	ps := labelModels[0].draw(100)
	pilot, full := pilotOf(ps, 11, 300)
	letters := []string{"C", "R"}
	pairs, _ := pilot.QueuePairs()
	reach, err := BuildQueue(pairs, QueueConfig{Reach: 40, Labeled: pilot.LabeledStrata(letters), Seed: 5, Letters: letters})
	if err != nil {
		t.Fatal(err)
	}
	every, err := BuildQueue(pairs, QueueConfig{Budget: len(pairs), Seed: 6, Letters: letters})
	if err != nil {
		t.Fatal(err)
	}
	line := map[string]QueueItem{}
	for _, it := range every.Items {
		line[it.CaseID] = it
	}
	truth := func(id string) bool { return full.by[[2]string{id, "r"}].Label == datasets.LabelMatch }
	var fromReach, fromBudget []SampleLabel
	for _, it := range reach.Items {
		fromReach = append(fromReach, SampleLabel{CaseID: it.CaseID, RuleID: it.RuleID, Stratum: it.Stratum, StratumSize: it.StratumSize, Match: truth(it.CaseID)})
		b := line[it.CaseID]
		fromBudget = append(fromBudget, SampleLabel{CaseID: b.CaseID, RuleID: b.RuleID, Stratum: b.Stratum, StratumSize: b.StratumSize, Match: truth(b.CaseID)})
	}
	if len(fromReach) < 40 {
		t.Fatalf("the reach queue holds %d labels", len(fromReach))
	}
	// By hand: the census (the pilot's labels, weight 1) plus each
	// reach label at N_h/n_h.
	unlabeled, sampled := map[string]float64{}, map[string]float64{}
	for _, p := range pilot.Rows() {
		if p.Label == "" {
			unlabeled[StratumName(letters, queueResults(p.Results))]++
		}
	}
	for _, l := range fromReach {
		sampled[l.Stratum]++
	}
	var tp, fp float64 // of the candidate (judge 0)
	for _, p := range pilot.Rows() {
		if p.Label != "" && p.Results[0] == QueueMatch {
			if p.Label == datasets.LabelMatch {
				tp++
			} else {
				fp++
			}
		}
	}
	for _, l := range fromReach {
		if w := unlabeled[l.Stratum] / sampled[l.Stratum]; strings.HasPrefix(l.Stratum, "C:match ") {
			if l.Match {
				tp += w
			} else {
				fp += w
			}
		}
	}
	crit := replay.DefaultKillCriteria()
	for j := range 2 {
		a := SampleFiguresOf(pilot, "r", j, fromReach, crit)
		b := SampleFiguresOf(pilot, "r", j, fromBudget, crit)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("judge %d: from the reach queue %+v\nfrom the budget queue %+v", j, a, b)
		}
		if a.Precision.Estimate == nil || a.Recall.Estimate == nil {
			t.Fatalf("judge %d: no figures %+v", j, a)
		}
		t.Logf("judge %d: precision %.4f [%.4f, %.4f], recall %.4f [%.4f, %.4f] on %d census + %d queue labels", j,
			*a.Precision.Estimate, *a.Precision.Lo, *a.Precision.Hi, *a.Recall.Estimate, *a.Recall.Lo, *a.Recall.Hi, a.Census, a.Sampled)
	}
	a := SampleFiguresOf(pilot, "r", 0, fromReach, crit)
	if math.Abs(a.TP-tp) > 1e-9 || math.Abs(a.FP-fp) > 1e-9 {
		t.Errorf("candidate TP/FP %.4f/%.4f, by hand %.4f/%.4f", a.TP, a.FP, tp, fp)
	}
}

// TestReachCountsLabelsFiles: a pilot whose labels are kept in a labels
// file (the first 300 of a budget queue over a run without labels) and
// a --reach queue that counts them (PairTable.FileLabels: never drawn
// again, counted toward the reach, still in the strata's sizes) give,
// together, the figures the same pairs give as lines of one budget
// queue over the run; plan's table with the file's labels set
// (SetFileLabels) names a first stage of exactly that queue's length.
func TestReachCountsLabelsFiles(t *testing.T) {
	t.Parallel()
	ps := labelModels[0].draw(100)
	_, full := pilotOf(ps, 11, 300)
	blank := blankTable(full)
	letters := []string{"C", "R"}
	pairs, _ := blank.QueuePairs()
	pq, err := BuildQueue(pairs, QueueConfig{Budget: 3000, Seed: 11, Letters: letters})
	if err != nil {
		t.Fatal(err)
	}
	truth := func(id string) bool { return full.by[[2]string{id, "r"}].Label == datasets.LabelMatch }
	lineOf := func(it QueueItem) SampleLabel {
		return SampleLabel{CaseID: it.CaseID, RuleID: it.RuleID, Stratum: it.Stratum, StratumSize: it.StratumSize, Match: truth(it.CaseID)}
	}
	var pilot []SampleLabel
	for _, it := range pq.Items[:300] {
		pilot = append(pilot, lineOf(it))
	}
	labeled := blank.LabeledStrata(letters)
	exclude, missing := blank.FileLabels(letters, append(pilot, SampleLabel{CaseID: "elsewhere", RuleID: "r"}), labeled)
	if len(exclude) != 300 || missing != 1 {
		t.Fatalf("%d pairs excluded, %d missing", len(exclude), missing)
	}
	reach, err := BuildQueue(pairs, QueueConfig{Reach: 40, Labeled: labeled, Exclude: exclude, Seed: 5, Letters: letters})
	if err != nil {
		t.Fatal(err)
	}
	size := map[string]int64{}
	for _, it := range pq.Items {
		size[it.Stratum] = it.StratumSize
	}
	all := slices.Clone(pilot)
	for _, it := range reach.Items {
		if exclude[[2]string{it.CaseID, it.RuleID}] {
			t.Errorf("%s is queued again", it.CaseID)
		}
		if it.StratumSize != size[it.Stratum] {
			t.Errorf("%s: stratum_size %d, the pilot's lines say %d", it.Stratum, it.StratumSize, size[it.Stratum])
		}
		all = append(all, lineOf(it))
	}
	// The same pairs as lines of one budget queue of every pair.
	every, err := BuildQueue(pairs, QueueConfig{Budget: len(pairs), Seed: 6, Letters: letters})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]QueueItem{}
	for _, it := range every.Items {
		byID[it.CaseID] = it
	}
	var same []SampleLabel
	for _, l := range all {
		same = append(same, lineOf(byID[l.CaseID]))
	}
	crit := replay.DefaultKillCriteria()
	for j := range 2 {
		a, b := SampleFiguresOf(blank, "r", j, all, crit), SampleFiguresOf(blank, "r", j, same, crit)
		if !reflect.DeepEqual(a, b) || a.Sampled != int64(len(all)) {
			t.Errorf("judge %d: pilot file + reach queue %+v\nthe same pairs from one queue %+v", j, a, b)
		}
	}
	// The plan's count: the file's labels set in the pilot's table.
	tab := blankTable(full)
	if set, miss := tab.SetFileLabels(pilot); set != 300 || miss != 0 {
		t.Fatalf("set %d, missing %d", set, miss)
	}
	crit.PrecisionMin = 0.62
	plans, err := PlanLabels(tab, crit, LabelPlanOptions{Baseline: "R", Reps: 10, Seed: 3, Pilot: "run", PilotLabels: []string{"pilot.jsonl"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plans {
		if p.First == nil || p.First.Labels != int64(len(reach.Items)) || p.First.Command != "apeval label queue run --rule r --reach 40 --labels pilot.jsonl" {
			t.Errorf("%s: first stage %+v, the queue holds %d", p.Criterion, p.First, len(reach.Items))
		}
	}
	if _, err := BuildQueue(pairs, QueueConfig{Budget: 100, Exclude: exclude, Letters: letters}); err == nil {
		t.Error("a budget queue leaves pairs out")
	}
}
