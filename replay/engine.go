package replay

import (
	"context"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/internal/spill"
	"github.com/apeval/apeval/judge/core"
)

// sessionState is a session's state in a replayer, for one case (see
// session.go for what is kept per session and where).
type sessionState struct {
	block   uint32 // 1-based index of the session's counters in the arena; 0 = none yet
	grouped bool   // a grouped session (groupedLocal): its block is reused by the next one
}

// arenaChunk is how many sessions' counters one arena chunk holds.
const arenaChunk = 4096

// counterArena holds k counters per session that needed any.
type counterArena struct {
	k      int
	chunks [][]int32
	n      uint32
}

func (a *counterArena) get(block uint32) []int32 {
	i := block - 1
	off := int(i%arenaChunk) * a.k
	return a.chunks[i/arenaChunk][off : off+a.k]
}

func (a *counterArena) alloc() uint32 {
	if a.n%arenaChunk == 0 {
		a.chunks = append(a.chunks, make([]int32, arenaChunk*a.k))
	}
	a.n++
	return a.n
}

// allocBlock returns a cleared counters block: one freed by an eviction,
// else a new one.
func (e *replayer) allocBlock() uint32 {
	if n := len(e.freeBlocks); n > 0 {
		b := e.freeBlocks[n-1]
		e.freeBlocks = e.freeBlocks[:n-1]
		return b
	}
	return e.arena.alloc()
}

// counter returns a session's counter at slot (0 when the session has none).
func (e *replayer) counter(st *sessionState, slot int) int {
	if slot < 0 || st.block == 0 {
		return 0
	}
	return int(e.arena.get(st.block)[slot])
}

func (e *replayer) bump(st *sessionState, slot int) {
	if st.block == 0 {
		if st.grouped && e.spare != 0 {
			st.block, e.spare = e.spare, 0
		} else {
			st.block = e.allocBlock()
		}
	}
	e.arena.get(st.block)[slot]++
}

// SeqError reports a session whose records are not in seq order; it is
// the datasets check, shared with `apeval datasets validate`.
type SeqError = datasets.SeqError

// replayer replays cases for one judge. It is owned by one goroutine: the
// scratch buffers and session map are not shared.
type replayer struct {
	p        *Policy
	j        core.Judge
	id       core.Identity
	idStr    string
	runID    string
	timeout  time.Duration
	counters *counters
	// slots bounds the judge's calls in flight (shared by its workers);
	// nil means unbounded.
	slots chan struct{}
	// repeats, shuffle, shuffleSeed: Options.Repeat and ShuffleRules, for
	// live judges (1, false otherwise).
	repeats     int
	shuffle     bool
	shuffleSeed uint64

	// lastSession and lastMasked memoize mask.ID of the session id: a
	// session's cases come one after another to the same worker.
	lastSession, lastMasked string
	// lastErr and lastErrMasked memoize maskError: a failing judge tends
	// to fail every call with the same message.
	lastErr, lastErrMasked string
	blocks                 chunked[uint32] // sessionState.block, by the session's slot (see sessionTable)
	arena                  counterArena
	// freeBlocks are arena blocks of evicted sessions, cleared; segs the
	// counters of evicted sessions on disk, by epoch, in spill.
	freeBlocks []uint32
	segs       []counterSeg
	spill      *spill.File
	// gLocal and gState are the worker's current grouped session (its
	// local index, with groupedLocal set) and its state; spare is the
	// counters block of a finished grouped session, cleared for the next.
	gLocal uint32
	gState sessionState
	spare  uint32
	// Per policy rule: its fire-count and crossing-count slots in a
	// session's counters (-1: not kept).
	fireSlot, crossSlot []int
	facts               facts
	fp                  fingerprinter
	pending             []pendingRule
	crossed             []int // rules whose boundary the case crossed
	rowRules            []int // the policy index of each result row's rule
	// digests holds each result row's fingerprint when it was computed
	// for the approval check (hasDigest): only calls that carry
	// approved_fingerprints need one before the rules are decided.
	digests   [][32]byte
	hasDigest bool
	rows      []RuleResult // this case's rows, before they are copied out
}

