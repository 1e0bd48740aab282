package samplegen

import (
	"path"
	"slices"
	"strings"

	"github.com/apeval/apeval/datasets"
)

// The generator's model of the deterministic facts of docs/replay.md, for the simple
// calls the scenarios write (no quoting tricks, no nested shells). It is
// what lets the generator say which rules go to the judge and what the gate
// should do; TestSampleAgreesWithReplay checks it against the replay package.

// category is the call's category: the explicit one, else the built-in map.
func category(c *datasets.Case) string {
	if c.Tool.Category != "" {
		return c.Tool.Category
	}
	return datasets.CategoryOf(c.Tool.Name)
}

// primary is the call's primary argument: command, file_path, path, url,
// query, else the string argument with the smallest key.
func primary(args map[string]any) string {
	for _, k := range []string{"command", "file_path", "path", "url", "query"} {
		if s, ok := args[k].(string); ok {
			return s
		}
	}
	keys := make([]string, 0, len(args))
	for k, v := range args {
		if _, ok := v.(string); ok {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return ""
	}
	slices.Sort(keys)
	return args[keys[0]].(string)
}

// simpleCommands splits a command line at &&, ||, ;, | and returns the
// words of each simple command, leading VAR=value assignments and sudo
// skipped.
func simpleCommands(cmd string) [][]string {
	r := strings.NewReplacer("&&", "\x00", "||", "\x00", ";", "\x00", "|", "\x00")
	var out [][]string
	for part := range strings.SplitSeq(r.Replace(cmd), "\x00") {
		words := strings.Fields(part)
		for len(words) > 0 && (strings.Contains(words[0], "=") || words[0] == "sudo") {
			words = words[1:]
		}
		if len(words) > 0 {
			out = append(out, words)
		}
	}
	return out
}

// hasPrefix reports whether a simple command of the call's command starts
// with one of the prefixes ("git push").
func hasPrefix(c *datasets.Case, prefixes ...string) bool {
	cmd, ok := c.Tool.Arguments["command"].(string)
	if !ok {
		cmd = primary(c.Tool.Arguments)
	}
	for _, words := range simpleCommands(cmd) {
		for _, p := range prefixes {
			pw := strings.Fields(p)
			if len(words) >= len(pw) && slices.Equal(words[:len(pw)], pw) {
				return true
			}
		}
	}
	return false
}

// network: category web_search or external_send, a url argument, or a
// simple command that is curl, wget, ssh, scp or nc.
func network(c *datasets.Case) bool {
	switch category(c) {
	case "web_search", "external_send":
		return true
	}
	if u, ok := c.Tool.Arguments["url"].(string); ok && u != "" {
		return true
	}
	if _, ok := c.Tool.Arguments["command"].(string); !ok {
		return false
	}
	return hasPrefix(c, "curl", "wget", "ssh", "scp", "nc")
}

// outsideWorkspace: the call's path (file_path, path, cwd, target) resolves
// outside the workspace.
func outsideWorkspace(c *datasets.Case) bool {
	if c.Workspace == "" {
		return false
	}
	for _, k := range []string{"file_path", "path", "cwd", "target"} {
		p, ok := c.Tool.Arguments[k].(string)
		if !ok || p == "" {
			continue
		}
		if !path.IsAbs(p) {
			p = path.Join(c.Workspace, p)
		}
		p, ws := path.Clean(p), path.Clean(c.Workspace)
		return p != ws && !strings.HasPrefix(p, ws+"/")
	}
	return false
}

// crossesWorkspace: a write, deletion or command outside the workspace.
func crossesWorkspace(c *datasets.Case) bool {
	switch category(c) {
	case "file_change", "data_deletion", "command_execution":
		return outsideWorkspace(c)
	}
	return false
}

// glob matches s against a pattern where * matches any run of characters
// (slashes and spaces included) and everything else is literal.
func glob(pattern, s string) bool {
	star := strings.IndexByte(pattern, '*')
	if star < 0 {
		return pattern == s
	}
	if !strings.HasPrefix(s, pattern[:star]) {
		return false
	}
	rest := pattern[star+1:]
	for i := star; i <= len(s); i++ {
		if glob(rest, s[i:]) {
			return true
		}
	}
	return false
}

// permission is the permissions layer's answer for a call.
func permission(c *datasets.Case) string {
	prim := primary(c.Tool.Arguments)
	for _, r := range permissionRules {
		if (r.tool == "*" || strings.EqualFold(r.tool, c.Tool.Name)) && glob(r.pattern, prim) {
			return r.action
		}
	}
	return "allow"
}

// inScope applies the rule's scope keys (all rules are tool.before only).
func inScope(rule string, c *datasets.Case) bool {
	if c.HookPoint != "" && c.HookPoint != "tool.before" {
		return false
	}
	if cats, ok := ruleCategories[rule]; ok && !slices.Contains(cats, category(c)) {
		return false
	}
	if rule == rNetwork && c.Piece != "batch" {
		return false
	}
	return true
}

// when evaluates a rule's [rule.when] (true for rules without one).
func when(rule string, c *datasets.Case) bool {
	switch rule {
	case rPush:
		return hasPrefix(c, "git push")
	case rDelete:
		return hasPrefix(c, "rm", "shred", "rmdir", "truncate", "find", "git clean", "dd")
	case rSecret:
		return network(c)
	case rCommit:
		return hasPrefix(c, "git commit")
	case rProdOps:
		h, ok := c.Tool.Arguments["host"].(string)
		return ok && glob("prod-*", h)
	case rAccess:
		return hasPrefix(c, "chmod", "chown", "usermod", "setfacl", "aws iam")
	case rMalformed:
		return !c.Tool.Valid()
	}
	return true
}

// actionRank orders gate actions (see docs/replay.md).
func actionRank(a datasets.Action) int {
	switch a {
	case "stop_task":
		return 5
	case "deny_current_tool":
		return 4
	case "request_approval":
		return 3
	case "inject_instruction":
		return 2
	case "audit_only", "notify_admin":
		return 1
	}
	return 0
}
