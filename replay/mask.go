package replay

import (
	"regexp"
	"strings"
)

// Masked replaces a secret value; the key it belonged to is kept
// ("password=[MASKED]") so a judge still sees that a secret was there.
const Masked = "[MASKED]"

// maskRule is one secret pattern: re's match is replaced by repl (which may
// use $1… to keep the key), or passed to fn when set.
type maskRule struct {
	re   *regexp.Regexp
	repl string
	fn   func(m string) string
}

// secretKeyPattern is a key name that marks its value as secret: one that
// contains a secret word, or is (or ends in _) pass, pwd, auth, sig or key.
const secretKeyPattern = `(?:\b[A-Za-z0-9_.-]*(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|` +
	`access[_-]?key|private[_-]?key|client[_-]?key|credentials?|authorization|cookie|signature|session[_-]?(?:id|key))` +
	`[A-Za-z0-9_.-]*|\b(?:[A-Za-z0-9.-]*_)?(?:pass|pwd|auth|sig|key))`

var (
	authSchemeRe = regexp.MustCompile(`(?i)\b(bearer|basic|digest|token)(\s+)([A-Za-z0-9._~+/=-]{8,})`)
	keyValueRe   = regexp.MustCompile(`(?i)(` + secretKeyPattern + `["']?)([ \t]*[:=][ \t]*)("[^"\n]*"|'[^'\n]*'|` +
		`(?:bearer|basic|digest|token)[ \t]+[^\s&;,"'<>]+|[^\s&;,"'<>]+)`)
	authValueRe  = regexp.MustCompile(`(?i)^(bearer|basic|digest|token)([ \t]+)`)
	looseTokenRe = regexp.MustCompile(`(?i)(\b(?:key|token|secret|password|passphrase)s?(?:\s+is)?\s+)([A-Za-z0-9_+/=.-]{16,})`)
)

var maskRules = []maskRule{
	// PEM private keys, the whole block (or to the end when it is cut off).
	{re: regexp.MustCompile(`-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)`),
		repl: "-----BEGIN ${1}PRIVATE KEY-----" + Masked + "-----END ${1}PRIVATE KEY-----"},
	// Well-known token formats.
	{re: regexp.MustCompile(`\b(?:` +
		`sk-[A-Za-z0-9_-]{16,}` + // OpenAI, Anthropic (sk-ant-…), sk-proj-…
		`|(?:AKIA|ASIA)[0-9A-Z]{16}` + // AWS access key id
		`|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}` + // GitHub
		`|glpat-[A-Za-z0-9_-]{20,}` + // GitLab
		`|xox[abposr]-[A-Za-z0-9-]{10,}` + // Slack
		`|AIza[0-9A-Za-z_-]{35}` + // Google API key
		`|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}` + // Stripe
		`|hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{36}` + // Hugging Face, npm
		`|eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}` + // JWT
		`)`), repl: Masked},
	// Credentials inside URLs: scheme://user:password@host.
	{re: regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]+):([^@/\s]+)@`), repl: "${1}:" + Masked + "@"},
	// Authorization schemes: Bearer …, Basic …, token ….
	{re: authSchemeRe, fn: maskAuthScheme},
	// key=value, key: value, "key": "value", env assignments and URL query
	// parameters whose key names a secret (AWS_SECRET_ACCESS_KEY=…, ?token=…).
	{re: keyValueRe, fn: maskKeyValue},
	// Command-line flags followed by a secret: --password x, --token x.
	{re: regexp.MustCompile(`(?i)(\s--?(?:password|passwd|pass|token|secret|api-key|apikey|auth-token|access-token)\s+)("[^"\n]*"|'[^'\n]*'|\S+)`),
		repl: "${1}" + Masked},
	// mysql -pSECRET and curl -u user:password.
	{re: regexp.MustCompile(`(\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]*?\s-p)(\S+)`), repl: "${1}" + Masked},
	{re: regexp.MustCompile(`(\s(?:-u|--user)[\s=]+[^:\s]+):(\S+)`), repl: "${1}:" + Masked},
	// A long random word right after a secret word: "token abcd…", "secret is …".
	{re: looseTokenRe, fn: maskLooseToken},
}

func maskKeyValue(m string) string {
	sub := keyValueRe.FindStringSubmatch(m)
	if sub == nil {
		return m
	}
	v := sub[3]
	if v == Masked {
		return m
	}
	if m := authValueRe.FindStringSubmatch(v); m != nil {
		return sub[1] + sub[2] + m[1] + m[2] + Masked
	}
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') {
		return sub[1] + sub[2] + string(v[0]) + Masked + string(v[0])
	}
	return sub[1] + sub[2] + Masked
}

// maskAuthScheme masks credentials after Bearer/Basic/token, but only
// token-like ones, so "basic operations" stays readable.
func maskAuthScheme(m string) string {
	sub := authSchemeRe.FindStringSubmatch(m)
	if sub == nil || !strings.ContainsAny(sub[3], "0123456789+/=._-") {
		return m
	}
	return sub[1] + sub[2] + Masked
}

// maskLooseToken masks only values that look random (letters and digits
// mixed), so "the token expires tomorrow" keeps its words.
func maskLooseToken(m string) string {
	sub := looseTokenRe.FindStringSubmatch(m)
	if sub == nil || !looksRandom(sub[2]) {
		return m
	}
	return sub[1] + Masked
}

func looksRandom(s string) bool {
	var digit, letter bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letter = true
		}
	}
	return digit && letter
}

// MaskString masks the secrets in s: API keys (sk-…, AKIA…, ghp_…, xox…,
// JWTs, …), bearer/basic credentials, passwords (key=value, --password x,
// mysql -p…, user:pass@ in URLs, curl -u), URL query secrets, assignments to
// secret-named variables, PEM private keys, and long random tokens right
// after a secret word. Masking is idempotent.
func MaskString(s string) string {
	if s == "" {
		return s
	}
	for i := range maskRules {
		r := &maskRules[i]
		if r.fn != nil {
			s = r.re.ReplaceAllStringFunc(s, r.fn)
		} else {
			s = r.re.ReplaceAllString(s, r.repl)
		}
	}
	return s
}

// secretKey reports whether an argument key names a secret, so its whole
// value is masked whatever it looks like.
func secretKey(k string) bool {
	l := strings.ToLower(k)
	for _, w := range secretKeyWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	switch l {
	case "pass", "pwd", "auth", "sig", "cookie":
		return true
	}
	return false
}

var secretKeyWords = []string{"password", "passwd", "passphrase", "secret", "token", "api_key", "apikey",
	"api-key", "access_key", "private_key", "authorization", "credential", "x-api-key"}

// MaskValue returns a deep copy of v with every string masked and the
// whole value of secret-named keys (password, token, api_key,
// authorization, secret, …) replaced by Masked.
func MaskValue(v any) any {
	switch v := v.(type) {
	case string:
		return MaskString(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			if secretKey(k) && e != nil {
				out[k] = Masked
				continue
			}
			out[k] = MaskValue(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = MaskValue(e)
		}
		return out
	case []string:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = MaskString(e)
		}
		return out
	}
	return v
}
