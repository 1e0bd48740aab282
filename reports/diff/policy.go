package diff

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/rundir"
)

// PolicyDiff is a policy backtest's view of the rules: those the decision
// rows of one run only hold, and those whose version, class or action
// differ, with the rule text's diff when both policy files can be read
// (their content hash still equal to run.json's).
type PolicyDiff struct {
	Same     bool         `json:"same_policy"`
	OnlyBase []RuleInfo   `json:"only_base"`
	OnlyHead []RuleInfo   `json:"only_head"`
	Changed  []RuleChange `json:"changed"`
	// TextNote says why rule texts are not shown ("" when they are).
	TextNote string `json:"text_note,omitempty"`
}

// RuleChange is a rule both runs hold that differs between them.
type RuleChange struct {
	ID   string   `json:"rule_id"`
	Base RuleInfo `json:"base"`
	Head RuleInfo `json:"head"`
	// Text is a line diff of the rule's policy text ("- " base, "+ " head,
	// "  " both), empty when the texts are unknown or equal.
	Text []string `json:"text_diff,omitempty"`
}

// Empty reports whether the rules are the same on both sides.
func (p *PolicyDiff) Empty() bool {
	return p == nil || len(p.OnlyBase)+len(p.OnlyHead)+len(p.Changed) == 0
}

func policyRules(b, h map[string]*RuleInfo) *PolicyDiff {
	p := &PolicyDiff{}
	for id, rb := range b {
		rh, ok := h[id]
		switch {
		case !ok:
			p.OnlyBase = append(p.OnlyBase, *rb)
		case *rb != *rh:
			p.Changed = append(p.Changed, RuleChange{ID: id, Base: *rb, Head: *rh})
		}
	}
	for id, rh := range h {
		if _, ok := b[id]; !ok {
			p.OnlyHead = append(p.OnlyHead, *rh)
		}
	}
	sort.Slice(p.OnlyBase, func(i, j int) bool { return p.OnlyBase[i].ID < p.OnlyBase[j].ID })
	sort.Slice(p.OnlyHead, func(i, j int) bool { return p.OnlyHead[i].ID < p.OnlyHead[j].ID })
	sort.Slice(p.Changed, func(i, j int) bool { return p.Changed[i].ID < p.Changed[j].ID })
	return p
}

// loadPolicy reads the policy a run recorded, when its file is still there
// with the same content (the embedded sample's is always there).
func loadPolicy(ref *rundir.FileRef) (*replay.Policy, string) {
	if ref == nil {
		return nil, "the run recorded no policy file"
	}
	var data []byte
	if ref.Name == "sample:policy.toml" {
		data = datasets.SamplePolicy()
	} else {
		var err error
		if data, err = os.ReadFile(ref.Name); err != nil {
			return nil, fmt.Sprintf("%s cannot be read (%v)", ref.Name, err)
		}
	}
	if ref.SHA256 != "" {
		sum := sha256.Sum256(data)
		if hex.EncodeToString(sum[:]) != ref.SHA256 {
			return nil, fmt.Sprintf("%s changed since the run (its SHA-256 differs from run.json's)", ref.Name)
		}
	}
	p, err := replay.ParsePolicy(data, ref.Name)
	if err != nil {
		return nil, fmt.Sprintf("%s: %v", ref.Name, err)
	}
	return p, ""
}

