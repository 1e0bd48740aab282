package rundir

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge/core"
	"github.com/apeval/apeval/replay"
	"github.com/parquet-go/parquet-go"
)

// ReadRun reads a run directory back: run.json, then gates.parquet and
// decisions.parquet walked side by side (they are written in the same
// case × judge order), calling fn with each rebuilt Result in file order.
// Memory stays bounded by one batch of rows. Empty Rules and Calls read back
// as nil. An error from fn stops the walk and is returned. In the hive
// layout the judges' file pairs are walked one after another, in run.json's
// judge order.
//
// Rows are decoded column by column from parquet.Row values rather than
// through reflection, and repeated strings (judges, rule IDs, statuses) are
// shared, which makes reading several times faster; the files stay plain
// Parquet, the layout is the writer's row structs.
func ReadRun(dir string, fn func(*replay.Result) error) (RunInfo, error) {
	info, err := ReadRunInfo(dir)
	if err != nil {
		return info, err
	}
	dirs, err := partDirs(dir, info)
	if err != nil {
		return info, err
	}
	for _, d := range dirs {
		if err := readPart(d, fn); err != nil {
			return info, err
		}
	}
	return info, nil
}

// readPart walks one pair of gates.parquet and decisions.parquet.
func readPart(dir string, fn func(*replay.Result) error) error {
	gates, err := openRows(filepath.Join(dir, GatesFile), gateColumns)
	if err != nil {
		return err
	}
	defer gates.close()
	decs, err := openRows(filepath.Join(dir, DecisionsFile), decisionColumns)
	if err != nil {
		return err
	}
	defer decs.close()

	var d decoded
	pending := false // d holds a decision row not yet attached
	for {
		row, err := gates.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		res := gates.gate(row)
		for {
			if !pending {
				row, err := decs.next()
				if err == io.EOF {
					break
				}
				if err != nil {
					return err
				}
				decs.decision(row, &d)
				pending = true
			}
			if d.caseID != res.CaseID || d.judge != res.Judge {
				break
			}
			if err := d.attach(res); err != nil {
				return err
			}
			pending = false
		}
		if err := fn(res); err != nil {
			return err
		}
	}
	if pending {
		return fmt.Errorf("%s: case %s judge %s has no row in %s (files out of step)",
			DecisionsFile, d.caseID, d.judge, GatesFile)
	}
	if _, err := decs.next(); err != io.EOF {
		if err == nil {
			err = fmt.Errorf("%s has rows after the last row of %s (files out of step)", DecisionsFile, GatesFile)
		}
		return err
	}
	return nil
}

// Column codes: which field a leaf column fills. Unknown columns (from a
// newer writer) are skipped.
const (
	cSkip = iota
	cRunID
	cCaseID
	cSessionID
	cSeq
	cJudge
	cModel
	cModelDigest
	cPromptVersion
	cTags
	cLatency
	cStatus
	// gates
	cPermission
	cGateAction
	cExpectedAction
	cRulesInScope
	cRulesJudged
	cJudgeCalled
	cCacheHit
	cApprovalOutcome
	cCalls
	// decisions
	cRuleID
	cRuleVersion
	cRuleClass
	cLabel
	cSource
	cResult
	cConfidence
	cFired
	cAction
	cError
	cFingerprint
	cBaselineResult
	cCallIndex
	cCallRules
	cCallStatus
	cCallError
	cCallCause
	cCallCached
	cCallAttempts
	cServerTotal
	cServerLoad
	cServerPromptEval
	cServerEval
	cPromptTokens
	cCompletionTokens
	cRepeats
	cEvidenceAltered
	// both files, at the end
	cToolName
	cCategory
	cHookPoint
	cCaseTime
	nCodes
)

var shared = map[string]int{
	"run_id": cRunID, "case_id": cCaseID, "session_id": cSessionID, "seq": cSeq, "judge": cJudge,
	"model": cModel, "model_digest": cModelDigest, "prompt_version": cPromptVersion, "tags": cTags,
	"latency_ms": cLatency, "status": cStatus, "gate_action": cGateAction,
	"tool_name": cToolName, "category": cCategory, "hook_point": cHookPoint, "case_time": cCaseTime,
}

var gateColumns = withShared(map[string]int{
	"permission": cPermission, "expected_action": cExpectedAction, "rules_in_scope": cRulesInScope,
	"rules_judged": cRulesJudged, "judge_called": cJudgeCalled, "cache_hit": cCacheHit,
	"approval_outcome": cApprovalOutcome, "calls": cCalls,
})

var decisionColumns = withShared(map[string]int{
	"rule_id": cRuleID, "rule_version": cRuleVersion, "rule_class": cRuleClass, "label": cLabel,
	"source": cSource, "result": cResult, "confidence": cConfidence, "fired": cFired, "action": cAction,
	"error": cError, "fingerprint": cFingerprint, "baseline_result": cBaselineResult,
	"call_index": cCallIndex, "call_rules": cCallRules, "call_status": cCallStatus, "call_error": cCallError, "call_cause": cCallCause,
	"call_cached": cCallCached, "call_attempts": cCallAttempts, "server_total_ms": cServerTotal,
	"server_load_ms": cServerLoad, "server_prompt_eval_ms": cServerPromptEval, "server_eval_ms": cServerEval,
	"prompt_tokens": cPromptTokens, "completion_tokens": cCompletionTokens, "repeats": cRepeats,
	"evidence_altered": cEvidenceAltered,
})

