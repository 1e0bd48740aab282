package metrics

import (
	"strings"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/intern"
	"github.com/apeval/apeval/internal/spill"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/replay"
)

// noneJudge is the identity of `--judge none`.
const noneJudge = "none"

// Accumulator streams replay results into per judge × rule counts. What it
// keeps per case and per decision (16 bytes a decision and a case × judge:
// the case and session ordinals and what the pair counts for) goes into
// spill lists that hold Config.SpillBudget bytes in memory and the rest on
// disk; what stays in memory grows with sessions (the session interner,
// about 12 bytes plus the ID, and per-session scratch at Close), with live
// judge calls (8 bytes of latency plus 4 bytes per rule the call carried)
// and, unless Config.DistinctCases, with distinct case IDs (the case
// interner, 4 bytes of session plus about 12 bytes and the ID). It is not
// safe for concurrent use; feed it from one goroutine and call Close once.
type Accumulator struct {
	cfg Config
	// cases interns case IDs (nil with Config.DistinctCases, where a case
	// is numbered when its ID differs from the previous result's).
	cases *intern.Table
	// sessions interns session IDs; caseSess maps a case ordinal to the
	// ordinal of its session (the first one seen for the case), for the
	// session-clustered intervals and tests (see docs/statistics.md). With
	// Config.DistinctCases it is not kept: the current case's session is.
	sessions *intern.Table
	caseSess []uint32
	// replaySess, with Config.DistinctCases and results from replay.Run
	// (Result.SessionOrd set, decided by the first result), numbers sessions
	// by replay's own session table instead of the interner: no second
	// table of every session in the process. nReplaySess is the highest
	// such number + 1. Slice accumulators keep their interner (their
	// scratch is sized by the sessions they saw).
	replaySess  int8 // 0 undecided, 1 yes, -1 no
	nReplaySess uint32
	isSlice     bool // a slice accumulator (Config.Slices)
	// lastCase, curOrd and curSess are the current case with
	// Config.DistinctCases; nCases counts cases numbered so.
	lastCase        []byte
	curOrd, curSess uint32
	nCases          int64
	// pool holds every spill list of the accumulator and of its slices.
	pool *spill.Pool
	// noSession counts cases without a session ID: each is a session of
	// its own, numbered sessionless|k until Close makes the numbers dense.
	noSession uint32
	judges    map[string]*judgeAcc
	order     []*judgeAcc
	last      *judgeAcc
	// slices holds one accumulator per slice value (Config.Slices).
	slices map[sliceKey]*Accumulator
	// callIdx maps a Result's call index to its position in the judge's
	// latency slice (-1 for cache hits); reused across Adds.
	callIdx []int32
}

// judgeAcc accumulates one judge identity.
type judgeAcc struct {
	id, model, digest, prompt string
	runIDs                    []string

	cases, judgeRequired               int64
	approvalOutcomes, approvalRejected int64
	calls, cachedCalls, failedCalls    int64 // cachedCalls: of calls, those answered from the cache
	// setup counts failed calls by setup-class cause (judge.SetupCause):
	// half or more of the calls with one cause is a broken setup.
	setup map[string]int64
	lat   []float64
	rules map[string]*ruleAcc
	// caseList holds one record per result: K = case ordinal<<ordShift |
	// case flags (caseReplayed, caseJudgeCalled, caseApprOut, caseApprRej),
	// V = session. Read in order, it is the set of cases the judge
	// replayed, its repeats, and the units of the judge-level clustered
	// intervals.
	caseList                               *spill.List
	ruleOrder                              []*ruleAcc
	classClash                             map[string]bool
	lastRule                               *ruleAcc
	unknownStatus, unknownSource, badCalls int64
	rep                                    repeatAcc // the "*" row's repeat figures
}

// ruleAcc accumulates one judge × rule.
type ruleAcc struct {
	id                  string
	version             int
	class               replay.Class
	action              datasets.Action
	inScope, judged     int64
	labeled, missing    int64
	cacheHits, fired    int64
	tp, fp, fn, tn      int64
	unk                 UnknownBreakdown
	basePos, baseHits   int64
	judgeOnly, baseOnly int64 // discordant labeled positives: judge hit & baseline miss, and the reverse
	apprOut, apprRej    int64
	callRefs            []uint32    // positions in judgeAcc.lat of the live calls the rule was part of
	pairs               *spill.List // K = case ordinal<<ordShift | pair flags (bit* below), V = session
	minVersion          int
	rep                 repeatAcc // --repeat / --shuffle-rules figures
}