// addTexts fills the rule texts' diffs from the two runs' policy files, and
// lists rules the decision rows do not show (never in scope) from them.
func (p *PolicyDiff) addTexts(base, head rundir.RunInfo) {
	if base.Policy != nil && head.Policy != nil && base.Policy.SHA256 != "" && base.Policy.SHA256 == head.Policy.SHA256 {
		p.Same = true
	}
	pb, nb := loadPolicy(base.Policy)
	ph, nh := loadPolicy(head.Policy)
	if pb == nil || ph == nil {
		var notes []string
		for _, n := range []string{nb, nh} {
			if n != "" {
				notes = append(notes, n)
			}
		}
		p.TextNote = "rule texts not shown: " + strings.Join(notes, "; ")
		return
	}
	tb, th := map[string]*replay.Rule{}, map[string]*replay.Rule{}
	for _, r := range pb.Rules {
		tb[r.ID] = r
	}
	for _, r := range ph.Rules {
		th[r.ID] = r
	}
	known := map[string]bool{}
	for i := range p.Changed {
		known[p.Changed[i].ID] = true
	}
	for _, r := range p.OnlyBase {
		known[r.ID] = true
	}
	for _, r := range p.OnlyHead {
		known[r.ID] = true
	}
	// Rules whose text differs though the rows agree (or that were never in
	// scope) are changes too.
	for id, rb := range tb {
		rh, ok := th[id]
		if !ok {
			if !known[id] {
				p.OnlyBase = append(p.OnlyBase, RuleInfo{ID: id, Version: rb.Version, Class: rb.Class, Action: rb.Action})
			}
			continue
		}
		if !known[id] && ruleText(rb) != ruleText(rh) {
			p.Changed = append(p.Changed, RuleChange{ID: id,
				Base: RuleInfo{ID: id, Version: rb.Version, Class: rb.Class, Action: rb.Action},
				Head: RuleInfo{ID: id, Version: rh.Version, Class: rh.Class, Action: rh.Action}})
		}
	}
	for id, rh := range th {
		if _, ok := tb[id]; !ok && !known[id] {
			p.OnlyHead = append(p.OnlyHead, RuleInfo{ID: id, Version: rh.Version, Class: rh.Class, Action: rh.Action})
		}
	}
	for i := range p.Changed {
		c := &p.Changed[i]
		if rb, rh := tb[c.ID], th[c.ID]; rb != nil && rh != nil {
			c.Text = lineDiff(strings.Split(ruleText(rb), "\n"), strings.Split(ruleText(rh), "\n"))
		}
	}
	sort.Slice(p.OnlyBase, func(i, j int) bool { return p.OnlyBase[i].ID < p.OnlyBase[j].ID })
	sort.Slice(p.OnlyHead, func(i, j int) bool { return p.OnlyHead[i].ID < p.OnlyHead[j].ID })
	sort.Slice(p.Changed, func(i, j int) bool { return p.Changed[i].ID < p.Changed[j].ID })
}

// ruleText is a rule as the lines a reader compares: the condition the
// judge sees, the action, class, scope and the deterministic parts.
func ruleText(r *replay.Rule) string {
	var b strings.Builder
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%s = %s\n", k, v)
		}
	}
	line("version", fmt.Sprint(r.Version))
	line("condition", fmt.Sprintf("%q", r.Condition))
	line("action", string(r.Action))
	line("class", string(r.Class))
	line("hook_points", strings.Join(r.HookPoints, ", "))
	line("categories", strings.Join(r.Categories, ", "))
	line("tools", strings.Join(r.Tools, ", "))
	line("pieces", strings.Join(r.Pieces, ", "))
	line("movements", strings.Join(r.Movements, ", "))
	if r.MaxFires > 0 {
		line("max_fires", fmt.Sprint(r.MaxFires))
	}
	if r.When != nil {
		line("when", jsonText(r.When))
	}
	if r.Baseline != nil {
		line("baseline", jsonText(r.Baseline))
	}
	if r.Boundary != nil {
		line("boundary", jsonText(r.Boundary))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// jsonText is v's exported fields as JSON (matchers hold compiled state).
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(err)
	}
	return string(b)
}

// lineDiff is a longest-common-subsequence line diff: "  " lines both
// hold, "- " the base's only, "+ " the head's only.
func lineDiff(a, b []string) []string {
	n, m := len(a), len(b)
	l := make([][]int, n+1)
	for i := range l {
		l[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	var out []string
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			out = append(out, "  "+a[i])
			i++
			j++
		case i < n && (j == m || l[i+1][j] >= l[i][j+1]):
			out = append(out, "- "+a[i])
			i++
		default:
			out = append(out, "+ "+b[j])
			j++
		}
	}
	return out
}
