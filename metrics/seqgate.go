package metrics

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge/core"
	"github.com/apeval/apeval/replay"
)

// SequentialGate decides kill criteria anytime-validly over a history of
// runs (`apeval gate --sequential`, docs/statistics.md, "Stopping early").
// Each run is one look: its results are added (Add) between BeginRun and
// EndRun, and at EndRun every session the run brought that no earlier run
// counted goes, one after another in the order the run first gave them,
// into one ConfidenceSequence per criterion and row. A criterion is
// decided at the first session after which its sequence's interval lies
// on one side of the threshold (the one verdict rule, Direction.Decide),
// and stays decided: the running intersection only narrows. With
// probability at least 1 − α no decision is ever wrong, however many runs
// are looked at.
//
// Sessions are the unit: a session's value for a criterion is its own
// rate (e.g. TP/(TP+FP) over its labeled match predictions), and the
// figure decided is the mean of the sessions' rates, each session
// weighing one. It equals the pooled rate `apeval gate` decides on when a
// session's rate does not depend on its size.
//
// A session counts once: the first run that holds it (by session ID, or
// by case ID for a case without one) gives its value; the same session in
// a later run is left out entirely, and counted as a duplicate, even when
// it brought more cases (its value was already bet on and cannot change).
type SequentialGate struct {
	crit     replay.KillCriteria
	alpha    float64
	baseline string
	runs     []string
	judges   map[string]*seqJudge
	order    []string
	last     *seqJudge // the judge of the latest Add
}

// NewSequentialGate starts a gate over the kill criteria c (its
// confidence gives α = 1 − confidence); baseline is the run's baseline
// judge identity ("" none), which the verdict leaves out as `gate` does.
func NewSequentialGate(c replay.KillCriteria, baseline string) *SequentialGate {
	conf := c.Confidence
	if conf <= 0 || conf >= 1 {
		conf = 0.95
	}
	return &SequentialGate{crit: c, alpha: math.Round((1-conf)*1e9) / 1e9, baseline: baseline, judges: map[string]*seqJudge{}}
}

// Lanes of a row's per-session sums (y successes, m units each).
const (
	seqPrec = iota // rule: TP of labeled match predictions
	seqUnk         // rule and judge: undecided of judged pairs
	seqAppr        // rule: rejected of approval outcomes
	seqGain        // rule: judge hits − baseline hits of labeled positives with a baseline
	seqJR          // judge: cases that needed the judge
	seqSlow        // judge: calls slower than judge_p95_max
	seqLanes
)

type seqJudge struct {
	id      string
	counted map[seqKey]bool // sessions counted by earlier runs
	cur     map[seqKey]*seqSess
	curOrd  []*seqSess
	last    *seqSess           // the session of the judge's latest Add (nil after EndRun)
	rows    map[string]*seqRow // by rule ID, AllRules for the judge's own
	total   *seqRow            // rows[AllRules]
	byPos   []*seqRow          // the row of the latest result's i-th rule: results mostly list rules alike
	ruleIDs []string
	dupSess map[seqKey]bool // sessions of this run left out as duplicates
	free    []*seqSess      // sessions of earlier runs, to be reused (fed or dropped)
	dupSessions,
	dupCases int64
	sessions int64
	latSeen  bool // a call with a latency other than 0
	calledAt bool // a call at all
	// runCalls and runSetup count the current run's calls and its calls
	// failed with each setup-class cause (a broken setup, see EndRun).
	runCalls int64
	runSetup map[string]int64
	// broken lists the runs whose setup was broken for the judge, and
	// brokenLast says whether the latest run was one.
	broken     []string
	brokenLast bool
}

// seqSess is one session of the current run: its sums for the judge's
// own row (tot) and for each rule row it touched (ents, in the order
// first touched; a row's sequences are fed apart from every other row's,
// so the order rows are fed in does not matter).
type seqSess struct {
	key  seqKey
	hash uint64 // key.hash(), the order the session enters the sequences
	tot  [seqLanes][2]int64
	ents []seqEnt
}

type seqEnt struct {
	row *seqRow
	v   [seqLanes][2]int64
}

