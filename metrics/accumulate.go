package metrics

import (
	"slices"
	"strings"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/intern"
	"github.com/apeval/apeval/internal/spill"
	"github.com/apeval/apeval/judge/core"
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
// judge calls (8 bytes of latency and 4 of session plus 4 bytes per rule the call carried)
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
	// seen, with Config.CheckDistinct, holds the IDs of the cases numbered
	// so far, to find one that comes back (then came is set and seen
	// released: the guess failed); seenErr is a failure to write it.
	seen    *datasets.IDSet
	came    bool
	seenErr error
	// With Config.PairedStreams: the stream AddFrom is adding from, each
	// stream's current case, and the cases the stream ahead numbered that
	// the other has not reached yet (ahead[aheadAt:]).
	stream  int
	streams [2]streamCase
	ahead   []aheadCase
	aheadAt int
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
	// contig stays true while each new case's session is the previous new
	// case's or one never seen before: the sessions are contiguous in case
	// order, so Close completes each session as the next begins (sessSums)
	// instead of keeping them all. nextSess is past the highest session
	// number seen (sessions are numbered as they first appear), lastSess
	// the previous new case's.
	contig             bool
	nextSess, lastSess uint32
	// callIdx maps a Result's call index to its position in the judge's
	// latency slice (-1 for cache hits); reused across Adds.
	callIdx []int32
}

// judgeAcc accumulates one judge identity.
type judgeAcc struct {
	id, model, digest, prompt string
	runIDs                    []string

	calls, cachedCalls, failedCalls int64 // cachedCalls: of calls, those answered from the cache
	// setup counts failed calls by setup-class cause (core.Cause.Setup):
	// half or more of the calls with one cause is a broken setup.
	setup map[string]int64
	lat   []float64
	// latSess is the session (as Add numbers it) of each lat entry: the
	// latency intervals and tests resample sessions, not calls.
	latSess []uint32
	rules   map[string]*ruleAcc
	// caseList holds one record per result: K = case ordinal<<ordShift |
	// case flags (caseReplayed, caseJudgeCalled, caseApprOut, caseApprRej),
	// V = session. Read in order, it is the set of cases the judge
	// replayed, its repeats, the judge-level counts (caseCounts) and the
	// units of the judge-level clustered intervals.
	caseList                               *spill.List
	ruleOrder                              []*ruleAcc
	classClash                             map[string]bool
	lastRule                               *ruleAcc
	unknownStatus, unknownSource, badCalls int64
}

// ruleAcc accumulates one judge × rule. Its counts are not kept here:
// each pair's flags (bit* below) are the one record of what it counts
// for, and Close counts them (Row.count) in the pass that also gives the
// intervals.
type ruleAcc struct {
	id                  string
	version, minVersion int
	class               replay.Class
	action              datasets.Action
	callRefs            []uint32    // positions in judgeAcc.lat of the live calls the rule was part of
	pairs               *spill.List // K = case ordinal<<ordShift | pair flags (bit* below), V = session
	rep                 repeatAcc   // --repeat / --shuffle-rules figures
}

// Packed pair bits: the low ordShift bits of a pair say what the pair
// counts for, the rest is the case ordinal. Row.count turns them into the
// row's counts.
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
	bitCached                // judged, answered from the cache
	bitInvalid               // undecided: the judge's answer was invalid
	bitTimeout               // undecided: the call timed out
	bitError                 // undecided: the call failed otherwise (or no recognisable result)
	bitEvidence              // judged, on an input that masked or cut what the rule refers to

	ordShift = 17
	// maxCases is the largest case count the packing can index.
	maxCases = 1 << 32
)

// New returns an empty Accumulator judging with cfg.
func New(cfg Config) *Accumulator {
	return newAcc(cfg, spill.NewPool(cfg.SpillDir, cfg.SpillBudget))
}

