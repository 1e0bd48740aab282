package judge

import (
	"regexp"
	"strings"
)

// Setup-class failures (docs/judges.md, "A broken setup"): causes that say
// the judge was never reached as configured — a wrong URL, model name or
// key, a server that is not there — rather than how it behaves under load.
// When half or more of a judge's calls fail with one of them, the judge has
// no verdict (ERROR, exit 2). Timeouts, HTTP 429 and 5xx are not among
// them: they stay counted failures.
const (
	SetupUnauthorized = "HTTP 401 (the server refused the credentials)"
	SetupForbidden    = "HTTP 403 (the key may not use this model or endpoint)"
	SetupNotFound     = "HTTP 404 (wrong URL or model name)"
	SetupHTML         = "an HTML page where the judge API's JSON was expected (wrong URL?)"
	SetupRefused      = "connection refused (no server at that address)"
	SetupUnknownHost  = "unknown host"
)

var httpStatus = regexp.MustCompile(`\bHTTP (\d{3})\b`)

// SetupCause names the setup-class cause of a failed call from its status
// and error message, "" when the failure is not one (an invalid answer, a
// timeout, a 429 or 5xx, a crashed plugin). Messages are the backends' own
// (masked) texts; the classification reads them, so it is tested against
// each backend's real failures.
func SetupCause(status Status, msg string) string {
	if status != StatusError && status != StatusInvalid {
		return ""
	}
	if m := httpStatus.FindStringSubmatch(msg); m != nil {
		switch m[1] {
		case "401":
			return SetupUnauthorized
		case "403":
			return SetupForbidden
		case "404":
			return SetupNotFound
		}
		if m[1] == "429" || m[1][0] == '5' {
			return "" // load, even when the proxy in front answers with HTML
		}
	}
	low := strings.ToLower(msg)
	switch {
	case strings.Contains(low, "answered with an html page"):
		return SetupHTML
	case strings.Contains(low, "connection refused"):
		return SetupRefused
	case strings.Contains(low, "no such host") || strings.Contains(low, "server misbehaving"):
		return SetupUnknownHost
	}
	return ""
}