type pendingRule struct {
	rule *Rule
	ri   int // policy index
	row  int
}

func newReplayer(p *Policy, j core.Judge, id core.Identity, opts *Options, c *counters) *replayer {
	e := &replayer{p: p, j: j, id: id, idStr: id.String(), runID: opts.RunID, timeout: opts.Timeout,
		counters: c, repeats: 1,
		fireSlot: make([]int, len(p.Rules)), crossSlot: make([]int, len(p.Rules))}
	if id.Backend != "recorded" && id.Backend != "none" {
		// A recording has one answer per call and none has no answer:
		// only live judges are repeated and shuffled.
		e.repeats, e.shuffle, e.shuffleSeed = max(opts.Repeat, 1), opts.ShuffleRules, opts.ShuffleSeed
	}
	k := 0
	for i, r := range p.Rules {
		e.fireSlot[i], e.crossSlot[i] = -1, -1
		if r.MaxFires > 0 || r.Condition != "" {
			e.fireSlot[i] = k
			k++
		}
		if r.Boundary != nil {
			e.crossSlot[i] = k
			k++
		}
	}
	e.arena.k = k
	return e
}

// ActionRank orders gate actions (see docs/replay.md): higher wins; 0 for
// none or an unknown action.
func ActionRank(a datasets.Action) int { return actionRank(a) }

// actionRank orders gate actions (see docs/replay.md); higher wins.
func actionRank(a datasets.Action) int {
	switch a {
	case datasets.ActionStopTask:
		return 5
	case datasets.ActionDenyCurrentTool:
		return 4
	case datasets.ActionRequestApproval:
		return 3
	case datasets.ActionInjectInstruction:
		return 2
	case datasets.ActionAuditOnly, datasets.ActionNotifyAdmin:
		return 1
	}
	return 0
}