func newAcc(cfg Config, pool *spill.Pool) *Accumulator {
	a := &Accumulator{cfg: cfg, sessions: intern.New(), judges: map[string]*judgeAcc{}, pool: pool, contig: true}
	if len(cfg.Slices) > 0 || !cfg.CheckDistinct {
		// Slices number their cases in their own subsequences.
		cfg.PairedStreams = false
		a.cfg = cfg
	}
	switch {
	case cfg.CheckDistinct:
		a.seen = datasets.NewIDSet(seenInMemory)
	case !cfg.DistinctCases:
		a.cases = intern.New()
	}
	return a
}

// seenInMemory is how many case IDs the check of Config.CheckDistinct
// keeps in memory (≈ 16 bytes + the ID each); the rest go to sorted runs
// on disk.
var seenInMemory = 1 << 18

// noteCase adds a newly numbered case's ID to the check of
// Config.CheckDistinct.
func (a *Accumulator) noteCase(id string, ord uint32) {
	if a.seen == nil {
		return
	}
	_, dup, err := a.seen.Add(id, ord)
	if err != nil || dup {
		a.came, a.seenErr = dup, err
		_ = a.seen.Close()
		a.seen = nil
	}
}

// Distinct reports, with Config.CheckDistinct, after the last Add and
// before Close, whether every case's results came together and no case
// came back (true without the check): the cases' numbers are then those
// of an accumulator keeping every case ID, and so is the Summary. False
// (or an error from the check's temporary file) means the figures would
// count a case that came back as another case: Discard this accumulator
// and feed the results to one without Config.CheckDistinct. Slices see
// subsequences of the results, so the answer holds for them too.
func (a *Accumulator) Distinct() (bool, error) {
	if !a.cfg.CheckDistinct {
		return true, nil
	}
	if a.cfg.PairedStreams && (a.streams[0].n != a.streams[1].n || len(a.ahead) != a.aheadAt) {
		a.came = true
	}
	if a.came || a.seenErr != nil {
		return false, a.seenErr
	}
	if a.seen == nil {
		return true, nil
	}
	_, _, _, late, err := a.seen.Late()
	if cerr := a.seen.Close(); err == nil {
		err = cerr
	}
	a.seen = nil
	a.came = late
	return !late && err == nil, err
}

// Discard releases what the accumulator holds (its spill file) without
// closing it; it must not be used afterwards.
func (a *Accumulator) Discard() error {
	if a.seen != nil {
		_ = a.seen.Close()
		a.seen = nil
	}
	return a.pool.Close()
}

// numCases is the number of distinct case ordinals given out.
func (a *Accumulator) numCases() int64 {
	if a.cases != nil {
		return int64(a.cases.Len())
	}
	return a.nCases
}

// streamCase is one stream's current case (Config.PairedStreams).
type streamCase struct {
	last      []byte
	n         int64 // cases numbered in the stream
	ord, sess uint32
}

// aheadCase is a case numbered by the stream ahead, for the other stream
// to check when it reaches it.
type aheadCase struct {
	id, session string
	sess        uint32
}

// maxAhead is how many cases one stream may be ahead of the other before
// the check of Config.PairedStreams gives up (≈ 40 bytes + the IDs each).
var maxAhead = 1 << 18

// AddFrom is Add for a result of stream 0 or 1 (Config.PairedStreams).
func (a *Accumulator) AddFrom(stream int, r *replay.Result) {
	a.stream = stream
	a.Add(r)
}