// Packed pair bits: the low ordShift bits of a pair say what the pair
// counts for, the rest is the case ordinal.
const (
	bitMatch     = 1 << iota // the result is match (a decision, not a failure)
	bitFired                 // the rule fired
	bitMissing               // the recording lacks the rule: left out of everything
	bitPos                   // counts as a labeled positive (TP or FN)
	bitNeg                   // counts as a labeled negative (FP or TN when decided)
	bitJudged                // sent to the judge (judge, cache or failure)
	bitUndecided             // judged, and not match/no_match
	bitApprOut               // fired request_approval with an approval outcome
	bitApprRej               // ... and the outcome was denied or ignored
	bitBase                  // labeled positive with a deterministic baseline result
	bitBaseHit               // ... which matched
	bitNoMatch               // the result is no_match (a decision)

	ordShift = 16
	// maxCases is the largest case count the packing can index.
	maxCases = 1 << 32
)

// New returns an empty Accumulator judging with cfg.
func New(cfg Config) *Accumulator {
	return newAcc(cfg, spill.NewPool(cfg.SpillDir, cfg.SpillBudget))
}

func newAcc(cfg Config, pool *spill.Pool) *Accumulator {
	a := &Accumulator{cfg: cfg, sessions: intern.New(), judges: map[string]*judgeAcc{}, pool: pool}
	if !cfg.DistinctCases {
		a.cases = intern.New()
	}
	return a
}

// numCases is the number of distinct case ordinals given out.
func (a *Accumulator) numCases() int64 {
	if a.cases != nil {
		return int64(a.cases.Len())
	}
	return a.nCases
}

// caseOf returns the case ordinal and the session of r's case.
func (a *Accumulator) caseOf(r *replay.Result) (ord, sess uint32) {
	if a.cases == nil {
		if a.nCases == 0 || string(a.lastCase) != r.CaseID {
			a.lastCase = append(a.lastCase[:0], r.CaseID...)
			a.curOrd = uint32(a.nCases)
			a.nCases++
			if a.replaySess == 0 {
				a.replaySess = -1
				if r.SessionOrd != 0 && !a.isSlice {
					a.replaySess = 1
				}
			}
			a.curSess = a.sessionOf(r)
		}
		return a.curOrd, a.curSess
	}
	ord = a.cases.ID(r.CaseID)
	if int(ord) == len(a.caseSess) {
		a.caseSess = append(a.caseSess, a.sessionOf(r))
	}
	return ord, a.caseSess[ord]
}

func (a *Accumulator) judge(r *replay.Result) *judgeAcc {
	if a.last != nil && a.last.id == r.Judge {
		return a.last
	}
	j := a.judges[r.Judge]
	if j == nil {
		j = &judgeAcc{id: r.Judge, rules: map[string]*ruleAcc{}, caseList: a.pool.NewList()}
		a.judges[r.Judge] = j
		a.order = append(a.order, j)
	}
	a.last = j
	return j
}

func (j *judgeAcc) rule(rr *replay.RuleResult, pool *spill.Pool) *ruleAcc {
	if j.lastRule != nil && j.lastRule.id == rr.RuleID {
		return j.lastRule
	}
	ra := j.rules[rr.RuleID]
	if ra == nil {
		ra = &ruleAcc{id: rr.RuleID, version: rr.RuleVersion, minVersion: rr.RuleVersion, class: rr.Class, pairs: pool.NewList()}
		j.rules[rr.RuleID] = ra
		j.ruleOrder = append(j.ruleOrder, ra)
	}
	j.lastRule = ra
	return ra
}