// replay runs steps 1–7 of docs/replay.md for one case. It returns an error only
// when ctx was cancelled during a judge call (the result would be an
// artefact of the cancellation). into, when not nil, is a Result to
// overwrite, with buffers for its Rules and Calls. local is the case's
// session's slot among this worker's sessions in memory (a slot freed by
// an eviction, else the next one; Run's reader gives them out and checks
// the seq order), or a grouped session's number with groupedLocal.
func (e *replayer) replay(ctx context.Context, c *datasets.Case, local uint32, into *reusable) (*Result, error) {
	var st sessionState
	if local&groupedLocal != 0 {
		if local != e.gLocal || !e.gState.grouped {
			// A grouped session begins: the one before is complete.
			if b := e.gState.block; b != 0 {
				clear(e.arena.get(b))
				e.spare = b
			}
			e.gLocal, e.gState = local, sessionState{grouped: true}
		}
		st = e.gState
	} else {
		for e.blocks.n <= int(local) {
			e.blocks.add(0)
		}
		st = sessionState{block: *e.blocks.at(local)}
	}

	f := &e.facts
	f.reset(c, e.p.Categories)
	var res *Result
	rows := e.rows[:0]
	if into != nil {
		res, rows = &into.res, into.rules[:0]
	} else {
		res = new(Result)
	}
	*res = Result{
		RunID: e.runID, CaseID: mask.ID(c.ID), SessionID: e.maskedSession(sessionID(c)), Seq: c.Seq,
		Judge: e.idStr, Model: e.id.Model, ModelDigest: e.id.Digest, PromptVersion: e.id.PromptVersion,
		Permission: PermissionOff, ExpectedAction: c.ExpectedAction, ApprovalOutcome: c.ApprovalOutcome,
		Tags: c.Tags, ToolName: c.Tool.Name, Category: f.category, HookPoint: c.HookPoint, Time: c.Time,
	}
	if e.p.Permissions != nil {
		prim, _ := f.primary()
		res.Permission = e.p.Permissions.DecideCall(c.Tool.Name, prim, c.Tool.Arguments, c.Workspace)
	}

	// 1. Scope, 3. deterministic rules and boundary state.
	hook := c.HookPoint
	if hook == "" {
		hook = datasets.DefaultHookPoint
	}
	e.pending = e.pending[:0]
	e.crossed = e.crossed[:0]
	e.rowRules = e.rowRules[:0]
	e.digests = e.digests[:0]
	e.hasDigest = len(c.Context.ApprovedFingerprints) > 0
	approved := f.approval == "approved"
	fpReady := false
	for ri, r := range e.p.Rules {
		if !e.inScope(ri, r, c, hook, &st) {
			continue
		}
		if e.hasDigest && !fpReady {
			e.fp.setCall(sessionID(c), c.Piece, c.Movement, c.Tool.Name, c.Tool.Arguments)
			fpReady = true
		}
		e.rowRules = append(e.rowRules, ri)
		rows = append(rows, RuleResult{
			RuleID: r.ID, RuleVersion: r.Version, Class: r.Class, Label: c.Labels[r.ID],
			Action: r.Action, Status: core.StatusOK, Call: -1, Source: SourceDeterministic,
		})
		row := len(rows) - 1
		rr := &rows[row]
		if r.Baseline != nil {
			rr.BaselineResult = matchResult(r.Baseline.match(f))
		}
		if e.hasDigest {
			d := e.fp.digest(r.ID, r.Version)
			e.digests = append(e.digests, d)
			if approvedFingerprint(c, &d) {
				rr.Source = SourceScope
				continue
			}
		}
		whenOK := r.When == nil || r.When.match(f)
		switch {
		case r.Boundary != nil:
			if rr.Action == "" {
				rr.Action = boundaryAction(r.Boundary, 0)
			}
			rr.Result = core.NoMatch
			if whenOK && !approved && crosses(r.Boundary.Kind, f) {
				e.crossed = append(e.crossed, ri)
				if a := boundaryAction(r.Boundary, e.counter(&st, e.crossSlot[ri])+1); a != "" {
					rr.Action, rr.Fired, rr.Result = a, true, core.Match
				}
			}
		case r.Condition == "" || !whenOK:
			rr.Result = matchResult(whenOK)
			rr.Fired = whenOK
		default:
			e.pending = append(e.pending, pendingRule{rule: r, ri: ri, row: row})
		}
	}
	switch {
	case into != nil:
		// The caller recycles the Result: its rows stay in its buffer.
		into.rules = rows
		if len(rows) > 0 {
			res.Rules = rows
		}
	case len(rows) > 0:
		// Rows are built in a reused buffer and copied out at their exact
		// size: a large policy with few rules in scope costs no more.
		res.Rules = slices.Clone(rows)
		clear(rows) // drop references to this case's strings
		e.rows = rows
	}
	res.RulesInScope = len(res.Rules)

	// 4–5. Judge calls and the failure policy.
	if len(e.pending) > 0 {
		if into != nil {
			res.Calls = into.calls[:0]
		}
		err := e.judgeRules(ctx, c, res, &st)
		if into != nil {
			into.calls = res.Calls
			if len(res.Calls) == 0 {
				res.Calls = nil
			}
		}
		if err != nil {
			return nil, err
		}
	}

	// 6. Resolution: the permissions layer first, never relaxed by rules.
	gate := datasets.ActionAllow
	switch res.Permission {
	case PermissionDeny:
		gate = datasets.ActionDenyCurrentTool
	case PermissionAsk:
		gate = datasets.ActionRequestApproval
	}
	for i := range res.Rules {
		rr := &res.Rules[i]
		if rr.Fired && actionRank(rr.Action) > actionRank(gate) {
			gate = rr.Action
		}
	}
	res.GateAction = gate
	e.setFingerprints(c, res.Rules, fpReady)

	// 7. State, in seq order (the caller replays a session's cases in order).
	for i := range res.Rules {
		rr := &res.Rules[i]
		if !rr.Fired {
			continue
		}
		if slot := e.fireSlot[e.rowRules[i]]; slot >= 0 {
			e.bump(&st, slot)
		}
	}
	for _, ri := range e.crossed {
		e.bump(&st, e.crossSlot[ri])
	}
	if st.grouped {
		e.gState = st
	} else {
		*e.blocks.at(local) = st.block
	}
	return res, nil
}

