package mask

import (
	"net/url"
	"regexp"
	"strings"
)

// plainQueryKeys are query parameters known to carry no secret; every other
// parameter's value is masked, since base URLs of hosted APIs often carry a
// key or a signature in the query (?key=…, ?sig=…, ?code=…).
var plainQueryKeys = map[string]bool{"api-version": true, "version": true, "model": true, "format": true, "stream": true}

// URL masks the credentials of a URL a user gave apeval to call (a judge's
// base URL or host) for anything that leaves apeval (run.json, summaries,
// error columns, logs): the whole user-info part and the value of every
// query parameter not known to be harmless. A string that is not a URL
// with a host is returned as is.
func URL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return s
	}
	v := *u
	if v.User != nil {
		v.User = url.User(Masked)
	}
	if v.RawQuery != "" && v.RawQuery != Masked {
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
	// url.User escapes the brackets; the mask reads better as it is.
	return strings.Replace(v.String(), url.PathEscape(Masked)+"@", Masked+"@", 1)
}

// urlInText finds http(s) URLs inside a message (Go's transport errors quote
// the request URL).
var urlInText = regexp.MustCompile(`https?://[^\s"'<>]+`)

// URLs masks, as URL does, every http(s) URL inside s.
func URLs(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlInText.ReplaceAllStringFunc(s, URL)
}
