package diff

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/apeval/apeval/reports"
)

// WriteJSON writes the summary as indented JSON (docs/diff.md).
func (s *Summary) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// WriteText writes the terminal report: the partial-overlap banner first
// when there is one, the counts, the gate transitions, the top loosened
// cases, the rules that moved and the policy's rule changes.
func (s *Summary) WriteText(w io.Writer) error {
	var b strings.Builder
	if ban := s.Overlap.Banner(); ban != "" {
		fmt.Fprintf(&b, "%s\n", ban)
	}
	fmt.Fprintf(&b, "diff: base %s (%s) → head %s (%s)\n", s.Base.Dir, s.Base.Judge, s.Head.Dir, s.Head.Judge)
	n := s.Counts
	fmt.Fprintf(&b, "%d cases in common: %d loosened, %d tightened, %d changed, %d unchanged\n",
		n.Cases, n.Loosened, n.Tightened, n.Changed, n.Unchanged)
	labels, fixed, broken := "labels", "fixed", "broken"
	if s.LabelSource == "weak" {
		labels, fixed, broken = "weak labels (run --weak-labels: users' overrides, not reviews)", "fixed (weak)", "broken (weak)"
	}
	fmt.Fprintf(&b, "%s: %d cases fixed, %d broken, %d mixed (%d rule results fixed, %d broken)\n",
		labels, n.Fixed, n.Broken, n.Mixed, n.FixedRules, n.BrokenRules)
	if n.Flaky+n.Stable > 0 {
		fmt.Fprintf(&b, "repeats: %d changed cases flaky (some repeat of each side agrees), %d stable\n", n.Flaky, n.Stable)
	}
	fmt.Fprintf(&b, "%d sessions diverge; %d cases differ in a rule's answer\n", n.Sessions, n.AnswersChanged)
	if l := s.hookLine(); l != "" {
		fmt.Fprintf(&b, "%s\n", l)
	}
	var tables []*reports.Table
	if len(s.Transitions) > 0 {
		t := reports.NewTable("gate", "cases", "class").Plain()
		for _, tr := range s.Transitions {
			t.Add(fmt.Sprintf("%s → %s", tr.From, tr.To), fmt.Sprint(tr.Cases), tr.Class)
		}
		tables = append(tables, t)
	}
	if len(s.TopLoosened) > 0 {
		t := reports.NewTable("top loosened", "session#seq", "tool", "gate", "fired (base → head)").Plain()
		for _, c := range s.TopLoosened {
			id := c.CaseID
			if c.HookRewritten {
				id += " " + HookMark
			}
			t.Add(id, fmt.Sprintf("%s#%d", c.SessionID, c.Seq), c.Tool,
				fmt.Sprintf("%s → %s", c.Base.Gate, c.Head.Gate), list(c.Base.Fired)+" → "+list(c.Head.Fired))
		}
		tables = append(tables, t)
	}
	if len(s.HookRewrittenCases) > 0 {
		t := reports.NewTable(hookHeader, "session#seq", "tool", "class", "gate", "fired (base → head)").Plain()
		for _, c := range s.HookRewrittenCases {
			t.Add(c.CaseID+" "+HookMark, fmt.Sprintf("%s#%d", c.SessionID, c.Seq), c.Tool, c.Class,
				fmt.Sprintf("%s → %s", c.Base.Gate, c.Head.Gate), list(c.Base.Fired)+" → "+list(c.Head.Fired))
		}
		tables = append(tables, t)
	}
	if len(s.Rules) > 0 {
		t := reports.NewTable("rule", "fires only head", "fires only base", fixed, broken).Plain()
		for _, r := range s.Rules {
			t.Add(r.Rule, fmt.Sprint(r.On), fmt.Sprint(r.Off), fmt.Sprint(r.Fixed), fmt.Sprint(r.Broken))
		}
		tables = append(tables, t)
	}
	for _, t := range tables {
		b.WriteString("\n")
		if err := t.Write(&b, reports.FormatTable); err != nil {
			return err
		}
	}
	if p := s.Policy; !p.Empty() {
		b.WriteString("\npolicy:\n")
		for _, r := range p.OnlyBase {
			fmt.Fprintf(&b, "  only in base: %s (v%d, %s, %s)\n", r.ID, r.Version, r.Class, r.Action)
		}
		for _, r := range p.OnlyHead {
			fmt.Fprintf(&b, "  only in head: %s (v%d, %s, %s)\n", r.ID, r.Version, r.Class, r.Action)
		}
		for _, c := range p.Changed {
			fmt.Fprintf(&b, "  changed: %s (v%d → v%d)\n", c.ID, c.Base.Version, c.Head.Version)
			for _, l := range c.Text {
				if !strings.HasPrefix(l, "  ") {
					fmt.Fprintf(&b, "    %s\n", l)
				}
			}
		}
		if p.TextNote != "" {
			fmt.Fprintf(&b, "  (%s)\n", p.TextNote)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// HookMark follows, in the text output's lists, a case where auto mode's
// side judged an input a PreToolUse hook changed.
const HookMark = "[hook-rewritten]"

// hookHeader heads the text output's list of the differing cases auto
// mode judged on a hook's input, whatever their class (top loosened holds
// loosened cases only: a tightened one would be marked nowhere).
const hookHeader = "hook-rewritten, differing"

// hookLine is the text output's line on the cases where auto mode judged an
// input a PreToolUse hook changed, "" when neither judge is auto mode or no
// case in common is one.
func (s *Summary) hookLine() string {
	switch {
	case s.AutoMode == "":
		return ""
	case s.HookNote != "":
		return fmt.Sprintf("%s judged the input a PreToolUse hook changed where one did (provenance.hook_updated_input), the other side the model's input; "+
			"the cases where that happened cannot be marked: %s", s.AutoMode, s.HookNote)
	case s.Counts.HookRewritten == 0:
		return ""
	}
	listed := ""
	if n, k := s.Counts.HookRewrittenDiffering, int64(len(s.HookRewrittenCases)); n > 0 {
		listed = fmt.Sprintf(", marked %s and listed under %q", HookMark, hookHeader)
		if k < n {
			listed = fmt.Sprintf(", marked %s; %d listed under %q (--top), all of them in diff.parquet's hook_rewritten column (--out DIR)", HookMark, k, hookHeader)
		}
	}
	return fmt.Sprintf("%d cases in common (%d of them differing%s) carry %s's decision on an input a PreToolUse hook changed (provenance.hook_updated_input): "+
		"it judged what ran, the other side the model's input, so a difference on them may come from the input alone; diff --out DIR shows both inputs in diff.html",
		s.Counts.HookRewritten, s.Counts.HookRewrittenDiffering, listed, s.AutoMode)
}

func list(s []string) string {
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, ",")
}

// CommentBlock is the pull-request comment's "what changes" block
// (Markdown): the loosened count first, the other classes and the labels'
// verdict on them, the top five loosened calls, and a link to diff.html at
// url ("" leaves the link out).
func (s *Summary) CommentBlock(url string) string {
	var b strings.Builder
	n := s.Counts
	b.WriteString("\n### What changes\n\n")
	if ban := s.Overlap.Banner(); ban != "" {
		fmt.Fprintf(&b, "⚠️ %s.\n\n", ban)
	}
	fmt.Fprintf(&b, "**%d loosened** (the gate would now be weaker), %d tightened, %d changed, of %d calls", n.Loosened, n.Tightened, n.Changed, n.Cases)
	if n.Fixed+n.Broken+n.Mixed > 0 {
		labels := "labels"
		if s.LabelSource == "weak" {
			labels = "weak labels (users' overrides)"
		}
		fmt.Fprintf(&b, "; %s: %d fixed, %d broken", labels, n.Fixed, n.Broken)
		if n.Mixed > 0 {
			fmt.Fprintf(&b, ", %d mixed", n.Mixed)
		}
	}
	if n.Flaky > 0 {
		fmt.Fprintf(&b, "; %d flaky", n.Flaky)
	}
	b.WriteString(".\n")
	top := s.TopLoosened
	if len(top) > 5 {
		top = top[:5]
	}
	if s.AutoMode != "" && n.HookRewrittenDiffering > 0 {
		marked := 0
		for _, c := range top {
			if c.HookRewritten {
				marked++
			}
		}
		where := fmt.Sprintf("%d listed below, marked", marked)
		if marked == 0 {
			where = "not among the loosened calls listed here; diff.html tags each"
		}
		fmt.Fprintf(&b, "\nHook-rewritten: %d of the calls that differ (%s). %s judged the input a PreToolUse hook made, the other side the model's input.\n",
			n.HookRewrittenDiffering, where, mdCell(s.AutoMode))
	}
	if len(top) > 0 {
		b.WriteString("\n| loosened call | session#seq | tool | gate (base → head) | rules (base → head) |\n|---|---|---|---|---|\n")
		for _, c := range top {
			label := ""
			if c.BrokenRules > 0 {
				label = " (broken)"
			}
			if c.HookRewritten {
				label += " (hook-rewritten)"
			}
			fmt.Fprintf(&b, "| `%s`%s | %s#%d | `%s` | %s → **%s** | %s → %s |\n", mdCell(c.CaseID), label, mdCell(c.SessionID), c.Seq, mdCell(c.Tool),
				c.Base.Gate, c.Head.Gate, mdCell(list(c.Base.Fired)), mdCell(list(c.Head.Fired)))
		}
	}
	if url != "" {
		fmt.Fprintf(&b, "\n🔎 **[diff.html](%s)**: every changed call side by side, with filters and search.\n", url)
	}
	b.WriteString("\n")
	return b.String()
}

// mdCell keeps a value from breaking a Markdown table row.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "`", "'").Replace(s)
}
