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
// Claude Code, OpenAI Codex CLI, OpenCode, Crush, Cursor, Gemini CLI and the usual
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
	// Task starts a sub-agent; Claude Code 2.1.63 renamed it Agent (its
	// hook payloads say tool_name "Agent"; "agent" is listed below, with
	// Crush's). OpenCode's task tool starts a sub-agent too.
	"task": "sub_agent",
	// Claude Code's agent teams (2.1.32, CHANGELOG): SendMessage writes
	// to a teammate's mailbox, resumes a stopped sub-agent (2.1.77) or
	// messages another Claude Code session (cross-session messaging,
	// 2.1.224), which ListAgents lists; TeamCreate and TeamDelete set a
	// team up and tore it down until 2.1.178 removed them. Traffic between
	// agents, as Codex's send_input and close_agent: not a message out
	// (by the verb "send") or a deletion of data.
	"sendmessage":  "sub_agent",
	"listagents":   "sub_agent",
	"teamcreate":   "sub_agent",
	"teamdelete":   "sub_agent",
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
	// Codex's sub-agent tools (multi-agent collaboration): starting,
	// driving and waiting for another agent is its own kind of call, not a
	// command ("spawn") or a message out ("send_input").
	"spawn_agent":  "sub_agent",
	"wait_agent":   "sub_agent",
	"send_input":   "sub_agent",
	"close_agent":  "sub_agent",
	"resume_agent": "sub_agent",
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
	"final_answer":        "other", // an agent's final answer, as the importers name it
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
	// Charm's Crush and the Go OpenCode before it (internal/agent/tools):
	// sourcegraph sends its query to sourcegraph.com's search API; agent
	// starts a sub-agent; download fetches a URL into a file.
	"view":          "other",
	"sourcegraph":   "web_search",
	"agentic_fetch": "web_search",
	"download":      "web_search",
	"agent":         "sub_agent",
	"job_output":    "other",
	"job_kill":      "command_execution",
	"todos":         "other",
	// MCP reference servers (modelcontextprotocol/servers), by exact name.
	"read_text_file":           "other",
	"read_media_file":          "other",
	"read_multiple_files":      "other",
	"directory_tree":           "other",
	"get_file_info":            "other",
	"list_allowed_directories": "other",
	"create_directory":         "file_change",
	"move_file":                "file_change",
	"search_files":             "other",
	"create_or_update_file":    "file_change",
	"push_files":               "git",
	"create_entities":          "other",
	"create_relations":         "other",
	"add_observations":         "other",
	"delete_entities":          "data_deletion",
	"delete_observations":      "data_deletion",
	"delete_relations":         "data_deletion",
	"read_graph":               "other",
	"search_nodes":             "other",
	"open_nodes":               "other",
	"sequentialthinking":       "other",
	"get_current_time":         "other",
	"convert_time":             "other",
	"mcp__memory__*":           "other", // the knowledge-graph memory server stores notes locally
	"mcp__time__*":             "other",
	// ToolEmu toolkits (used by R-Judge and other agent-safety benchmarks).
	"terminalexecute":                              "command_execution",
	"gmailsendemail":                               "external_send",
	"gmailreademail":                               "other",
	"gmailsearchemails":                            "other",
	"gmaildeleteemails":                            "data_deletion",
	"gmailsearchcontacts":                          "other",
	"bankmanagertransferfunds":                     "external_send",
	"bankmanagerpaybill":                           "external_send",
	"bankmanagergetaccountinformation":             "other",
	"bankmanagersearchpayee":                       "other",
	"venmosendmoney":                               "external_send",
	"webbrowsernavigateto":                         "browser",
	"webbrowserclickelement":                       "browser",
	"webbrowserinputtext":                          "browser",
	"webbrowserretrieveelements":                   "browser",
	"googlesearchwebsearch":                        "web_search",
	"dropboxuploadfile":                            "external_send",
	"dropboxshareitem":                             "external_send",
	"dropboxdeleteitem":                            "data_deletion",
	"slacksendmessage":                             "external_send",
	"twittermanagerposttweet":                      "external_send",
	"githubdeleterepository":                       "data_deletion",
	"evernotemanagercreatenote":                    "other",
	"todoistcreatetask":                            "other",
	"augustsmartlockunlockdoor":                    "other",
	"amazonplaceorder":                             "external_send",
	"binanceplaceorder":                            "external_send",
	"emergencydispatchsystemcreatedispatchrequest": "external_send",
}