// at is the session's sums for a rule row, added when the session had
// none: the row remembers the session that last touched it, so a
// session's results coming one after another find it at once.
func (s *seqSess) at(row *seqRow) *[seqLanes][2]int64 {
	if row.lastSess == s {
		return &s.ents[row.lastEnt].v
	}
	i := slices.IndexFunc(s.ents, func(e seqEnt) bool { return e.row == row })
	if i < 0 {
		i = len(s.ents)
		s.ents = append(s.ents, seqEnt{row: row})
	}
	row.lastSess, row.lastEnt = s, i
	return &s.ents[i].v
}

type seqRow struct {
	rule      string
	dangerous bool
	baseline  bool // the rule has a deterministic baseline
	positives int64
	approval  bool // the rule requests approval
	cs        [seqLanes]*ConfidenceSequence
	units     [seqLanes]int64
	sum       [seqLanes]float64 // Σ session values (for the mean)
	dec       [seqLanes]*seqDecision
	// lastSess and lastEnt: the session that last touched the row and
	// the index of its entry (seqSess.at).
	lastSess *seqSess
	lastEnt  int
}

type seqDecision struct {
	status   Status
	sessions int
	run      int
}

// BeginRun starts the next look, named name (the run directory).
func (g *SequentialGate) BeginRun(name string) {
	g.runs = append(g.runs, name)
}

func (g *SequentialGate) judge(id string) *seqJudge {
	if g.last != nil && g.last.id == id {
		return g.last
	}
	j := g.judges[id]
	if j == nil {
		j = &seqJudge{id: id, counted: map[seqKey]bool{}, cur: map[seqKey]*seqSess{}, rows: map[string]*seqRow{}, dupSess: map[seqKey]bool{}}
		g.judges[id] = j
		g.order = append(g.order, id)
	}
	g.last = j
	return j
}

// rowAt is the row of a result's i-th rule, rule: the row the previous
// result's i-th rule had when it is the same rule, else j.row's.
func (j *seqJudge) rowAt(i int, rule string) *seqRow {
	if i < len(j.byPos) && j.byPos[i].rule == rule {
		return j.byPos[i]
	}
	r := j.row(rule)
	if i < len(j.byPos) {
		j.byPos[i] = r
	} else if i == len(j.byPos) {
		j.byPos = append(j.byPos, r)
	}
	return r
}

func (j *seqJudge) row(rule string) *seqRow {
	r := j.rows[rule]
	if r == nil {
		r = &seqRow{rule: rule}
		j.rows[rule] = r
		if rule != AllRules {
			j.ruleIDs = append(j.ruleIDs, rule)
		}
	}
	return r
}

// seqKey is a session a result counts for: its session ID, or its case
// alone (byCase) when it has none. Written out it is "s:" + ID or
// "c:" + case ID (String), the text its order is decided on.
type seqKey struct {
	id     string
	byCase bool
}

func sessionKey(r *replay.Result) seqKey {
	if r.SessionID != "" {
		return seqKey{id: r.SessionID}
	}
	return seqKey{id: r.CaseID, byCase: true}
}

func (k seqKey) prefix() string {
	if k.byCase {
		return "c:"
	}
	return "s:"
}

func (k seqKey) String() string { return k.prefix() + k.id }

// compare orders keys as their String forms compare.
func (k seqKey) compare(o seqKey) int {
	if k.byCase != o.byCase {
		return strings.Compare(k.prefix(), o.prefix())
	}
	return strings.Compare(k.id, o.id)
}