func withShared(m map[string]int) map[string]int {
	for k, v := range shared {
		m[k] = v
	}
	return m
}

// highCardinality columns are unique per row: sharing their strings would
// only grow the intern tables.
var highCardinality = [nCodes]bool{cCaseID: true, cSessionID: true, cFingerprint: true}

// maxInterned bounds each column's table of shared strings.
const maxInterned = 1 << 14

// rowFile reads one run file as parquet.Rows in batches.
type rowFile struct {
	name   string
	f      *os.File
	r      *parquet.GenericReader[any]
	rows   []parquet.Row
	n, pos int
	eof    bool
	code   []int // leaf column index → column code
	maxDef []int // leaf column index → max definition level
	intern [nCodes]map[string]string
}

func openRows(path string, columns map[string]int) (*rowFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	rf := &rowFile{name: filepath.Base(path), f: f, r: parquet.NewGenericReader[any](pf), rows: make([]parquet.Row, batchRows)}
	schema := pf.Schema()
	for _, path := range schema.Columns() {
		leaf, _ := schema.Lookup(path...)
		for len(rf.code) <= leaf.ColumnIndex {
			rf.code, rf.maxDef = append(rf.code, cSkip), append(rf.maxDef, 0)
		}
		rf.code[leaf.ColumnIndex] = columns[path[0]]
		rf.maxDef[leaf.ColumnIndex] = leaf.MaxDefinitionLevel
	}
	for _, need := range []string{"case_id", "judge"} {
		if _, ok := schema.Lookup(need); !ok {
			_ = f.Close()
			return nil, fmt.Errorf("%s: no %s column: not an apeval run file", path, need)
		}
	}
	return rf, nil
}

func (rf *rowFile) close() {
	_ = rf.r.Close()
	_ = rf.f.Close()
}

// next returns the next row; it stays valid until the following call.
func (rf *rowFile) next() (parquet.Row, error) {
	if rf.pos == rf.n {
		if rf.eof {
			return nil, io.EOF
		}
		n, err := rf.r.ReadRows(rf.rows)
		rf.n, rf.pos = n, 0
		if err == io.EOF {
			rf.eof = true
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", rf.name, err)
		}
		if n == 0 {
			return nil, io.EOF
		}
	}
	rf.pos++
	return rf.rows[rf.pos-1], nil
}

