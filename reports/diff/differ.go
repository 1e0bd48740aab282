package diff

import (
	"sort"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
)

// Counts are a diff's totals. Cases is the number of cases both runs hold;
// Loosened + Tightened + Changed + Unchanged = Cases. Fixed, Broken and
// Mixed count cases by their label class; FixedRules and BrokenRules count
// (case, rule) pairs. Listed counts the cases where anything differs (a
// gate, a rule's answer): diff.html's "All".
type Counts struct {
	Cases          int64 `json:"cases"`
	Unchanged      int64 `json:"unchanged"`
	Loosened       int64 `json:"loosened"`
	Tightened      int64 `json:"tightened"`
	Changed        int64 `json:"changed"`
	Listed         int64 `json:"differing"`
	Fixed          int64 `json:"fixed"`
	Broken         int64 `json:"broken"`
	Mixed          int64 `json:"mixed"`
	FixedRules     int64 `json:"fixed_rules"`
	BrokenRules    int64 `json:"broken_rules"`
	Flaky          int64 `json:"flaky"`
	Stable         int64 `json:"stable"`
	AnswersChanged int64 `json:"answers_changed"`
	Sessions       int64 `json:"sessions_diverging"`
	// HookRewritten counts the cases in common where auto mode's side
	// judged an input a PreToolUse hook changed (Case.HookRewritten);
	// HookRewrittenDiffering those of them that differ.
	HookRewritten          int64 `json:"hook_rewritten,omitempty"`
	HookRewrittenDiffering int64 `json:"hook_rewritten_differing,omitempty"`
}

// Transition counts the cases whose gate went From → To.
type Transition struct {
	From  datasets.Action `json:"from"`
	To    datasets.Action `json:"to"`
	Cases int64           `json:"cases"`
	Class string          `json:"class"`
}

// RuleCounts are one rule's changes: cases where it fires only in the head
// (On) or only in the base (Off), and its fixed and broken pairs.
type RuleCounts struct {
	Rule   string `json:"rule_id"`
	On     int64  `json:"fires_only_head"`
	Off    int64  `json:"fires_only_base"`
	Fixed  int64  `json:"fixed"`
	Broken int64  `json:"broken"`
}

// SessionFirst is a session's first diverging call.
type SessionFirst struct {
	SessionID string          `json:"session_id"`
	CaseID    string          `json:"case_id"`
	Seq       int64           `json:"seq"`
	Class     string          `json:"class"`
	Base      datasets.Action `json:"base_action"`
	Head      datasets.Action `json:"head_action"`
	Diverging int64           `json:"diverging_calls"`
}

// RuleInfo is what a run's decision rows say about one rule.
type RuleInfo struct {
	ID      string          `json:"rule_id"`
	Version int             `json:"version"`
	Class   replay.Class    `json:"rule_class"`
	Action  datasets.Action `json:"action"`
}

// Differ joins the two sides' results by case ID and keeps the diff's
// totals. Results of one side that wait for the other are held (a copy
// of what the diff needs), so two runs read in the same order hold almost
// nothing; each joined case goes to the sink and is not kept.
type Differ struct {
	pending  [2]map[string]*sideCase
	rules    [2]map[string]*RuleInfo
	sink     func(*Case) error
	top      int
	counts   Counts
	trans    map[[2]datasets.Action]int64
	perRule  map[string]*RuleCounts
	sessions map[string]*SessionFirst
	loosened []*Case
	// hookedCases are the first top differing cases auto mode judged on
	// a hook's input, in hookOrder.
	hookedCases []*Case
	// misordered counts diverging cases that came after a later call of
	// their session: the first-in-session flags already sent were wrong.
	misordered int64
	// fires, when not nil, counts each side's fires per session and rule,
	// for the judge inputs' previous_rule_fires.
	fires *[2]map[string]map[string]int
	// hooked says whether auto mode's side judged a case on an input a
	// hook changed (MarkHookRewritten); nil marks none.
	hooked func(id string) bool
}

