package datasets

import "testing"

func TestCategoryOf(t *testing.T) {
	t.Parallel()
	tests := []struct{ tool, want string }{
		// Claude Code.
		{"Bash", "command_execution"}, {"BashOutput", "command_execution"}, {"KillShell", "command_execution"},
		{"Read", "other"}, {"Write", "file_change"}, {"Edit", "file_change"}, {"MultiEdit", "file_change"},
		{"NotebookEdit", "file_change"}, {"Glob", "other"}, {"Grep", "other"}, {"WebFetch", "web_search"},
		{"WebSearch", "web_search"}, {"Task", "sub_agent"}, {"Agent", "sub_agent"}, {"TodoWrite", "other"},
		{"TaskCreate", "other"}, {"TaskUpdate", "other"}, {"TaskList", "other"}, {"TaskGet", "other"},
		{"SendMessage", "sub_agent"}, {"ListAgents", "sub_agent"}, {"TeamCreate", "sub_agent"}, {"TeamDelete", "sub_agent"},
		{"mcp__slack__SendMessage", "external_send"}, {"mcp__teams__TeamDelete", "data_deletion"},
		// Codex CLI.
		{"shell", "command_execution"}, {"apply_patch", "file_change"}, {"update_plan", "other"},
		{"web_search", "web_search"}, {"exec_command", "command_execution"},
		{"spawn_agent", "sub_agent"}, {"wait_agent", "sub_agent"}, {"send_input", "sub_agent"}, {"close_agent", "sub_agent"},
		// OpenCode (lower-case names).
		{"bash", "command_execution"}, {"edit", "file_change"}, {"write", "file_change"}, {"read", "other"},
		{"webfetch", "web_search"}, {"patch", "file_change"}, {"list", "other"},
		// Charm's Crush and the Go OpenCode (their tools were "other" by the
		// name heuristic: a sourcegraph query leaves the machine, agent
		// starts a sub-agent).
		{"view", "other"}, {"sourcegraph", "web_search"}, {"agent", "sub_agent"},
		{"agentic_fetch", "web_search"}, {"download", "web_search"}, {"job_kill", "command_execution"},
		// Case-insensitive.
		{"BASH", "command_execution"}, {"  WebFetch ", "web_search"},
		// MCP tools.
		{"mcp__playwright__browser_click", "browser"}, {"mcp__puppeteer__puppeteer_navigate", "browser"},
		{"mcp__github__create_pull_request", "git"}, {"mcp__github__delete_file", "data_deletion"},
		{"mcp__slack__slack_post_message", "external_send"}, {"mcp__gmail__send_email", "external_send"},
		{"mcp__filesystem__write_file", "file_change"}, {"mcp__filesystem__read_file", "other"},
		{"mcp__filesystem__search_files", "other"}, {"mcp__brave_search__brave_web_search", "web_search"},
		{"mcp__fetch__fetch", "web_search"}, {"mcp__postgres__query", "other"},
		{"mcp__db__drop_table", "data_deletion"}, {"mcp__ssh__exec", "remote_shell"},
		{"mcp__remote_box__run_command", "remote_shell"}, {"mcp__shell__execute_command", "command_execution"},
		// Generic and heuristic names.
		{"git", "git"}, {"git_push", "git"}, {"GitCommit", "git"}, {"ssh", "remote_shell"},
		{"remote_exec", "remote_shell"}, {"delete_file", "data_deletion"}, {"removeDirectory", "data_deletion"},
		{"send_email", "external_send"}, {"http_request", "external_send"}, {"create_file", "file_change"},
		{"run_terminal_cmd", "command_execution"}, {"calculator", "other"}, {"", "other"},
		// ToolEmu-style names (R-Judge): the verb decides, not the noun.
		{"GmailReadEmail", "other"}, {"GmailSendEmail", "external_send"}, {"GmailDeleteEmails", "data_deletion"},
		{"BankManagerTransferFunds", "external_send"}, {"BankManagerWithdrawCash", "external_send"},
		{"CoinbasePayInvoice", "external_send"}, {"ShopifyGetProductDetails", "other"},
		{"OutlookSearchEmails", "other"}, {"FacebookManagerSharePost", "external_send"},
		{"CloudStorageUploadFile", "external_send"}, {"DatabaseDropTable", "data_deletion"},
		{"GoogleSearchWebSearch", "web_search"}, {"SearchWeb", "web_search"}, {"TerminalExecute", "command_execution"},
		{"ListRemoteFiles", "remote_shell"}, {"TwilioSendSms", "external_send"},
		{"mcp__memory__create_entities", "other"}, {"mcp__filesystem__move_file", "file_change"},
	}
	for _, tt := range tests {
		if got := CategoryOf(tt.tool); got != tt.want {
			t.Errorf("CategoryOf(%q) = %q, want %q", tt.tool, got, tt.want)
		}
		if !ValidCategory(CategoryOf(tt.tool)) {
			t.Errorf("CategoryOf(%q) is not a category", tt.tool)
		}
	}
}

func TestCategoryMapOverrides(t *testing.T) {
	t.Parallel()
	m := CategoryMap{"bash": "remote_shell", "deploy": "external_send"}
	tests := []struct{ tool, want string }{
		{"Bash", "remote_shell"}, {"DEPLOY", "external_send"}, {"Write", "file_change"},
	}
	for _, tt := range tests {
		if got := m.Of(tt.tool); got != tt.want {
			t.Errorf("Of(%q) = %q, want %q", tt.tool, got, tt.want)
		}
	}
	var none CategoryMap
	if got := none.Of("Bash"); got != "command_execution" {
		t.Errorf("nil map: Of(Bash) = %q", got)
	}
}

func TestSplitWords(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"WebFetch": "web fetch", "mcp__github__create_pull_request": "mcp github create pull request",
		"HTTPRequest": "http request", "browser.tab-list": "browser tab list", "run2Fast": "run2 fast",
	}
	for in, want := range tests {
		got := ""
		for i, w := range splitWords(in) {
			if i > 0 {
				got += " "
			}
			got += w
		}
		if got != want {
			t.Errorf("splitWords(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCategoryExplain(t *testing.T) {
	t.Parallel()
	m := CategoryMap{"deploy": "external_send"}
	for _, tt := range []struct{ tool, cat, src string }{
		{"Bash", "command_execution", SourceTable},
		{"deploy", "external_send", SourcePolicy},
		{"GmailReadEmail", "other", SourceTable},
		{"FooBarTransferFunds", "external_send", SourceHeuristic},
		{"mcp__fetch__fetch", "web_search", SourceTable},
		{"mcp__github__list_issues", "git", SourceHeuristic},
		{"mcp__memory__read_graph", "other", SourceTable},
	} {
		if c, s := m.Explain(tt.tool); c != tt.cat || s != tt.src {
			t.Errorf("Explain(%q) = %s, %s; want %s, %s", tt.tool, c, s, tt.cat, tt.src)
		}
	}
}
