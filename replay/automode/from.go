package automode

import (
	"errors"
	"io"
)

// The settings formats apeval policy import reads (--from).
const (
	FromClaude = "claude-auto-mode"
	FromCodex  = "codex-auto-review"
)

// Formats are the --from values, in help order.
var Formats = []string{FromClaude, FromCodex}

// ImportFrom writes the policy of an agent's own gate from its settings
// files in format from (Formats) to w: Claude Code's auto mode
// (ImportRules, with the built-in lists of defaultsPath when set) or
// Codex's auto-review (ImportCodex, which has no built-in lists to
// replace). rules chooses the rules written (RuleSets). The summary is a
// *Summary or a *CodexSummary.
func ImportFrom(from string, settings []string, defaultsPath, rules string, w io.Writer) (any, error) {
	if from == FromCodex {
		if defaultsPath != "" {
			return nil, errors.New("--defaults is Claude Code's built-in lists; --from codex-auto-review has none")
		}
		return ImportCodex(settings, rules, w)
	}
	return ImportRules(settings, defaultsPath, rules, w)
}