// Add counts one result of the current run.
func (g *SequentialGate) Add(r *replay.Result) {
	j := g.judge(r.Judge)
	key := sessionKey(r)
	s := j.last
	if s == nil || s.key != key {
		// A session of the current run is never one an earlier run
		// counted (EndRun counts them and empties cur).
		s = j.cur[key]
		if s == nil {
			if j.counted[key] {
				j.dupCases++
				if !j.dupSess[key] {
					j.dupSess[key] = true
					j.dupSessions++
				}
				return
			}
			if n := len(j.free); n > 0 {
				s, j.free = j.free[n-1], j.free[:n-1]
				s.tot, s.ents = [seqLanes][2]int64{}, s.ents[:0]
			} else {
				s = new(seqSess)
			}
			s.key, s.hash = key, key.hash()
			j.cur[key] = s
			j.curOrd = append(j.curOrd, s)
		}
		j.last = s
	}
	tot := &s.tot
	if j.total == nil {
		j.total = j.row(AllRules)
	}
	tot[seqJR][1]++
	if r.JudgeCalled {
		tot[seqJR][0]++
	}
	if r.Judge != noneJudge {
		maxMS := float64(g.crit.JudgeP95Max.Nanoseconds()) / 1e6
		recorded := strings.HasPrefix(r.Judge, "recorded/")
		for i := range r.Calls {
			c := &r.Calls[i]
			if recorded && sameRecordedCall(r.Calls[:i], c) >= 0 {
				continue // one recorded call split over batches counts once
			}
			j.calledAt = true
			j.latSeen = j.latSeen || c.LatencyMS != 0
			j.runCalls++
			if c.Status != core.StatusOK && c.Status != "" {
				cause := c.Cause
				if cause == "" {
					cause = core.CauseFromText(c.Status, c.Error)
				}
				if setup := cause.Setup(); setup != "" {
					if j.runSetup == nil {
						j.runSetup = map[string]int64{}
					}
					j.runSetup[setup]++
				}
			}
			tot[seqSlow][1]++
			if c.LatencyMS > maxMS {
				tot[seqSlow][0]++
			}
		}
	}
	for i := range r.Rules {
		rr := &r.Rules[i]
		out, _ := rr.Classify()
		if out == replay.OutcomeMissing {
			continue
		}
		row := j.rowAt(i, rr.RuleID)
		v := s.at(row)
		row.dangerous = row.dangerous || rr.Class == replay.ClassDangerous
		row.approval = row.approval || rr.Action == datasets.ActionRequestApproval
		switch rr.Source {
		case replay.SourceJudge, replay.SourceCache, replay.SourceFailure:
			v[seqUnk][1]++
			tot[seqUnk][1]++
			if !out.Decided() {
				v[seqUnk][0]++
				tot[seqUnk][0]++
			}
		}
		if rr.Fired && rr.Action == datasets.ActionRequestApproval && r.ApprovalOutcome != "" {
			v[seqAppr][1]++
			if r.ApprovalOutcome.Rejected() {
				v[seqAppr][0]++
			}
		}
		if rr.Source == replay.SourceScope {
			continue // approved fingerprint: no evidence for precision or recall
		}
		match := out == replay.OutcomeMatch
		switch rr.Label {
		case datasets.LabelMatch:
			row.positives++
			if match {
				v[seqPrec][0]++
				v[seqPrec][1]++
			}
			if rr.BaselineResult != "" {
				row.baseline = true
				v[seqGain][1]++
				if match {
					v[seqGain][0]++
				}
				if rr.BaselineResult == core.Match {
					v[seqGain][0]--
				}
			}
		case datasets.LabelNoMatch:
			if match {
				v[seqPrec][1]++
			}
		}
	}
}

// EndRun closes the current look: the run's new sessions go into the
// sequences in an order fixed by a hash of their IDs, not the order of
// the run's files, which may follow the outcomes (a dataset sorted by
// time, by tool, by verdict): the sequence needs sessions that come in
// an order the outcomes did not choose.
func (g *SequentialGate) EndRun() {
	look := len(g.runs)
	for _, id := range g.order {
		j := g.judges[id]
		// A run where half or more of the judge's calls failed with one
		// setup-class cause (HTTP 401/403/404, an HTML page, a refused
		// connection, an unknown host) measured the setup, not the judge:
		// its sessions are left out (not counted, so a good rerun of them
		// counts), and the judge is ERROR while its latest run is broken.
		var cause string
		var n int64
		for c, k := range j.runSetup {
			if k > n || (k == n && c < cause) {
				cause, n = c, k
			}
		}
		j.brokenLast = j.runCalls > 0 && 2*n >= j.runCalls
		if j.brokenLast {
			j.broken = append(j.broken, fmt.Sprintf("%s: %d of %d calls failed with %s", g.runs[look-1], n, j.runCalls, cause))
			clear(j.cur)
			j.free = append(j.free, j.curOrd...)
			clear(j.curOrd)
			j.curOrd = j.curOrd[:0]
		}
		j.runCalls, j.runSetup = 0, nil
		slices.SortFunc(j.curOrd, func(a, b *seqSess) int {
			if c := cmp.Compare(a.hash, b.hash); c != 0 {
				return c
			}
			return a.key.compare(b.key)
		})
		for _, s := range j.curOrd {
			j.sessions++
			j.counted[s.key] = true
			// Each row's sequences are its own: the judge's, then the
			// rules' in the order the session touched them.
			g.feed(j.total, true, &s.tot, look)
			for k := range s.ents {
				g.feed(s.ents[k].row, false, &s.ents[k].v, look)
			}
		}
		for _, row := range j.rows {
			row.lastSess = nil
		}
		j.last = nil
		clear(j.cur)
		j.free = append(j.free, j.curOrd...)
		clear(j.curOrd)
		j.curOrd = j.curOrd[:0]
		clear(j.dupSess)
	}
}

