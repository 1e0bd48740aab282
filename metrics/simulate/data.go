package simulate

import (
	"fmt"
	"hash/fnv"
	"math"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge/core"
	"github.com/apeval/apeval/replay"
)

// Judge is one judge of the run: its identity and, when run.json has them,
// its prices per million prompt and completion tokens.
type Judge struct {
	ID                string
	PriceIn, PriceOut *float64
}

// Outcomes of a rule row, as counted (replay.Outcome, narrowed).
const (
	outNone uint8 = iota
	outMatch
	outNoMatch
	outUnknown // the judge answered unknown
	outFailed  // the call failed (invalid, timeout, error)
	outMissing // the recording lacks the rule: not a pair of the judge
)

// Labels of a row.
const (
	labNone uint8 = iota
	labMatch
	labNoMatch
)

// row is one (case, judge, rule) of the run, as evaluation works on it;
// Data stores it packed (prow).
type row struct {
	rule     uint16
	label    uint8
	outcome  uint8
	judged   bool    // sent to the judge (its result may change under a configuration)
	scope    bool    // skipped by an approved fingerprint: no cell
	timedOut bool    // the recorded call timed out
	fired    bool    // as recorded (used for rows the judge did not decide)
	baseline bool    // the rule's deterministic baseline matched the case
	action   uint8   // as recorded, for rows the judge did not decide (index into actions)
	conf     float32 // NaN without a confidence
}

// prow is a row in 8 bytes: the rule, the label (2 bits), the outcome (3),
// judged, scope, timedOut, fired, baseline (1 each) and the action (3) in
// bits, and the confidence.
type prow struct {
	rule uint16
	bits uint16
	conf float32
}

const (
	pbLabel    = 0  // 2 bits
	pbOutcome  = 2  // 3 bits
	pbJudged   = 5  // 1 bit each from here
	pbScope    = 6  //
	pbTimedOut = 7  //
	pbFired    = 8  //
	pbBaseline = 9  //
	pbAction   = 10 // 3 bits
)

func b16(v bool, at uint) uint16 {
	if v {
		return 1 << at
	}
	return 0
}

func (r row) pack() prow {
	return prow{rule: r.rule, conf: r.conf, bits: uint16(r.label)<<pbLabel | uint16(r.outcome)<<pbOutcome |
		b16(r.judged, pbJudged) | b16(r.scope, pbScope) | b16(r.timedOut, pbTimedOut) | b16(r.fired, pbFired) |
		b16(r.baseline, pbBaseline) | uint16(r.action)<<pbAction}
}

func (p prow) unpack() row {
	b := p.bits
	return row{rule: p.rule, conf: p.conf, label: uint8(b>>pbLabel) & 3, outcome: uint8(b>>pbOutcome) & 7,
		judged: b>>pbJudged&1 == 1, scope: b>>pbScope&1 == 1, timedOut: b>>pbTimedOut&1 == 1, fired: b>>pbFired&1 == 1,
		baseline: b>>pbBaseline&1 == 1, action: uint8(b>>pbAction) & 7}
}

// actions are the gate actions a row records, by code (0: none).
var actions = []datasets.Action{"", datasets.ActionStopTask, datasets.ActionDenyCurrentTool, datasets.ActionRequestApproval,
	datasets.ActionInjectInstruction, datasets.ActionAuditOnly, datasets.ActionNotifyAdmin, datasets.ActionAllow}

func actionCode(a datasets.Action) uint8 {
	for i, x := range actions {
		if x == a {
			return uint8(i)
		}
	}
	return 0
}

// judgeCase is one case as one judge saw it, in 24 bytes.
type judgeCase struct {
	lat           float64 // summed latency of the case's calls (ms); 0 without a call
	start         uint32  // its rows: Data.rowsOf
	tokIn, tokOut uint32  // saturated at 2³²−1
	n             uint16  // rows
	flags         uint8   // jcPresent, jcCalled, jcUsage
}

const (
	jcPresent = 1 << iota
	jcCalled
	jcUsage // some call reported tokens
)

func (j *judgeCase) present() bool { return j.flags&jcPresent != 0 }
func (j *judgeCase) called() bool  { return j.flags&jcCalled != 0 }
func (j *judgeCase) usage() bool   { return j.flags&jcUsage != 0 }

func sat32(v int64) uint32 { return uint32(min(max(v, 0), math.MaxUint32)) }

// chunkBits sizes the chunks Data's per-case and per-row state is kept in:
// growing by a chunk, never by copying everything read so far (a doubling
// slice holds the old and the new array at once).
const chunkBits = 16

// chunked is a slice kept in chunks of 1<<chunkBits.
type chunked[T any] struct {
	cs [][]T
	n  int
}

func (c *chunked[T]) at(i int) *T { return &c.cs[i>>chunkBits][i&(1<<chunkBits-1)] }

// extend makes the length at least n, with zero values.
func (c *chunked[T]) extend(n int) {
	for len(c.cs)<<chunkBits < n {
		c.cs = append(c.cs, make([]T, 1<<chunkBits))
	}
	c.n = max(c.n, n)
}

