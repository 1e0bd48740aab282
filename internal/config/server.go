package config

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/apeval/apeval/internal/mask"
)

// CheckServerURL accepts an absolute http(s) URL with a host (a judge's
// base_url, a --judge SPEC@URL); the error shows the URL masked.
func CheckServerURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http(s) URL with a host (e.g. http://localhost:8000/v1)", mask.String(s))
	}
	return nil
}

// BackendOf is a spec's backend name: "openai" in openai:MODEL.
func BackendOf(spec string) string {
	name, _, _ := strings.Cut(strings.TrimSpace(spec), ":")
	return name
}