// Add counts one replayed case × judge. It never fails: odd values
// (unknown statuses, call indexes out of range) are counted as what they
// most plausibly are and reported as warnings by Close.
func (a *Accumulator) Add(r *replay.Result) {
	if len(a.cfg.Slices) > 0 {
		a.addSlices(r)
	}
	j := a.judge(r)
	if j.model == "" {
		j.model, j.digest, j.prompt = r.Model, r.ModelDigest, r.PromptVersion
	}
	if r.RunID != "" && (len(j.runIDs) == 0 || j.runIDs[len(j.runIDs)-1] != r.RunID) {
		seen := false
		for _, id := range j.runIDs {
			seen = seen || id == r.RunID
		}
		if !seen {
			j.runIDs = append(j.runIDs, r.RunID)
		}
	}
	ord, sess := a.caseOf(r)
	flags := uint64(caseReplayed)
	j.cases++
	if r.JudgeCalled {
		j.judgeRequired++
		flags |= caseJudgeCalled
	}
	if r.GateAction == datasets.ActionRequestApproval && r.ApprovalOutcome != "" {
		j.approvalOutcomes++
		flags |= caseApprOut
		if r.ApprovalOutcome.Rejected() {
			j.approvalRejected++
			flags |= caseApprRej
		}
	}
	j.caseList.Append(spill.Rec{K: uint64(ord)<<ordShift | flags, V: uint64(sess)})

	if cap(a.callIdx) < len(r.Calls) {
		a.callIdx = make([]int32, len(r.Calls))
	}
	callIdx := a.callIdx[:len(r.Calls)]
	recorded := strings.HasPrefix(r.Judge, "recorded/")
calls:
	for i := range r.Calls {
		c := &r.Calls[i]
		if r.Judge == noneJudge {
			// The none judge answers every call with an error without
			// calling anything: there is no call, and no latency.
			callIdx[i] = -1
			continue
		}
		if recorded {
			// Replay splits a recorded call over several batches when the
			// policy's max_rules_per_call is lower than the recording's
			// rule count; every batch then carries the recording's latency
			// and status. One recorded call counts once.
			for k := range i {
				if p := &r.Calls[k]; !p.Cached && p.LatencyMS == c.LatencyMS && p.Status == c.Status && p.Error == c.Error {
					callIdx[i] = callIdx[k]
					continue calls
				}
			}
		}
		// A cached answer counts with the latency measured when it was made
		// (the cache stores it): a warm rerun gives the same figures.
		j.calls++
		if c.Cached {
			j.cachedCalls++
		}
		if c.Status != judge.StatusOK && c.Status != "" {
			j.failedCalls++
			if cause := judge.SetupCause(c.Status, c.Error); cause != "" {
				if j.setup == nil {
					j.setup = map[string]int64{}
				}
				j.setup[cause]++
			}
		}
		callIdx[i] = int32(len(j.lat))
		j.lat = append(j.lat, c.LatencyMS)
	}

	for i := range r.Rules {
		rr := &r.Rules[i]
		ra := j.rule(rr, a.pool)
		ra.note(j, rr)
		packed := uint64(ord) << ordShift
		out, cell := rr.Classify()
		if out == replay.OutcomeMissing {
			ra.missing++
			ra.pairs.Append(spill.Rec{K: packed | bitMissing, V: uint64(sess)})
			continue
		}
		ra.inScope++
		if len(rr.Repeats) > 0 {
			ra.rep.add(sess, rr)
			j.rep.add(sess, rr)
		}
		judged := rr.Source == replay.SourceJudge || rr.Source == replay.SourceCache || rr.Source == replay.SourceFailure
		match := out == replay.OutcomeMatch
		if judged {
			ra.judged++
			packed |= bitJudged
			if !out.Decided() {
				packed |= bitUndecided
			}
			if rr.Source == replay.SourceCache {
				ra.cacheHits++
			}
			switch out {
			case replay.OutcomeFailed:
				switch rr.Status {
				case judge.StatusInvalid:
					ra.unk.Invalid++
				case judge.StatusTimeout:
					ra.unk.Timeout++
				case judge.StatusError:
					ra.unk.Error++
				default:
					// A failure-policy row whose status does not name the
					// failure: count it as an error, and say so.
					ra.unk.Error++
					j.unknownStatus++
				}
			case replay.OutcomeUnknown:
				ra.unk.Unknown++
			case replay.OutcomeNone:
				// A judged pair with no recognisable result is not a decision.
				ra.unk.Error++
				j.unknownStatus++
			}
			if rr.Call >= 0 && rr.Call < len(callIdx) {
				if p := callIdx[rr.Call]; p >= 0 {
					ra.callRefs = append(ra.callRefs, uint32(p))
				}
			} else if rr.Source != replay.SourceFailure && rr.Call >= len(callIdx) {
				j.badCalls++
			}
		} else if rr.Source != replay.SourceDeterministic && rr.Source != replay.SourceScope {
			j.unknownSource++
		}
		if rr.Fired {
			ra.fired++
			packed |= bitFired
			if rr.Action == datasets.ActionRequestApproval && r.ApprovalOutcome != "" {
				ra.apprOut++
				packed |= bitApprOut
				if r.ApprovalOutcome.Rejected() {
					ra.apprRej++
					packed |= bitApprRej
				}
			}
		}
		if match {
			packed |= bitMatch
		}
		if out == replay.OutcomeNoMatch {
			packed |= bitNoMatch
		}
		if rr.Source == replay.SourceScope {
			// Skipped because a human approved this very call for the rule
			// (approved fingerprint): neither the judge nor a matcher was
			// asked, so the pair is no evidence for precision or recall.
			ra.pairs.Append(spill.Rec{K: packed, V: uint64(sess)})
			continue
		}
		switch cell {
		case replay.CellTP:
			ra.tp++
		case replay.CellFP:
			ra.fp++
		case replay.CellFN:
			ra.fn++
		case replay.CellTN:
			ra.tn++
		}
		switch rr.Label {
		case datasets.LabelMatch:
			ra.labeled++
			packed |= bitPos
			if rr.BaselineResult != "" {
				ra.basePos++
				packed |= bitBase
				baseHit := rr.BaselineResult == judge.Match
				if baseHit {
					ra.baseHits++
					packed |= bitBaseHit
				}
				switch {
				case match && !baseHit:
					ra.judgeOnly++
				case !match && baseHit:
					ra.baseOnly++
				}
			}
		case datasets.LabelNoMatch:
			ra.labeled++
			packed |= bitNeg
		}
		ra.pairs.Append(spill.Rec{K: packed, V: uint64(sess)})
	}
}

