package simulate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/spill"
	"github.com/apeval/apeval/internal/trunc"
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
	start         uint32  // its rows: block.rowsOf
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

// Data is a run's answers in compact form, kept on disk beyond a memory
// budget so that simulating a run of any size holds about the same memory
// (see docs/simulate.md, "Memory"). Each result (a case × judge) is one
// variable-length record — its session and case IDs, latency, tokens and
// 8 bytes per rule row — appended to a store that stays in memory up to
// storeBudget and then moves to a temporary file (internal/spill.File);
// an index of 16-byte records, K the 64-bit hash of the session ID and V
// the record's offset and length, is an internal/spill.List (sorted runs
// on disk beyond its budget). Reading the index in order gives every
// session's results together, in the order they came; within a session
// they are aligned by case ID (each pass assembles one session in a
// block). Two session IDs with one hash would be one session, which Done
// refuses.
type Data struct {
	Judges  []Judge
	judgeIx map[string]int
	policy  *replay.Policy
	rules   []*replay.Rule
	ruleIx  map[string]int
	pool    *spill.Pool
	idx     *spill.List
	st      store
	enc     []byte
	done    bool
	nCases  int
	nSess   int
	present []int64 // per judge: cases it has a result for
	// Missing counts, per judge, the rows whose recording lacked the rule.
	missing []int64
	err     error
}

// storeBudget is the bytes of records the store keeps in memory before it
// moves them to its temporary file.
const storeBudget = 16 << 20

// NewData starts the compact form of a run made with the policy p by the
// given judges. Close releases it.
func NewData(p *replay.Policy, judges []Judge) *Data {
	d := &Data{Judges: judges, judgeIx: map[string]int{}, policy: p, ruleIx: map[string]int{},
		missing: make([]int64, len(judges)), present: make([]int64, len(judges)),
		pool: spill.NewPool("", 0), st: store{file: spill.NewFile("", "apeval-simulate-*.tmp"), budget: storeBudget}}
	d.idx = d.pool.NewList()
	for i, j := range judges {
		d.judgeIx[j.ID] = i
	}
	return d
}

// setBudgets moves the data's temporary files to dir with the given
// budgets (tests: a few records, so that everything goes to disk). Only
// before the first Add.
func (d *Data) setBudgets(dir string, storeBytes int, index int64) {
	d.pool = spill.NewPool(dir, index)
	d.idx = d.pool.NewList()
	d.st = store{file: spill.NewFile(dir, "apeval-simulate-*.tmp"), budget: storeBytes}
}

// Close removes the temporary files; d cannot be used afterwards.
func (d *Data) Close() error {
	return errors.Join(d.pool.Close(), d.st.file.Close())
}

// Record layout (little-endian): judge u16, flags u8, pad u8, latency
// f64, tokens in u32, out u32, rows u16, session ID length u16, case ID
// length u16, then the session ID, the case ID and the rows (rule u16,
// bits u16, confidence f32).
const (
	recHead = 26
	// offBits: V = offset<<lenBits | length.
	lenBits = 20
	maxRec  = 1<<lenBits - 1
)

func idHash(b []byte) uint64 {
	h := fnv.New64a()
	_, _ = h.Write(b)
	return h.Sum64()
}

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
	if d.done {
		d.err = fmt.Errorf("case %s: the run was read already (Add after Done)", r.CaseID)
		return d.err
	}
	size := recHead + len(r.SessionID) + len(r.CaseID) + 8*len(r.Rules)
	if size > maxRec || len(r.SessionID) > math.MaxUint16 || len(r.CaseID) > math.MaxUint16 {
		d.err = fmt.Errorf("case %s: the result is too large to simulate (%d bytes in compact form, at most %d)", trunc.Runes(r.CaseID, 80), size, maxRec)
		return d.err
	}
	var jc judgeCase
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
	b := d.enc[:0]
	b = binary.LittleEndian.AppendUint16(b, uint16(ji))
	b = append(b, jc.flags, 0)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(jc.lat))
	b = binary.LittleEndian.AppendUint32(b, sat32(tokIn))
	b = binary.LittleEndian.AppendUint32(b, sat32(tokOut))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(r.Rules)))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(r.SessionID)))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(r.CaseID)))
	b = append(b, r.SessionID...)
	b = append(b, r.CaseID...)
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
		p := w.pack()
		b = binary.LittleEndian.AppendUint16(b, p.rule)
		b = binary.LittleEndian.AppendUint16(b, p.bits)
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(p.conf))
	}
	d.enc = b
	off, err := d.st.append(b)
	if err != nil {
		d.err = fmt.Errorf("simulate's temporary file: %w", err)
		return d.err
	}
	d.idx.Append(spill.Rec{K: idHash([]byte(r.SessionID)), V: uint64(off)<<lenBits | uint64(len(b))})
	return nil
}