// str converts a string value, sharing repeated ones per column.
func (rf *rowFile) str(code int, v parquet.Value) string {
	b := v.ByteArray()
	if highCardinality[code] {
		return string(b)
	}
	m := rf.intern[code]
	if m == nil {
		m = map[string]string{}
		rf.intern[code] = m
	}
	if s, ok := m[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(m) < maxInterned {
		m[s] = s
	}
	return s
}

// tags decodes a tags list value: below max-1 the list is null, at max-1
// it is empty, at max it carries an element.
func (rf *rowFile) tag(tags *[]string, v parquet.Value) {
	def, max := v.DefinitionLevel(), rf.maxDef[v.Column()]
	switch {
	case def < max-1:
		*tags = nil
	case def == max-1:
		*tags = []string{}
	default:
		*tags = append(*tags, rf.str(cTags, v))
	}
}

func f64(v parquet.Value) *float64 {
	x := v.Double()
	return &x
}

func i64(v parquet.Value) *int64 {
	x := v.Int64()
	return &x
}

// gate decodes a gates row into a new Result (Rules and Calls to come from
// decisions).
func (rf *rowFile) gate(row parquet.Row) *replay.Result {
	r := &replay.Result{}
	for _, v := range row {
		code := rf.code[v.Column()]
		if code == cTags {
			rf.tag(&r.Tags, v)
			continue
		}
		if v.IsNull() {
			continue
		}
		switch code {
		case cRunID:
			r.RunID = rf.str(code, v)
		case cCaseID:
			r.CaseID = rf.str(code, v)
		case cSessionID:
			r.SessionID = rf.str(code, v)
		case cSeq:
			r.Seq = v.Int64()
		case cJudge:
			r.Judge = rf.str(code, v)
		case cModel:
			r.Model = rf.str(code, v)
		case cModelDigest:
			r.ModelDigest = rf.str(code, v)
		case cPromptVersion:
			r.PromptVersion = rf.str(code, v)
		case cPermission:
			r.Permission = rf.str(code, v)
		case cGateAction:
			r.GateAction = datasets.Action(rf.str(code, v))
		case cExpectedAction:
			r.ExpectedAction = datasets.Action(rf.str(code, v))
		case cApprovalOutcome:
			r.ApprovalOutcome = datasets.ApprovalOutcome(rf.str(code, v))
		case cRulesInScope:
			r.RulesInScope = int(v.Int32())
		case cRulesJudged:
			r.RulesJudged = int(v.Int32())
		case cJudgeCalled:
			r.JudgeCalled = v.Boolean()
		case cCacheHit:
			r.CacheHit = v.Boolean()
		case cLatency:
			r.LatencyMS = f64(v)
		case cStatus:
			r.Status = core.Status(rf.str(code, v))
		case cCalls:
			if n := v.Int32(); n > 0 {
				r.Calls = make([]replay.Call, n)
			}
		case cToolName:
			r.ToolName = rf.str(code, v)
		case cCategory:
			r.Category = rf.str(code, v)
		case cHookPoint:
			r.HookPoint = rf.str(code, v)
		case cCaseTime:
			t := time.UnixMicro(v.Int64()).UTC()
			r.Time = &t
		}
	}
	return r
}

// decoded is one decisions row: its key, the rule and, when a call decided
// the rule, the call.
type decoded struct {
	caseID, judge string
	rule          replay.RuleResult
	call          replay.Call
	callIndex     int
	repeats       string // the repeats column, "" when null
}

func (rf *rowFile) decision(row parquet.Row, d *decoded) {
	*d = decoded{rule: replay.RuleResult{Call: -1}, callIndex: -1}
	rr, c := &d.rule, &d.call
	for _, v := range row {
		code := rf.code[v.Column()]
		if v.IsNull() {
			continue
		}
		switch code {
		case cCaseID:
			d.caseID = rf.str(code, v)
		case cJudge:
			d.judge = rf.str(code, v)
		case cRuleID:
			rr.RuleID = rf.str(code, v)
		case cRuleVersion:
			rr.RuleVersion = int(v.Int32())
		case cRuleClass:
			rr.Class = replay.Class(rf.str(code, v))
		case cLabel:
			rr.Label = datasets.Label(rf.str(code, v))
		case cSource:
			rr.Source = replay.Source(rf.str(code, v))
		case cResult:
			rr.Result = core.Result(rf.str(code, v))
		case cConfidence:
			rr.Confidence = f64(v)
		case cFired:
			rr.Fired = v.Boolean()
		case cAction:
			rr.Action = datasets.Action(rf.str(code, v))
		case cStatus:
			rr.Status = core.Status(rf.str(code, v))
		case cError:
			rr.Error = rf.str(code, v)
		case cFingerprint:
			if b := v.ByteArray(); len(b) == 32 {
				rr.Fingerprint = replay.Digest(b)
			} else {
				// Files before 32-byte fingerprints hold hex text.
				rr.Fingerprint, _ = replay.ParseDigest(string(b))
			}
		case cBaselineResult:
			rr.BaselineResult = core.Result(rf.str(code, v))
		case cEvidenceAltered:
			rr.EvidenceAltered = v.Boolean()
		case cLatency:
			c.LatencyMS = v.Double()
		case cCallIndex:
			d.callIndex = int(v.Int32())
		case cCallRules:
			c.Rules = int(v.Int32())
		case cCallStatus:
			c.Status = core.Status(rf.str(code, v))
		case cCallError:
			c.Error = rf.str(code, v)
		case cCallCause:
			c.Cause = core.Cause(rf.str(code, v))
		case cCallCached:
			c.Cached = v.Boolean()
		case cCallAttempts:
			c.Attempts = int(v.Int32())
		case cServerTotal:
			c.ServerTotalMS = f64(v)
		case cServerLoad:
			c.ServerLoadMS = f64(v)
		case cServerPromptEval:
			c.ServerPromptEvalMS = f64(v)
		case cServerEval:
			c.ServerEvalMS = f64(v)
		case cPromptTokens:
			c.PromptTokens = i64(v)
		case cCompletionTokens:
			c.CompletionTokens = i64(v)
		case cRepeats:
			d.repeats = string(v.ByteArray())
		}
	}
}

// attach adds the decoded rule (and its call) to r.
func (d *decoded) attach(r *replay.Result) error {
	if d.repeats != "" {
		votes, calls, err := parseRepeats(d.repeats)
		if err != nil {
			return fmt.Errorf("%s: case %s judge %s rule %s: %w", DecisionsFile, d.caseID, d.judge, d.rule.RuleID, err)
		}
		for i, v := range votes {
			if v.Call >= len(r.Calls) {
				return fmt.Errorf("%s: case %s judge %s rule %s: repeat call %d out of range (calls = %d)",
					DecisionsFile, d.caseID, d.judge, d.rule.RuleID, v.Call, len(r.Calls))
			}
			r.Calls[v.Call] = calls[i]
		}
		d.rule.Repeats = votes
	}
	if d.callIndex >= 0 {
		if d.callIndex >= len(r.Calls) {
			return fmt.Errorf("%s: case %s judge %s rule %s: call_index %d out of range (calls = %d)",
				DecisionsFile, d.caseID, d.judge, d.rule.RuleID, d.callIndex, len(r.Calls))
		}
		d.rule.Call = d.callIndex
		r.Calls[d.callIndex] = d.call
	}
	r.Rules = append(r.Rules, d.rule)
	return nil
}