// note records the rule's identity fields, keeping the highest version and
// remembering clashes for a warning.
func (ra *ruleAcc) note(j *judgeAcc, rr *replay.RuleResult) {
	ra.version = max(ra.version, rr.RuleVersion)
	ra.minVersion = min(ra.minVersion, rr.RuleVersion)
	if rr.Class != "" && rr.Class != ra.class {
		if ra.class != "" {
			if j.classClash == nil {
				j.classClash = map[string]bool{}
			}
			j.classClash[ra.id] = true
		}
		ra.class = rr.Class
	}
	// The most severe action the rule took (an escalation included), ties
	// by name: the same whatever order the results arrive in.
	if a := rr.Action; a != "" {
		na, nb := replay.ActionRank(a), replay.ActionRank(ra.action)
		if ra.action == "" || na > nb || (na == nb && a < ra.action) {
			ra.action = a
		}
	}
}

// Case flags of a judge (judgeAcc.caseList).
const (
	caseReplayed = 1 << iota
	caseJudgeCalled
	caseApprOut
	caseApprRej
)

// sessionless marks the session of a case without a session ID.
const sessionless = 1 << 31

// sessMap gives the session numbers of cases without a session ID
// (sessionless|k) the dense index S+k, S the interned sessions, as they are
// read back, so that every session has a dense index.
type sessMap struct{ base uint32 }

func (m sessMap) at(v uint64) uint32 {
	if v&sessionless != 0 {
		return m.base + uint32(v)&^sessionless
	}
	return uint32(v)
}

// denseSessions returns the session map and the number of sessions.
func (a *Accumulator) denseSessions() (sessMap, int) {
	s := uint32(a.sessions.Len())
	if a.replaySess > 0 {
		s = a.nReplaySess
	}
	return sessMap{s}, int(s + a.noSession)
}

// sessionOf interns the case's session. A case without a session ID is a
// session of its own: nothing ties it to other cases, so it is not
// clustered with them.
func (a *Accumulator) sessionOf(r *replay.Result) uint32 {
	if a.replaySess > 0 && r.SessionOrd != 0 && r.SessionID != "" {
		a.nReplaySess = max(a.nReplaySess, r.SessionOrd)
		return r.SessionOrd - 1
	}
	if r.SessionID == "" || a.replaySess > 0 {
		// Without a session ID, or (never with replay.Run's results) without
		// replay's number once sessions are numbered by it: a session of its own.
		a.noSession++
		return sessionless | (a.noSession - 1)
	}
	return a.sessions.ID(r.SessionID)
}