// sessionHash is the 64-bit FNV-1a hash of a session key: the order
// sessions of one run enter the sequences.
func sessionHash(key string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	return h.Sum64()
}

// hash is sessionHash(k.String()), computed without building the string.
func (k seqKey) hash() uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for _, t := range [2]string{k.prefix(), k.id} {
		for i := 0; i < len(t); i++ {
			h ^= uint64(t[i])
			h *= prime
		}
	}
	return h
}

// lanesOf are the lanes a row is decided on.
func lanesOf(total bool) []int {
	if total {
		return []int{seqSlow, seqJR, seqUnk}
	}
	return []int{seqPrec, seqGain, seqUnk, seqAppr}
}

// feed adds one session's sums to a row's sequences and decides.
func (g *SequentialGate) feed(row *seqRow, total bool, v *[seqLanes][2]int64, look int) {
	for _, l := range lanesOf(total) {
		y, m := v[l][0], v[l][1]
		if m == 0 {
			continue
		}
		if row.cs[l] == nil {
			row.cs[l] = NewConfidenceSequence(g.alpha)
			if l == seqGain {
				// The gain PASSes on a one-sided test, as on the fixed-n
				// path: its lower bound and its upper bound are each a
				// one-sided sequence at α.
				row.cs[l] = NewOneSidedSequence(g.alpha)
			}
		}
		x := float64(y) / float64(m)
		if l == seqGain {
			x = (x + 1) / 2 // a difference in [−1, 1] onto [0, 1]
		}
		row.cs[l].Add(x)
		row.units[l] += m
		row.sum[l] += x
		if row.dec[l] == nil {
			if st := g.decide(l, row.cs[l]); st != StatusInconclusive {
				row.dec[l] = &seqDecision{status: st, sessions: row.cs[l].N(), run: look}
			}
		}
	}
}

// laneCriterion names a lane's criterion and its threshold on the lane's
// [0, 1] scale.
func (g *SequentialGate) laneCriterion(l int) (string, float64) {
	switch l {
	case seqPrec:
		return CriterionPrecisionMin, g.crit.PrecisionMin
	case seqUnk:
		return CriterionUnknownRateMax, g.crit.UnknownRateMax
	case seqAppr:
		return CriterionApprovalRejectRateMax, g.crit.ApprovalRejectRateMax
	case seqGain:
		return CriterionDangerousRecall, 0
	case seqJR:
		return CriterionJudgeRequiredRateMax, g.crit.JudgeRequiredRateMax
	}
	// P95 ≤ max exactly when at most 5 % of calls are slower than max.
	return CriterionJudgeP95Max, 0.05
}

// bounds is the lane's current interval on the figure's own scale.
func bounds(l int, cs *ConfidenceSequence) (lo, hi float64) {
	lo, hi = cs.Interval()
	if l == seqGain {
		lo, hi = 2*lo-1, 2*hi-1
	}
	return lo, hi
}

