package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Tests of the second hardening round (docs/safety.md).

// A judge server that quotes the API key in its errors: the key reaches
// none of decisions.parquet, summary.md, report.html, summary.json,
// stderr or `judges check`, whatever its format.
func TestQuotedAPIKeyNeverWritten(t *testing.T) {
	const key = "gw-live-7Hq2Zx9PmW4kT8vR"
	t.Setenv("APEVAL_T_KEY", key)
	dir := t.TempDir()
	ds := liveDataset(t, dir, 4)
	pol := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(pol, []byte(livePolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if strings.HasSuffix(r.URL.Path, "/models") {
			io.WriteString(w, `{"data":[{"id":"m"}]}`)
			return
		}
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+got+`"}}`)
	}))
	defer srv.Close()
	out := filepath.Join(dir, "run")
	_, _, stderr := apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--judge", "openai:m", "--openai-base-url", srv.URL+"/v1",
		"--openai-api-key-env", "APEVAL_T_KEY", "--no-cache", "--out", out, "--format", "tsv")
	if !strings.Contains(stderr, "Incorrect API key provided: [MASKED]") {
		t.Fatalf("stderr does not carry the masked failure:\n%s", stderr)
	}
	if strings.Contains(stderr, key) {
		t.Errorf("stderr carries the key:\n%s", stderr)
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(out, e.Name()))
		if strings.Contains(string(data), key) || strings.Contains(string(data), key[8:]) {
			t.Errorf("%s carries the key", e.Name())
		}
	}
	n := 0
	for _, r := range readResults(t, out) {
		for _, c := range r.Calls {
			n++
			if strings.Contains(c.Error, key[8:]) {
				t.Errorf("call error: %s", c.Error)
			}
		}
		for _, rr := range r.Rules {
			if strings.Contains(rr.Error, key[8:]) {
				t.Errorf("rule error: %s", rr.Error)
			}
		}
	}
	if n == 0 {
		t.Fatal("no call made")
	}
	_, stdout, stderr := apeval(t, "", "judges", "check", "--openai-base-url", srv.URL+"/v1", "--openai-api-key-env", "APEVAL_T_KEY", "openai:m")
	if strings.Contains(stdout+stderr, key[8:]) || !strings.Contains(stdout, "[MASKED]") {
		t.Errorf("judges check:\n%s%s", stdout, stderr)
	}
}

// Exec plugin stderr reaches apeval's stderr masked, and not at all under
// --quiet.
func TestPluginStderrMaskedAndQuiet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ds := liveDataset(t, dir, 2)
	pol := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(pol, []byte(livePolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	const token = "ghp_R2d4F6h8J0k2L4z6X8c0V2b4N6m8Q0w2E4r6"
	script := filepath.Join(dir, "plugin.sh")
	body := "echo \"plugin starting with GITHUB_TOKEN=" + token + "\" >&2\nwhile read l; do echo '{\"version\":1,\"decisions\":[]}'; done\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	plugin := "sh " + script
	for _, quiet := range []bool{false, true} {
		args := []string{"run", "--dataset", ds, "--policy", pol, "--judge", "exec:" + plugin, "--no-cache",
			"--out", filepath.Join(dir, "run"), "--format", "tsv"}
		if quiet {
			args = append(args, "-q")
		}
		_, _, stderr := apeval(t, "", args...)
		if strings.Contains(stderr, token) {
			t.Errorf("quiet=%v: stderr carries the token:\n%s", quiet, stderr)
		}
		if got := strings.Contains(stderr, "plugin starting"); got == quiet {
			t.Errorf("quiet=%v: plugin stderr shown %v:\n%s", quiet, got, stderr)
		}
	}
}