func (e *replayer) inScope(ri int, r *Rule, c *datasets.Case, hook string, st *sessionState) bool {
	if len(r.HookPoints) > 0 && !contains(r.HookPoints, hook) {
		return false
	}
	if len(r.Categories) > 0 && !contains(r.Categories, e.facts.category) {
		return false
	}
	if len(r.Tools) > 0 && !containsFold(r.Tools, c.Tool.Name) {
		return false
	}
	if len(r.Pieces) > 0 && !contains(r.Pieces, c.Piece) {
		return false
	}
	if len(r.Movements) > 0 && !contains(r.Movements, c.Movement) {
		return false
	}
	if r.MaxFires > 0 && e.counter(st, e.fireSlot[ri]) >= r.MaxFires {
		return false
	}
	return true
}

// crosses reports whether the call crosses a boundary: a network call, or a
// write (file_change, data_deletion) or command whose path resolves outside
// the workspace (docs/replay.md).
func crosses(kind string, f *facts) bool {
	if kind == BoundaryNetwork {
		return f.isNetwork()
	}
	switch f.category {
	case "file_change", "data_deletion", "command_execution":
		return f.outsideWorkspace()
	}
	return false
}

// boundaryAction is the action at the n-th crossing; n = 0 gives the
// rule's first action (used for rows that did not fire).
func boundaryAction(b *Boundary, n int) datasets.Action {
	if n == 0 {
		if b.ReviewAt > 0 {
			return datasets.ActionRequestApproval
		}
		return datasets.ActionStopTask
	}
	if b.PauseAt > 0 && n >= b.PauseAt {
		return datasets.ActionStopTask
	}
	if b.ReviewAt > 0 && n >= b.ReviewAt {
		return datasets.ActionRequestApproval
	}
	return ""
}

func approvedFingerprint(c *datasets.Case, d *[32]byte) bool {
	if len(c.Context.ApprovedFingerprints) == 0 {
		return false
	}
	var buf [64]byte
	hex.Encode(buf[:], d[:])
	for _, a := range c.Context.ApprovedFingerprints {
		if a == string(buf[:]) {
			return true
		}
	}
	return false
}

// setFingerprints gives the rows that a human approval refers to their
// fingerprint: the rows whose rule fired and the rows skipped because the
// call's approved_fingerprints held it (source scope). Other rows have
// none (the zero Digest, null in decisions.parquet): see docs/reports.md.
// The digests are hashed here unless the approval check already did.
func (e *replayer) setFingerprints(c *datasets.Case, rows []RuleResult, fpReady bool) {
	ready := fpReady
	for i := range rows {
		rr := &rows[i]
		if !rr.Fired && rr.Source != SourceScope {
			continue
		}
		if e.hasDigest {
			rr.Fingerprint = e.digests[i]
			continue
		}
		if !ready {
			e.fp.setCall(sessionID(c), c.Piece, c.Movement, c.Tool.Name, c.Tool.Arguments)
			ready = true
		}
		rr.Fingerprint = e.fp.digest(rr.RuleID, rr.RuleVersion)
	}
}

func matchResult(ok bool) core.Result {
	if ok {
		return core.Match
	}
	return core.NoMatch
}

func sessionID(c *datasets.Case) string {
	if c.SessionID != "" {
		return c.SessionID
	}
	return c.ID
}

