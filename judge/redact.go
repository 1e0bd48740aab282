package judge

import (
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
)

// Masked replaces a credential in a URL.
const Masked = "***"

// plainQueryKeys are query parameters known to carry no secret; every other
// parameter's value is masked, since base URLs of hosted APIs often carry a
// key or a signature in the query (?key=…, ?sig=…, ?code=…).
var plainQueryKeys = map[string]bool{"api-version": true, "version": true, "model": true, "format": true, "stream": true}

// RedactURL masks the credentials of a URL for anything that leaves apeval
// (run.json, summaries, the cache file, error columns, logs): the whole
// user-info part and the value of every query parameter not known to be
// harmless. A string that is not a URL is returned as is.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return s
	}
	return redactParsed(u)
}

func redactParsed(u *url.URL) string {
	v := *u
	if v.User != nil {
		v.User = url.User(Masked)
	}
	if v.RawQuery != "" {
		q, err := url.ParseQuery(v.RawQuery)
		if err != nil {
			v.RawQuery = Masked
		} else {
			for k, vals := range q {
				if plainQueryKeys[strings.ToLower(k)] {
					continue
				}
				for i := range vals {
					vals[i] = Masked
				}
			}
			v.RawQuery = strings.ReplaceAll(q.Encode(), url.QueryEscape(Masked), Masked)
		}
	}
	// url.User escapes "*"; the mask reads better as it is.
	return strings.Replace(v.String(), "%2A%2A%2A@", Masked+"@", 1)
}

// urlInText finds http(s) URLs inside a message (Go's transport errors quote
// the request URL).
var urlInText = regexp.MustCompile(`https?://[^\s"'<>]+`)

// RedactText masks the credentials of every URL inside s.
func RedactText(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlInText.ReplaceAllStringFunc(s, RedactURL)
}

// endpoint joins a path onto a base URL with net/url, keeping the base's
// query (a string concatenation would put the path after the query).
func endpoint(base *url.URL, elem string) string {
	return base.JoinPath(elem).String()
}

// minSecretValue is the shortest secret masked by its value: a shorter one
// would mask ordinary words and numbers all through a message.
const minSecretValue = 8

// maskSecretValue replaces every occurrence of secret in s, as given and
// as it appears URL-escaped or JSON-escaped, with [MASKED].
func maskSecretValue(s, secret string) string {
	if len(secret) < minSecretValue || s == "" {
		return s
	}
	forms := []string{secret, url.QueryEscape(secret), url.PathEscape(secret)}
	if b, err := json.Marshal(secret); err == nil {
		forms = append(forms, string(b[1:len(b)-1]))
	}
	for _, f := range forms {
		s = strings.ReplaceAll(s, f, MaskedValue)
	}
	return s
}

// MaskedValue replaces a secret found by its value.
const MaskedValue = "[MASKED]"
