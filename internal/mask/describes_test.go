package mask

import "testing"

// Ordinary code and text a public Claude Code hook log (a Home Assistant
// integration's PreToolUse payloads, 2026-12-06) showed masked: a Python
// annotated constant (the type "Final" became [MASKED]), a translation
// label and a docstring that name the password rather than give it. On
// that log 6 of 170 cases changed; 1 (a test's password="testpass") is a
// literal password and stays masked.
func TestMaskerLeavesWordsAboutAPassword(t *testing.T) {
	for _, s := range []string{
		`CONF_EVERSOURCE_PASSWORD: Final = "eversource_password"`,
		`API_PASSWORD: Final[str] = "api_password"`,
		`"eversource_password": "Eversource Password",`,
		"    password: Eversource account password.\n    username: the login",
		"password: the user's password",
		`DATA_PASSWORD = "Password of the data store"`,
		`if password == "":`,
		`password: str`,
	} {
		if got := String(s); got != s {
			t.Errorf("%q\n  became %q", s, got)
		}
	}
	for in, want := range map[string]string{
		`DB_PASSWORD: Final = "hunter2-Zebra"`:             `DB_PASSWORD: Final = "[MASKED]"`,
		`db_password: str = "s3cr3t-Quasar"`:               `db_password: str = "[MASKED]"`,
		`"password": "correct horse battery staple"`:       `"password": "[MASKED]"`,
		"password: hunter2 is the one\n":                   "password: [MASKED] is the one\n",
		`client(username="testuser", password="testpass")`: `client(username="testuser", password="[MASKED]")`,
		"DB_PASSWORD=hunter2-Zebra":                        "DB_PASSWORD=[MASKED]",
	} {
		if got := String(in); got != want {
			t.Errorf("%q\n  became %q, want %q", in, got, want)
		}
	}
}

// Ordinary text three more public hook logs and transcripts showed masked
// (1,703 calls, 2026-12-06): template stand-ins with a token's prefix
// (an .env example's sk-ant-your-claude-key), a JavaScript negated
// reference, a test's record ids under session keys, and template
// addresses. The secrets and addresses beside them stay masked.
func TestMaskerLeavesTemplatesAndCode(t *testing.T) {
	for _, s := range []string{
		"ANTHROPIC_API_KEY=sk-ant-your-claude-key    # For complex reasoning",
		"OPENAI_API_KEY=sk-your-api-key-here",
		"export GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxx",
		`        hasPassword: !!OBS_WS_PASSWORD,`,
		`      sessionId: "session-456",`,
		`{"source_app":"test","session_id":"test-1234"}`,
		"SMTP_USER=your-email@gmail.com",
		`placeholder="votre@email.com"`,
		"SMTP_USER=postmaster@your-domain.mailgun.org",
	} {
		if got := String(s); got != s {
			t.Errorf("%q\n  became %q", s, got)
		}
	}
	for in, want := range map[string]string{
		"ANTHROPIC_API_KEY=sk-ant-api03-Zq7X9mP2vL4nR8tY1wK3pJ6sD0fH5gB2": "ANTHROPIC_API_KEY=[MASKED]",
		"use sk-proj-Zq7X9mP2vL4nR8tY1wK3pJ6sD0fH now":                    "use [MASKED] now",
		"password: !Summer2024":                                           "password: [MASKED]",
		"session_id: 3f9a1c2e8b7d":                                        "session_id: [MASKED]",
		"SMTP_USER=tom.kwon@gmail.com":                                    "SMTP_USER=[EMAIL:gmail.com]",
		"from: 'RestauMargin <contact@restaumargin.fr>'":                  "from: 'RestauMargin <[EMAIL:restaumargin.fr]>'",
	} {
		if got := String(in); got != want {
			t.Errorf("%q\n  became %q, want %q", in, got, want)
		}
	}
}
