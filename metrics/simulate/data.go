package simulate

import (
	"fmt"
	"math"
	"slices"

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

// row is one (case, judge, rule) of the run in compact form.
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

// judgeCase is one case as one judge saw it.
type judgeCase struct {
	present       bool
	called        bool
	lat           float64 // summed latency of the case's calls (ms); 0 without a call
	tokIn, tokOut int64
	start, n      uint32 // rows[start : start+n]
	calls         int32
	usage         bool // some call reported tokens
}

// Data is a run's answers in compact form: every case, aligned across the
// run's judges by case ID, each with its session, each judge's rule rows,
// latency and tokens. It holds about 16 bytes per decision row and 48 per
// case × judge, plus the case and session IDs (see docs/simulate.md, "Memory").
type Data struct {
	Judges  []Judge
	judgeIx map[string]int
	policy  *replay.Policy
	rules   []*replay.Rule
	ruleIx  map[string]int
	cases   []string // case IDs, in arrival order
	caseIx  map[string]int32
	sess    []uint32 // per case
	sessIx  map[string]uint32
	jc      [][]judgeCase // [judge][case]
	rows    []row
	// Missing counts, per judge, the rows whose recording lacked the rule.
	missing []int64
	err     error
}

// NewData starts the compact form of a run made with the policy p by the
// given judges.
func NewData(p *replay.Policy, judges []Judge) *Data {
	d := &Data{Judges: judges, judgeIx: map[string]int{}, policy: p, ruleIx: map[string]int{},
		caseIx: map[string]int32{}, sessIx: map[string]uint32{}, jc: make([][]judgeCase, len(judges)),
		missing: make([]int64, len(judges))}
	for i, j := range judges {
		d.judgeIx[j.ID] = i
	}
	return d
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
	ci, ok := d.caseIx[r.CaseID]
	if !ok {
		ci = int32(len(d.cases))
		d.caseIx[r.CaseID] = ci
		d.cases = append(d.cases, r.CaseID)
		si, ok := d.sessIx[r.SessionID]
		if !ok {
			si = uint32(len(d.sessIx))
			d.sessIx[r.SessionID] = si
		}
		d.sess = append(d.sess, si)
	}
	col := d.jc[ji]
	if int(ci) >= len(col) {
		col = append(col, make([]judgeCase, int(ci)+1-len(col))...)
		d.jc[ji] = col
	}
	jc := &col[ci]
	if jc.present {
		d.err = fmt.Errorf("case %s appears twice for judge %s (pass the shards of one run, each once)", r.CaseID, r.Judge)
		return d.err
	}
	jc.present, jc.called = true, r.JudgeCalled
	if r.LatencyMS != nil {
		jc.lat = *r.LatencyMS
	}
	jc.calls = int32(len(r.Calls))
	for _, c := range r.Calls {
		if c.PromptTokens != nil {
			jc.tokIn += *c.PromptTokens
			jc.usage = true
		}
		if c.CompletionTokens != nil {
			jc.tokOut += *c.CompletionTokens
			jc.usage = true
		}
	}
	jc.start, jc.n = uint32(len(d.rows)), uint32(len(r.Rules))
	for i := range r.Rules {
		rr := &r.Rules[i]
		ri, ok := d.ruleIx[rr.RuleID]
		if !ok {
			def := d.policy.Rule(rr.RuleID)
			if def == nil {
				d.err = fmt.Errorf("case %s: rule %q is not in the policy (pass the policy the run was made with: --policy FILE)", r.CaseID, rr.RuleID)
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
		d.rows = append(d.rows, w)
	}
	return nil
}

// Err is the first error Add met.
func (d *Data) Err() error { return d.err }

// Cases is the number of distinct cases read.
func (d *Data) Cases() int { return len(d.cases) }

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
	col := d.jc[j]
	absent := len(d.cases) - len(col)
	for _, c := range col {
		if !c.present {
			absent++
		}
	}
	switch {
	case absent > 0:
		return fmt.Sprintf("%s has no result for %d of the run's %d cases", d.Judges[j].ID, absent, len(d.cases))
	case d.missing[j] > 0:
		return fmt.Sprintf("%s's recording lacks an answer for %d (case, rule) pairs the policy asks about", d.Judges[j].ID, d.missing[j])
	}
	return ""
}

// at is judge j's view of case c (a zero judgeCase when absent).
func (d *Data) at(j int, c int32) *judgeCase {
	col := d.jc[j]
	if int(c) >= len(col) {
		return &judgeCase{}
	}
	return &col[c]
}

// bySession lists the case indexes grouped by session, sessions in the
// order they were first met, cases in arrival order within each.
func (d *Data) bySession() (order []int32, bounds []int) {
	order = make([]int32, len(d.cases))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return int(d.sess[a]) - int(d.sess[b]) })
	for i := range order {
		if i == 0 || d.sess[order[i]] != d.sess[order[i-1]] {
			bounds = append(bounds, i)
		}
	}
	return order, append(bounds, len(order))
}