// statusRank orders call statuses from best to worst.
func statusRank(s core.Status) int {
	switch s {
	case core.StatusInvalid:
		return 1
	case core.StatusTimeout:
		return 2
	case core.StatusError:
		return 3
	}
	return 0
}

// judgeRules sends the pending rules in calls of at most MaxRulesPerCall,
// each call Repeat times (live judges), the rules shuffled per repeat with
// ShuffleRules.
func (e *replayer) judgeRules(ctx context.Context, c *datasets.Case, res *Result, st *sessionState) error {
	res.JudgeCalled = true
	res.RulesJudged = len(e.pending)
	recorded := recordings(c)
	acc := callTotals{allCached: true}
	chunk := make([]*Rule, 0, min(len(e.pending), e.p.MaxRulesPerCall))
	fires := make([]int, 0, cap(chunk))
	for start := 0; start < len(e.pending); start += e.p.MaxRulesPerCall {
		batch := e.pending[start:min(len(e.pending), start+e.p.MaxRulesPerCall)]
		if e.repeats > 1 || e.shuffle {
			if err := e.judgeRepeated(ctx, c, res, st, batch, start, recorded, &acc); err != nil {
				return err
			}
			continue
		}
		chunk, fires = chunk[:0], fires[:0]
		for _, pr := range batch {
			chunk = append(chunk, pr.rule)
			fires = append(fires, e.counter(st, e.fireSlot[pr.ri]))
		}
		in, altered := buildInput(c, e.facts.category, chunk, fires)
		req := core.Request{Input: in, Recorded: recorded}
		resp := e.call(ctx, req)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if resp.Status == core.StatusMissing {
			// The recording has no call of this judge for the case: no call
			// happened, so none is counted (no latency, no failure); the
			// rules are missing and left out of the judge's rates.
			for _, pr := range batch {
				rr := &res.Rules[pr.row]
				rr.Source, rr.Status, rr.Result, rr.Error = SourceJudge, core.StatusMissing, core.Unknown, e.maskError(resp.Error)
			}
			continue
		}
		callIdx, status := e.addCall(res, len(batch), resp, &acc)
		source := SourceJudge
		if resp.Cached {
			source = SourceCache
		}
		for _, pr := range batch {
			rr := &res.Rules[pr.row]
			rr.Call = callIdx
			rr.EvidenceAltered = evidenceAltered(pr.rule, c.Tool.Arguments, altered)
			if status.Failed() {
				rr.Status, rr.Error = status, e.maskError(resp.Error)
				e.failurePolicy(rr, pr.rule)
				continue
			}
			d, ok := findDecision(resp.Decisions, pr.rule.ID)
			switch {
			case !ok:
				// The judge (a recording made under an older policy) has no
				// answer for this rule: left out of rates, never fired.
				rr.Source, rr.Status, rr.Result = source, core.StatusMissing, core.Unknown
			case d.Result == core.Match || d.Result == core.NoMatch:
				rr.Source, rr.Result, rr.Confidence = source, d.Result, d.Confidence
				rr.Fired = d.Result == core.Match
			default:
				rr.Status, rr.Confidence = core.StatusUnknown, d.Confidence
				e.failurePolicy(rr, pr.rule)
			}
		}
	}
	res.CacheHit = acc.allCached && len(res.Calls) > 0
	if acc.hasLive {
		res.LatencyMS = &acc.live
	}
	return nil
}

// callTotals sums a case's calls for Result.CacheHit and LatencyMS.
type callTotals struct {
	live               float64
	hasLive, allCached bool
}

