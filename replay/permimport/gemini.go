package permimport

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
)

// Gemini CLI policy TOML (the policy-engine reference): [[rule]] tables
// with toolName (a name, a list, or a wildcard such as "*" or
// "mcp_server_*"), mcpName ("*" for every MCP server), argsPattern (a
// regular expression over the call's arguments as stable JSON),
// commandPrefix / commandRegex (sugar for an argsPattern on
// run_shell_command's "command"), decision ("allow" | "deny" | "ask_user"),
// priority (0–999), modes and allowRedirection. The matching rule with the
// highest priority decides; one file is one tier, so within an imported
// file the tier does not change the order. Rules limited to other approval
// modes (modes without "default") are left out: replay models the default
// mode. Equal priorities: the stricter decision. A chained shell command is
// decided per simple command (any deny or ask applies; allow needs every
// part allowed), and an allowed command that redirects (>, >>, <) is asked
// unless its rule sets allowRedirection. Unmatched calls get Gemini's
// default policy: read-only tools allowed, write tools and shell commands
// asked, anything else no decision.
type geminiSource struct {
	name  string
	rules []geminiRule
}

type geminiRule struct {
	tools    []string
	mcp      string
	args     []*regexp.Regexp // all must match
	anyOf    []*regexp.Regexp // a commandPrefix list: one must match
	decision string
	priority float64
	redirect bool
}

func parseGemini(data []byte, file string) (Source, error) {
	var doc struct {
		Rule []struct {
			ToolName      any      `toml:"toolName"`
			McpName       string   `toml:"mcpName"`
			ArgsPattern   string   `toml:"argsPattern"`
			CommandPrefix any      `toml:"commandPrefix"`
			CommandRegex  string   `toml:"commandRegex"`
			Decision      string   `toml:"decision"`
			Priority      int      `toml:"priority"`
			Modes         []string `toml:"modes"`
			Redirection   bool     `toml:"allowRedirection"`
		} `toml:"rule"`
	}
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return nil, err
	}
	src := &geminiSource{name: "gemini:" + file}
	for i, r := range doc.Rule {
		key := fmt.Sprintf("rule[%d]", i)
		if len(r.Modes) > 0 && !contains(r.Modes, "default") {
			continue
		}
		g := geminiRule{mcp: r.McpName, priority: float64(r.Priority) / 1000, redirect: r.Redirection}
		var err error
		if g.tools, err = strOrList(r.ToolName); err != nil {
			return nil, fmt.Errorf("%s.toolName: %w", key, err)
		}
		prefixes, err := strOrList(r.CommandPrefix)
		if err != nil {
			return nil, fmt.Errorf("%s.commandPrefix: %w", key, err)
		}
		if len(prefixes) > 0 && r.CommandRegex != "" {
			return nil, fmt.Errorf("%s: commandPrefix and commandRegex cannot be used together", key)
		}
		if (len(prefixes) > 0 || r.CommandRegex != "") && len(g.tools) == 0 {
			g.tools = []string{"run_shell_command"}
		}
		for _, p := range prefixes {
			q, _ := json.Marshal(p) // the prefix as it appears inside the JSON string
			g.anyOf = append(g.anyOf, regexp.MustCompile(`"command":`+regexp.QuoteMeta(strings.TrimSuffix(string(q), `"`))))
		}
		for _, pat := range []string{r.ArgsPattern, cmdPattern(r.CommandRegex)} {
			if pat == "" {
				continue
			}
			re, err := regexp.Compile(pat)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", key, err)
			}
			g.args = append(g.args, re)
		}
		switch r.Decision {
		case "allow":
			g.decision = Allow
		case "deny":
			g.decision = Deny
		case "ask_user":
			g.decision = Ask
		default:
			return nil, fmt.Errorf("%s.decision: %q: want allow, deny or ask_user", key, r.Decision)
		}
		src.rules = append(src.rules, g)
	}
	return src, nil
}

// cmdPattern turns commandRegex into the argsPattern it stands for.
func cmdPattern(re string) string {
	if re == "" {
		return ""
	}
	return `"command":"` + re
}

