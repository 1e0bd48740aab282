package metrics

import (
	"cmp"
	"iter"
	"slices"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/intern"
	"github.com/apeval/apeval/replay"
)

// Disagreement kinds.
const (
	// DisagreeOpposite: one judge said match, the other no_match.
	DisagreeOpposite = "opposite"
	// DisagreeUnknown: one judge decided (match or no_match), the other
	// said unknown or failed (invalid, timeout, error, failure policy).
	DisagreeUnknown = "unknown"
)

// Disagreement is one (case, rule) pair two judges decided differently:
// the cases worth a human label first when choosing between them
// (`apeval datasets disagreements`).
type Disagreement struct {
	CaseID string
	RuleID string
	// Label is the pair's label in the run (match|no_match), "" when unlabeled.
	Label datasets.Label
	// Kind is DisagreeOpposite or DisagreeUnknown.
	Kind      string
	Baseline  PairDecision
	Candidate PairDecision
	// Score orders disagreements of one kind (higher first): for opposite
	// pairs the product of the two confidences, for unknown pairs the
	// confidence of the judge that decided. See Disagreements.
	Score float64
}

// PairDecision is what one judge decided for a (case, rule) pair, as the
// run recorded it.
type PairDecision struct {
	Judge      string
	Result     string   // match|no_match|unknown
	Confidence *float64 // nil when the judge gave none (or the rule was deterministic)
	Status     string   // ok|unknown|invalid|timeout|error
	Source     string   // deterministic|judge|cache|failure|scope
}

// DisagreementFinder streams results of two judges and keeps, per (case,
// rule) pair, only the two small decision records needed to compare them;
// a pair on which both agree is dropped as soon as the second decision
// arrives. Results of other judges are ignored.
type DisagreementFinder struct {
	judges [2]string
	cases  *intern.Table
	rules  map[string]uint32
	ruleID []string
	codes  map[string]uint8 // result, status and source strings
	code   []string
	pairs  map[uint64]*pairState
	paired int64
	found  []Disagreement
}

// pairState holds the decisions of both judges on one pair until both are in.
type pairState struct {
	conf   [2]float64
	hasCf  [2]bool
	out    [2]replay.Outcome
	result [2]uint8
	status [2]uint8
	source [2]uint8
	label  uint8
	seen   [2]bool
}

// NewDisagreementFinder compares candidate against baseline (judge identity
// strings, as in replay.Result.Judge; they must differ).
func NewDisagreementFinder(baseline, candidate string) *DisagreementFinder {
	return &DisagreementFinder{
		judges: [2]string{baseline, candidate},
		cases:  intern.New(),
		rules:  map[string]uint32{},
		codes:  map[string]uint8{},
		pairs:  map[uint64]*pairState{},
	}
}

func (f *DisagreementFinder) intern(s string) uint8 {
	if c, ok := f.codes[s]; ok {
		return c
	}
	if len(f.code) == 255 {
		// More distinct status strings than any real run has: keep the
		// last slot for all of them rather than fail.
		return 254
	}
	c := uint8(len(f.code))
	f.codes[s] = c
	f.code = append(f.code, s)
	return c
}

// Add takes one replayed case × judge.
func (f *DisagreementFinder) Add(r *replay.Result) {
	side := -1
	switch r.Judge {
	case f.judges[0]:
		side = 0
	case f.judges[1]:
		side = 1
	}
	if side < 0 {
		return
	}
	ord := f.cases.ID(r.CaseID)
	for i := range r.Rules {
		rr := &r.Rules[i]
		out, _ := rr.Classify()
		if out == replay.OutcomeMissing {
			// The recording lacks the rule: no decision to compare.
			continue
		}
		rid, ok := f.rules[rr.RuleID]
		if !ok {
			rid = uint32(len(f.ruleID))
			f.rules[rr.RuleID] = rid
			f.ruleID = append(f.ruleID, rr.RuleID)
		}
		key := uint64(ord)<<32 | uint64(rid)
		p := f.pairs[key]
		if p == nil {
			p = &pairState{}
			f.pairs[key] = p
		}
		p.seen[side] = true
		p.out[side] = out
		p.result[side] = f.intern(string(rr.Result))
		p.status[side] = f.intern(string(rr.Status))
		p.source[side] = f.intern(string(rr.Source))
		if rr.Confidence != nil {
			p.conf[side], p.hasCf[side] = *rr.Confidence, true
		}
		if rr.Label != "" {
			p.label = f.intern(string(rr.Label)) + 1
		}
		if p.seen[0] && p.seen[1] {
			f.paired++
			if d, ok := f.compare(key, p); ok {
				f.found = append(f.found, d)
			}
			delete(f.pairs, key)
		}
	}
}

