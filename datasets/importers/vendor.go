package importers

import (
	"strconv"
	"strings"

	gojson "github.com/goccy/go-json"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/trunc"
)

// Vendor gate decisions: what an agent recorded about its own LLM gate
// becomes the answers of a recorded judge named for the vendor and version
// (docs/vendor-judges.md). Claude Code's auto mode answers the policy rule
// VendorRuleID, which `apeval policy import --from claude-auto-mode`
// writes for the classifier's whole decision: match = the classifier
// blocked the call, no_match = it let the call run.

// VendorRuleID is the rule the vendor's classifier decisions answer.
const VendorRuleID = "claude-auto-mode"

// VendorJudge is the recorded judge name of Claude Code's auto-mode
// classifier at version v ("2.1.220" → "claude-auto-mode@2.1.x").
func VendorJudge(v string) string {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return VendorRuleID + "@unknown"
	}
	return VendorRuleID + "@" + parts[0] + "." + parts[1] + ".x"
}

// autoModeSupported reports whether a Claude Code version has auto mode
// (2.1.83 and later).
func autoModeSupported(v string) bool {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 3 {
		return false
	}
	nums := make([]int, 3)
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimRightFunc(p, func(r rune) bool { return r < '0' || r > '9' }))
		if err != nil {
			return false
		}
		nums[i] = n
	}
	switch {
	case nums[0] != 2:
		return nums[0] > 2
	case nums[1] != 1:
		return nums[1] > 1
	}
	return nums[2] >= 83
}

// classifierDenialText is what Claude Code's tool_result says when the
// classifier blocked a call (versions that do not write toolDenialKind).
const classifierDenialText = "auto mode classifier"

// vendorGate is what a transcript said about the gate of one call.
type vendorGate struct {
	mode, version, denial string
	isError               bool
	text                  string
	// blocked holds the calls (tool and arguments) the classifier blocked
	// so far in the session, for the weak label of a later identical call.
	blocked map[string]bool
}

// callKey is a call's tool and arguments as one string.
func callKey(c *datasets.Case) string {
	b, _ := gojson.Marshal(c.Tool.Arguments)
	return c.Tool.Name + "\x00" + string(b)
}

// weak sets a weak label (label_source "weak") on the vendor rule, with
// why.
func weak(c *datasets.Case, label datasets.Label, why string) {
	if c.WeakLabels == nil {
		c.WeakLabels = map[string]datasets.Label{}
	}
	c.WeakLabels[VendorRuleID] = label
	c.Provenance["weak_label_reason"] = why
}

// record adds the vendor's decision on c: a recording of the classifier's
// judge when the classifier decided (blocked, let run, or was
// unavailable), and provenance saying which part of the gate decided. It
// returns the outcome counted in the summary.
func (g vendorGate) record(c *datasets.Case) string {
	if g.denial != "" {
		c.Provenance["tool_denial_kind"] = g.denial
	}
	if g.denial == "user-rejected" {
		// The person was asked and said no, in any permission mode: what
		// claude-code-otel's tool_decision reject from user_reject gives.
		c.ApprovalOutcome = datasets.ApprovalDenied
	}
	blockedText := g.isError && strings.Contains(g.text, classifierDenialText) && strings.Contains(g.text, "denied")
	auto := g.mode == "auto" || strings.HasPrefix(g.denial, "automode-") || blockedText
	if !auto {
		return ""
	}
	c.Provenance["permission_mode"] = "auto"
	if g.version != "" {
		c.Provenance["agent_version"] = g.version
	}
	rec := datasets.Recorded{Judge: VendorJudge(g.version)}
	switch {
	case g.denial == "automode-blocked" || g.denial == "" && blockedText:
		rec.Decisions = []datasets.RecordedDecision{{RuleID: VendorRuleID, Result: "match"}}
		c.Provenance["vendor_decision"] = "blocked"
		if g.blocked != nil {
			g.blocked[callKey(c)] = true
		}
		if _, reason, ok := strings.Cut(g.text, "Reason:"); ok {
			reason = strings.TrimSpace(reason)
			c.Provenance["vendor_reason"] = trunc.Runes(reason, 500)
			// "[Git Destructive] …" names the rule that blocked.
			if r, ok := strings.CutPrefix(reason, "["); ok {
				if name, _, ok := strings.Cut(r, "]"); ok {
					c.Provenance["vendor_rule"] = name
				}
			}
		}
	case g.denial == "automode-unavailable":
		rec.Status, rec.Error = "error", "classifier unavailable: "+trunc.Runes(g.text, 200)
		c.Provenance["vendor_decision"] = "unavailable"
	case g.denial == "permission-rule":
		c.Provenance["vendor_decision"] = "permission rule (not the classifier)"
		return "denied by a permission rule or hook"
	case g.denial == "user-rejected":
		c.Provenance["vendor_decision"] = "user rejected (not the classifier)"
		weak(c, datasets.LabelMatch, "the user rejected the call when asked")
		return "rejected by the user"
	case g.denial != "":
		c.Provenance["vendor_decision"] = g.denial
		return "other denial " + g.denial
	default:
		rec.Decisions = []datasets.RecordedDecision{{RuleID: VendorRuleID, Result: "no_match"}}
		c.Provenance["vendor_decision"] = "ran"
		if g.blocked[callKey(c)] {
			weak(c, datasets.LabelNoMatch, "the user let a call the classifier had blocked run")
		}
	}
	c.Recorded = append(c.Recorded, rec)
	return c.Provenance["vendor_decision"].(string)
}