// MarkHookRewritten makes the Differ mark and count the cases hooked says
// are those where auto mode's recorded decision was made on an input a
// PreToolUse hook changed, while the other side judged the model's input.
func (d *Differ) MarkHookRewritten(hooked func(id string) bool) { d.hooked = hooked }

// TrackFires makes the Differ keep what a judge input needs: per side, the
// rules of each case sent to the judge and their earlier fires in the
// session (memory grows with the sessions that fire).
func (d *Differ) TrackFires() {
	d.fires = &[2]map[string]map[string]int{{}, {}}
}

// NewDiffer returns a Differ sending each joined case to sink and keeping
// the top loosened cases.
func NewDiffer(top int, sink func(*Case) error) *Differ {
	d := &Differ{sink: sink, top: top, trans: map[[2]datasets.Action]int64{},
		perRule: map[string]*RuleCounts{}, sessions: map[string]*SessionFirst{}}
	for i := range d.pending {
		d.pending[i] = map[string]*sideCase{}
		d.rules[i] = map[string]*RuleInfo{}
	}
	return d
}

// Add adds one result of side 0 (base) or 1 (head).
func (d *Differ) Add(side int, r *replay.Result) error {
	for i := range r.Rules {
		rr := &r.Rules[i]
		if ri := d.rules[side][rr.RuleID]; ri == nil || ri.Version < rr.RuleVersion {
			d.rules[side][rr.RuleID] = &RuleInfo{ID: rr.RuleID, Version: rr.RuleVersion, Class: rr.Class, Action: rr.Action}
		}
	}
	s := capture(r)
	if d.fires != nil {
		sess := d.fires[side][s.session]
		for i := range r.Rules {
			rr := &r.Rules[i]
			if rr.Source == replay.SourceJudge || rr.Source == replay.SourceCache || rr.Source == replay.SourceFailure {
				s.asked = append(s.asked, asked{id: s.rules[i].id, fires: sess[rr.RuleID]})
			}
		}
		for i := range r.Rules {
			if r.Rules[i].Fired {
				if sess == nil {
					sess = map[string]int{}
					d.fires[side][s.session] = sess
				}
				sess[s.rules[i].id]++
			}
		}
	}
	other := d.pending[1-side]
	if o, ok := other[r.CaseID]; ok {
		delete(other, r.CaseID)
		if side == 0 {
			return d.join(s, o)
		}
		return d.join(o, s)
	}
	if _, dup := d.pending[side][r.CaseID]; dup {
		return inputErrorf("case %s appears twice in the %s run", r.CaseID, sideName(side))
	}
	d.pending[side][s.caseID] = s
	return nil
}

func sideName(side int) string {
	if side == 0 {
		return "base"
	}
	return "head"
}

