package mask

import (
	"encoding/json"
	"regexp"
	"strings"
)

// Masked replaces a secret value; the key it belonged to is kept
// ("password=[MASKED]") so a judge still sees that a secret was there.
const Masked = "[MASKED]"

// maskRule finds one kind of secret. Scanning a whole string with a regexp
// that may start anywhere is slow in Go (tens of µs per rule), so each rule
// names literal triggers where a match starts; only there is its regexp,
// anchored with ^, tried. The regexp's first group is the secret, replaced
// by Masked when ok (if set) accepts it.
type maskRule struct {
	triggers []string // where a match starts; lower-case when fold
	fold     bool     // triggers match case-insensitively
	word     bool     // a trigger must start a word (no [A-Za-z0-9_] before it)
	// back moves the match start before the trigger (the scheme of a URL).
	back func(s string, i int) int
	re   *regexp.Regexp
	ok   func(secret string) bool
	// scan, when set, is a hand-written masker used instead.
	scan func(s string) string
}

var maskRules = []maskRule{
	// PEM private keys: the whole body, also when the block is cut off.
	{scan: maskPEM},
	// Well-known token formats.
	{triggers: []string{"sk-", "AKIA", "ASIA", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-",
		"xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "AIza", "sk_live_", "sk_test_", "rk_live_", "rk_test_",
		"pk_live_", "pk_test_", "hf_", "npm_", "eyJ", "dop_v1_", "doo_v1_", "dor_v1_", "shpat_", "shpss_", "shpca_",
		"pypi-", "glsa_", "SG."}, word: true,
		re: regexp.MustCompile(`^(` +
			`sk-[A-Za-z0-9_-]{16,}` + // OpenAI, Anthropic (sk-ant-…), sk-proj-…
			`|(?:AKIA|ASIA)[0-9A-Z]{16}` + // AWS access key id
			`|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}` + // GitHub
			`|glpat-[A-Za-z0-9_-]{20,}` + // GitLab
			`|xox[abposr]-[A-Za-z0-9-]{10,}` + // Slack
			`|AIza[0-9A-Za-z_-]{35}` + // Google API key
			`|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}` + // Stripe
			`|hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{36}` + // Hugging Face, npm
			`|eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}` + // JWT
			`|do[opr]_v1_[a-f0-9]{64}` + // DigitalOcean
			`|shp(?:at|ss|ca)_[a-fA-F0-9]{32}` + // Shopify
			`|pypi-[A-Za-z0-9_-]{50,}` + // PyPI upload token
			`|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}` + // Grafana service account
			`|SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}` + // SendGrid
			`)`), ok: func(t string) bool { return !tokenPlaceholder(t) }},
	// Twilio: Client('AC<sid>', '<auth token>').
	{triggers: []string{"'AC", `"AC`},
		re: regexp.MustCompile(`^['"]AC[0-9a-f]{32}['"]\s*,\s*['"]([0-9a-f]{32})['"]`)},
	// A secret piped into a login: echo TOKEN | docker login --password-stdin.
	{triggers: []string{"echo", "printf"}, word: true,
		re: regexp.MustCompile(`^(?:echo|printf)\s+(?:-n\s+)?["']?([^\s"'$|][^\s"'|]{7,})["']?\s*\|[^|\n]*--password-stdin`)},
	// A password piped into sudo -S (any length: it is the user's password).
	{triggers: []string{"echo", "printf"}, word: true,
		re: regexp.MustCompile(`^(?:echo|printf)\s+(?:-[ne]+\s+)?["']?([^\s"'$|][^\s"'|]*)["']?\s*\|\s*sudo\b[^|\n]*?\s-[A-Za-z]*S\b`)},
	// Credentials inside URLs: scheme://user:password@host, the user may be
	// empty (redis://:pw@cache) and the password may hold a slash
	// (postgresql://u:ab/cd@h) unless what precedes the slash is a port
	// (https://host:8080/users/@alice is a path, not a password).
	{triggers: []string{"://"}, back: urlScheme,
		re: regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*:([^@\s]+)@`),
		ok: func(v string) bool {
			port, _, slash := strings.Cut(v, "/")
			return !slash || !allDigits(port) && !strings.Contains(v, "://")
		}},
	// Webhook URLs whose last part is the credential: Slack, Discord.
	{triggers: []string{"hooks.slack.com/services/"},
		re: regexp.MustCompile(`^hooks\.slack\.com/services/[A-Z0-9]+/[A-Z0-9]+/([A-Za-z0-9]{16,})`)},
	{triggers: []string{"discord.com/api/webhooks/", "discordapp.com/api/webhooks/"},
		re: regexp.MustCompile(`^discord(?:app)?\.com/api/webhooks/[0-9]+/([A-Za-z0-9_-]{30,})`)},
	// aws configure set aws_secret_access_key X (and any secret-named
	// setting: aws_session_token, a profile's …secret…).
	{triggers: []string{"configure"}, word: true,
		re: regexp.MustCompile(`^configure\s+set\s+(?:[A-Za-z0-9_.-]*\.)?(?i:[A-Za-z0-9_-]*(?:secret|token|password)[A-Za-z0-9_-]*)\s+("[^"\n]*"|'[^'\n]*'|\S+)`)},
	// sshpass -p PASSWORD (the flags before the command only: ssh -p is a port).
	{triggers: []string{"sshpass"}, word: true,
		re: regexp.MustCompile(`^sshpass(?:\s+-[fdP]\s*\S+|\s+-[ev])*\s+-p\s*("[^"\n]*"|'[^'\n]*'|\S+)`)},
	// az login … -p SECRET (a service principal's password or secret).
	{triggers: []string{"az"}, word: true,
		re: regexp.MustCompile(`^az\s+login\b[^\n|;&]*?\s(?:-p|--password)[\s=]+("[^"\n]*"|'[^'\n]*'|\S+)`)},
	// Authorization schemes: Bearer …, Basic …, token … (token-like values
	// only, so "basic operations" stays readable).
	// A file name after the word ("a basic CLAUDE.md file", "token
	// usage.json") is prose, not a credential; Basic credentials are base64.
	// The credential never ends in a full stop: "token statistics." is a
	// sentence, and a value must look generated (secretLike) either way.
	// The word and its credential share a line, as in a header: a comment
	// that ends in "token" is not followed by its value on the next line
	// ("# API authentication token\nMODEL_PATH=/models/…").
	{triggers: []string{"bearer", "digest", "token"}, fold: true, word: true,
		re: regexp.MustCompile(`^(?i:bearer|digest|token)[ \t]+([A-Za-z0-9._~+/=-]{7,}[A-Za-z0-9_~+/=-])`),
		ok: func(v string) bool { return secretLike(v) && !fileName(v) }},
	{triggers: []string{"basic"}, fold: true, word: true,
		re: regexp.MustCompile(`^(?i:basic)\s+([A-Za-z0-9+/]{8,}={0,2})(?:[^A-Za-z0-9._~+/=-]|$)`),
		ok: credential},
	// key=value, key: value, "key": "value", env assignments and URL query
	// parameters whose key names a secret.
	{scan: maskKeyValues},
	// Command-line flags followed by a secret: --password x, --token x.
	{triggers: []string{"-pass", "-token", "-secret", "-api-key", "-apikey", "-auth-token", "-access-token"}, fold: true,
		back: flagStart,
		re:   regexp.MustCompile(`^--?(?i:password|passwd|pass|token|secret|api-key|apikey|auth-token|access-token)\s+("[^"\n]*"|'[^'\n]*'|\S+)`)},
	// mysql -pSECRET.
	{triggers: []string{"mysql", "mariadb"}, word: true,
		re: regexp.MustCompile(`^(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]*?\s-p(\S+)`)},
	// curl -u user:password.
	{triggers: []string{"-u"}, back: flagStart, // finds --user too: flagStart takes its second dash back to the first
		re: regexp.MustCompile(`^(?:-u|--user)[\s=]+[^:\s]+:(\S+)`),
		ok: func(v string) bool { return !strings.HasPrefix(v, "//") }}, // a URL (redis-cli -u redis://…) is the URL rule's
	// A long random word right after a secret word, on its line: "token
	// abcd…", "secret is …".
	{triggers: []string{"key", "token", "secret", "password", "passphrase"}, fold: true, word: true,
		re: regexp.MustCompile(`^(?i:key|token|secret|password|passphrase)s?(?:[ \t]+is)?[ \t]+([A-Za-z0-9_+/=.-]{15,}[A-Za-z0-9_+/=-])`),
		ok: looksRandom},
	// Personal data, by type (pii.go).
	{scan: maskPII},
}

// apply masks every match of the rule in s; at holds the positions where
// the rule's triggers occur in s (findTriggers), in ascending order.
func (r *maskRule) apply(s string, at []trigHit, rule int) string {
	if r.scan != nil {
		return r.scan(s)
	}
	var b strings.Builder
	last, i := 0, 0
	for _, h := range at {
		p := int(h.pos)
		if int(h.rule) != rule || p < i {
			continue
		}
		i = p + 1
		start := p
		if r.back != nil {
			if start = r.back(s, p); start < 0 {
				continue
			}
		}
		if start < last {
			continue
		}
		m := r.re.FindStringSubmatchIndex(s[start:])
		if m == nil {
			continue
		}
		g0, g1 := start+m[2], start+m[3]
		secret := s[g0:g1]
		if secret == Masked || r.ok != nil && !r.ok(secret) {
			continue
		}
		b.WriteString(s[last:g0])
		b.WriteString(Masked)
		last = g1
		i = max(i, start+m[1])
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// trigHit is one place where a rule's trigger occurs.
type trigHit struct {
	pos  int32
	rule uint8
}

// trigEntry is one rule's trigger in the table of all triggers.
type trigEntry struct {
	t    string // lower-case when fold
	rule uint8
	fold bool
}

// triggers holds every trigger of every rule by its first byte (a
// case-insensitive trigger under both cases), those that must start a
// word apart from the others, so that one pass over a text finds the
// triggers of all rules: searching for each of the ~60 triggers with
// strings.Index took most of masking's time, since common first letters
// (t, k, e, -) make each search stop often.
var triggers = func() *trigTable {
	t := new(trigTable)
	for c := range 256 {
		if isWordChar(byte(c)) {
			t.class[c] |= classWordChar
		}
	}
	for ri := range maskRules {
		r := &maskRules[ri]
		for _, tr := range r.triggers {
			if len(tr) < 2 || r.fold && !(tr[1] >= 'a' && tr[1] <= 'z') {
				panic("mask: a trigger needs two bytes, a case-insensitive one a lower-case letter second: " + tr)
			}
			e := trigEntry{t: tr, rule: uint8(ri), fold: r.fold}
			firsts := []byte{tr[0]}
			if r.fold && tr[0] >= 'a' && tr[0] <= 'z' {
				firsts = append(firsts, tr[0]-'a'+'A')
			}
			for _, c := range firsts {
				if r.word {
					t.word[c] = append(t.word[c], e)
					t.class[c] |= classWordTrigger
				} else {
					t.any[c] = append(t.any[c], e)
					t.class[c] |= classAnyTrigger
				}
			}
		}
	}
	return t
}()

type trigTable struct {
	word, any [256][]trigEntry
	class     [256]uint8
}

const (
	classWordChar    = 1 << iota // [A-Za-z0-9_]
	classWordTrigger             // a trigger that must start a word begins with it
	classAnyTrigger              // a trigger that may begin anywhere begins with it
)

// findTriggers appends to hits, in ascending order, every position of s
// where a rule's trigger begins (at a word start for a word rule).
func findTriggers(s string, hits []trigHit) []trigHit {
	t := triggers
	wordStart := true
	for i := 0; i < len(s); i++ {
		cl := t.class[s[i]]
		if cl&classWordTrigger != 0 && wordStart {
			hits = matchTriggers(s, i, t.word[s[i]], hits)
		}
		if cl&classAnyTrigger != 0 {
			hits = matchTriggers(s, i, t.any[s[i]], hits)
		}
		wordStart = cl&classWordChar == 0
	}
	return hits
}

// matchTriggers appends a hit for each of es that begins s[i:].
func matchTriggers(s string, i int, es []trigEntry, hits []trigHit) []trigHit {
	for _, e := range es {
		if len(s)-i < len(e.t) {
			continue
		}
		// Every trigger has two bytes or more; a fold trigger's second
		// byte is a letter, so |0x20 lower-cases exactly that.
		if c := s[i+1]; e.fold && c|0x20 != e.t[1] || !e.fold && c != e.t[1] {
			continue
		}
		if e.fold && hasPrefixFold(s[i:], e.t) || !e.fold && s[i:i+len(e.t)] == e.t {
			hits = append(hits, trigHit{pos: int32(i), rule: e.rule})
		}
	}
	return hits
}

// hasPrefixFold reports whether s begins with the lower-case t, ignoring
// ASCII case.
func hasPrefixFold(s, t string) bool {
	for j := 0; j < len(t); j++ {
		c := s[j]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != t[j] {
			return false
		}
	}
	return true
}

// urlScheme moves back from "://" over the scheme; -1 when there is none.
func urlScheme(s string, i int) int {
	j := i
	for j > 0 && (isAlnum(s[j-1]) || s[j-1] == '+' || s[j-1] == '.' || s[j-1] == '-') {
		j--
	}
	for j < i && !(s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z') {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// flagStart takes a flag's second dash back to the first and requires the
// flag to start the string or follow whitespace.
func flagStart(s string, i int) int {
	if i > 0 && s[i-1] == '-' {
		i--
	}
	if i > 0 && !isSpace(s[i-1]) {
		return -1
	}
	return i
}

// maskPEM replaces the body of PEM private keys, keeping the armour lines.
func maskPEM(s string) string {
	const begin = "-----BEGIN "
	if !strings.Contains(s, "PRIVATE KEY-----") && !strings.Contains(s, "PRIVATE KEY BLOCK-----") {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		k := strings.Index(s[i:], begin)
		if k < 0 {
			break
		}
		p := i + k
		i = p + 1
		rest := s[p+len(begin):]
		h := strings.Index(rest, "PRIVATE KEY")
		if h < 0 || !pemLabel(rest[:h]) {
			continue
		}
		// PEM: …PRIVATE KEY-----; OpenPGP armour: …PRIVATE KEY BLOCK-----.
		tail := ""
		switch {
		case strings.HasPrefix(rest[h:], "PRIVATE KEY-----"):
			tail = "PRIVATE KEY-----"
		case strings.HasPrefix(rest[h:], "PRIVATE KEY BLOCK-----"):
			tail = "PRIVATE KEY BLOCK-----"
		default:
			continue
		}
		label := rest[:h] // "RSA ", "OPENSSH ", "PGP ", ""
		bodyStart := p + len(begin) + h + len(tail)
		end := len(s)
		if e := strings.Index(s[bodyStart:], "-----END "); e >= 0 {
			if f := strings.Index(s[bodyStart+e:], tail); f >= 0 {
				end = bodyStart + e + f + len(tail)
			}
		}
		b.WriteString(s[last:p])
		b.WriteString(begin + label + tail + Masked + "-----END " + label + tail)
		last = end
		i = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func pemLabel(l string) bool {
	for i := 0; i < len(l); i++ {
		if c := l[i]; !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == ' ') {
			return false
		}
	}
	return true
}

// callRe matches a value that starts with a function or method call.
var callRe = regexp.MustCompile(`^(?:(?:await|new|yield)\s+)?[A-Za-z_][A-Za-z0-9_.]*\(`)

// annotRe is a type annotation before an assignment's '=': Final, str,
// Optional[str] (not "==", a comparison).
var annotRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*(?:\[[A-Za-z0-9_., \[\]]*\])?[ \t]*=[ \t]*`)

var authValueRe = regexp.MustCompile(`(?i)^(bearer|basic|digest|token)([ \t]+)`)

// maskKeyValues masks the values of key=value, key: value, "key": "value",
// env assignments and URL query parameters whose key names a secret
// (AWS_SECRET_ACCESS_KEY=…, ?token=…, "password": "…"). A value is a quoted
// string, an auth scheme and its credential ("Bearer x"), or a run up to
// whitespace or one of &;,"'<>. It is a scanner rather than a regexp: a
// regexp starting with a key-name class re-scans at every position.
func maskKeyValues(s string) string {
	var b strings.Builder
	last := 0
	nextEq, nextColon := -2, -2 // where the next '=' and ':' are (-1: none more)
	for i := 0; i < len(s); i++ {
		// Jump to the next '=' or ':' (IndexByte is vectorised; most of a
		// text is neither).
		if nextEq != -1 && nextEq < i {
			if k := strings.IndexByte(s[i:], '='); k >= 0 {
				nextEq = i + k
			} else {
				nextEq = -1
			}
		}
		if nextColon != -1 && nextColon < i {
			if k := strings.IndexByte(s[i:], ':'); k >= 0 {
				nextColon = i + k
			} else {
				nextColon = -1
			}
		}
		switch {
		case nextEq < 0 && nextColon < 0:
			i = len(s)
			continue
		case nextEq < 0:
			i = nextColon
		case nextColon < 0:
			i = nextEq
		default:
			i = min(nextEq, nextColon)
		}
		j := i
		for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
			j--
		}
		if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
			j--
		}
		kEnd := j
		for j > 0 && isKeyChar(s[j-1]) {
			j--
		}
		if j == kEnd || j < last || !secretKeyName(s[j:kEnd]) {
			continue
		}
		if j > 0 && (s[j-1] == '$' || s[j-1] == '%' || s[j-1] == '{' && j > 1 && s[j-2] == '$') {
			continue // a reference to the variable (${OPENAI_API_KEY:0:10}, %API_KEY%), not an assignment
		}
		if s[i] == ':' && (s[j:kEnd] == "NOPASSWD" || s[j:kEnd] == "PASSWD") {
			continue // a sudoers tag (NOPASSWD:ALL), the very part a judge must see
		}
		k := i + 1
		if s[i] == ':' && k < len(s) && s[k] == '=' {
			k++ // Go's := assigns like =
		}
		for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
			k++
		}
		// A markdown key (**Token:** value): the value follows the
		// emphasis that closes the key.
		if e := k; e < len(s) && (s[e] == '*' || s[e] == '_') {
			for e < len(s) && (s[e] == '*' || s[e] == '_') {
				e++
			}
			if e < len(s) && (s[e] == ' ' || s[e] == '\t') {
				for e < len(s) && (s[e] == ' ' || s[e] == '\t') {
					e++
				}
				k = e
			}
		}
		// A Python annotated assignment (API_PASSWORD: Final = "…",
		// token: str = "…"): the word after ':' is the type; the value is
		// after '='.
		if s[i] == ':' {
			if m := annotRe.FindStringIndex(s[k:]); m != nil && (k+m[1] >= len(s) || s[k+m[1]] != '=') {
				k += m[1]
			}
		}
		vStart, vEnd, repl := k, k, Masked
		key := s[j:kEnd]
		if passwordKey(key) && describesPassword(s[k:]) {
			continue // "eversource_password": "Eversource Password", password: the account's password.
		}
		switch {
		case k < len(s) && s[k] == '$':
			continue // a variable reference ($VAULT_KEY, ${X}), not the secret itself
		case k < len(s) && (s[k] == '{' || s[k] == '[' || s[k] == '`'):
			continue // an expression (key={todo.id}), an object or a list: code; its own keys are looked at
		case !secretValueKey(key):
			continue // what the key names is about a secret, not one: token_type, max_tokens
		case k < len(s) && (s[k] == '"' || s[k] == '\''):
			end := strings.IndexByte(s[k+1:], s[k])
			if end < 0 || strings.IndexByte(s[k+1:k+1+end], '\n') >= 0 {
				continue
			}
			if end == 0 || s[k+1] == '$' {
				continue // empty, or a variable reference in quotes
			}
			if !valueIsSecret(key, s[k+1:k+1+end], s[kEnd:k]) {
				continue // "session_id": "TEST_SESSION", "token": "used twice"
			}
			vEnd = k + 2 + end
			repl = string(s[k]) + Masked + string(s[k])
		case callRe.MatchString(s[k:]):
			continue // a function call (GetPassword(user)), code, not a secret
		default:
			if m := authValueRe.FindStringSubmatch(s[k:]); m != nil {
				vStart = k + len(m[0])
			}
			vEnd = vStart
			for vEnd < len(s) && !valueStop(s[vEnd]) {
				vEnd++
			}
			// Closing punctuation, markdown and quotes stay: the value is
			// what comes before them ("api_key=key);", "Tokens:**").
			vEnd = vStart + len(trimClosing(s[vStart:vEnd]))
			if v := s[vStart:vEnd]; vStart == k && (schemeWord(v) || !valueIsSecret(key, v, s[kEnd:k])) || vStart > k && !credential(v) {
				continue // `Authorization: Bearer` header, token [MASKED] of prose
			}
		}
		if vEnd == vStart || s[vStart:vEnd] == repl {
			continue
		}
		if v := s[vStart:vEnd]; repl == Masked && (codeReference(key, v) || numericCount(key, v) || codeLiteral[strings.TrimRight(v, ",;)}]`.")]) {
			continue // session_id: session_id, api_key=settings.api_key, max_tokens: 1024
		}
		if weakKey(key) && !looksSecret(strings.Trim(s[vStart:vEnd], `"'`)) {
			continue // key: value, sort_key: created_at: a key named only "…key" needs a value that looks like one
		}
		b.WriteString(s[last:vStart])
		b.WriteString(repl)
		last = vEnd
		i = vEnd - 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

func valueStop(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\f', '\v', '&', ';', ',', '"', '\'', '<', '>', '`', '(', ')', '[', ']', '{', '}':
		return true
	}
	return false
}

// secretKeyName reports whether a key names a secret: it contains a secret
// word, or its last part (after _ - .) is pass, pwd, auth, sig or key.
func secretKeyName(k string) bool {
	l := strings.ToLower(k)
	for _, w := range secretKeyWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	if i := strings.LastIndexAny(l, "_-."); i >= 0 {
		l = l[i+1:]
	}
	switch l {
	case "pass", "pwd", "auth", "sig", "key":
		return true
	}
	return false
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// codeLiteral are values that are code, never a secret (password = None).
var codeLiteral = map[string]bool{"null": true, "nil": true, "None": true, "undefined": true, "true": true, "false": true}

// fileName reports whether a word is a file name (CLAUDE.md, setup.py).
func fileName(v string) bool {
	i := strings.LastIndexByte(v, '.')
	if i <= 0 || i == len(v)-1 {
		return false
	}
	switch strings.ToLower(v[i+1:]) {
	case "md", "txt", "json", "jsonl", "yaml", "yml", "toml", "ini", "cfg", "conf", "go", "py", "js", "ts", "tsx", "jsx",
		"rs", "rb", "java", "kt", "c", "h", "cpp", "cs", "sh", "html", "css", "xml", "csv", "log", "lock", "mod", "sum", "sql", "proto":
		return true
	}
	return false
}

// secretValueKey reports whether a secret-named key holds the secret
// itself: token_type, password_file, api_key_name, max_tokens name
// something about it.
func secretValueKey(k string) bool {
	l := strings.ToLower(k)
	if i := strings.LastIndexAny(l, "_-."); i >= 0 {
		switch l[i+1:] {
		case "type", "kind", "count", "length", "len", "size", "limit", "ttl", "name", "file", "path", "dir", "url", "uri",
			"endpoint", "header", "field", "policy", "prompt", "hint", "format", "expiry", "expires", "at":
			return false
		}
	}
	return true
}

// codeReference reports whether a value is a name in code rather than a
// secret: the key's own name (session_id: session_id, token: token,
// sessionId: sessionId) or a dotted reference (settings.api_key,
// self.password).
func codeReference(key, v string) bool {
	v = strings.TrimRight(v, ",;)}]`.")
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		key = key[i+1:] // self.api_key = api_key
	}
	norm := func(x string) string {
		return strings.ToLower(strings.NewReplacer("_", "", "-", "", ".", "").Replace(x))
	}
	if norm(v) == norm(key) && v != "" {
		return true
	}
	parts := strings.Split(v, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if len(p) < 2 || !identWord(p) {
			return false
		}
	}
	return true
}

// identWord: letters and underscores, no digits (a random token has some).
func identWord(p string) bool {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
			return false
		}
	}
	return true
}

// numericCount: a number under a key that counts tokens (max_tokens,
// input_tokens, num_tokens) is a count, not a token.
func numericCount(key, v string) bool {
	l := strings.ToLower(key)
	if !strings.Contains(l, "tokens") && !strings.HasPrefix(l, "max_token") && !strings.HasPrefix(l, "num_token") {
		return false
	}
	v = strings.TrimRight(v, ",;)}]`.")
	for i := 0; i < len(v); i++ {
		if !(v[i] >= '0' && v[i] <= '9' || v[i] == '.' || v[i] == '_') {
			return false
		}
	}
	return v != ""
}

// weakKey reports whether a key names a secret only by ending in "key"
// (key, sort_key, primary_key, STRIPE_KEY) and not by a secret word.
func weakKey(k string) bool {
	l := strings.ToLower(k)
	for _, w := range secretKeyWords {
		if strings.Contains(l, w) {
			return false
		}
	}
	if i := strings.LastIndexAny(l, "_-."); i >= 0 {
		l = l[i+1:]
	}
	return l == "key"
}

// looksSecret: a value under a weak key is masked when it looks like a
// key — letters and digits mixed, or a long run of key characters.
func looksSecret(v string) bool {
	if looksRandom(v) && len(v) >= 8 {
		return true
	}
	if len(v) < 20 {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(isAlnum(c) || c == '+' || c == '/' || c == '=' || c == '_' || c == '-') {
			return false
		}
	}
	return true
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

// String masks the secrets in s: API keys (sk-…, AKIA…, ghp_…, xox…,
// JWTs, …), bearer/basic credentials, passwords (key=value, --password x,
// mysql -p…, user:pass@ in URLs, curl -u), URL query secrets, assignments to
// secret-named variables, PEM private keys, and long random tokens right
// after a secret word; then personal data by type ([CARD], [CVV], [SSN],
// [IBAN], [PHONE], [EMAIL:domain]). Masking is idempotent.
func String(s string) string {
	if plainWord(s) {
		return s // no pattern matches fewer than 15 bytes of word characters
	}
	out := maskPass(s)
	// A pass that masked something may leave text that a second pass would
	// mask (digits after a card number that was cut to its Luhn-valid
	// prefix form a card of their own): repeat until nothing changes, so
	// that masking is idempotent (in practice a second pass is the last;
	// at most five in all).
	for range 4 {
		if out == s {
			break
		}
		s, out = out, maskPass(out)
	}
	return out
}

// plainWord reports whether s is a short run of word characters (a map
// key, a tool name, a file name): shorter than the shortest secret a
// pattern finds without a separator (xoxb- and ten characters), holding no
// '=', ':', '@', space or quote a positional rule needs, and too few
// digits for personal data. Masking returns those unchanged at once.
func plainWord(s string) bool {
	if len(s) >= 15 {
		return false
	}
	digits := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '-' || c == '.' || c == '/':
		default:
			return false
		}
	}
	return digits < 3
}

// maskPass applies every masking rule once. The triggers of all rules
// are found in one pass over s, again only after a rule changed s.
func maskPass(s string) string {
	var buf [32]trigHit
	hits := findTriggers(s, buf[:0])
	for i := range maskRules {
		if s == "" {
			return s
		}
		out := maskRules[i].apply(s, hits, i)
		if out != s {
			s = out
			hits = findTriggers(s, hits[:0])
		}
	}
	return s
}

func isWordChar(c byte) bool { return isAlnum(c) || c == '_' }

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
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

// countValue: a number under a key that counts tokens ("max_tokens": 1024)
// or sizes a secret (token_ttl, password_length) is not a secret.
func countValue(k string, e any) bool {
	switch e.(type) {
	case float64, int, int64, json.Number:
	default:
		return false
	}
	l := strings.ToLower(k)
	return strings.Contains(l, "tokens") || strings.HasPrefix(l, "max_token") || strings.HasPrefix(l, "num_token") || !secretValueKey(k)
}

// secretKeyWords mark a key as secret wherever they occur in its name.
var secretKeyWords = []string{"password", "passwd", "passphrase", "secret", "token", "api_key", "apikey",
	"api-key", "access_key", "access-key", "accesskey", "private_key", "private-key", "privatekey",
	"client_key", "client-key", "authorization", "credential", "cookie", "signature",
	"accountkey", "account_key", "account-key", // an Azure connection string's AccountKey=
	"session_id", "session-id", "sessionid", "session_key"}

// Value returns a deep copy of v with every string masked and the
// whole value of secret-named keys (password, token, api_key,
// authorization, secret, …) replaced by Masked.
func Value(v any) any {
	switch v := v.(type) {
	case string:
		return String(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			mk := String(k) // a key name can be a secret too
			if secretKey(k) && e != nil && !countValue(k, e) {
				out[mk] = Masked
				continue
			}
			out[mk] = Value(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = Value(e)
		}
		return out
	case []string:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = String(e)
		}
		return out
	case map[string]string:
		out := make(map[string]any, len(v))
		for k, e := range v {
			mk := String(k)
			if secretKey(k) {
				out[mk] = Masked
				continue
			}
			out[mk] = String(e)
		}
		return out
	}
	return v
}

// tokens are what masking leaves in place of a secret or personal data.
var tokens = []string{Masked, MaskedCard, MaskedCVV, MaskedSSN, MaskedIBAN, MaskedPhone, "[EMAIL:"}

// HasToken reports whether s holds a token masking leaves ([MASKED],
// [CARD], [CVV], [SSN], [IBAN], [PHONE], [EMAIL:domain]): text masked
// here or before (an importer masks what it reads).
func HasToken(s string) bool {
	i := strings.IndexByte(s, '[')
	if i < 0 {
		return false
	}
	for _, t := range tokens {
		if strings.Contains(s[i:], t) {
			return true
		}
	}
	return false
}
