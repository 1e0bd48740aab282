package mask

import (
	"encoding/json"
	"net/url"
	"strings"
)

// minSecretValue is the shortest secret Secret masks by its value: a
// shorter one would mask ordinary words and numbers all through a message.
const minSecretValue = 8

// Secret masks a secret apeval itself holds (the API key it sends) by its
// value: every occurrence in s, as given, URL-escaped or JSON-escaped,
// becomes [MASKED], whatever the secret looks like. A server that quotes
// the key back in its error ("Incorrect API key provided: gw-…") cannot
// get it into anything apeval writes. A secret shorter than 8 bytes is
// left to the patterns.
func Secret(s, secret string) string {
	if len(secret) < minSecretValue || s == "" {
		return s
	}
	forms := []string{secret, url.QueryEscape(secret), url.PathEscape(secret)}
	if b, err := json.Marshal(secret); err == nil {
		forms = append(forms, string(b[1:len(b)-1]))
	}
	for _, f := range forms {
		if f != "" {
			s = strings.ReplaceAll(s, f, "[MASKED]")
		}
	}
	return s
}