// pairedCaseOf numbers r's case by its position in its stream: the stream
// ahead gives the position its session, the other checks that its case is
// the same.
func (a *Accumulator) pairedCaseOf(r *replay.Result) (ord, sess uint32) {
	st := &a.streams[a.stream]
	if st.n > 0 && string(st.last) == r.CaseID {
		return st.ord, st.sess
	}
	st.last = append(st.last[:0], r.CaseID...)
	k := st.n
	st.n++
	if k == a.nCases {
		// Ahead (or level): a new position.
		st.ord, st.sess = a.newCase(r)
		if !a.came {
			if len(a.ahead)-a.aheadAt >= maxAhead {
				a.came = true
				a.ahead = nil
			} else {
				// Copies: a reader may reuse the bytes behind a result's strings.
				a.ahead = append(a.ahead, aheadCase{strings.Clone(r.CaseID), strings.Clone(r.SessionID), st.sess})
			}
		}
		return st.ord, st.sess
	}
	// Behind: the position the other stream numbered.
	st.ord = uint32(k)
	if a.came {
		// The check failed already; the figures will be recomputed.
		return st.ord, 0
	}
	e := a.ahead[a.aheadAt]
	a.aheadAt++
	if a.aheadAt == len(a.ahead) {
		a.ahead, a.aheadAt = a.ahead[:0], 0
	} else if a.aheadAt >= 4096 && 2*a.aheadAt >= len(a.ahead) {
		n := copy(a.ahead, a.ahead[a.aheadAt:])
		a.ahead, a.aheadAt = a.ahead[:n], 0
	}
	if e.id != r.CaseID || e.session != r.SessionID {
		a.came = true
	}
	st.sess = e.sess
	return st.ord, st.sess
}

// newCase numbers a case as it comes, with its session.
func (a *Accumulator) newCase(r *replay.Result) (ord, sess uint32) {
	ord = uint32(a.nCases)
	a.nCases++
	a.noteCase(r.CaseID, ord)
	if a.replaySess == 0 {
		a.replaySess = -1
		if r.SessionOrd != 0 && !a.isSlice {
			a.replaySess = 1
		}
	}
	sess = a.sessionOf(r)
	a.noteSession(sess)
	return ord, sess
}

// caseOf returns the case ordinal and the session of r's case.
func (a *Accumulator) caseOf(r *replay.Result) (ord, sess uint32) {
	if a.cfg.PairedStreams && a.cases == nil {
		return a.pairedCaseOf(r)
	}
	if a.cases == nil {
		if a.nCases == 0 || string(a.lastCase) != r.CaseID {
			a.lastCase = append(a.lastCase[:0], r.CaseID...)
			a.curOrd, a.curSess = a.newCase(r)
		}
		return a.curOrd, a.curSess
	}
	ord = a.cases.ID(r.CaseID)
	if int(ord) == len(a.caseSess) {
		a.caseSess = append(a.caseSess, a.sessionOf(r))
		a.noteSession(a.caseSess[ord])
	}
	return ord, a.caseSess[ord]
}

// noteSession follows whether the sessions stay contiguous in case order
// (contig), given the session of each new case in turn.
func (a *Accumulator) noteSession(sess uint32) {
	switch {
	case sess&sessionless != 0:
		// A session of its own.
	case sess >= a.nextSess:
		a.nextSess = sess + 1
	case sess != a.lastSess:
		a.contig = false
	}
	a.lastSess = sess
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
	j.noteRun(r)
	ord, sess := a.caseOf(r)
	j.caseList.Append(spill.Rec{K: uint64(ord)<<ordShift | caseFlags(r), V: uint64(sess)})
	callIdx := a.addCalls(j, r, sess)
	for i := range r.Rules {
		rr := &r.Rules[i]
		ra := j.rule(rr, a.pool)
		ra.note(j, rr)
		f := j.pairFlags(ra, rr, r.ApprovalOutcome, callIdx)
		if f&bitMissing == 0 {
			ra.rep.add(a.pool, ord, sess, rr)
		}
		ra.pairs.Append(spill.Rec{K: uint64(ord)<<ordShift | f, V: uint64(sess)})
	}
}

