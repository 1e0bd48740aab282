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