// decide applies the one verdict rule to a lane's interval; a recall
// gain PASSes when its one-sided lower bound lies above 0 (the sequence
// is the test) and FAILs when its one-sided upper bound lies below 0.
func (g *SequentialGate) decide(l int, cs *ConfidenceSequence) Status {
	if cs.Excluded() {
		// Every rate excluded: the interval is the running mean alone,
		// with no uncertainty the sequence can vouch for; a decision made
		// before stays, none is made on it.
		return StatusInconclusive
	}
	if FewSessions(float64(cs.n)) {
		// The one rule's floor on sessions (MinSessions): the sequence
		// is valid from the first session, but no verdict of apeval rests
		// on one or two.
		return StatusInconclusive
	}
	lo, hi := bounds(l, cs)
	return g.decideOn(l, lo, hi)
}

// decideOn applies the one verdict rule to [lo, hi] on the lane's own
// scale (lo = hi: where a point estimate falls).
func (g *SequentialGate) decideOn(l int, lo, hi float64) Status {
	name, thr := g.laneCriterion(l)
	spec, _ := SpecOf(name)
	if spec.Direction == Gain {
		// The gain's bounds are one-sided sequences at α
		// (NewOneSidedSequence): the lower above 0 is its one-sided test
		// at every look (the PASS the fixed-n path reads off p < α), the
		// upper below 0 the test the other way (FAIL, as Decide).
		switch {
		case spec.Direction.ConfirmsBad(0, lo, hi):
			return StatusFail
		case spec.Direction.Clears(0, lo, hi):
			return StatusPass
		}
		return StatusInconclusive
	}
	return spec.Direction.Decide(thr, Evidence{Lo: lo, Hi: hi}).Status
}

// SequentialResult is where every criterion stands after the runs so far.
type SequentialResult struct {
	Runs []string `json:"runs"`
	// Alpha bounds the chance that any one criterion's decision is ever
	// wrong, over any number of runs (1 − confidence).
	Alpha   float64           `json:"alpha"`
	Method  string            `json:"method"`
	Judges  []SequentialJudge `json:"judges"`
	Verdict Verdict           `json:"verdict"`
	// Warnings name the criteria whose sessions do not look like draws
	// of one rate (the running mean left the sequence's interval): the
	// sequence's promise assumes they are, so such a decision is suspect.
	Warnings []string `json:"warnings,omitempty"`
}

// SequentialJudge is one judge's standing.
type SequentialJudge struct {
	Judge    string `json:"judge"`
	Baseline bool   `json:"baseline,omitempty"`
	// Sessions is the number of distinct sessions counted;
	// DuplicateSessions and DuplicateCases what later runs brought again
	// of sessions already counted, left out.
	Sessions          int64 `json:"sessions"`
	DuplicateSessions int64 `json:"duplicate_sessions"`
	DuplicateCases    int64 `json:"duplicate_cases"`
	// BrokenRuns are the runs whose setup was broken for the judge
	// (their sessions left out); the judge is ERROR when the latest is.
	BrokenRuns    []string        `json:"broken_runs,omitempty"`
	JudgeVerdict  Verdict         `json:"judge_verdict"`
	PolicyVerdict Verdict         `json:"policy_verdict"`
	Verdict       Verdict         `json:"verdict"`
	Rows          []SequentialRow `json:"rows"`
}

// SequentialRow is a rule's criteria (RuleID AllRules: the judge's own).
type SequentialRow struct {
	RuleID   string           `json:"rule_id"`
	Criteria []SequentialCrit `json:"criteria"`
}

