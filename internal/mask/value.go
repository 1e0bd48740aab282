package mask

import (
	"regexp"
	"strings"
)

// A value after a secret-named key is masked only when it looks like a
// secret itself (issue 34): real agent logs are full of secret-named keys
// followed by prose, code and placeholders ("token statistics.",
// "**Minimal Tokens:** It", `"session_id": "TEST_SESSION"`,
// api_key=key), and a judge that reads [MASKED] there is judged on text
// the agent never wrote.
//
// Two kinds of key decide how much a value must look like a secret:
//
//   - a password key (password, passwd, passphrase, or a prefixed …_PASS,
//     …_PWD): people choose passwords, so any value is masked unless it is
//     plainly not one — a variable reference, a placeholder, code, a type
//     name, punctuation;
//   - every other secret-named key (token, secret, api_key, session_id,
//     auth, sig, …): the value is masked only when it has the shape of a
//     generated credential (secretLike).

// passwordKey reports whether a key names a password, which may be any
// word a person chose.
func passwordKey(k string) bool {
	l := strings.ToLower(k)
	if strings.Contains(l, "password") || strings.Contains(l, "passwd") || strings.Contains(l, "passphrase") {
		return true
	}
	i := strings.LastIndexAny(l, "_-.")
	if i <= 0 {
		return false // a bare PASS: or pwd: is a test verdict or a directory as often as a password
	}
	switch l[i+1:] {
	case "pass", "pwd", "pw":
		return true
	}
	return false
}

// secretLike reports whether a value has the shape of a generated
// credential: letters and digits mixed (6 bytes or more), a long run of
// base64 or hex, or a long mixed-case run that is not camelCase words.
// Identifiers, words, placeholders and punctuation are not.
func secretLike(v string) bool {
	if len(v) < 6 || placeholder(v) || identifier(v) || strings.ContainsAny(v, " \t\n") {
		return false
	}
	var letters, digits, upper, lower, b64, other int
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'z':
			letters++
			lower++
		case c >= 'A' && c <= 'Z':
			letters++
			upper++
		case c == '+' || c == '/' || c == '=' || c == '_' || c == '-' || c == '.' || c == '~':
			b64++
		default:
			other++
		}
	}
	if letters == 0 {
		return false // a number, a date, a version, punctuation
	}
	if nonNullRef(v) {
		return false // process.env.API_KEY! (TypeScript's non-null assertion on a reference)
	}
	if digits > 0 {
		return !versionLike(v)
	}
	// Letters only (and key punctuation): random when long and mixed-case
	// without the shape of camelCase words.
	return len(v) >= 16 && upper > 0 && lower > 0 && !wordsLike(v)
}

// nonNullRef reports whether a value is a dotted reference followed by
// TypeScript's non-null assertion (process.env.STRIPE_KEY!, config.apiKey!):
// code naming where a secret is, not the secret.
func nonNullRef(v string) bool {
	r, ok := strings.CutSuffix(v, "!")
	return ok && strings.Contains(r, ".") && identifier(r)
}

// wordsLike reports whether a letters-only value reads as words:
// camelCase words, or words around acronyms (HTTPAuthorizationCredentials,
// XMLHttpRequest, APIKeyHeader).
func wordsLike(v string) bool {
	return camelWords(v) || acronymWords(v)
}

// acronymWords reports whether a letters-only value is words joined in
// camelCase or PascalCase with one or two acronyms of 2-5 capitals among
// them (HTTPAuthorizationCredentials, getHTTPResponse): every word at least
// three letters, four letters a word on average. Random mixed-case letters
// pass about as rarely as they pass camelWords (2 % at 16 letters, under
// 0.1 % at 32; measured on 200,000 random strings a length).
func acronymWords(v string) bool {
	words, acronyms := 0, 0
	isUpper := func(c byte) bool { return c >= 'A' && c <= 'Z' }
	isLower := func(c byte) bool { return c >= 'a' && c <= 'z' }
	for i := 0; i < len(v); {
		switch c := v[i]; {
		case isLower(c): // only a leading lower-case word (getHTTP…)
			if i != 0 {
				return false
			}
			j := i
			for j < len(v) && isLower(v[j]) {
				j++
			}
			if j-i < 3 && j < len(v) {
				return false
			}
			words++
			i = j
		case isUpper(c):
			j := i
			for j < len(v) && isUpper(v[j]) {
				j++
			}
			if j < len(v) && isLower(v[j]) {
				// HTTPAuth: the capitals before the last are an acronym,
				// the last starts a word.
				if acr := j - 1 - i; acr > 5 {
					return false
				} else if acr > 0 {
					words++
					acronyms++
				}
				k := j
				for k < len(v) && isLower(v[k]) {
					k++
				}
				if k-(j-1) < 3 {
					return false
				}
				words++
				i = k
				continue
			}
			if j-i < 2 || j-i > 5 {
				return false
			}
			words++
			acronyms++
			i = j
		default:
			return false
		}
	}
	return acronyms >= 1 && acronyms <= 2 && len(v) >= 4*words
}