// Done ends reading: it reads the run once in session order to count the
// cases and sessions and to check that no case came twice for a judge
// (an error, also kept for Err). Add after Done is an error.
func (d *Data) Done() error {
	if d.err != nil || d.done {
		return d.err
	}
	d.done = true
	if err := d.st.finish(); err != nil {
		d.err = fmt.Errorf("simulate's temporary file: %w", err)
		return d.err
	}
	d.err = d.each(true, func(b *block) {
		d.nSess++
		d.nCases += b.n
		for j := range d.Judges {
			for c := range b.n {
				if b.at(j, c).present() {
					d.present[j]++
				}
			}
		}
	})
	return d.err
}

// Err is the first error Add or Done met.
func (d *Data) Err() error { return d.err }

// Cases is the number of distinct cases read (after Done).
func (d *Data) Cases() int { return d.nCases }

// Sessions is the number of distinct sessions read (after Done).
func (d *Data) Sessions() int { return d.nSess }

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
	absent := int64(d.nCases) - d.present[j]
	switch {
	case absent > 0:
		return fmt.Sprintf("%s has no result for %d of the run's %d cases", d.Judges[j].ID, absent, d.nCases)
	case d.missing[j] > 0:
		return fmt.Sprintf("%s's recording lacks an answer for %d (case, rule) pairs the policy asks about", d.Judges[j].ID, d.missing[j])
	}
	return ""
}

// store keeps the records: in memory up to budget bytes, then all of them
// in a temporary file, read back by offset.
type store struct {
	file   *spill.File
	budget int
	mem    []byte // records from offset base on
	base   int64
	size   int64
	// the read window: the bytes at winOff
	win    []byte
	winOff int64
}

func (s *store) append(b []byte) (int64, error) {
	off := s.size
	s.mem = append(s.mem, b...)
	s.size += int64(len(b))
	if len(s.mem) >= s.budget {
		if err := s.flush(); err != nil {
			return 0, err
		}
	}
	return off, nil
}

// flush writes the records in memory to the file.
func (s *store) flush() error {
	off, err := s.file.Reserve(int64(len(s.mem)))
	if err != nil {
		return err
	}
	if off != s.base {
		return fmt.Errorf("store out of step: file at %d, records at %d", off, s.base)
	}
	if _, err := s.file.WriteAt(s.mem, off); err != nil {
		return err
	}
	s.base += int64(len(s.mem))
	s.mem = s.mem[:0]
	return nil
}

// finish ends appending: once some records went to the file, the rest do
// too (reads are then all from the file) and the buffer is let go.
func (s *store) finish() error {
	if s.base == 0 {
		return nil
	}
	if err := s.flush(); err != nil {
		return err
	}
	s.mem = nil
	return nil
}

// readWindow is the most a read from the file fetches at once.
const readWindow = 64 << 10

// span returns the n bytes at off. From the file, a read fetches what is
// asked and, up to readWindow, what follows the last record asked for in
// the same session (hint: the end of the session's contiguous records).
func (s *store) span(off, n, hint int64) ([]byte, error) {
	if off >= s.base {
		return s.mem[off-s.base : off-s.base+n], nil
	}
	if off >= s.winOff && off+n <= s.winOff+int64(len(s.win)) {
		return s.win[off-s.winOff : off-s.winOff+n], nil
	}
	want := max(n, min(hint-off, readWindow))
	want = min(want, s.base-off)
	if int64(cap(s.win)) < want {
		s.win = make([]byte, want)
	}
	s.win = s.win[:want]
	if _, err := s.file.ReadAt(s.win, off); err != nil {
		return nil, err
	}
	s.winOff = off
	return s.win[:n], nil
}