// SequentialCrit is one criterion's sequential standing.
type SequentialCrit struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Figure is what the sequence bounds (on the criterion's scale):
	// the mean of the sessions' own rates.
	Figure    string   `json:"figure,omitempty"`
	Estimate  *float64 `json:"estimate,omitempty"`
	Lo        *float64 `json:"lo,omitempty"`
	Hi        *float64 `json:"hi,omitempty"`
	Threshold float64  `json:"threshold"`
	// Bounds says what Lo and Hi are where they are not one two-sided
	// sequence: "one-sided 95% bounds" (the recall gain: each bound its
	// own one-sided sequence at α, as summary.json's "bounds").
	Bounds string `json:"bounds,omitempty"`
	// Sessions and Units are what the sequence holds now.
	Sessions int   `json:"sessions"`
	Units    int64 `json:"units"`
	// DecidedAfter is the number of sessions after which the criterion
	// was decided, DecidedRun the run that brought that session (its
	// name and 1-based position); absent while it is open.
	DecidedAfter *int   `json:"decided_after_sessions,omitempty"`
	DecidedRun   string `json:"decided_in_run,omitempty"`
	DecidedLook  int    `json:"decided_at_run,omitempty"`
	// Withdrawn is the decision (PASS or FAIL) the criterion reached
	// earlier and no longer holds: its sessions have since stopped
	// looking like draws of one rate (the drift warning), which voids the
	// sequence's promise, so Status is INCONCLUSIVE again; the Decided*
	// fields keep where it had been decided.
	Withdrawn Status `json:"withdrawn,omitempty"`
	// Outside says that Estimate, the sessions' mean, lies outside
	// [Lo, Hi]: the two are then not an estimate and its interval but
	// the mean and the running intersection of the sequence's intervals,
	// which sessions that changed their rate between runs carried away
	// from it (the drift warning); tables print them as two figures.
	Outside bool `json:"estimate_outside,omitempty"`
	// Excluded says that the sessions have excluded every rate: Lo and
	// Hi are then the sessions' mean alone, not an interval (the drift
	// warning's stronger form); tables print "mean m, every rate
	// excluded".
	Excluded bool   `json:"every_rate_excluded,omitempty"`
	Reason   string `json:"reason"`
	drift    bool
}

// driftTail is what either drift says about the sessions; a criterion's
// reason ends with it after saying which happened.
const driftTail = "the sessions do not look like draws of one rate (did the traffic, the dataset's order or the judge change between runs?); the sequence's promise assumes they are"

// driftOutside is the warning for a criterion whose running mean left
// its sequence's interval, driftExcluded for one whose sessions excluded
// every rate (no interval is left: the mean alone).
const (
	driftOutside  = "the mean of the sessions lies outside the sequence's interval: " + driftTail
	driftExcluded = "the sessions have excluded every rate, so the sequence has no interval left, only their mean: " + driftTail
)

// driftWarning is the warning a drifting criterion gives, "" for none.
func (c *SequentialCrit) driftWarning() string {
	switch {
	case !c.drift:
		return ""
	case c.Excluded:
		return driftExcluded
	}
	return driftOutside
}