// versionLike: v1.2.3, 2.0.1-beta, utf-8, x86_64, sha256 — short tokens
// whose digits are a version or a name, not randomness.
func versionLike(v string) bool {
	if len(v) > 12 {
		return false
	}
	l := strings.ToLower(v)
	switch l {
	case "sha256", "sha512", "sha1", "md5", "utf-8", "utf8", "base64", "x86_64", "amd64", "arm64", "int64", "int32",
		"uint64", "uint32", "float64", "float32", "ipv4", "ipv6", "http2", "oauth2", "oauth1", "h264", "es256", "rs256", "hs256":
		return true
	}
	if l[0] == 'v' && len(l) > 1 && l[1] >= '0' && l[1] <= '9' {
		return true
	}
	return false
}

// camelWords reports whether a letters-only value is words joined in
// camelCase or PascalCase (getAuthToken, JsonResponse): every capital is
// followed by a lower-case letter.
// Words are three letters long on average; AbCdEfGh is not words.
func camelWords(v string) bool {
	words := 1
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= 'A' && c <= 'Z' {
			if i+1 >= len(v) || !(v[i+1] >= 'a' && v[i+1] <= 'z') {
				return false
			}
			if i > 0 {
				words++
			}
		} else if !(c >= 'a' && c <= 'z') {
			return false
		}
	}
	return len(v) >= 3*words
}

// identifier reports whether a value is a name in code or prose: letters
// and underscores (dotted parts allowed), no digits — jsonResponse, key,
// settings.api_key, TEST_SESSION. A letters-only run of 16 or more with
// random case is not (secretLike decides those).
func identifier(v string) bool {
	if v == "" {
		return false
	}
	for _, p := range strings.Split(v, ".") {
		if p == "" || !identWord(p) {
			return false
		}
		if len(p) >= 16 && !wordsLike(p) && strings.ToLower(p) != p && strings.ToUpper(p) != p && !strings.Contains(p, "_") {
			return false // AbCdEfGhIjKlMnOpQr: random, not a name
		}
	}
	return true
}

