package permimport

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Claude Code settings.json "permissions": {"allow": [...], "ask": [...],
// "deny": [...], "defaultMode": ...}. Rules are "Tool" (every use) or
// "Tool(specifier)":
//
//   - Bash(npm run build) is the exact command; Bash(npm run test:*) and
//     Bash(npm run test *) match the command and anything after it as
//     further words; another * is any text. Shell operators split a
//     command: a deny or ask rule matching any part applies, an allow rule
//     must match every part.
//   - Read(pattern) / Edit(pattern) follow gitignore: //abs is an absolute
//     path, ~/p under the home directory, /p relative to the project (the
//     directory holding .claude/), p or ./p relative to the working
//     directory; * stays within a directory, ** crosses them, a pattern
//     without a slash matches at any depth. Edit rules cover every tool
//     that edits files (Edit, Write, MultiEdit, NotebookEdit); Read rules
//     also Glob, Grep and LS.
//   - WebFetch(domain:example.com) matches fetches of that host.
//   - Agent(Explore) (Task(Explore) before 2.1.63) matches spawning the
//     sub-agent Explore (subagent_type); Agent(model:opus) a call whose
//     input parameter model is opus (* is any text).
//   - mcp__server and mcp__server__* match every tool of an MCP server.
//
// deny is checked first, then ask, then allow. A call no rule matches gets
// no decision, except Claude Code's read-only tools, which never ask.
type claudeSource struct {
	name             string
	projectDir       string
	home             string
	deny, ask, allow []claudeRule
	mode             string
}

type claudeRule struct {
	tool string // as written
	spec string // inside the parentheses; "" for the whole tool
	has  bool   // a specifier was given
}

func parseClaude(data []byte, file string) (Source, error) {
	var s struct {
		Permissions struct {
			Allow       []string `json:"allow"`
			Ask         []string `json:"ask"`
			Deny        []string `json:"deny"`
			DefaultMode string   `json:"defaultMode"`
		} `json:"permissions"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	abs, _ := filepath.Abs(file)
	proj := filepath.Dir(abs)
	if filepath.Base(proj) == ".claude" {
		proj = filepath.Dir(proj)
	}
	home, _ := os.UserHomeDir()
	src := &claudeSource{name: "claude-code:" + file, projectDir: proj, home: home, mode: s.Permissions.DefaultMode}
	for _, l := range []struct {
		in  []string
		out *[]claudeRule
		key string
	}{{s.Permissions.Deny, &src.deny, "deny"}, {s.Permissions.Ask, &src.ask, "ask"}, {s.Permissions.Allow, &src.allow, "allow"}} {
		for i, r := range l.in {
			cr, err := parseClaudeRule(r)
			if err != nil {
				return nil, fmt.Errorf("permissions.%s[%d]: %w", l.key, i, err)
			}
			*l.out = append(*l.out, cr)
		}
	}
	return src, nil
}

func parseClaudeRule(r string) (claudeRule, error) {
	r = strings.TrimSpace(r)
	open := strings.IndexByte(r, '(')
	if open < 0 {
		if r == "" {
			return claudeRule{}, fmt.Errorf("empty rule")
		}
		return claudeRule{tool: r}, nil
	}
	if !strings.HasSuffix(r, ")") || open == 0 {
		return claudeRule{}, fmt.Errorf("%q: want Tool or Tool(specifier)", r)
	}
	return claudeRule{tool: r[:open], spec: r[open+1 : len(r)-1], has: true}, nil
}

func (s *claudeSource) String() string { return s.name }

var (
	claudeEditTools = []string{"Edit", "Write", "MultiEdit", "NotebookEdit"}
	claudeReadTools = []string{"Read", "Glob", "Grep", "LS", "NotebookRead"}
	// Tools Claude Code runs without asking (its permission table: no
	// permission required).
	claudeNoPermission = []string{"Read", "Glob", "Grep", "LS", "NotebookRead", "TodoWrite", "Task", "Agent", "ExitPlanMode", "BashOutput", "KillShell"}
)

// claudeTool is a tool's name as permission rules compare it: Claude Code
// 2.1.63 renamed its sub-agent tool Task to Agent, and a rule naming
// either still applies to the other (anthropics/claude-code issue 29677).
func claudeTool(name string) string {
	if name == "Task" {
		return "Agent"
	}
	return name
}

func (s *claudeSource) Decide(c Call) string {
	if d := s.decideList(s.deny, c, false); d {
		return Deny
	}
	if d := s.decideList(s.ask, c, false); d {
		return Ask
	}
	if d := s.decideList(s.allow, c, true); d {
		return Allow
	}
	switch {
	case s.mode == "bypassPermissions":
		return Allow
	case s.mode == "acceptEdits" && contains(claudeEditTools, c.Tool):
		return Allow
	case s.mode == "plan" && (contains(claudeEditTools, c.Tool) || c.Tool == "Bash"):
		return Deny
	case contains(claudeNoPermission, c.Tool):
		return Allow
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// decideList reports whether the rules of one list apply. For Bash with
// allow semantics (all), every part of a compound command must be matched.
func (s *claudeSource) decideList(rules []claudeRule, c Call, all bool) bool {
	if c.Tool == "Bash" {
		parts := subcommands(command(c.Args))
		var bashRules []claudeRule
		for _, r := range rules {
			if r.tool == "Bash" {
				if !r.has || r.spec == "*" {
					return true
				}
				bashRules = append(bashRules, r)
			}
		}
		if len(bashRules) == 0 || len(parts) == 0 {
			return false
		}
		matched := 0
		for _, p := range parts {
			for _, r := range bashRules {
				if bashMatch(r.spec, p) {
					matched++
					break
				}
			}
		}
		if all {
			return matched == len(parts)
		}
		return matched > 0
	}
	for _, r := range rules {
		if s.ruleMatches(r, c) {
			return true
		}
	}
	return false
}

func (s *claudeSource) ruleMatches(r claudeRule, c Call) bool {
	switch {
	case strings.HasPrefix(r.tool, "mcp__"):
		if r.has {
			return false
		}
		if r.tool == c.Tool {
			return true
		}
		server := strings.TrimSuffix(r.tool, "__*")
		return strings.Count(server, "__") == 1 && strings.HasPrefix(c.Tool, server+"__")
	case r.tool == "Edit" && contains(claudeEditTools, c.Tool), r.tool == "Read" && contains(claudeReadTools, c.Tool):
		if !r.has {
			return true
		}
		p := str(c.Args, "file_path", "notebook_path", "path")
		if p == "" {
			return false
		}
		return s.pathMatch(r.spec, p, c.Workspace)
	case claudeTool(r.tool) != claudeTool(c.Tool):
		return false
	case !r.has:
		return true
	case r.tool == "WebFetch":
		domain, ok := strings.CutPrefix(r.spec, "domain:")
		if !ok {
			return false
		}
		u, err := url.Parse(str(c.Args, "url"))
		return err == nil && strings.EqualFold(u.Hostname(), domain)
	case claudeTool(r.tool) == "Agent":
		return agentMatch(r.spec, c.Args)
	}
	return false
}

// agentMatch matches a sub-agent call (Task, Agent) against its rule's
// specifier, as Claude Code's CHANGELOG gives them: Task(AgentName) names
// the sub-agent a rule disables (2.1.0; Agent(type) since the rename), and
// Agent(param:value) matches one input parameter, * any text (2.1.178,
// "Agent(model:opus)"). The sub-agent's name is the call's subagent_type;
// a call that names none matches no Agent(name) rule.
func agentMatch(spec string, args map[string]any) bool {
	spec = strings.TrimSpace(spec)
	if param, value, ok := strings.Cut(spec, ":"); ok && param != "" && !strings.ContainsAny(param, " *") {
		v, isStr := args[param].(string)
		return isStr && wildcard(strings.TrimSpace(value), v)
	}
	t := str(args, "subagent_type")
	return t != "" && t == spec
}

// bashMatch matches one simple command against a Bash rule's specifier.
func bashMatch(spec, cmd string) bool {
	if strings.HasSuffix(spec, ":*") {
		spec = strings.TrimSuffix(spec, ":*") + " *"
	}
	if !strings.Contains(spec, "*") {
		return cmd == spec
	}
	if prefix, ok := strings.CutSuffix(spec, " *"); ok && !strings.Contains(prefix, "*") {
		return cmd == prefix || strings.HasPrefix(cmd, prefix+" ")
	}
	return wildcard(spec, cmd)
}

// pathMatch applies a gitignore-style Read/Edit pattern to a path.
func (s *claudeSource) pathMatch(pattern, p, workspace string) bool {
	base := workspace
	switch {
	case strings.HasPrefix(pattern, "//"):
		base, pattern = "/", pattern[1:]
	case strings.HasPrefix(pattern, "~/"):
		base, pattern = s.home, pattern[1:]
	case strings.HasPrefix(pattern, "/"):
		base = s.projectDir
	case strings.HasPrefix(pattern, "./"):
		pattern = pattern[1:]
	default:
		if !strings.Contains(strings.TrimSuffix(pattern, "/"), "/") {
			pattern = "/**/" + pattern // no slash: any depth
		} else {
			pattern = "/" + pattern
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(workspace, p)
	}
	rel, err := filepath.Rel(base, filepath.Clean(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return false
	}
	pattern = strings.TrimPrefix(pattern, "/")
	rel = filepath.ToSlash(rel)
	if strings.HasSuffix(pattern, "/") { // a directory: everything under it
		pattern += "**"
	}
	return globPath(pattern, rel)
}

// globPath matches slash-separated paths: * and ? within one segment, **
// across any number of segments.
func globPath(pattern, p string) bool {
	ps := strings.Split(pattern, "/")
	ss := strings.Split(p, "/")
	var rec func(i, j int) bool
	rec = func(i, j int) bool {
		if i == len(ps) {
			return j == len(ss)
		}
		if ps[i] == "**" {
			for k := j; k <= len(ss); k++ {
				if rec(i+1, k) {
					return true
				}
			}
			return false
		}
		if j == len(ss) {
			return false
		}
		if ok, _ := path.Match(ps[i], ss[j]); !ok {
			return false
		}
		return rec(i+1, j+1)
	}
	return rec(0, 0)
}