// Result is the standing after the runs ended so far.
func (g *SequentialGate) Result() *SequentialResult {
	res := &SequentialResult{Runs: slices.Clone(g.runs), Alpha: g.alpha,
		Method: "hedged betting confidence sequence over sessions (Waudby-Smith & Ramdas 2023), each session's own rate one value"}
	ids := slices.Clone(g.order)
	slices.Sort(ids)
	verdicts := []Verdict{}
	// A policy criterion's drift is said once, as "(policy)", when every
	// judge shows it (the same sessions: the table's one "(policy)" row).
	policyDrift, policyWarn := map[string][]string{}, map[string]string{}
	for _, id := range ids {
		j := g.judges[id]
		sj := SequentialJudge{Judge: id, Baseline: id == g.baseline && g.baseline != "", Sessions: j.sessions,
			DuplicateSessions: j.dupSessions, DuplicateCases: j.dupCases}
		var own, policy []Criterion
		tot := SequentialRow{RuleID: AllRules}
		for _, l := range lanesOf(true) {
			c := g.crit4(j, j.row(AllRules), l)
			switch {
			case c.drift && IsPolicyCriterion(c.Name):
				policyDrift[c.Name] = append(policyDrift[c.Name], id)
				if policyWarn[c.Name] != driftExcluded {
					// The stronger form where the judges' sequences differ.
					policyWarn[c.Name] = c.driftWarning()
				}
			case c.drift:
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s, all rules, %s: %s", id, c.Name, c.driftWarning()))
			}
			tot.Criteria = append(tot.Criteria, c)
			cr := Criterion{Name: c.Name, Status: c.Status}
			if IsPolicyCriterion(c.Name) {
				policy = append(policy, cr)
			} else {
				own = append(own, cr)
			}
		}
		sj.Rows = append(sj.Rows, tot)
		rules := slices.Clone(j.ruleIDs)
		slices.Sort(rules)
		for _, rule := range rules {
			row := SequentialRow{RuleID: rule}
			for _, l := range lanesOf(false) {
				c := g.crit4(j, j.rows[rule], l)
				if c.drift {
					res.Warnings = append(res.Warnings, fmt.Sprintf("%s, rule %s, %s: %s", id, rule, c.Name, c.driftWarning()))
				}
				row.Criteria = append(row.Criteria, c)
				own = append(own, Criterion{Name: c.Name, Status: c.Status})
			}
			if g.baseline != "" && id != g.baseline {
				row.Criteria = append(row.Criteria, SequentialCrit{Name: CriterionFireRateChangeMax, Status: StatusNA, Threshold: g.crit.FireRateChangeMax,
					Reason: "not decided sequentially: the drift is a paired difference against the baseline that labels filter, not a bounded mean of one judge's sessions; `apeval gate` on the latest run decides it"})
			}
			sj.Rows = append(sj.Rows, row)
		}
		sj.JudgeVerdict = verdictOf(own)
		sj.PolicyVerdict = verdictOf(policy)
		sj.Verdict = worse(sj.JudgeVerdict, sj.PolicyVerdict)
		sj.BrokenRuns = j.broken
		if j.brokenLast {
			sj.Verdict = VerdictError
		}
		if !sj.Baseline || len(ids) == 1 || sj.Verdict == VerdictError {
			verdicts = append(verdicts, sj.Verdict)
		}
		res.Judges = append(res.Judges, sj)
	}
	res.Verdict = VerdictInconclusive
	if len(verdicts) > 0 {
		res.Verdict = Worst(verdicts...)
	}
	for _, name := range slices.Sorted(maps.Keys(policyDrift)) {
		who := policyDrift[name]
		if len(who) == len(ids) {
			// As the table's row: "(policy)" with one judge too.
			who = []string{"(policy)"}
		}
		for _, id := range who {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s, all rules, %s: %s", id, name, policyWarn[name]))
		}
	}
	return res
}