// placeholder reports whether a value stands in for a secret rather than
// being one: <your-key>, YOUR_API_KEY, xxx…, ***, changeme, [MASKED].
func placeholder(v string) bool {
	if v == "" {
		return true
	}
	if v[0] == '<' && v[len(v)-1] == '>' || v[0] == '[' && v[len(v)-1] == ']' || v[0] == '{' && v[len(v)-1] == '}' {
		return true
	}
	l := strings.ToLower(v)
	for _, w := range []string{"xxx", "***", "...", "…", "your_", "your-", "<your", "placeholder", "redacted", "changeme", "replace_me", "replace-me"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return strings.HasPrefix(l, "example") || strings.HasPrefix(l, "dummy") || strings.HasPrefix(l, "fake")
}

// notAPassword reports whether a value under a password key is plainly not
// a password: a placeholder, an identifier with an underscore or a capital
// inside (a variable), a dotted reference, a type name, or punctuation.
func notAPassword(v string) bool {
	if placeholder(v) || typeName[v] || nonNullRef(v) {
		return true
	}
	// A negated reference (hasPassword: !!OBS_WS_PASSWORD, !process.env.PW):
	// JavaScript, not a password.
	if rest := strings.TrimLeft(v, "!"); rest != v && identifier(rest) &&
		(strings.HasPrefix(v, "!!") || strings.ContainsAny(rest, "_.") || hasInnerCapital(rest)) {
		return true
	}
	if !strings.ContainsFunc(v, func(r rune) bool {
		return r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f
	}) {
		return true // **, ->, |
	}
	if identifier(v) && (strings.ContainsAny(v, "_.") || !camelWords(v) && strings.ToUpper(v) == v && len(v) > 1 || hasInnerCapital(v)) {
		return true // db_password, settings.pw, DEFAULT_PW, userPassword
	}
	return false
}

func hasInnerCapital(v string) bool {
	for i := 1; i < len(v); i++ {
		if v[i] >= 'A' && v[i] <= 'Z' && v[i-1] >= 'a' && v[i-1] <= 'z' {
			return true
		}
	}
	return false
}

// typeName are type annotations that follow a secret-named field in code
// (password: string, token: str).
var typeName = map[string]bool{"string": true, "String": true, "str": true, "Optional": true, "number": true,
	"int": true, "bool": true, "boolean": true, "bytes": true, "any": true, "SecretStr": true, "Secret": true}

// schemeWord: an Authorization scheme alone is not a credential.
func schemeWord(v string) bool {
	switch strings.ToLower(v) {
	case "bearer", "basic", "digest", "token", "negotiate", "ntlm", "apikey":
		return true
	}
	return false
}

// trimClosing removes the closing punctuation a value run may end in
// (a sentence's full stop, a bracket, a markdown emphasis), so that
// masking never consumes it.
func trimClosing(v string) string {
	return strings.TrimRight(v, ".,:;)]}*`'\"")
}

// credential reports whether the word after an Authorization scheme
// (Basic, Bearer) is one: secretLike, or base64 letters whose case is not
// that of words (dXNlcjpwYXNz).
func credential(v string) bool {
	if secretLike(v) {
		return true
	}
	return len(v) >= 8 && !placeholder(v) && !camelWords(v) && strings.ToLower(v) != v && strings.ToUpper(v) != v &&
		!strings.ContainsAny(v, " \t\n_.")
}

// valueIsSecret decides whether the value after a secret-named key is
// masked; sep is what stands between key and value (" = " in code).
func valueIsSecret(key, v, sep string) bool {
	if passwordKey(key) {
		if notAPassword(v) {
			return false
		}
		// password = pw in code: an assignment with spaces around "=" of a
		// bare name is a variable; env files and flags have no spaces.
		if strings.HasPrefix(sep, " ") && strings.Contains(sep, "=") && strings.HasSuffix(sep, " ") && identifier(v) {
			return false
		}
		return true
	}
	if (uuidRe.MatchString(v) || wordNumberRe.MatchString(v)) && strings.Contains(strings.ToLower(key), "session") {
		return false // an agent's or a trace's session id names a record (a UUID, session-456, test-1234); a session cookie is neither
	}
	return secretLike(v)
}

// wordNumberRe is a word and a number (session-456, test_1234): a test's
// or a log's record id, never a generated secret.
var wordNumberRe = regexp.MustCompile(`^[A-Za-z]{2,16}[-_][0-9]{1,8}$`)

var uuidRe = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// describesPassword reports whether the text after a password key, to the
// end of its line (or of its quotes), is words about a password rather
// than one: a label or a description naming the password again
// ("Eversource Password", "Eversource account password.", "the user's
// password"). A password with spaces that names itself is not worth the
// ordinary text this masked.
func describesPassword(rest string) bool {
	if rest != "" && (rest[0] == '"' || rest[0] == '\'') {
		end := strings.IndexByte(rest[1:], rest[0])
		if end < 0 {
			return false
		}
		rest = rest[1 : 1+end]
	} else if nl := strings.IndexAny(rest, "\n\r"); nl >= 0 {
		rest = rest[:nl]
	}
	if !strings.ContainsAny(strings.TrimSpace(rest), " \t") {
		return false
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(rest), func(r rune) bool {
		return !(r >= 'a' && r <= 'z')
	}) {
		switch w {
		case "password", "passwords", "passphrase", "passwd":
			return true
		}
	}
	return false
}

// tokenPlaceholder reports whether a value with a well-known token prefix
// is a template's stand-in (sk-ant-your-claude-key,
// sk-your-api-key-here, ghp_xxxxxxxxxxxxxxxxxxxx): a part of it, between
// '-' and '_', is a placeholder word or a run of x. A generated token's
// parts are random letters and digits.
func tokenPlaceholder(t string) bool {
	for _, p := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return r == '-' || r == '_' }) {
		switch p {
		case "your", "here", "example", "placeholder", "dummy", "fake", "changeme", "redacted", "replace":
			return true
		}
		if len(p) >= 4 && strings.Trim(p, "x") == "" {
			return true
		}
	}
	return false
}
