package reports

import (
	"strings"

	"github.com/apeval/apeval/datasets"
)

// AutoModePrefix begins the identity of Claude Code's auto-mode classifier
// imported as a recorded judge (recorded/claude-auto-mode@2.1.x,
// docs/vendor-judges.md).
const AutoModePrefix = "recorded/claude-auto-mode@"

// IsAutoMode reports whether judge (an identity, or one a comparison
// renamed "ID [dir]") is auto mode's recorded decisions.
func IsAutoMode(judge string) bool { return strings.HasPrefix(judge, AutoModePrefix) }

// JudgedArguments is the tool input judge decided on for c. Auto mode
// decided on the input a PreToolUse hook changed, where one did
// (provenance.hook_updated_input, masked at import); every other judge is
// given the case's own arguments, the model's. changed says the hook's
// input was returned.
func JudgedArguments(judge string, c *datasets.Case) (args map[string]any, changed bool) {
	if IsAutoMode(judge) {
		if in, ok := c.Provenance["hook_updated_input"].(map[string]any); ok {
			return in, true
		}
	}
	return c.Tool.Arguments, false
}
