package datasets

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
)

// CategoryMap maps lower-case tool names to categories. A policy overrides
// the built-in map with its own entries; names it does not list fall back to
// CategoryOf.
type CategoryMap map[string]string

// Of returns the category of a tool: the map's entry for the lower-cased
// name if there is one, else the built-in classification.
func (m CategoryMap) Of(name string) string {
	if len(m) > 0 {
		if c, ok := m[strings.ToLower(name)]; ok {
			return c
		}
	}
	return CategoryOf(name)
}

// ValidCategory reports whether c is one of Categories.
func ValidCategory(c string) bool { return slices.Contains(Categories, c) }

// builtinTools lists the tools of common agents by exact (lower-case) name:
// Claude Code, OpenAI Codex CLI, OpenCode, Cursor, Gemini CLI and the usual
// MCP reference servers. Names not listed go through categoryHeuristic.
var builtinTools = map[string]string{
	// Claude Code.
	"bash":         "command_execution",
	"bashoutput":   "command_execution",
	"killshell":    "command_execution",
	"killbash":     "command_execution",
	"read":         "other",
	"write":        "file_change",
	"edit":         "file_change",
	"multiedit":    "file_change",
	"notebookedit": "file_change",
	"notebookread": "other",
	"glob":         "other",
	"grep":         "other",
	"ls":           "other",
	"webfetch":     "web_search",
	"websearch":    "web_search",
	"task":         "other",
	"todowrite":    "other",
	"todoread":     "other",
	"exitplanmode": "other",
	"slashcommand": "other",
	"skill":        "other",
	// Codex CLI.
	"shell":          "command_execution",
	"local_shell":    "command_execution",
	"container.exec": "command_execution",
	"exec_command":   "command_execution",
	"unified_exec":   "command_execution",
	"write_stdin":    "command_execution",
	"apply_patch":    "file_change",
	"update_plan":    "other",
	"web_search":     "web_search",
	"view_image":     "other",
	// OpenCode (bash, edit, write, read, grep, glob, webfetch, task, todowrite, todoread above).
	"patch":           "file_change",
	"list":            "other",
	"lsp_diagnostics": "other",
	"lsp_hover":       "other",
	// Cursor and Gemini CLI.
	"run_terminal_cmd":    "command_execution",
	"run_shell_command":   "command_execution",
	"edit_file":           "file_change",
	"write_file":          "file_change",
	"replace":             "file_change",
	"read_file":           "other",
	"read_many_files":     "other",
	"list_directory":      "other",
	"list_dir":            "other",
	"codebase_search":     "other",
	"grep_search":         "other",
	"file_search":         "other",
	"search_file_content": "other",
	"google_web_search":   "web_search",
	"web_fetch":           "web_search",
	"delete_file":         "data_deletion",
	"save_memory":         "other",
	// Generic names seen in custom agents.
	"git":             "git",
	"ssh":             "remote_shell",
	"scp":             "remote_shell",
	"remote_exec":     "remote_shell",
	"remote_shell":    "remote_shell",
	"http_request":    "external_send",
	"send_email":      "external_send",
	"send_message":    "external_send",
	"browser":         "browser",
	"computer":        "browser",
	"rm":              "data_deletion",
	"delete":          "data_deletion",
	"fetch":           "web_search",
	"search":          "web_search",
	"terminal":        "command_execution",
	"exec":            "command_execution",
	"run_command":     "command_execution",
	"execute_command": "command_execution",
}

// CategoryOf classifies a tool name (case-insensitive) into one of
// Categories; unknown tools are "other".
//
// Exact names of common agents come first. MCP tools (mcp__server__tool) are
// classified by their tool part, with the server as a hint: a server named
// like a browser driver (playwright, puppeteer, browser, chrome) gives
// browser, one named git/github/gitlab gives git (a pull request or issue is
// a git-hosting operation), ssh/remote servers give remote_shell. Otherwise
// the name is split into words (snake_case, kebab-case, dotted, camelCase)
// and the first matching family wins, in this order: deletion, remote shell,
// git, browser, external send, web search, file change, command execution.
func CategoryOf(toolName string) string {
	if c, ok := categoryCache.Load(toolName); ok {
		return c.(string)
	}
	c := categorize(toolName)
	// A dataset has few distinct tool names; the cap only guards against
	// one that has millions.
	if categoryCacheSize.Add(1) <= 4096 {
		categoryCache.Store(toolName, c)
	}
	return c
}

