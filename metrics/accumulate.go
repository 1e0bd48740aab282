package metrics

import (
	"strings"

	"github.com/apeval/apeval/internal/intern"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/replay"
)

// noneJudge is the identity of `--judge none`.
const noneJudge = "none"

// Accumulator streams replay results into per judge × rule counts. Memory
// grows with the number of distinct cases and decisions, not with their
// content: per case 4 bytes of session, per decision 8 bytes of paired data, per live call 8 bytes of
// latency plus 4 bytes per rule it carried. It is not safe for concurrent
// use; feed it from one goroutine and call Close once.
type Accumulator struct {
	cfg   Config
	cases *intern.Table
	// sessions interns session IDs; caseSess maps a case ordinal to the
	// ordinal of its session (the first one seen for the case), 4 bytes a
	// case, for the session-clustered intervals and tests (see docs/statistics.md).
	sessions *intern.Table
	caseSess []uint32
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

	cases, judgeRequired                int64
	approvalOutcomes, approvalRejected  int64
	liveCalls, cachedCalls, failedCalls int64
	lat                                 []float64
	caseSeen                            []uint64 // bit per case ordinal: replayed by this judge
	caseRepeats                         int64    // results for a case already seen
	rules                               map[string]*ruleAcc
	// caseFlags per case ordinal (caseReplayed, caseJudgeCalled,
	// caseApprOut, caseApprRej): the units of the judge-level clustered
	// intervals, one byte a case.
	caseFlags                              []uint8
	ruleOrder                              []*ruleAcc
	classClash                             map[string]bool
	lastRule                               *ruleAcc
	unknownStatus, unknownSource, badCalls int64
}

// ruleAcc accumulates one judge × rule.
type ruleAcc struct {
	id                  string
	version             int
	class, action       string
	inScope, judged     int64
	labeled, missing    int64
	cacheHits, fired    int64
	tp, fp, fn, tn      int64
	unk                 UnknownBreakdown
	basePos, baseHits   int64
	judgeOnly, baseOnly int64 // discordant labeled positives: judge hit & baseline miss, and the reverse
	apprOut, apprRej    int64
	callRefs            []uint32 // positions in judgeAcc.lat of the live calls the rule was part of
	pairs               []uint64 // case ordinal<<ordShift | pair flags (bit* below)
	minVersion          int
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
	return &Accumulator{cfg: cfg, cases: intern.New(), sessions: intern.New(), judges: map[string]*judgeAcc{}}
}

func (a *Accumulator) judge(r *replay.Result) *judgeAcc {
	if a.last != nil && a.last.id == r.Judge {
		return a.last
	}
	j := a.judges[r.Judge]
	if j == nil {
		j = &judgeAcc{id: r.Judge, rules: map[string]*ruleAcc{}}
		a.judges[r.Judge] = j
		a.order = append(a.order, j)
	}
	a.last = j
	return j
}

func (j *judgeAcc) rule(rr *replay.RuleResult) *ruleAcc {
	if j.lastRule != nil && j.lastRule.id == rr.RuleID {
		return j.lastRule
	}
	ra := j.rules[rr.RuleID]
	if ra == nil {
		ra = &ruleAcc{id: rr.RuleID, version: rr.RuleVersion, minVersion: rr.RuleVersion, class: rr.Class}
		j.rules[rr.RuleID] = ra
		j.ruleOrder = append(j.ruleOrder, ra)
	}
	j.lastRule = ra
	return ra
}

func isRejected(outcome string) bool { return outcome == "denied" || outcome == "ignored" }

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
	ord := a.cases.ID(r.CaseID)
	if int(ord) == len(a.caseSess) {
		a.caseSess = append(a.caseSess, a.sessionOf(r))
	}
	if int(ord) >= len(j.caseFlags) {
		j.caseFlags = append(j.caseFlags, make([]uint8, int(ord)+1-len(j.caseFlags))...)
	}
	j.caseFlags[ord] |= caseReplayed
	if w := int(ord >> 6); w >= len(j.caseSeen) {
		j.caseSeen = append(j.caseSeen, make([]uint64, w+1-len(j.caseSeen))...)
	}
	if bit := uint64(1) << (ord & 63); j.caseSeen[ord>>6]&bit != 0 {
		j.caseRepeats++
	} else {
		j.caseSeen[ord>>6] |= bit
	}
	j.cases++
	if r.JudgeCalled {
		j.judgeRequired++
		j.caseFlags[ord] |= caseJudgeCalled
	}
	if r.GateAction == replay.ActionRequestApproval && r.ApprovalOutcome != "" {
		j.approvalOutcomes++
		j.caseFlags[ord] |= caseApprOut
		if isRejected(r.ApprovalOutcome) {
			j.approvalRejected++
			j.caseFlags[ord] |= caseApprRej
		}
	}

	if cap(a.callIdx) < len(r.Calls) {
		a.callIdx = make([]int32, len(r.Calls))
	}
	callIdx := a.callIdx[:len(r.Calls)]
	recorded := strings.HasPrefix(r.Judge, "recorded/")
calls:
	for i := range r.Calls {
		c := &r.Calls[i]
		if c.Cached {
			j.cachedCalls++
			callIdx[i] = -1
			continue
		}
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
		j.liveCalls++
		if c.Status != judge.StatusOK && c.Status != "" {
			j.failedCalls++
		}
		callIdx[i] = int32(len(j.lat))
		j.lat = append(j.lat, c.LatencyMS)
	}

	for i := range r.Rules {
		rr := &r.Rules[i]
		ra := j.rule(rr)
		ra.note(j, rr)
		packed := uint64(ord) << ordShift
		out, cell := rr.Classify()
		if out == replay.OutcomeMissing {
			ra.missing++
			ra.pairs = append(ra.pairs, packed|bitMissing)
			continue
		}
		ra.inScope++
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
			if rr.Action == replay.ActionRequestApproval && r.ApprovalOutcome != "" {
				ra.apprOut++
				packed |= bitApprOut
				if isRejected(r.ApprovalOutcome) {
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
			ra.pairs = append(ra.pairs, packed)
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
		case "match":
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
		case "no_match":
			ra.labeled++
			packed |= bitNeg
		}
		ra.pairs = append(ra.pairs, packed)
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
	if rr.Action != "" {
		ra.action = rr.Action
	}
}

// Case flags of a judge (judgeAcc.caseFlags).
const (
	caseReplayed = 1 << iota
	caseJudgeCalled
	caseApprOut
	caseApprRej
)

// sessionless marks a caseSess entry of a case without a session ID.
const sessionless = 1 << 31

// denseSessions rewrites the session numbers of cases without a session ID
// (sessionless|k) to S+k, S the interned sessions, so that every session
// has a dense index; it returns the number of sessions.
func (a *Accumulator) denseSessions() int {
	s := uint32(a.sessions.Len())
	for i, v := range a.caseSess {
		if v&sessionless != 0 {
			a.caseSess[i] = s + v&^sessionless
		}
	}
	return int(s + a.noSession)
}

// sessionOf interns the case's session. A case without a session ID is a
// session of its own: nothing ties it to other cases, so it is not
// clustered with them.
func (a *Accumulator) sessionOf(r *replay.Result) uint32 {
	if r.SessionID == "" {
		a.noSession++
		return sessionless | (a.noSession - 1)
	}
	return a.sessions.ID(r.SessionID)
}