var (
	gateMarkMode   = []byte(`"permissionMode":`)
	gateMarkDenial = []byte(`"toolDenialKind":`)
)

// read takes the permission mode, version and denial kind of one
// transcript line (top level, or on its tool_result blocks). A version
// that has no auto mode while the line says it ran in auto mode is a
// warning naming the line.
func (g *vendorGate) read(line []byte, sum *SourceSummary, n int) {
	var e struct {
		Mode    string `json:"permissionMode"`
		Version string `json:"version"`
		Denial  string `json:"toolDenialKind"`
		Message *struct {
			Content []struct {
				Denial string `json:"toolDenialKind"`
			} `json:"content"`
		} `json:"message"`
	}
	if gojson.Unmarshal(line, &e) != nil {
		// Message content as a string: read the top level only.
		var top struct {
			Mode    string `json:"permissionMode"`
			Version string `json:"version"`
			Denial  string `json:"toolDenialKind"`
		}
		if gojson.Unmarshal(line, &top) != nil {
			return
		}
		e.Mode, e.Version, e.Denial = top.Mode, top.Version, top.Denial
	}
	if e.Mode != "" {
		g.mode = e.Mode
	}
	if e.Version != "" && e.Version != g.version {
		g.version = e.Version
		if g.mode == "auto" && !autoModeSupported(e.Version) {
			sum.warnf("%s:%d: Claude Code version %q has no auto mode (2.1.83 and later): its decisions are recorded under %s, check them", sum.Source, n, e.Version, VendorJudge(e.Version))
		}
	}
	g.denial = e.Denial
	if g.denial == "" && e.Message != nil {
		for _, b := range e.Message.Content {
			if b.Denial != "" {
				g.denial = b.Denial
				break
			}
		}
	}
}

// classifierDecision records a Claude Code tool_decision event the auto
// mode classifier made (source classifier): reject is the classifier
// blocking the call (match), accept letting it run (no_match). A decision
// of another source (config, hook, user_*) is not the classifier's: it is
// noted in the provenance and nothing is recorded.
func classifierDecision(c *datasets.Case, decision, source, version string) string {
	if !strings.Contains(source, "classifier") {
		if source != "" {
			c.Provenance["vendor_decision"] = source + " (not the classifier)"
		}
		switch {
		case (source == "user_reject" || source == "user_abort") && decision == "reject":
			weak(c, datasets.LabelMatch, "the user rejected the call when asked")
		case strings.HasPrefix(source, "user_") && decision == "accept":
			weak(c, datasets.LabelNoMatch, "the user approved the call when asked")
		}
		return ""
	}
	c.Provenance["permission_mode"] = "auto"
	if version != "" {
		c.Provenance["agent_version"] = version
	}
	rec := datasets.Recorded{Judge: VendorJudge(version)}
	switch decision {
	case "reject":
		rec.Decisions = []datasets.RecordedDecision{{RuleID: VendorRuleID, Result: "match"}}
		c.Provenance["vendor_decision"] = "blocked"
	case "accept":
		rec.Decisions = []datasets.RecordedDecision{{RuleID: VendorRuleID, Result: "no_match"}}
		c.Provenance["vendor_decision"] = "ran"
	default:
		rec.Status, rec.Error = "invalid", "tool_decision decision "+strconv.Quote(decision)+": want accept or reject"
		c.Provenance["vendor_decision"] = "invalid"
	}
	c.Recorded = append(c.Recorded, rec)
	return c.Provenance["vendor_decision"].(string)
}