// Paired returns the number of (case, rule) pairs both judges decided.
func (f *DisagreementFinder) Paired() int64 { return f.paired }

// strength is a decision's confidence for ranking: the judge's own figure,
// 1 for a deterministic result (a precondition is certain), 0.5 (no
// information) for a judged result without one.
func (f *DisagreementFinder) strength(p *pairState, side int) float64 {
	switch {
	case p.hasCf[side]:
		return min(max(p.conf[side], 0), 1)
	case replay.Source(f.code[p.source[side]]) == replay.SourceDeterministic:
		return 1
	}
	return 0.5
}

func (f *DisagreementFinder) compare(key uint64, p *pairState) (Disagreement, bool) {
	// A pair disagrees when the decisions differ, or exactly one judge
	// decided (the other's outcome is unknown, failed or none).
	ob, oc := p.out[0], p.out[1]
	var kind string
	var score float64
	switch {
	case ob.Decided() == oc.Decided() && (!ob.Decided() || ob == oc):
		return Disagreement{}, false
	case ob.Decided() && oc.Decided():
		kind, score = DisagreeOpposite, f.strength(p, 0)*f.strength(p, 1)
	case !ob.Decided():
		kind, score = DisagreeUnknown, f.strength(p, 1)
	default:
		kind, score = DisagreeUnknown, f.strength(p, 0)
	}
	d := Disagreement{
		CaseID:    f.cases.String(uint32(key >> 32)),
		RuleID:    f.ruleID[uint32(key)],
		Kind:      kind,
		Score:     score,
		Baseline:  f.decision(p, 0),
		Candidate: f.decision(p, 1),
	}
	if p.label > 0 {
		d.Label = datasets.Label(f.code[p.label-1])
	}
	return d, true
}

func (f *DisagreementFinder) decision(p *pairState, side int) PairDecision {
	d := PairDecision{
		Judge:  f.judges[side],
		Result: f.code[p.result[side]],
		Status: f.code[p.status[side]],
		Source: f.code[p.source[side]],
	}
	if p.hasCf[side] {
		c := p.conf[side]
		d.Confidence = &c
	}
	return d
}

// Close returns the disagreements, most informative first (see
// Disagreements). Pairs only one judge decided are left out.
func (f *DisagreementFinder) Close() []Disagreement {
	out := f.found
	f.found, f.pairs = nil, nil
	slices.SortFunc(out, compareDisagreements)
	return out
}

// Disagreements returns the (case, rule) pairs on which candidate and
// baseline differ among results: one said match and the other no_match
// (kind opposite), or exactly one of them decided while the other said
// unknown or failed (kind unknown). Pairs that a judge did not have in
// scope, or whose recording lacked the rule (status missing), are not
// compared. Unknown and failure are classified as in docs/statistics.md.
//
// Order, most informative first:
//  1. unlabeled pairs before labeled ones (a label is what a human adds);
//  2. opposite before unknown (two decisions that cannot both be right);
//  3. higher Score first: for opposite pairs the product of both
//     confidences (both judges sure, yet opposite), for unknown pairs the
//     confidence of the judge that decided. A missing confidence counts as
//     1 for a deterministic result and 0.5 for a judged one;
//  4. case ID, then rule ID (byte order), so the output is deterministic.
func Disagreements(baseline, candidate string, results iter.Seq[*replay.Result]) []Disagreement {
	f := NewDisagreementFinder(baseline, candidate)
	for r := range results {
		f.Add(r)
	}
	return f.Close()
}

func compareDisagreements(a, b Disagreement) int {
	if c := cmp.Compare(boolRank(a.Label != ""), boolRank(b.Label != "")); c != 0 {
		return c
	}
	if c := cmp.Compare(boolRank(a.Kind != DisagreeOpposite), boolRank(b.Kind != DisagreeOpposite)); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	if c := cmp.Compare(a.CaseID, b.CaseID); c != 0 {
		return c
	}
	return cmp.Compare(a.RuleID, b.RuleID)
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// CaseDisagreements are the disagreements of one case, in rank order.
type CaseDisagreements struct {
	CaseID string
	Rules  []Disagreement
}

// ByCase groups ranked disagreements by case: cases in the order of their
// highest-ranked pair, each case's pairs in rank order. One case is one
// line to label.
func ByCase(ranked []Disagreement) []CaseDisagreements {
	idx := map[string]int{}
	var out []CaseDisagreements
	for _, d := range ranked {
		i, ok := idx[d.CaseID]
		if !ok {
			i = len(out)
			idx[d.CaseID] = i
			out = append(out, CaseDisagreements{CaseID: d.CaseID})
		}
		out[i].Rules = append(out[i].Rules, d)
	}
	return out
}
