package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
)

// GateCounts is one judge's line of the gate-action summary: what the gate
// would have done on the replayed cases, how often that was the expected
// action, and what it cost in judge calls.
type GateCounts struct {
	Judge string `json:"judge"`
	Cases int64  `json:"cases"`
	// Actions counts cases by resolved gate action; every action of
	// GateActions is present, zero included.
	Actions map[datasets.Action]int64 `json:"actions"`
	// Expected counts cases with an expected_action; Matched those whose
	// gate action equals it. MatchRate is Matched/Expected, nil when no
	// case had an expected action.
	Expected  int64    `json:"expected"`
	Matched   int64    `json:"matched"`
	MatchRate *float64 `json:"match_rate"`
	// Calls counts judge calls as summary.json does (cache hits included),
	// CacheHits those answered from the cache, Failures calls that ended
	// invalid, timeout or error. The none judge makes no calls.
	Calls     int64 `json:"calls"`
	CacheHits int64 `json:"cache_hits"`
	Failures  int64 `json:"failures"`
	// Permissions counts cases by what the permissions layer (the policy's
	// rules and the agents' imported ones) decided: allow, ask, deny;
	// absent when the layer is off.
	Permissions map[string]int64 `json:"permissions,omitempty"`
}

// GateActions lists gate actions in priority order, highest first, as the
// summary's columns show them.
var GateActions = []datasets.Action{
	datasets.ActionStopTask, datasets.ActionDenyCurrentTool, datasets.ActionRequestApproval,
	datasets.ActionInjectInstruction, datasets.ActionAuditOnly, datasets.ActionNotifyAdmin, datasets.ActionAllow,
}

// GateSummary accumulates the gate-action summary over a run's results,
// judges in the order they first appear.
type GateSummary struct {
	judges []*GateCounts
	index  map[string]*GateCounts
}

// NewGateSummary returns an empty summary.
func NewGateSummary() *GateSummary {
	return &GateSummary{index: map[string]*GateCounts{}}
}

// Add counts one result.
func (s *GateSummary) Add(r *replay.Result) {
	c := s.index[r.Judge]
	if c == nil {
		c = &GateCounts{Judge: r.Judge, Actions: make(map[datasets.Action]int64, len(GateActions))}
		for _, a := range GateActions {
			c.Actions[a] = 0
		}
		s.index[r.Judge] = c
		s.judges = append(s.judges, c)
	}
	c.Cases++
	c.Actions[r.GateAction]++
	if r.Permission != "" && r.Permission != replay.PermissionOff {
		if c.Permissions == nil {
			c.Permissions = map[string]int64{}
		}
		c.Permissions[r.Permission]++
	}
	if r.ExpectedAction != "" {
		c.Expected++
		if r.ExpectedAction == r.GateAction {
			c.Matched++
		}
	}
	if r.Judge == "none" {
		// The none judge calls nothing: no calls and no failed calls, as in
		// summary.json (its rules' errors are in the unknown rate).
		return
	}
	for i := range r.Calls {
		call := &r.Calls[i]
		// Counted as metrics counts them: a cache hit is a call (at the
		// latency stored with its answer), and says it came from the cache.
		c.Calls++
		if call.Cached {
			c.CacheHits++
		}
		if call.Status == "invalid" || call.Status == "timeout" || call.Status == "error" {
			c.Failures++
		}
	}
}

// Judges returns the per-judge counts, match rates filled in.
func (s *GateSummary) Judges() []GateCounts {
	out := make([]GateCounts, len(s.judges))
	for i, c := range s.judges {
		out[i] = *c
		if c.Expected > 0 {
			rate := float64(c.Matched) / float64(c.Expected)
			out[i].MatchRate = &rate
		}
	}
	return out
}

// RenderWidth is Render fitting the table to a terminal of width columns
// (0: no limit).
func (s *GateSummary) RenderWidth(w io.Writer, f Format, width int) error {
	if f == FormatTable && width > 0 {
		g := s.grid(false)
		g.width = width
		g.fit = fitOptions{judgeCol: 1}
		g.fit.drop = columnsNamed(g.header, "cached", "audit/notify", "inject", "deny", "approval", "stop", "calls", "failed")
		return g.render(w, f)
	}
	return s.Render(w, f)
}

// Render writes the summary in format f.
func (s *GateSummary) Render(w io.Writer, f Format) error {
	if f == FormatJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Judges []GateCounts `json:"judges"`
		}{s.Judges()})
	}
	return s.grid(f.Machine()).render(w, f)
}

// grid lays the summary out; the machine form (TSV) splits audit_only and
// notify_admin and gives the match rate at full precision.
func (s *GateSummary) grid(machine bool) *grid {
	judges := s.Judges()
	g := &grid{
		header: []string{"judge", "cases", "allow", "audit/notify", "inject", "approval", "deny", "stop",
			"expected", "calls", "cached", "failed"},
		right: []bool{false, true, true, true, true, true, true, true, true, true, true, true},
	}
	if machine {
		g.header = []string{"judge", "cases", "allow", "audit_only", "notify_admin", "inject_instruction",
			"request_approval", "deny_current_tool", "stop_task", "expected", "matched", "match_rate",
			"calls", "cache_hits", "failures"}
	}
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, c := range judges {
		a := c.Actions
		if machine {
			rate := ""
			if c.MatchRate != nil {
				rate = strconv.FormatFloat(*c.MatchRate, 'g', -1, 64)
			}
			g.add(c.Judge, n(c.Cases), n(a[datasets.ActionAllow]), n(a[datasets.ActionAuditOnly]),
				n(a[datasets.ActionNotifyAdmin]), n(a[datasets.ActionInjectInstruction]),
				n(a[datasets.ActionRequestApproval]), n(a[datasets.ActionDenyCurrentTool]), n(a[datasets.ActionStopTask]),
				n(c.Expected), n(c.Matched), rate, n(c.Calls), n(c.CacheHits), n(c.Failures))
			continue
		}
		expected := "–"
		if c.MatchRate != nil {
			expected = fmt.Sprintf("%.1f%% (%d/%d)", 100**c.MatchRate, c.Matched, c.Expected)
		}
		g.add(c.Judge, n(c.Cases), n(a[datasets.ActionAllow]),
			n(a[datasets.ActionAuditOnly]+a[datasets.ActionNotifyAdmin]), n(a[datasets.ActionInjectInstruction]),
			n(a[datasets.ActionRequestApproval]), n(a[datasets.ActionDenyCurrentTool]), n(a[datasets.ActionStopTask]),
			expected, n(c.Calls), n(c.CacheHits), n(c.Failures))
	}
	if !machine {
		g.notes = []string{"expected: cases whose gate action equals the labeled expected_action (of those labeled)."}
		for _, c := range judges {
			if c.Permissions != nil {
				g.notes = append(g.notes, fmt.Sprintf("permissions layer (policy and imported agent rules), %s: allow %d, ask %d, deny %d.",
					c.Judge, c.Permissions[replay.PermissionAllow], c.Permissions[replay.PermissionAsk], c.Permissions[replay.PermissionDeny]))
			}
		}
	}
	return g
}