// CodexRuleID is the rule Codex's auto-review decisions answer.
const CodexRuleID = "codex-auto-review"

// CodexJudge is the recorded judge name of Codex's auto-review at CLI
// version v ("0.147.0" → "codex-auto-review@0.147.x").
func CodexJudge(v string) string {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return CodexRuleID + "@unknown"
	}
	return CodexRuleID + "@" + parts[0] + "." + parts[1] + ".x"
}

// autoReview records one Codex guardian_assessment event (auto-review,
// approvals_reviewer = "auto_review") on the case of the call it reviewed
// (target_item_id): approved → no_match, denied → match, timed_out → a
// timeout; in_progress is the review starting (skipped), aborted a
// cancelled review (noted, nothing recorded). The reviewer's rationale and
// risk go to the provenance. An assessment of a call the file has no
// pending case for is a warning and a count.
func autoReview(payload []byte, byCall map[string]*datasets.Case, version string, sum *SourceSummary, n int) {
	var a struct {
		Type      string `json:"type"`
		ID        string `json:"id"`
		Target    string `json:"target_item_id"`
		Status    string `json:"status"`
		RiskLevel string `json:"risk_level"`
		RiskScore *int   `json:"risk_score"`
		Rationale string `json:"rationale"`
	}
	if err := gojson.Unmarshal(payload, &a); err != nil || a.Type != "guardian_assessment" {
		sum.skip("event_msg")
		return
	}
	if a.Status == "in_progress" {
		sum.skip("guardian_assessment in_progress")
		return
	}
	c := byCall[a.Target]
	if c == nil {
		sum.warnf("%s:%d: guardian_assessment %s (%s) names no tool call read before it (target_item_id %q); not recorded", sum.Source, n, a.ID, a.Status, a.Target)
		sum.note("auto-review: decision naming no tool call")
		return
	}
	c.Provenance["vendor_decision_line"] = n
	if version != "" {
		c.Provenance["agent_version"] = version
	}
	if a.Rationale != "" {
		c.Provenance["vendor_reason"] = trunc.Runes(a.Rationale, 500)
	}
	if a.RiskLevel != "" {
		c.Provenance["vendor_risk_level"] = a.RiskLevel
	}
	if a.RiskScore != nil {
		c.Provenance["vendor_risk_score"] = *a.RiskScore
	}
	rec := datasets.Recorded{Judge: CodexJudge(version)}
	switch a.Status {
	case "approved":
		rec.Decisions = []datasets.RecordedDecision{{RuleID: CodexRuleID, Result: "no_match"}}
		c.Provenance["vendor_decision"] = "approved"
	case "denied":
		rec.Decisions = []datasets.RecordedDecision{{RuleID: CodexRuleID, Result: "match"}}
		c.Provenance["vendor_decision"] = "denied"
	case "timed_out":
		rec.Status, rec.Error = "timeout", "auto-review timed out"
		c.Provenance["vendor_decision"] = "timed out"
	case "aborted":
		c.Provenance["vendor_decision"] = "aborted"
		sum.note("auto-review: aborted")
		return
	default:
		rec.Status, rec.Error = "invalid", "guardian_assessment status "+strconv.Quote(a.Status)
		c.Provenance["vendor_decision"] = "invalid"
	}
	c.Recorded = append(c.Recorded, rec)
	sum.note("auto-review: " + c.Provenance["vendor_decision"].(string))
}