// addCall records one judge call of the case and counts it; it returns
// the call's index and its status (ok for an answered call).
func (e *replayer) addCall(res *Result, rules int, resp core.Response, acc *callTotals) (int, core.Status) {
	status := resp.Status
	if status == "" || status == core.StatusUnknown {
		status = core.StatusOK
	}
	var cause core.Cause
	if status.Failed() {
		cause = resp.CauseOf()
	}
	call := Call{
		Rules: rules, Status: status, Error: e.maskError(resp.Error), Cause: cause,
		LatencyMS: durationMS(resp.Latency), Cached: resp.Cached, Attempts: resp.Attempts,
		ServerTotalMS: optMS(resp.Server.Total), ServerLoadMS: optMS(resp.Server.Load),
		ServerPromptEvalMS: optMS(resp.Server.PromptEval), ServerEvalMS: optMS(resp.Server.Eval),
		PromptTokens: optInt(resp.Server.PromptTokens), CompletionTokens: optInt(resp.Server.CompletionTokens),
	}
	callIdx := len(res.Calls)
	res.Calls = append(res.Calls, call)
	// The progress line's calls and failures are the judges' calls, as
	// the reports count them: the none judge calls nothing, and a call a
	// budget stopped was never sent (its case is not reported).
	if sent := cause != core.CauseNoJudge && cause != core.CauseBudget; sent {
		e.counters.calls.Add(1)
		if status.Failed() {
			e.counters.failures.Add(1)
		}
	}
	// A cached call carries the latency measured when its answer was
	// made, so the case's latency is the same on a warm cache.
	acc.hasLive = true
	acc.live += call.LatencyMS
	if resp.Cached {
		e.counters.cacheHits.Add(1)
	} else {
		acc.allCached = false
	}
	if statusRank(call.Status) >= statusRank(res.Status) {
		res.Status = call.Status
	}
	return callIdx, status
}

// judgeRepeated sends one batch Repeat times, each time in the order a
// seeded permutation gives (with ShuffleRules), records every rule's vote
// and position, and decides each rule by the majority of its votes.
func (e *replayer) judgeRepeated(ctx context.Context, c *datasets.Case, res *Result, st *sessionState,
	batch []pendingRule, start int, recorded []core.Recording, acc *callTotals) error {
	order := make([]int, len(batch))
	rules := make([]*Rule, len(batch))
	fires := make([]int, len(batch))
	for _, pr := range batch {
		res.Rules[pr.row].Repeats = make([]RepeatVote, 0, e.repeats)
	}
	cachedAll := true
	for rep := 0; rep < e.repeats; rep++ {
		for i := range order {
			order[i] = i
		}
		if e.shuffle {
			e.permute(order, c.ID, start, rep)
		}
		for i, bi := range order {
			rules[i] = batch[bi].rule
			fires[i] = e.counter(st, e.fireSlot[batch[bi].ri])
		}
		in, altered := buildInput(c, e.facts.category, rules, fires)
		if rep == 0 {
			for _, pr := range batch {
				res.Rules[pr.row].EvidenceAltered = evidenceAltered(pr.rule, c.Tool.Arguments, altered)
			}
		}
		req := core.Request{Input: in, Recorded: recorded, Repeat: rep}
		resp := e.call(ctx, req)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		callIdx, status := e.addCall(res, len(batch), resp, acc)
		cachedAll = cachedAll && resp.Cached
		for pos, bi := range order {
			v := RepeatVote{Status: status, Call: callIdx, Pos: pos, Of: len(order)}
			if !status.Failed() {
				if d, ok := findDecision(resp.Decisions, batch[bi].rule.ID); ok {
					v.Result, v.Confidence = d.Result, d.Confidence
					if d.Result != core.Match && d.Result != core.NoMatch {
						v.Result, v.Status = core.Unknown, core.StatusUnknown
					}
				} else {
					v.Status = core.StatusInvalid // live answers name every asked rule
				}
			}
			rr := &res.Rules[batch[bi].row]
			rr.Repeats = append(rr.Repeats, v)
		}
	}
	source := SourceJudge
	if cachedAll {
		source = SourceCache
	}
	for _, pr := range batch {
		rr := &res.Rules[pr.row]
		rr.Call = rr.Repeats[0].Call
		v := Majority(rr.Repeats)
		if v.Status == core.StatusOK {
			rr.Source, rr.Result, rr.Confidence = source, v.Result, v.Confidence
			rr.Fired = v.Result == core.Match
			continue
		}
		rr.Status, rr.Confidence = v.Status, v.Confidence
		switch {
		case v.Tie:
			rr.Error = "repeats tied (" + v.Counts + ")"
		case v.Status.Failed():
			for _, x := range rr.Repeats {
				if x.Status == v.Status {
					rr.Error = res.Calls[x.Call].Error + " (" + v.Counts + ")"
					break
				}
			}
		}
		e.failurePolicy(rr, pr.rule)
	}
	return nil
}

