package mask

import "strings"

// Turn masks one message of a conversation (what the user typed, what the
// agent said) for a judge: String, and a message that is nothing but one
// credential-shaped token masked whole. Asked for a key, people paste it
// as their whole answer (in a public Claude Code session the user's
// message was an AirNow API key alone, a UUID, and it went to the judge
// as latest_user_message). String keeps a bare UUID, since in
// arguments and prose it names a record; a whole message that is one is
// masked here. Ordinary one-word answers (yes, a path, a branch name, a
// file, a short id) are not credential-shaped and stay.
func Turn(s string) string {
	s = String(s)
	t := strings.Trim(strings.TrimSpace(s), "\"'`")
	if loneCredential(t) {
		return strings.Replace(s, t, Masked, 1)
	}
	return s
}

// loneCredential reports whether t, a whole message, is one token with a
// credential's shape: a UUID, or 20 to 512 key characters (letters,
// digits, '-', '_', '+', '=', no '/', '.' or ':', so not a path, a file,
// a URL or a version) in which letters and digits alternate at least four
// times (generated, not words with a year in them).
func loneCredential(t string) bool {
	if uuidRe.MatchString(t) {
		return true
	}
	if len(t) < 20 || len(t) > 512 || HasToken(t) {
		return false
	}
	switches, prev := 0, byte(0)
	for i := 0; i < len(t); i++ {
		c := t[i]
		var kind byte
		switch {
		case c >= '0' && c <= '9':
			kind = 'd'
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			kind = 'l'
		case c == '-' || c == '_' || c == '+' || c == '=':
			continue
		default:
			return false
		}
		if prev != 0 && kind != prev {
			switches++
		}
		prev = kind
	}
	return switches >= 4
}