// run reserves n ≤ 1<<chunkBits contiguous elements (starting a new chunk
// when the current one has not room) and returns where they start.
func (c *chunked[T]) run(n int) int {
	if (c.n&(1<<chunkBits-1))+n > 1<<chunkBits {
		c.n = (c.n>>chunkBits + 1) << chunkBits
	}
	start := c.n
	c.extend(start + n)
	return start
}

// slice is the n elements from start (one chunk's, as run reserved them).
func (c *chunked[T]) slice(start, n int) []T {
	k, o := start>>chunkBits, start&(1<<chunkBits-1)
	return c.cs[k][o : o+n]
}

// Data is a run's answers in compact form: every case, aligned across the
// run's judges by case ID, each with its session, each judge's rule rows,
// latency and tokens. It holds 8 bytes per decision row, 24 per case ×
// judge and about 24 per case (its session and the hash of its ID), plus
// the session IDs; it grows by chunks, never by copying (see
// docs/simulate.md, "Memory").
type Data struct {
	Judges  []Judge
	judgeIx map[string]int
	policy  *replay.Policy
	rules   []*replay.Rule
	ruleIx  map[string]int
	// caseIx maps the 64-bit FNV-1a hash of a case ID to its index: two
	// IDs with one hash (about one chance in 10¹³ at a million cases)
	// would be one case, which Add refuses as a case seen twice.
	caseIx map[uint64]int32
	nCases int
	sess   chunked[uint32] // per case
	sessIx map[string]uint32
	jc     []chunked[judgeCase] // [judge], by case
	rows   chunked[prow]
	// Missing counts, per judge, the rows whose recording lacked the rule.
	missing []int64
	err     error
}

// NewData starts the compact form of a run made with the policy p by the
// given judges.
func NewData(p *replay.Policy, judges []Judge) *Data {
	d := &Data{Judges: judges, judgeIx: map[string]int{}, policy: p, ruleIx: map[string]int{},
		caseIx: map[uint64]int32{}, sessIx: map[string]uint32{}, jc: make([]chunked[judgeCase], len(judges)),
		missing: make([]int64, len(judges))}
	for i, j := range judges {
		d.judgeIx[j.ID] = i
	}
	return d
}

// Reserve sizes the case index for about n cases (run.json's count), so
// that it does not grow by rehashing while the run is read.
func (d *Data) Reserve(n int64) {
	if len(d.caseIx) == 0 && n > 0 && n < 1<<31 {
		d.caseIx = make(map[uint64]int32, n)
	}
}

func caseHash(id string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(id))
	return h.Sum64()
}

// caseIndex is the index of the case with this ID.
func (d *Data) caseIndex(id string) (int32, bool) {
	c, ok := d.caseIx[caseHash(id)]
	return c, ok
}

// rowsOf is the rows of a judge's view of a case.
func (d *Data) rowsOf(jc *judgeCase) []prow { return d.rows.slice(int(jc.start), int(jc.n)) }

// sessOf is the session index of case c.
func (d *Data) sessOf(c int32) uint32 { return *d.sess.at(int(c)) }