// noteRun records the judge's identity fields and run IDs.
func (j *judgeAcc) noteRun(r *replay.Result) {
	if j.model == "" {
		j.model, j.digest, j.prompt = r.Model, r.ModelDigest, r.PromptVersion
	}
	if r.RunID == "" || (len(j.runIDs) > 0 && j.runIDs[len(j.runIDs)-1] == r.RunID) {
		return
	}
	if !slices.Contains(j.runIDs, r.RunID) {
		j.runIDs = append(j.runIDs, r.RunID)
	}
}

// caseFlags is what a result counts for at the judge level (case*).
func caseFlags(r *replay.Result) uint64 {
	f := uint64(caseReplayed)
	if r.JudgeCalled {
		f |= caseJudgeCalled
	}
	if r.GateAction == datasets.ActionRequestApproval && r.ApprovalOutcome != "" {
		f |= caseApprOut
		if r.ApprovalOutcome.Rejected() {
			f |= caseApprRej
		}
	}
	return f
}

// addCalls counts the result's judge calls and their latencies, and
// returns, per call index, the call's position in the judge's latency
// slice (-1 for a call that is not one: the none judge's).
func (a *Accumulator) addCalls(j *judgeAcc, r *replay.Result, sess uint32) []int32 {
	if cap(a.callIdx) < len(r.Calls) {
		a.callIdx = make([]int32, len(r.Calls))
	}
	callIdx := a.callIdx[:len(r.Calls)]
	if r.Judge == noneJudge {
		// The none judge answers every call with an error without
		// calling anything: there is no call, and no latency.
		for i := range callIdx {
			callIdx[i] = -1
		}
		return callIdx
	}
	recorded := strings.HasPrefix(r.Judge, "recorded/")
	for i := range r.Calls {
		c := &r.Calls[i]
		if k := sameRecordedCall(r.Calls[:i], c); recorded && k >= 0 {
			callIdx[i] = callIdx[k]
			continue
		}
		callIdx[i] = int32(len(j.lat))
		j.addCall(c)
		j.latSess = append(j.latSess, sess)
	}
	return callIdx
}

// sameRecordedCall is the index among earlier of the call c repeats, -1
// when none: replay splits a recorded call over several batches when the
// policy's max_rules_per_call is lower than the recording's rule count,
// and every batch then carries the recording's latency and status. One
// recorded call counts once.
func sameRecordedCall(earlier []replay.Call, c *replay.Call) int {
	for k := range earlier {
		if p := &earlier[k]; !p.Cached && p.LatencyMS == c.LatencyMS && p.Status == c.Status && p.Error == c.Error {
			return k
		}
	}
	return -1
}

// addCall counts one call. A cached answer counts with the latency
// measured when it was made (the cache stores it): a warm rerun gives the
// same figures.
func (j *judgeAcc) addCall(c *replay.Call) {
	j.calls++
	if c.Cached {
		j.cachedCalls++
	}
	if c.Status != core.StatusOK && c.Status != "" {
		j.failedCalls++
		cause := c.Cause
		if cause == "" {
			// A run directory written before call_cause: read back from text.
			cause = core.CauseFromText(c.Status, c.Error)
		}
		if setup := cause.Setup(); setup != "" {
			if j.setup == nil {
				j.setup = map[string]int64{}
			}
			j.setup[setup]++
		}
	}
	j.lat = append(j.lat, c.LatencyMS)
}

// pairFlags is what one case × rule pair counts for (bit*), noting on the
// way the live call it was part of and anything odd.
func (j *judgeAcc) pairFlags(ra *ruleAcc, rr *replay.RuleResult, approval datasets.ApprovalOutcome, callIdx []int32) uint64 {
	out, _ := rr.Classify()
	if out == replay.OutcomeMissing {
		return bitMissing
	}
	var f uint64
	switch rr.Source {
	case replay.SourceJudge, replay.SourceCache, replay.SourceFailure:
		f = j.judgedFlags(out, rr)
		ra.noteCall(j, rr, callIdx)
	case replay.SourceDeterministic, replay.SourceScope:
	default:
		j.unknownSource++
	}
	f |= firedFlags(rr, approval)
	switch out {
	case replay.OutcomeMatch:
		f |= bitMatch
	case replay.OutcomeNoMatch:
		f |= bitNoMatch
	}
	if rr.Source == replay.SourceScope {
		// Skipped because a human approved this very call for the rule
		// (approved fingerprint): neither the judge nor a matcher was
		// asked, so the pair is no evidence for precision or recall.
		return f
	}
	return f | labelFlags(rr)
}