// block is one session as a pass sees it: its cases, in the order they
// came, each with every judge's view.
type block struct {
	sess  []byte
	n     int // cases
	J     int
	jc    []judgeCase // n·J: case c, judge j at c·J+j
	rows  []prow
	ids   map[uint64]int32 // case ID hash → case
	refs  []spill.Rec      // the session's index records
	caseB [][]byte         // case IDs, for errors
}

func (b *block) reset() {
	b.n = 0
	b.jc = b.jc[:0]
	b.rows = b.rows[:0]
	b.refs = b.refs[:0]
	b.caseB = b.caseB[:0]
	clear(b.ids)
}

// at is judge j's view of case c (a zero judgeCase when absent).
func (b *block) at(j, c int) *judgeCase { return &b.jc[c*b.J+j] }

// rowsOf is the rows of a judge's view of a case.
func (b *block) rowsOf(jc *judgeCase) []prow { return b.rows[jc.start : jc.start+uint32(jc.n)] }

// each calls fn with every session, in the order of their IDs' hashes;
// check refuses a case seen twice for one judge and two sessions with one
// hash (Done checks once; later passes read the same records).
func (d *Data) each(check bool, fn func(b *block)) error {
	b := &block{J: len(d.Judges), ids: map[uint64]int32{}}
	it := d.idx.Iter()
	var cur uint64
	have := false
	var err error
	flush := func() {
		if err == nil && len(b.refs) > 0 {
			if err = d.assemble(b, check); err == nil {
				fn(b)
			}
		}
		b.reset()
	}
	for {
		chunk := it.Chunk()
		if len(chunk) == 0 {
			break
		}
		for _, r := range chunk {
			if have && r.K != cur {
				flush()
			}
			cur, have = r.K, true
			b.refs = append(b.refs, r)
		}
		if err != nil {
			break
		}
	}
	flush()
	if err == nil {
		err = d.pool.Err()
	}
	return err
}

// assemble reads the session's records into the block.
func (d *Data) assemble(b *block, check bool) error {
	for i, ref := range b.refs {
		off, n := int64(ref.V>>lenBits), int64(ref.V&maxRec)
		// The session's records that follow this one contiguously.
		end := off + n
		for _, r := range b.refs[i+1:] {
			o := int64(r.V >> lenBits)
			if o != end {
				break
			}
			end += int64(r.V & maxRec)
		}
		rec, err := d.st.span(off, n, end)
		if err != nil {
			return fmt.Errorf("simulate's temporary file: %w", err)
		}
		le := binary.LittleEndian
		j := int(le.Uint16(rec))
		jc := judgeCase{flags: rec[2], lat: math.Float64frombits(le.Uint64(rec[4:])), tokIn: le.Uint32(rec[12:]), tokOut: le.Uint32(rec[16:])}
		nr := int(le.Uint16(rec[20:]))
		ls, lc := int(le.Uint16(rec[22:])), int(le.Uint16(rec[24:]))
		sess := rec[recHead : recHead+ls]
		cid := rec[recHead+ls : recHead+ls+lc]
		if i == 0 {
			b.sess = append(b.sess[:0], sess...)
		} else if check && string(sess) != string(b.sess) {
			return fmt.Errorf("sessions %q and %q have one 64-bit hash: rename one", b.sess, sess)
		}
		h := idHash(cid)
		c, ok := b.ids[h]
		if !ok {
			c = int32(b.n)
			b.ids[h] = c
			b.n++
			for range b.J {
				b.jc = append(b.jc, judgeCase{})
			}
			if check {
				b.caseB = append(b.caseB, append([]byte(nil), cid...))
			}
		}
		slot := &b.jc[int(c)*b.J+j]
		if check && slot.present() {
			return fmt.Errorf("case %s appears twice for judge %s (pass the shards of one run, each once)", trunc.Runes(string(cid), 200), d.Judges[j].ID)
		}
		if check && string(b.caseB[c]) != string(cid) {
			return fmt.Errorf("cases %q and %q have one 64-bit hash: rename one", b.caseB[c], cid)
		}
		jc.start, jc.n = uint32(len(b.rows)), uint16(nr)
		rows := rec[recHead+ls+lc:]
		for k := range nr {
			p := rows[8*k:]
			b.rows = append(b.rows, prow{rule: le.Uint16(p), bits: le.Uint16(p[2:]), conf: math.Float32frombits(le.Uint32(p[4:]))})
		}
		*slot = jc
	}
	return nil
}
