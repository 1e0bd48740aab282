package mask

import (
	"strings"
	"testing"
)

// proseRows are the rows of issue 34's table: text from real public agent
// logs (Gemini CLI sessions, Claude Code stream-json runs) that the masker
// rewrote although none of it is a secret. Each must come through as it is.
var proseRows = []struct{ name, text string }{
	{"token statistics", "I'll use the `session_info` tool to retrieve token statistics."},
	{"markdown bold key", "-   **Minimal Tokens:** It only triggers when the user asks for it."},
	{"scheme word in backticks", "The API expects the standard `Authorization: Bearer` header on every request."},
	{"placeholder session id", `echo '{"session_id": "TEST_SESSION", "tool_name": "Bash"}' | python3 hook.py`},
	{"call argument identifier", "client = genai.Client(api_key=key); print(client.models.list())"},
	{"test verdict", `Console.WriteLine("PASS: Log directory created");`},
	{"indexer after tokens key", `var promptTokens = jsonResponse["usage"]?["prompt_tokens"]?.GetValue<int>() ?? 0;`},
	{"shell substring of a key variable", `echo "${OPENAI_API_KEY:0:10}..."`},
}

func TestMaskerIssue34Rows(t *testing.T) {
	t.Parallel()
	for _, r := range proseRows {
		if got := String(r.text); got != r.text {
			t.Errorf("%s: %q\n  became %q", r.name, r.text, got)
		}
	}
}

// The same shapes with a secret in them are still masked, and the masker
// keeps the scheme word, the quote and the closing punctuation around it.
func TestMaskerIssue34Secrets(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"use token ghx7Qm2LpV9sK3dR to retrieve statistics.": "use token [MASKED] to retrieve statistics.",
		"the token is a1b2c3d4e5f6g7h8.":                     "the token is [MASKED].",
		"-   **Token:** 9f8e7d6c5b4a3928 It expires":         "-   **Token:** [MASKED] It expires",
		"`Authorization: Bearer eyJ0eXAi.Zq81kLm2` header":   "`Authorization: Bearer [MASKED]` header",
		`echo '{"session_id": "3f9a1c2e8b7d4c1a9e2f"}'`:      `echo '{"session_id": "[MASKED]"}'`,
		// An agent's session id (a UUID) names a record, not a credential.
		`echo '{"session_id": "3f9a1c2e-8b7d-4c1a-9e2f-0a1b2c3d4e5f"}'`: `echo '{"session_id": "3f9a1c2e-8b7d-4c1a-9e2f-0a1b2c3d4e5f"}'`,
		// Card numbers: a 13-digit millisecond timestamp, ps columns and a UUID's tail are not.
		`"timestamp": 1767690959781,`:                                        `"timestamp": 1767690959781,`,
		"jim  32148  0.0  2.7 32869620 219348 pts/8 Sl+":                     "jim  32148  0.0  2.7 32869620 219348 pts/8 Sl+",
		"s/aaaaaaaa-1111-2222-3333-444444444444/g":                           "s/aaaaaaaa-1111-2222-3333-444444444444/g",
		"pay with 4111 1111 1111 1111 today":                                 "pay with [CARD] today",
		"amex 3782 822463 10005":                                             "amex [CARD]",
		"genai.Client(api_key=Zq8xY2vB7nM4kL1p); print(x)":                   "genai.Client(api_key=[MASKED]); print(x)",
		`genai.Client(api_key="hunter2hunter2"); print(x)`:                   `genai.Client(api_key="[MASKED]"); print(x)`,
		`Console.WriteLine("DB_PASS: letmein");`:                             `Console.WriteLine("DB_PASS: [MASKED]");`,
		`export OPENAI_API_KEY=k3Yz9QxWp2; echo "${OPENAI_API_KEY:0:10}..."`: `export OPENAI_API_KEY=[MASKED]; echo "${OPENAI_API_KEY:0:10}..."`,
		"password: hunter":                                                   "password: [MASKED]",
		"Authorization: Basic dXNlcjpwYXNz":                                  "Authorization: Basic [MASKED]",
	} {
		got := String(in)
		if got != want {
			t.Errorf("%q\n got %q\nwant %q", in, got, want)
		}
		if strings.Count(got, "(") != strings.Count(in, "(") || strings.Count(got, ")") != strings.Count(in, ")") ||
			strings.Count(got, "`") != strings.Count(in, "`") || strings.Count(got, "*") != strings.Count(in, "*") {
			t.Errorf("%q: masking consumed punctuation: %q", in, got)
		}
	}
}

// What a secret-named key's value must look like to be masked.
func TestValueIsSecret(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		key, v string
		want   bool
	}{
		{"token", "statistics", false},
		{"token", "abc123", true},
		{"api_key", "key", false},
		{"api_key", "settings.api_key", false},
		{"session_id", "TEST_SESSION", false},
		{"session_id", "3f9a1c2e8b7d", true},
		{"promptTokens", "jsonResponse", false},
		{"secret", "AbCdEfGhIjKlMnOpQr", true},      // letters only, random case
		{"secret", "getAuthenticationToken", false}, // camelCase words
		{"token", "<your-token>", false},
		{"token", "YOUR_TOKEN_HERE", false},
		{"token", "xxxxxxxxxxxx", false},
		{"token", "v1.2.3", false},
		{"token", "sha256", false},
		{"token", "used 5 times", false},
		{"password", "hunter", true},
		{"password", "string", false},
		{"password", "db_password", false},
		{"password", "userPassword", false},
		{"password", "**", false},
		{"DB_PASS", "letmein", true},
		{"PASS", "Log", false}, // a bare PASS: is a test verdict
	} {
		if got := valueIsSecret(c.key, c.v, "="); got != c.want {
			t.Errorf("valueIsSecret(%q, %q) = %v, want %v", c.key, c.v, got, c.want)
		}
	}
	if valueIsSecret("password", "pw", " = ") {
		t.Error("password = pw (a variable in code) masked")
	}
}