// judgedFlags are the flags of a pair sent to the judge: whether it was
// decided, answered from the cache, and why not decided. A failure whose
// status does not name it, or a pair with no recognisable result, counts
// as an error, and is warned about.
func (j *judgeAcc) judgedFlags(out replay.Outcome, rr *replay.RuleResult) uint64 {
	f := uint64(bitJudged)
	if rr.Source == replay.SourceCache {
		f |= bitCached
	}
	if rr.EvidenceAltered {
		f |= bitEvidence
	}
	if out.Decided() {
		return f
	}
	f |= bitUndecided
	switch {
	case out == replay.OutcomeUnknown:
	case out == replay.OutcomeFailed && rr.Status == core.StatusInvalid:
		f |= bitInvalid
	case out == replay.OutcomeFailed && rr.Status == core.StatusTimeout:
		f |= bitTimeout
	case out == replay.OutcomeFailed && rr.Status == core.StatusError:
		f |= bitError
	default:
		f |= bitError
		j.unknownStatus++
	}
	return f
}

// noteCall remembers the live call a judged pair was part of, for the
// rule's latency; a call index the case does not have is warned about.
func (ra *ruleAcc) noteCall(j *judgeAcc, rr *replay.RuleResult, callIdx []int32) {
	switch {
	case rr.Call >= 0 && rr.Call < len(callIdx):
		if p := callIdx[rr.Call]; p >= 0 {
			ra.callRefs = append(ra.callRefs, uint32(p))
		}
	case rr.Source != replay.SourceFailure && rr.Call >= len(callIdx):
		j.badCalls++
	}
}

// firedFlags: the rule fired and, for request_approval, whether the
// approval had an outcome and was rejected.
func firedFlags(rr *replay.RuleResult, approval datasets.ApprovalOutcome) uint64 {
	if !rr.Fired {
		return 0
	}
	f := uint64(bitFired)
	if rr.Action == datasets.ActionRequestApproval && approval != "" {
		f |= bitApprOut
		if approval.Rejected() {
			f |= bitApprRej
		}
	}
	return f
}

// labelFlags: a labeled positive or negative and, for a positive, the
// deterministic baseline's result.
func labelFlags(rr *replay.RuleResult) uint64 {
	switch rr.Label {
	case datasets.LabelMatch:
		f := uint64(bitPos)
		if rr.BaselineResult != "" {
			f |= bitBase
			if rr.BaselineResult == core.Match {
				f |= bitBaseHit
			}
		}
		return f
	case datasets.LabelNoMatch:
		return bitNeg
	}
	return 0
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

// caseTally counts a judge's results by their case flags.
type caseTally struct{ cases, judgeCalled, apprOut, apprRej int64 }

func (t *caseTally) count(f uint64) {
	t.cases += has(f, caseReplayed)
	t.judgeCalled += has(f, caseJudgeCalled)
	t.apprOut += has(f, caseApprOut)
	t.apprRej += has(f, caseApprRej)
}

// has is 1 when every bit of set is on in f, 0 otherwise: a count.
func has(f, set uint64) int64 {
	if f&set == set {
		return 1
	}
	return 0
}

// hasNot is 1 when every bit of set is on in f and every bit of unset off.
func hasNot(f, set, unset uint64) int64 {
	if f&(set|unset) == set {
		return 1
	}
	return 0
}

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