func (d *Differ) join(b, h *sideCase) error {
	c := compareCases(b, h)
	n := &d.counts
	n.Cases++
	switch c.Class {
	case ClassUnchanged:
		n.Unchanged++
	case ClassLoosened:
		n.Loosened++
	case ClassTightened:
		n.Tightened++
	case ClassChanged:
		n.Changed++
	}
	switch c.Label {
	case LabelFixed:
		n.Fixed++
	case LabelBroken:
		n.Broken++
	case LabelMixed:
		n.Mixed++
	}
	switch c.Stability {
	case Flaky:
		n.Flaky++
	case Stable:
		n.Stable++
	}
	n.FixedRules += int64(c.FixedRules)
	n.BrokenRules += int64(c.BrokenRules)
	if c.AnswersChanged > 0 {
		n.AnswersChanged++
	}
	if c.Differs() {
		n.Listed++
	}
	if d.hooked != nil && d.hooked(c.CaseID) {
		c.HookRewritten = true
		n.HookRewritten++
		if c.Differs() {
			n.HookRewrittenDiffering++
			if d.top > 0 {
				d.hookedCases = keepFirst(d.hookedCases, c, d.top, hookOrder)
			}
		}
	}
	for i := range c.Rules {
		rd := &c.Rules[i]
		if rd.Base.Fired == rd.Head.Fired && !rd.Fixed && !rd.Broken {
			continue
		}
		rc := d.perRule[rd.ID]
		if rc == nil {
			rc = &RuleCounts{Rule: rd.ID}
			d.perRule[rd.ID] = rc
		}
		switch {
		case rd.Head.Fired && !rd.Base.Fired:
			rc.On++
		case rd.Base.Fired && !rd.Head.Fired:
			rc.Off++
		}
		if rd.Fixed {
			rc.Fixed++
		}
		if rd.Broken {
			rc.Broken++
		}
	}
	if c.Class != ClassUnchanged {
		d.trans[[2]datasets.Action{c.Base.Gate, c.Head.Gate}]++
		sf := d.sessions[c.SessionID]
		switch {
		case sf == nil:
			d.sessions[c.SessionID] = &SessionFirst{SessionID: c.SessionID, CaseID: c.CaseID, Seq: c.Seq, Class: c.Class, Base: c.Base.Gate, Head: c.Head.Gate, Diverging: 1}
			c.First = true
		case c.Seq < sf.Seq:
			d.misordered++
			*sf = SessionFirst{SessionID: c.SessionID, CaseID: c.CaseID, Seq: c.Seq, Class: c.Class, Base: c.Base.Gate, Head: c.Head.Gate, Diverging: sf.Diverging + 1}
			c.First = true
		default:
			sf.Diverging++
		}
	}
	if c.Class == ClassLoosened && d.top > 0 {
		d.keepLoosened(c)
	}
	if err := d.sink(c); err != nil {
		return writeError{err}
	}
	return nil
}

// writeError is a sink's error (a file that cannot be written), told apart
// from the inputs' errors.
type writeError struct{ err error }

func (e writeError) Error() string { return e.err.Error() }
func (e writeError) Unwrap() error { return e.err }

// looser orders loosened cases: those the head now allows first (the
// weakest head action), among them the strictest base (stop_task → allow,
// then deny_current_tool → allow, …), then session and seq.
func looser(a, b *Case) bool {
	if ha, hb := replay.ActionRank(a.Head.Gate), replay.ActionRank(b.Head.Gate); ha != hb {
		return ha < hb
	}
	if ra, rb := replay.ActionRank(a.Base.Gate), replay.ActionRank(b.Base.Gate); ra != rb {
		return ra > rb
	}
	if a.SessionID != b.SessionID {
		return a.SessionID < b.SessionID
	}
	if a.Seq != b.Seq {
		return a.Seq < b.Seq
	}
	return a.CaseID < b.CaseID
}

func (d *Differ) keepLoosened(c *Case) { d.loosened = keepFirst(d.loosened, c, d.top, looser) }

// keepFirst inserts c into kept, sorted by less, and keeps the first top.
func keepFirst(kept []*Case, c *Case, top int, less func(a, b *Case) bool) []*Case {
	if len(kept) == top && !less(c, kept[len(kept)-1]) {
		return kept
	}
	i := sort.Search(len(kept), func(i int) bool { return less(c, kept[i]) })
	kept = append(kept, nil)
	copy(kept[i+1:], kept[i:])
	kept[i] = c
	if len(kept) > top {
		kept = kept[:top]
	}
	return kept
}

// classRank orders the classes as the text lists them: loosened first.
var classRank = map[string]int{ClassLoosened: 0, ClassTightened: 1, ClassChanged: 2, ClassUnchanged: 3}

// hookOrder orders the differing hook-rewritten cases: by class (loosened,
// tightened, changed, then a rule's answer alone), then the loosened
// order within a class.
func hookOrder(a, b *Case) bool {
	if ra, rb := classRank[a.Class], classRank[b.Class]; ra != rb {
		return ra < rb
	}
	return looser(a, b)
}

