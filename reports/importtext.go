package reports

// The summaries the import verbs print on stderr (apeval datasets import,
// apeval policy import) and the table of apeval policy coverage.

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/apeval/apeval/datasets/importers"
	"github.com/apeval/apeval/replay/automode"
)

// WriteImportSummary prints one line per source and a total.
func WriteImportSummary(w io.Writer, s *importers.Summary) {
	for _, src := range s.Sources {
		fmt.Fprintf(w, "%s: %d records, %d cases, %d sessions, %d unreadable%s\n",
			src.Source, src.Records, src.Cases, src.Sessions, src.ErrCount, skippedText(src.Skipped))
		for _, gate := range []string{"auto mode", "auto-review"} {
			if counts := gateNotes(src.Notes, gate); counts != "" {
				fmt.Fprintf(w, "%s: %s: %s\n", src.Source, gate, counts)
			}
		}
		for _, warn := range src.Warnings {
			fmt.Fprintf(w, "%s: warning: %s\n", src.Source, warn)
		}
	}
	fmt.Fprintf(w, "%s: %d sources, %d records, %d cases, %d sessions, %d unreadable%s\n",
		s.Format, len(s.Sources), s.Records, s.Cases, s.Sessions, s.Errors, skippedText(s.Skipped))
}

// WriteImportFound says which agents' logs an import found under the
// project roots it was given (nothing when it was given logs), one line
// per store: "found under ROOT: .crush/crush.db (opencode: Charm Crush's
// database)", ".claude/logs/ (claude-code-hooks, 2 files)".
func WriteImportFound(w io.Writer, s *importers.Summary) {
	if len(s.Stores) == 0 {
		return
	}
	fmt.Fprintf(w, "datasets import: %s: read the agents' logs found there (--from FORMAT LOG to read one alone):\n", strings.Join(s.Roots, ", "))
	for _, st := range s.Stores {
		what := st.Format
		if st.What != "" {
			what += ": " + st.What
		}
		if n := st.Files(); n > 1 {
			what += fmt.Sprintf(", %d files", n)
		}
		path := st.Path
		if len(s.Roots) > 1 {
			path = filepath.ToSlash(filepath.Join(st.Root, st.Path))
			if strings.HasSuffix(st.Path, "/") {
				path += "/"
			}
		}
		fmt.Fprintf(w, "  %s (%s)\n", path, what)
	}
}

