package replay

import (
	"fmt"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay/permimport"
)

// DecideCall is Decide with the agents' imported permission files: the
// first [[permissions.rule]] that matches (docs/policy.md) and every imported
// source that has a rule for the call each give a decision, and the
// strictest wins (deny > ask > allow); when none speaks, DefaultAction
// applies. Without imports it is Decide.
func (p *Permissions) DecideCall(tool, primary string, args map[string]any, workspace string) string {
	if p == nil {
		return PermissionOff
	}
	if len(p.Imported) == 0 {
		return p.Decide(tool, primary)
	}
	d := ""
	for i := range p.Rules {
		r := &p.Rules[i]
		if (r.Tool == "*" || equalFold(r.Tool, tool)) && r.glob.match(primary) {
			d = r.Action
			break
		}
	}
	call := permimport.Call{Tool: tool, Args: args, Workspace: workspace}
	for _, src := range p.Imported {
		d = permimport.Strictest(d, src.Decide(call))
	}
	if d == "" {
		return p.DefaultAction
	}
	return d
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// permissionImports loads `[permissions] import = ["KIND:PATH", …]`.
func (v *validator) permissionImports(specs []string, perm *Permissions) {
	for i, spec := range specs {
		src, err := permimport.Load(spec)
		if err != nil {
			v.errf(fmt.Sprintf("permissions.import[%d]", i), "%v", err)
			continue
		}
		perm.Imported = append(perm.Imported, src)
	}
}

// AddPermissionImports adds the agents' permission files given as
// KIND:PATH (--permissions-from) to a loaded policy, turning its
// permissions layer on (default_action ask) when it had none.
func AddPermissionImports(p *Policy, specs []string) error {
	if len(specs) == 0 {
		return nil
	}
	if p.Permissions == nil {
		p.Permissions = &Permissions{DefaultAction: PermissionAsk}
	}
	for _, spec := range specs {
		src, err := permimport.Load(spec)
		if err != nil {
			return fmt.Errorf("--permissions-from %w", err)
		}
		p.Permissions.Imported = append(p.Permissions.Imported, src)
	}
	return nil
}

// Permission returns what the policy's permissions layer (imports
// included) decides for a case: allow, ask, deny, or off without a
// [permissions] table. `datasets stats` counts it.
func (p *Policy) Permission(c *datasets.Case) string {
	if p.Permissions == nil {
		return PermissionOff
	}
	var f facts
	f.reset(c, p.Categories)
	prim, _ := f.primary()
	return p.Permissions.DecideCall(c.Tool.Name, prim, c.Tool.Arguments, c.Workspace)
}