// crit4 is a row's standing on one lane.
func (g *SequentialGate) crit4(j *seqJudge, row *seqRow, l int) SequentialCrit {
	name, thr := g.laneCriterion(l)
	c := SequentialCrit{Name: name, Threshold: thr, Units: row.units[l]}
	if l == seqSlow {
		c.Threshold = float64(g.crit.JudgeP95Max.Nanoseconds()) / 1e6
	}
	if na := g.naReason(j, row, l); na != "" {
		c.Status, c.Reason = StatusNA, na
		return c
	}
	cs := row.cs[l]
	if cs == nil {
		// Precision with no labeled match prediction: no rule goes live
		// on no evidence.
		c.Status = StatusInconclusive
		c.Reason = "no labeled match predictions yet (TP+FP = 0): no rule goes live on no evidence"
		return c
	}
	c.Sessions = cs.N()
	lo, hi := bounds(l, cs)
	est := row.sum[l] / float64(cs.N())
	if l == seqGain {
		est = 2*est - 1
	}
	c.Estimate, c.Lo, c.Hi = ptr(est), ptr(lo), ptr(hi)
	if cs.OneSided() {
		c.Bounds = BoundsLabel(g.alpha)
	}
	fig := map[int]string{seqPrec: "precision", seqUnk: "unknown rate", seqAppr: "approval reject rate",
		seqGain: "recall gain over the baseline", seqJR: "judge-required rate",
		seqSlow: fmt.Sprintf("share of calls slower than %s ms (P95 ≤ %s ms exactly when it is ≤ 0.05)", fmtF(c.Threshold), fmtF(c.Threshold))}[l]
	c.Figure = "mean over sessions of each session's " + fig
	kind := fmt.Sprintf("%.0f%% confidence sequence", (1-g.alpha)*100)
	if cs.OneSided() {
		kind = BoundsLabel(g.alpha) + " (confidence sequences)"
	}
	short := strings.SplitN(fig, " (", 2)[0]
	desc := fmt.Sprintf("%s %s over %d sessions (%d units), %s [%s, %s]",
		short, fmtF(est), cs.N(), row.units[l], kind, fmtF(lo), fmtF(hi))
	switch {
	case cs.Excluded():
		// No interval left: lo = hi = the running mean. Said as the mean
		// alone, not as an interval around it.
		c.Excluded = true
		desc = fmt.Sprintf("%s: the sessions' mean %s over %d sessions (%d units), no rate left in the %s",
			short, fmtF(est), cs.N(), row.units[l], kind)
	case est < lo-1e-9 || est > hi+1e-9:
		// Not an estimate and its interval: the mean of every session
		// so far, and the running intersection of the sequence's
		// intervals, which sessions that changed their rate between runs
		// carry away from it (the early sessions excluded the later
		// ones' rates for good). Said as two figures.
		c.Outside = true
		desc = fmt.Sprintf("%s: the sessions' mean %s over %d sessions (%d units) lies outside the %s [%s, %s], the running intersection of its intervals",
			short, fmtF(est), cs.N(), row.units[l], kind, fmtF(lo), fmtF(hi))
	}
	if c.Outside || c.Excluded {
		// The description said which: the sessions do not look like
		// draws of one rate.
		desc += "; " + driftTail
		c.drift = true
	}
	if d := row.dec[l]; d != nil {
		c.Status = d.status
		c.DecidedAfter = new(d.sessions)
		c.DecidedLook = d.run
		c.DecidedRun = g.runs[d.run-1]
		c.Reason = fmt.Sprintf("%s after %d sessions (run %d, %s); now %s", d.status, d.sessions, d.run, c.DecidedRun, desc)
		if c.drift && g.decideOn(l, est, est) != d.status {
			// The decision rested on the sessions being draws of one
			// rate, which the later ones contradict, and their mean now
			// lies on the other side of the threshold: a gate must not
			// keep a PASS (or FAIL) the data no longer support.
			c.Status, c.Withdrawn = StatusInconclusive, d.status
			c.Reason = fmt.Sprintf("withdrawn: was %s after %d sessions (run %d, %s), but the later sessions do not look like draws of the same rate, so that decision no longer holds (start a new history after the change, or run apeval gate on the latest run); now %s",
				d.status, d.sessions, d.run, c.DecidedRun, desc)
		}
		return c
	}
	c.Status = StatusInconclusive
	c.Reason = fmt.Sprintf("open: %s still reaches %s", desc, fmtF(thr))
	if l == seqGain {
		c.Reason = fmt.Sprintf("open: %s: the lower bound not above 0 and the upper not below it", desc)
	}
	if FewSessions(float64(cs.N())) {
		c.Reason = "open: " + desc + ": " + FewSessionsReason(float64(cs.N()))
	}
	if cs.Excluded() {
		c.Reason = "open: the sessions excluded every rate, so the sequence cannot decide (its interval is the running mean alone): " + desc
	}
	return c
}

// naReason says why a lane has nothing to decide, "" when it has.
func (g *SequentialGate) naReason(j *seqJudge, row *seqRow, l int) string {
	switch l {
	case seqUnk:
		if row.cs[l] == nil {
			return "no decision was sent to the judge"
		}
	case seqAppr:
		if row.cs[l] == nil {
			if !row.approval {
				return "the rule does not request approval"
			}
			return "no approval outcome is recorded where the rule requested approval"
		}
	case seqGain:
		switch {
		case !g.crit.DangerousRecallMustBeatBaseline:
			return "disabled in the kill criteria"
		case !row.dangerous:
			return "not a dangerous rule"
		case row.positives == 0:
			return "no labeled positives"
		case !row.baseline || row.cs[l] == nil:
			return "the rule has no deterministic baseline"
		}
	case seqJR:
		if row.cs[l] == nil {
			return "no case was replayed"
		}
	case seqSlow:
		switch {
		case g.crit.JudgeP95Max <= 0:
			return "disabled in the kill criteria"
		case !j.calledAt:
			return "no judge call was made (none was needed, or the none judge, which calls nothing)"
		case !j.latSeen:
			return NoLatencyReason
		}
	}
	return ""
}