// Add takes one replay.Result (a case × judge). A result of a judge the
// run does not name, or a rule the policy lacks, is an error, kept for Err.
func (d *Data) Add(r *replay.Result) error {
	if d.err != nil {
		return d.err
	}
	ji, ok := d.judgeIx[r.Judge]
	if !ok {
		d.err = fmt.Errorf("case %s: judge %q is not one of the run's judges", r.CaseID, r.Judge)
		return d.err
	}
	if len(r.Rules) > math.MaxUint16 {
		d.err = fmt.Errorf("case %s: %d rules in one case (at most %d)", r.CaseID, len(r.Rules), math.MaxUint16)
		return d.err
	}
	if d.caseIx == nil {
		d.err = fmt.Errorf("case %s: the run was read already (Add after Done)", r.CaseID)
		return d.err
	}
	key := caseHash(r.CaseID)
	ci, ok := d.caseIx[key]
	if !ok {
		if d.nCases == math.MaxInt32 {
			d.err = fmt.Errorf("case %s: more than %d cases", r.CaseID, math.MaxInt32)
			return d.err
		}
		ci = int32(d.nCases)
		d.caseIx[key] = ci
		d.nCases++
		si, ok := d.sessIx[r.SessionID]
		if !ok {
			si = uint32(len(d.sessIx))
			d.sessIx[r.SessionID] = si
		}
		d.sess.extend(d.nCases)
		*d.sess.at(int(ci)) = si
	}
	col := &d.jc[ji]
	col.extend(int(ci) + 1)
	jc := col.at(int(ci))
	if jc.present() {
		d.err = fmt.Errorf("case %s appears twice for judge %s (pass the shards of one run, each once)", r.CaseID, r.Judge)
		return d.err
	}
	jc.flags = jcPresent
	if r.JudgeCalled {
		jc.flags |= jcCalled
	}
	if r.LatencyMS != nil {
		jc.lat = *r.LatencyMS
	}
	var tokIn, tokOut int64
	for _, c := range r.Calls {
		if c.PromptTokens != nil {
			tokIn += *c.PromptTokens
			jc.flags |= jcUsage
		}
		if c.CompletionTokens != nil {
			tokOut += *c.CompletionTokens
			jc.flags |= jcUsage
		}
	}
	jc.tokIn, jc.tokOut = sat32(tokIn), sat32(tokOut)
	start := d.rows.run(len(r.Rules))
	jc.start, jc.n = uint32(start), uint16(len(r.Rules))
	rows := d.rows.slice(start, len(r.Rules))
	for i := range r.Rules {
		rr := &r.Rules[i]
		ri, ok := d.ruleIx[rr.RuleID]
		if !ok {
			def := d.policy.Rule(rr.RuleID)
			if def == nil {
				d.err = fmt.Errorf("case %s: rule %q is not in the policy (pass the policy the run was made with: --policy FILE)", r.CaseID, rr.RuleID)
				return d.err
			}
			if len(d.rules) == math.MaxUint16 {
				d.err = fmt.Errorf("case %s: more than %d rules", r.CaseID, math.MaxUint16)
				return d.err
			}
			ri = len(d.rules)
			d.ruleIx[rr.RuleID] = ri
			d.rules = append(d.rules, def)
		}
		out, _ := rr.Classify()
		w := row{rule: uint16(ri), fired: rr.Fired, baseline: rr.BaselineResult == core.Match, action: actionCode(rr.Action),
			conf: float32(math.NaN()), timedOut: rr.Status == core.StatusTimeout}
		switch out {
		case replay.OutcomeMatch:
			w.outcome = outMatch
		case replay.OutcomeNoMatch:
			w.outcome = outNoMatch
		case replay.OutcomeUnknown:
			w.outcome = outUnknown
		case replay.OutcomeFailed:
			w.outcome = outFailed
		case replay.OutcomeMissing:
			w.outcome = outMissing
			d.missing[ji]++
		}
		switch rr.Source {
		case replay.SourceScope:
			w.scope = true
		case replay.SourceJudge, replay.SourceCache, replay.SourceFailure:
			w.judged = true
		}
		switch rr.Label {
		case datasets.LabelMatch:
			w.label = labMatch
		case datasets.LabelNoMatch:
			w.label = labNoMatch
		}
		if rr.Confidence != nil {
			w.conf = float32(*rr.Confidence)
		}
		rows[i] = w.pack()
	}
	return nil
}

// Done ends reading: the index from case IDs to cases, which only Add
// needs, is let go (about 20 bytes a case). Add after Done is an error.
func (d *Data) Done() {
	d.caseIx = nil
}

// Err is the first error Add met.
func (d *Data) Err() error { return d.err }

// Cases is the number of distinct cases read.
func (d *Data) Cases() int { return d.nCases }

// Sessions is the number of distinct sessions read.
func (d *Data) Sessions() int { return len(d.sessIx) }

// Rules lists the IDs of the rules in scope somewhere in the run, in the
// order they were first met.
func (d *Data) Rules() []string {
	out := make([]string, len(d.rules))
	for i, r := range d.rules {
		out[i] = r.ID
	}
	return out
}

// Complete says why judge j cannot take part in a cascade or a vote: it has
// no result for some case of the run, or its recording lacks a rule the
// policy asks about ("" when it answered every case).
func (d *Data) Complete(j int) string {
	col := &d.jc[j]
	absent := d.nCases - col.n
	for c := range col.n {
		if !col.at(c).present() {
			absent++
		}
	}
	switch {
	case absent > 0:
		return fmt.Sprintf("%s has no result for %d of the run's %d cases", d.Judges[j].ID, absent, d.nCases)
	case d.missing[j] > 0:
		return fmt.Sprintf("%s's recording lacks an answer for %d (case, rule) pairs the policy asks about", d.Judges[j].ID, d.missing[j])
	}
	return ""
}

// absentCase is the view of a judge that has no result for a case.
var absentCase judgeCase

// at is judge j's view of case c (a zero judgeCase when absent; not to be
// written).
func (d *Data) at(j int, c int32) *judgeCase {
	col := &d.jc[j]
	if int(c) >= col.n {
		return &absentCase
	}
	return col.at(int(c))
}

// bySession lists the case indexes grouped by session, sessions in the
// order they were first met, cases in arrival order within each (a
// counting sort: one pass to count, one to place).
func (d *Data) bySession() (order []int32, bounds []int) {
	counts := make([]int32, len(d.sessIx)+1)
	for c := range d.nCases {
		counts[d.sessOf(int32(c))+1]++
	}
	bounds = make([]int, 0, len(d.sessIx)+1)
	for s := 1; s < len(counts); s++ {
		bounds = append(bounds, int(counts[s-1]))
		counts[s] += counts[s-1]
	}
	bounds = append(bounds, d.nCases)
	order = make([]int32, d.nCases)
	next := counts[:len(d.sessIx)]
	for c := range d.nCases {
		s := d.sessOf(int32(c))
		order[next[s]] = int32(c)
		next[s]++
	}
	return order, bounds
}