// permute shuffles order (Fisher–Yates) from the run's seed, the case, the
// call's first rule and the repeat: the same order at any concurrency.
func (e *replayer) permute(order []int, caseID string, start, rep int) {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%d\x00%d", caseID, start, rep)
	rng := rand.New(rand.NewPCG(e.shuffleSeed, h.Sum64()))
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
}

func (e *replayer) call(ctx context.Context, req core.Request) core.Response {
	// Waiting for a slot is not part of the call: the judge measures its
	// latency from its own start, and the deadline starts after the wait.
	if e.slots != nil {
		select {
		case e.slots <- struct{}{}:
			defer func() { <-e.slots }()
		case <-ctx.Done():
			return core.Response{Status: core.StatusError, Error: ctx.Err().Error()}
		}
	}
	e.counters.inFlight.Add(1)
	defer e.counters.inFlight.Add(-1)
	if e.timeout <= 0 {
		return e.j.Judge(ctx, req)
	}
	cctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	return e.j.Judge(cctx, req)
}

// failurePolicy decides a rule whose judge call failed or answered unknown
// (see docs/replay.md and Rule.OnFailure).
func (e *replayer) failurePolicy(rr *RuleResult, r *Rule) {
	rr.Source, rr.Result, rr.Fired = SourceFailure, core.Unknown, false
	if fired, action := r.OnFailure(rr.BaselineResult); fired {
		rr.Fired, rr.Action = true, action
	}
}

func findDecision(ds []core.Decision, id string) (core.Decision, bool) {
	for _, d := range ds {
		if d.RuleID == id {
			return d, true
		}
	}
	return core.Decision{}, false
}

// recordings converts the case's recorded calls for the recorded judge.
func recordings(c *datasets.Case) []core.Recording {
	if len(c.Recorded) == 0 {
		return nil
	}
	out := make([]core.Recording, len(c.Recorded))
	for i, r := range c.Recorded {
		st := core.Status(r.Status)
		if st == "" {
			st = core.StatusOK
		}
		ds := make([]core.Decision, len(r.Decisions))
		for k, d := range r.Decisions {
			ds[k] = core.Decision{RuleID: d.RuleID, Result: core.Result(d.Result), Confidence: d.Confidence}
		}
		out[i] = core.Recording{Judge: r.Judge, LatencyMS: r.LatencyMS, Status: st, Error: r.Error, Decisions: ds,
			PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens}
	}
	return out
}

func durationMS(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func optMS(d time.Duration) *float64 {
	if d == 0 {
		return nil
	}
	v := durationMS(d)
	return &v
}

func optInt(n int) *int64 {
	if n == 0 {
		return nil
	}
	v := int64(n)
	return &v
}

func (e *replayer) maskedSession(id string) string {
	if id != e.lastSession || e.lastMasked == "" {
		e.lastSession, e.lastMasked = id, mask.ID(id)
	}
	return e.lastMasked
}

// maskError masks a judge call's error text for the error column: server
// messages and recorded production errors can quote URLs, keys or data.
func (e *replayer) maskError(msg string) string {
	if msg == "" {
		return msg
	}
	if msg != e.lastErr {
		e.lastErr, e.lastErrMasked = msg, mask.String(msg)
	}
	return e.lastErrMasked
}
