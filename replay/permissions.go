package replay

import (
	"strings"

	"github.com/apeval/apeval/replay/permimport"
)

// Permissions is the pattern-based permissions layer (docs/policy.md): rules are
// tried in order and the first whose tool and pattern both match gives the
// action; otherwise DefaultAction applies.
type Permissions struct {
	DefaultAction string
	Rules         []PermissionRule
	// Imported are the agents' own permission files ([permissions] import,
	// --permissions-from); see DecideCall.
	Imported []permimport.Source
}

// PermissionRule is one [[permissions.rule]].
type PermissionRule struct {
	// Tool is a tool name compared case-insensitively, or "*" for any tool.
	Tool string
	// Pattern is a glob over the call's primary argument (see Matcher).
	Pattern string
	Action  string

	glob glob
}

// Decide returns allow, deny or ask for a call with the given tool name and
// primary argument. A nil *Permissions (no table) returns off.
func (p *Permissions) Decide(tool, primary string) string {
	if p == nil {
		return PermissionOff
	}
	for i := range p.Rules {
		r := &p.Rules[i]
		if r.Tool != "*" && !strings.EqualFold(r.Tool, tool) {
			continue
		}
		if r.glob.match(primary) {
			return r.Action
		}
	}
	return p.DefaultAction
}