func strOrList(v any) ([]string, error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case string:
		return []string{t}, nil
	case []any:
		var out []string
		for _, e := range t {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("want strings")
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("want a string or a list of strings")
}

func (s *geminiSource) String() string { return s.name }

var (
	geminiReadOnly = []string{"read_file", "read_many_files", "glob", "search_file_content", "grep_search",
		"list_directory", "google_web_search", "web_fetch", "save_memory"}
	geminiWrite = []string{"write_file", "replace", "run_shell_command"}
)

func (s *geminiSource) Decide(c Call) string {
	cmd := command(c.Args)
	if parts := subcommands(cmd); c.Tool == "run_shell_command" && len(parts) > 1 {
		var ds []string
		unmatched := false
		for _, p := range parts {
			d := s.decideOne(Call{Tool: c.Tool, Args: map[string]any{"command": p}, Workspace: c.Workspace}, p, false)
			if d == "" {
				unmatched = true
			}
			ds = append(ds, d)
		}
		d := Strictest(ds...)
		if d == Allow && unmatched {
			return ""
		}
		return d
	}
	return s.decideOne(c, cmd, true)
}

// decideOne decides one call; defaults applies Gemini's default policy
// when no rule matches (not for the parts of a chained command).
func (s *geminiSource) decideOne(c Call, cmd string, defaults bool) string {
	best, bestPri := "", -1.0
	var bestRule *geminiRule
	var argsJSON string
	for i := range s.rules {
		r := &s.rules[i]
		if !r.matches(c, &argsJSON) {
			continue
		}
		switch {
		case r.priority > bestPri:
			best, bestPri, bestRule = r.decision, r.priority, r
		case r.priority == bestPri && Strictest(best, r.decision) != best:
			best, bestRule = r.decision, r
		}
	}
	if best == Allow && cmd != "" && !bestRule.redirect && redirects(cmd) {
		return Ask
	}
	if best == "" && defaults {
		switch {
		case contains(geminiReadOnly, c.Tool):
			return Allow
		case contains(geminiWrite, c.Tool):
			return Ask
		}
	}
	return best
}

// redirects reports whether a command uses >, >> or < outside quotes.
func redirects(cmd string) bool {
	var quote byte
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\\':
			i++
		case c == '\'' || c == '"':
			quote = c
		case c == '>' || c == '<':
			return true
		}
	}
	return false
}

func (r *geminiRule) matches(c Call, argsJSON *string) bool {
	if len(r.tools) > 0 {
		ok := false
		for _, t := range r.tools {
			if wildcard(t, c.Tool) || r.mcp != "" && wildcard(t, mcpTool(c.Tool, r.mcp)) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if r.mcp != "" && !isMCPOf(c.Tool, r.mcp) {
		return false
	}
	if len(r.args) > 0 || len(r.anyOf) > 0 {
		if *argsJSON == "" {
			b, _ := json.Marshal(c.Args) // map keys sorted: stable
			*argsJSON = string(b)
		}
		for _, re := range r.args {
			if !re.MatchString(*argsJSON) {
				return false
			}
		}
		if len(r.anyOf) > 0 {
			ok := false
			for _, re := range r.anyOf {
				if re.MatchString(*argsJSON) {
					ok = true
					break
				}
			}
			if !ok {
				return false
			}
		}
	}
	return true
}

// isMCPOf reports whether tool belongs to MCP server (any server for "*"):
// Gemini's fully qualified mcp_<server>_<tool>, or server__tool.
func isMCPOf(tool, server string) bool {
	if server == "*" {
		return strings.HasPrefix(tool, "mcp_") || strings.Contains(tool, "__")
	}
	return strings.HasPrefix(tool, "mcp_"+server+"_") || strings.HasPrefix(tool, server+"__")
}

// mcpTool is the simple tool name of an MCP tool of server.
func mcpTool(tool, server string) string {
	for _, p := range []string{"mcp_" + server + "_", server + "__"} {
		if rest, ok := strings.CutPrefix(tool, p); ok {
			return rest
		}
	}
	return tool
}