var (
	categoryCache     sync.Map // tool name → category
	categoryCacheSize atomic.Int64
)

func categorize(toolName string) string {
	name := strings.ToLower(strings.TrimSpace(toolName))
	if c, ok := builtinTools[name]; ok {
		return c
	}
	if strings.HasPrefix(name, "mcp__") {
		server, tool := mcpParts(strings.TrimSpace(toolName))
		sw := splitWords(server)
		tw := splitWords(tool)
		if c := categoryHeuristic(tw); c == "data_deletion" {
			return c
		}
		switch {
		case hasAny(sw, "playwright", "puppeteer", "browser", "chrome", "chromium", "selenium", "browserbase"):
			return "browser"
		case hasAny(sw, "git", "github", "gitlab", "gitea", "bitbucket"):
			return "git"
		case hasAny(sw, "ssh", "remote", "sftp"):
			return "remote_shell"
		}
		if c, ok := builtinTools[strings.ToLower(tool)]; ok && c != "other" {
			return c
		}
		return categoryHeuristic(tw)
	}
	return categoryHeuristic(splitWords(toolName))
}

// mcpParts splits "mcp__server__tool" into its server and tool parts. A
// server name may itself contain single underscores.
func mcpParts(name string) (server, tool string) {
	rest := name[len("mcp__"):]
	if i := strings.Index(rest, "__"); i >= 0 {
		return rest[:i], rest[i+2:]
	}
	return "", rest
}

// categoryHeuristic classifies by words, in priority order.
func categoryHeuristic(w []string) string {
	switch {
	case hasAny(w, "delete", "remove", "rm", "rmdir", "drop", "truncate", "purge", "destroy", "erase", "unlink", "wipe", "shred", "prune"):
		return "data_deletion"
	case hasAny(w, "ssh", "scp", "sftp", "remote", "rsync", "mosh"):
		return "remote_shell"
	case hasAny(w, "git", "commit", "push", "pull", "merge", "rebase", "checkout", "branch", "cherry", "stash", "clone"):
		return "git"
	case hasAny(w, "browser", "navigate", "click", "screenshot", "playwright", "puppeteer", "hover"):
		return "browser"
	case hasAny(w, "send", "post", "email", "mail", "slack", "notify", "publish", "upload", "webhook", "tweet", "sms", "message", "comment", "reply", "share"):
		return "external_send"
	case hasAny(w, "web", "websearch", "webfetch", "fetch", "url", "http", "https", "google", "bing", "brave", "tavily", "exa", "internet", "download", "scrape", "crawl"):
		return "web_search"
	case hasAny(w, "search") && !hasAny(w, "file", "files", "code", "codebase", "repo", "symbol", "grep", "content", "local"):
		return "web_search"
	case hasAny(w, "write", "edit", "multiedit", "patch", "replace", "insert", "append", "rename", "move", "mkdir", "save", "overwrite", "modify"),
		hasAny(w, "create", "update") && hasAny(w, "file", "files", "dir", "directory", "folder", "notebook"):
		return "file_change"
	case hasAny(w, "bash", "shell", "sh", "zsh", "exec", "execute", "run", "command", "cmd", "terminal", "spawn", "process", "kill"):
		return "command_execution"
	}
	return "other"
}

func hasAny(words []string, want ...string) bool {
	for _, w := range words {
		if slices.Contains(want, w) {
			return true
		}
	}
	return false
}

// splitWords splits a tool name into lower-case words at non-alphanumeric
// characters and camelCase boundaries ("WebFetch" → web, fetch).
func splitWords(s string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && len(cur) > 0 &&
			(unicode.IsLower(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]))):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return words
}