// CategoryOf classifies a tool name (case-insensitive) into one of
// Categories; unknown tools are "other".
//
// Exact names of common agents come first. MCP tools (mcp__server__tool) are
// classified by their tool part, with the server as a hint: a server named
// like a browser driver (playwright, puppeteer, browser, chrome) gives
// browser, one named git/github/gitlab gives git (a pull request or issue is
// a git-hosting operation), ssh/remote servers give remote_shell. Otherwise
// the name is split into words (snake_case, kebab-case, dotted, camelCase).
// The first word that is a verb of a known family decides: read/get/list/
// search/view/… → other (read-only; web_search when a web noun is among the
// words), send/post/email/share/upload/… and payments (transfer/withdraw/
// pay/…) → external_send, delete/remove/drop/… → data_deletion. Without
// such a verb the first matching family of words wins, in this order:
// deletion, remote shell, git, browser, external send, web search, file
// change, command execution.
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
	c, _ := classify(toolName)
	return c
}

// Where a tool's category came from (CategoryMap.Explain).
const (
	SourcePolicy    = "policy"    // the policy's [categories] table
	SourceTable     = "table"     // the built-in table of exact tool names
	SourceHeuristic = "heuristic" // the words of the name
)

// Explain returns a tool's category and where it came from: the policy's
// map, the built-in table of exact names, or the heuristic on the name's
// words (`apeval datasets stats --by-tool`).
func (m CategoryMap) Explain(name string) (category, source string) {
	if len(m) > 0 {
		if c, ok := m[strings.ToLower(name)]; ok {
			return c, SourcePolicy
		}
	}
	return classify(name)
}

// classify is CategoryOf with the source of its answer.
func classify(toolName string) (string, string) {
	name := strings.ToLower(strings.TrimSpace(toolName))
	if c, ok := builtinTools[name]; ok {
		return c, SourceTable
	}
	if strings.HasPrefix(name, "mcp__") {
		server, tool := mcpParts(strings.TrimSpace(toolName))
		if c, ok := builtinTools["mcp__"+strings.ToLower(server)+"__*"]; ok {
			return c, SourceTable
		}
		sw := splitWords(server)
		tw := splitWords(tool)
		if c := categoryHeuristic(tw); c == "data_deletion" {
			return c, SourceHeuristic
		}
		switch {
		case hasAny(sw, "playwright", "puppeteer", "browser", "chrome", "chromium", "selenium", "browserbase"):
			return "browser", SourceHeuristic
		case hasAny(sw, "git", "github", "gitlab", "gitea", "bitbucket"):
			return "git", SourceHeuristic
		case hasAny(sw, "ssh", "remote", "sftp"):
			return "remote_shell", SourceHeuristic
		}
		// An agent's own sub-agent tools (Task, SendMessage) are not a
		// server's: mcp__slack__SendMessage sends a message out.
		if c, ok := builtinTools[strings.ToLower(tool)]; ok && c != "other" && c != "sub_agent" {
			return c, SourceTable
		}
		return categoryHeuristic(tw), SourceHeuristic
	}
	return categoryHeuristic(splitWords(toolName)), SourceHeuristic
}

// Verb families of the heuristic: the first of a name's words that is one
// of these verbs says what the tool does (GmailReadEmail reads, whatever
// the noun; BankManagerTransferFunds moves money out).
var (
	readVerbs = []string{"read", "get", "list", "search", "view", "show", "find", "query", "lookup",
		"retrieve", "describe", "inspect", "check", "count", "peek", "preview", "summarize", "analyze"}
	sendVerbs = []string{"send", "post", "email", "mail", "share", "upload", "publish", "reply", "forward",
		"tweet", "retweet", "notify", "invite", "broadcast", "comment", "dm"}
	// Payments leave the user's control like a message does: external_send.
	payVerbs    = []string{"transfer", "withdraw", "pay", "purchase", "buy", "deposit", "trade", "sell", "donate", "refund", "tip"}
	deleteVerbs = []string{"delete", "remove", "rm", "rmdir", "drop", "truncate", "purge", "destroy", "erase", "unlink", "wipe", "shred", "prune"}
	webNouns    = []string{"web", "websearch", "internet", "google", "bing", "brave", "tavily", "exa", "url", "http", "https", "duckduckgo"}
)

// verbCategory classifies by the first verb among the words; "" when
// there is none.
func verbCategory(w []string) string {
	if hasAny(w, "ssh", "scp", "sftp", "remote", "rsync", "mosh") {
		return "" // a remote tool is remote_shell whatever it does there
	}
	for _, word := range w {
		switch {
		case slices.Contains(readVerbs, word):
			if hasAny(w, webNouns...) {
				return "web_search"
			}
			return "other"
		case slices.Contains(sendVerbs, word), slices.Contains(payVerbs, word):
			return "external_send"
		case slices.Contains(deleteVerbs, word):
			return "data_deletion"
		}
	}
	return ""
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

// categoryHeuristic classifies by words: the first verb of a known family
// (verbCategory), else the families of words in priority order.
func categoryHeuristic(w []string) string {
	if c := verbCategory(w); c != "" {
		return c
	}
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