// skippedText is "; skipped N (reason n, …)", "" when nothing was.
func skippedText(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	total := 0
	for k, v := range m {
		keys = append(keys, k)
		total += v
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return fmt.Sprintf("; skipped %d (%s)", total, strings.Join(parts, ", "))
}

// gateNotes lists the outcomes of an agent's own gate an import counted
// under "GATE: outcome" (auto mode's classifier, Codex's auto-review;
// docs/vendor-judges.md), "" when none.
func gateNotes(notes map[string]int, gate string) string {
	var parts []string
	for k, n := range notes {
		if what, ok := strings.CutPrefix(k, gate+": "); ok {
			parts = append(parts, fmt.Sprintf("%s %d", what, n))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// WritePolicySummary prints what apeval policy import --from
// claude-auto-mode read (per settings file, the $defaults, warnings) and
// wrote to out ("-" is stdout).
func WritePolicySummary(w io.Writer, s *automode.Summary, out string) {
	for _, src := range s.Sources {
		fmt.Fprintf(w, "%s (%s): %s\n", src.Path, src.Kind, entryCounts(src.Entries))
	}
	fmt.Fprintf(w, "$defaults: %s\n", s.Defaults)
	for _, warn := range s.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	if out == "-" {
		out = "stdout"
	}
	fmt.Fprintf(w, "policy import: %s; %d rules, %d call shapes that never reach the classifier%s → %s\n",
		entryCounts(s.Entries), s.Rules, s.Tiers, skippedText(s.Skipped), out)
}

// WriteCodexSummary prints what apeval policy import --from
// codex-auto-review read and wrote to out ("-" is stdout).
func WriteCodexSummary(w io.Writer, s *automode.CodexSummary, out string) {
	for _, src := range s.Sources {
		if src.Kind == automode.CodexRules {
			fmt.Fprintf(w, "%s (%s): %d prefix rules\n", src.Path, src.Kind, src.PrefixRules)
			continue
		}
		keys := "no setting the import uses"
		if len(src.Keys) > 0 {
			keys = strings.Join(src.Keys, ", ")
		}
		fmt.Fprintf(w, "%s (%s): %s\n", src.Path, src.Kind, keys)
	}
	fmt.Fprintf(w, "reviewer policy: %s\n", s.Policy)
	for _, warn := range s.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	if out == "-" {
		out = "stdout"
	}
	fmt.Fprintf(w, "policy import: prefix rules allow %d, prompt %d, forbidden %d; %d rules, %d call shapes that never reach the reviewer%s → %s\n",
		s.PrefixRules["allow"], s.PrefixRules["prompt"], s.PrefixRules["forbidden"], s.Rules, s.Tiers, skippedText(s.Skipped), out)
}

// entryCounts counts autoMode list entries by key, in the keys' order.
func entryCounts(m map[string]int) string {
	var parts []string
	for _, k := range automode.Keys {
		if n, ok := m[k]; ok {
			parts = append(parts, fmt.Sprintf("%s %d", k, n))
		}
	}
	if len(parts) == 0 {
		return "no autoMode lists"
	}
	return strings.Join(parts, ", ")
}

// WriteCoverage prints apeval policy coverage's tables (per tool and per
// category, each with its total) and the classifier's coverage; list adds
// the calls it never saw.
func WriteCoverage(w io.Writer, cv *automode.Coverage, list bool) {
	for i, t := range []struct {
		key  string
		rows []automode.CoverageRow
	}{{"tool", cv.ByTool}, {"category", cv.ByCat}} {
		if i > 0 {
			fmt.Fprintln(w)
		}
		_ = coverageGrid(t.key, append(slices.Clip(t.rows), cv.Total)).render(w, FormatTable)
	}
	reasons := make([]string, 0, len(cv.Reasons))
	for k, n := range cv.Reasons {
		reasons = append(reasons, fmt.Sprintf("%s %d", k, n))
	}
	slices.Sort(reasons)
	fmt.Fprintf(w, "\nclassifier coverage: %d of %d calls reached it (%s); not reached: %s\n",
		cv.Total.Reached, cv.Total.Calls, pct(cv.Total.Reached, cv.Total.Calls), strings.Join(reasons, ", "))
	if list {
		for _, n := range cv.NotReached {
			fmt.Fprintf(w, "not reached: %s %s (%s): %s\n", n.CaseID, n.Tool, n.Category, n.Reason)
		}
		if !cv.NotReachedListed {
			fmt.Fprintf(w, "(the first %d listed; --json has the counts of all)\n", automode.MaxListed)
		}
	}
}

// pct is a/b as a percentage, N/A when b is 0.
func pct(a, b int) string {
	if b == 0 {
		return "N/A"
	}
	return fmt.Sprintf("%.1f %%", 100*float64(a)/float64(b))
}

// coverageGrid is one of policy coverage's tables: a row per key (tool or
// category), the numbers right-aligned.
func coverageGrid(key string, rows []automode.CoverageRow) *grid {
	g := &grid{header: []string{key, "calls", "reached", "not reached", "coverage", "vendor blocked", "ran", "failed",
		"reached, no recording", "classifier on not reached"}}
	g.right = make([]bool, len(g.header))
	for i := 1; i < len(g.right); i++ {
		g.right[i] = true
	}
	for _, r := range rows {
		g.add(r.Key, strconv.Itoa(r.Calls), strconv.Itoa(r.Reached), strconv.Itoa(r.NotReached), pct(r.Reached, r.Calls),
			strconv.Itoa(r.Blocked), strconv.Itoa(r.Ran), strconv.Itoa(r.Failed), strconv.Itoa(r.NoRecording), strconv.Itoa(r.RecordedUnseen))
	}
	return g
}
