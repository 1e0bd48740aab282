package permimport

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
)

// Gemini CLI policy TOML: [[rule]] tables with toolName (a name, "*", a
// "server__*" wildcard, or a list), mcpName, argsPattern (a regular
// expression over the call's arguments as JSON with sorted keys),
// commandPrefix / commandRegex (run_shell_command's command), decision
// ("allow" | "deny" | "ask_user"), priority and modes. The rule with the
// highest priority that matches decides. Files are in tiers — default 1,
// user 2, admin 3 — and a rule's effective priority is tier +
// priority/1000; an imported file is read as the user tier. Rules limited
// to other approval modes (modes without "default") are left out: replay
// models the default mode. Equal priorities: the stricter decision.
type geminiSource struct {
	name  string
	rules []geminiRule
}

type geminiRule struct {
	tools    []string
	mcp      string
	args     *regexp.Regexp
	prefixes []string
	cmdRegex *regexp.Regexp
	decision string
	priority float64
}

const geminiUserTier = 2

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
		g := geminiRule{mcp: r.McpName, priority: geminiUserTier + float64(r.Priority)/1000}
		var err error
		if g.tools, err = strOrList(r.ToolName); err != nil {
			return nil, fmt.Errorf("%s.toolName: %w", key, err)
		}
		if g.prefixes, err = strOrList(r.CommandPrefix); err != nil {
			return nil, fmt.Errorf("%s.commandPrefix: %w", key, err)
		}
		if r.ArgsPattern != "" {
			if g.args, err = regexp.Compile(r.ArgsPattern); err != nil {
				return nil, fmt.Errorf("%s.argsPattern: %w", key, err)
			}
		}
		if r.CommandRegex != "" {
			if g.cmdRegex, err = regexp.Compile(r.CommandRegex); err != nil {
				return nil, fmt.Errorf("%s.commandRegex: %w", key, err)
			}
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

func (s *geminiSource) Decide(c Call) string {
	best, bestPri := "", -1.0
	var argsJSON string
	for _, r := range s.rules {
		if !r.matches(c, &argsJSON) {
			continue
		}
		switch {
		case r.priority > bestPri:
			best, bestPri = r.decision, r.priority
		case r.priority == bestPri:
			best = Strictest(best, r.decision)
		}
	}
	return best
}

func (r *geminiRule) matches(c Call, argsJSON *string) bool {
	if len(r.tools) > 0 {
		ok := false
		for _, t := range r.tools {
			if t == "*" || t == c.Tool || strings.HasSuffix(t, "__*") && strings.HasPrefix(c.Tool, strings.TrimSuffix(t, "*")) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if r.mcp != "" && !strings.HasPrefix(c.Tool, r.mcp+"__") {
		return false
	}
	if len(r.prefixes) > 0 || r.cmdRegex != nil {
		cmd := command(c.Args)
		if cmd == "" {
			return false
		}
		if len(r.prefixes) > 0 {
			ok := false
			for _, p := range r.prefixes {
				if strings.HasPrefix(cmd, p) {
					ok = true
					break
				}
			}
			if !ok {
				return false
			}
		}
		if r.cmdRegex != nil && !r.cmdRegex.MatchString(cmd) {
			return false
		}
	}
	if r.args != nil {
		if *argsJSON == "" {
			b, _ := json.Marshal(c.Args) // map keys sorted: stable
			*argsJSON = string(b)
		}
		if !r.args.MatchString(*argsJSON) {
			return false
		}
	}
	return true
}