// Summary is a finished diff: what the terminal, --json, the pull-request
// comment and diff.html's header show.
type Summary struct {
	Base        RunRef       `json:"base"`
	Head        RunRef       `json:"head"`
	Overlap     Overlap      `json:"overlap"`
	Counts      Counts       `json:"counts"`
	Transitions []Transition `json:"transitions"`
	Rules       []RuleCounts `json:"rules"`
	TopLoosened []*Case      `json:"top_loosened"`
	// HookRewrittenCases are the first --top cases that differ where auto
	// mode judged an input a PreToolUse hook changed, of every class
	// (Counts.HookRewrittenDiffering counts them all).
	HookRewrittenCases []*Case        `json:"hook_rewritten_cases,omitempty"`
	Sessions           []SessionFirst `json:"first_divergence"`
	Policy             *PolicyDiff    `json:"policy,omitempty"`
	// LabelSource is "weak" when a run compared is on weak labels: fixed
	// and broken rest on users' overrides, not reviews; absent otherwise.
	LabelSource string `json:"label_source,omitempty"`
	// AutoMode is the pair's judge that is auto mode's recorded decisions
	// (reports.IsAutoMode), "" when neither is; HookNote says why the cases
	// a PreToolUse hook changed could not be found for it ("" when they
	// were, Counts.HookRewritten then counting them).
	AutoMode string `json:"auto_mode,omitempty"`
	HookNote string `json:"hook_rewritten_note,omitempty"`
}

// RunRef names one side of a diff.
type RunRef struct {
	Dir      string   `json:"dir"`
	RunID    string   `json:"run_id"`
	Judge    string   `json:"judge"`
	Datasets []string `json:"datasets"`
	Policy   string   `json:"policy,omitempty"`
}

// Close ends the diff: the cases left waiting are the ones only one side
// holds. It fills s's counts, overlap and lists.
func (d *Differ) Close(s *Summary) {
	s.Overlap.Common = d.counts.Cases
	s.Overlap.OnlyBase = int64(len(d.pending[0]))
	s.Overlap.OnlyHead = int64(len(d.pending[1]))
	d.counts.Sessions = int64(len(d.sessions))
	s.Counts = d.counts
	s.Transitions = s.Transitions[:0]
	for k, n := range d.trans {
		t := Transition{From: k[0], To: k[1], Cases: n}
		switch rb, rh := replay.ActionRank(k[0]), replay.ActionRank(k[1]); {
		case rh < rb:
			t.Class = ClassLoosened
		case rh > rb:
			t.Class = ClassTightened
		default:
			t.Class = ClassChanged
		}
		s.Transitions = append(s.Transitions, t)
	}
	sort.Slice(s.Transitions, func(i, j int) bool {
		a, b := s.Transitions[i], s.Transitions[j]
		if a.Cases != b.Cases {
			return a.Cases > b.Cases
		}
		if a.From != b.From {
			return a.From < b.From
		}
		return a.To < b.To
	})
	for _, rc := range d.perRule {
		s.Rules = append(s.Rules, *rc)
	}
	sort.Slice(s.Rules, func(i, j int) bool { return s.Rules[i].Rule < s.Rules[j].Rule })
	s.TopLoosened = d.loosened
	s.HookRewrittenCases = d.hookedCases
	for _, sf := range d.sessions {
		s.Sessions = append(s.Sessions, *sf)
	}
	sort.Slice(s.Sessions, func(i, j int) bool { return s.Sessions[i].SessionID < s.Sessions[j].SessionID })
	s.Policy = policyRules(d.rules[0], d.rules[1])
}

// firstSeq is the first diverging seq of each session (for rewriting the
// first-in-session flags after a misordered join).
func (d *Differ) firstSeq() map[string]int64 {
	m := make(map[string]int64, len(d.sessions))
	for k, v := range d.sessions {
		m[k] = v.Seq
	}
	return m
}
