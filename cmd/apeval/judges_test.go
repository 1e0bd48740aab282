package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apeval/apeval/judge/judgetest"
)

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

// Credentials in --openai-base-url (user-info and query values) and in a
// --judge-option reach neither run.json, summary.json, the reports, the
// cache file nor the error column; requests still carry them.
func TestBaseURLSecretsStayOut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ds := liveDataset(t, dir, 4)
	pol := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(pol, []byte(livePolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	var sawKey bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawKey = sawKey || r.URL.Query().Get("key") == "QSECRET123"
		if strings.HasSuffix(r.URL.Path, "/models") {
			http.NotFound(w, r)
			return
		}
		hj, _ := w.(http.Hijacker)
		conn, _, _ := hj.Hijack()
		conn.Close() // every call fails in transport: its error quotes the URL
	}))
	defer srv.Close()
	base := strings.Replace(srv.URL, "http://", "http://alice:PWSECRET456@", 1) + "/v1?key=QSECRET123"
	out, cache := filepath.Join(dir, "run"), filepath.Join(dir, "cache")
	_, _, stderr := apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--judge", "openai:m", "--openai-base-url", base,
		"--judge-option", "api_key=sk-proj-OPTSECRETq8LrT2wVb9NcX", "--cache", cache, "-q", "--out", out, "--format", "tsv")
	if !sawKey {
		t.Fatalf("the request did not carry the URL's query\n%s", stderr)
	}
	secrets := []string{"PWSECRET456", "QSECRET123", "OPTSECRET"}
	for _, s := range secrets {
		if strings.Contains(stderr, s) {
			t.Errorf("stderr carries %s", s)
		}
	}
	for _, d := range []string{out, cache} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			data, _ := os.ReadFile(filepath.Join(d, e.Name()))
			for _, s := range secrets {
				if strings.Contains(string(data), s) {
					t.Errorf("%s carries %s", e.Name(), s)
				}
			}
		}
	}
	// A judge that answers: its answers are cached, and the cache file
	// must not carry the option or the URL's credentials either.
	oa := newOpenAIServer(t, 0, false)
	good := strings.Replace(oa.URL, "http://", "http://alice:PWSECRET456@", 1) + "/v1?key=QSECRET123"
	if code, _, stderr := apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--judge", "openai:judge-large", "--openai-base-url", good,
		"--judge-option", "api_key=sk-proj-OPTSECRETq8LrT2wVb9NcX", "--cache", cache, "-q", "--out", filepath.Join(dir, "run2"), "--format", "tsv"); code == exitUsage {
		t.Fatalf("answering judge: %s", stderr)
	}
	for _, d := range []string{cache, filepath.Join(dir, "run2")} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			data, _ := os.ReadFile(filepath.Join(d, e.Name()))
			for _, s := range secrets {
				if strings.Contains(string(data), s) {
					t.Errorf("%s carries %s", e.Name(), s)
				}
			}
		}
	}
	errs := 0
	for _, r := range readResults(t, out) {
		for _, c := range r.Calls {
			errs++
			for _, s := range secrets {
				if strings.Contains(c.Error, s) {
					t.Errorf("error column carries %s: %s", s, c.Error)
				}
			}
		}
	}
	if errs == 0 {
		t.Error("no failed call to look at")
	}
}

// The judges' start-up warnings reach stderr with one "apeval: " prefix:
// the command layer adds it to every line a judge logs, so the judge's own
// text must not carry one too (it once read "apeval: apeval: warning: …").
func TestJudgeWarningsPrefixedOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ds := liveDataset(t, dir, 2)
	pol := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(pol, []byte(livePolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := judgetest.NewOpenAI(judgetest.Options{Model: "served-model"})
	defer srv.Close()
	_, _, stderr := apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--judge", "openai:other-model",
		"--openai-base-url", srv.URL+"/v1", "--no-cache", "--out", filepath.Join(dir, "run"), "--format", "tsv")
	if !strings.Contains(stderr, "apeval: warning: "+srv.URL+"/v1 does not list model \"other-model\"") {
		t.Errorf("no start-up warning:\n%s", stderr)
	}
	if strings.Contains(stderr, "apeval: apeval:") {
		t.Errorf("doubled prefix:\n%s", stderr)
	}
}

// A secret typed into --judge exec:… (a flag's value, an environment
// assignment) reaches neither run.json, the reports, the decision files
// nor the terminal: the judge's identity shows the command masked. A
// second run of the same command pairs with the first, and --baseline
// accepts the command as typed.
func TestExecJudgeSecretsMasked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ds := liveDataset(t, dir, 2)
	pol := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(pol, []byte(livePolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	const key, token = "abcd1234efgh5678ijkl", "sk-proj-EXAMPLEa1b2c3d4e5f6g7h8i9j0"
	script := filepath.Join(dir, "plugin.sh")
	if err := os.WriteFile(script, []byte("while read l; do echo '{\"version\":1,\"decisions\":[]}'; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	spec := "exec:API_KEY=" + key + " sh " + script + " --token " + token
	leaks := func(what, s string) {
		t.Helper()
		if strings.Contains(s, key) || strings.Contains(s, token) {
			t.Errorf("%s carries the secret:\n%s", what, s)
		}
	}
	var runs []string
	for _, name := range []string{"a", "b"} {
		out := filepath.Join(dir, name)
		runs = append(runs, out)
		code, stdout, stderr := apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--judge", spec, "--no-cache",
			"--out", out, "--format", "table")
		if code == exitUsage {
			t.Fatalf("run: exit %d\n%s", code, stderr)
		}
		leaks("stdout", stdout)
		leaks("stderr", stderr)
		for _, f := range []string{"run.json", "summary.json", "summary.md", "report.html"} {
			data, err := os.ReadFile(filepath.Join(out, f))
			if err != nil {
				t.Fatal(err)
			}
			leaks(f, string(data))
		}
		for _, r := range readResults(t, out) {
			leaks("decisions.parquet judge", r.Judge)
			if !strings.Contains(r.Judge, "API_KEY=[MASKED]") {
				t.Errorf("judge %q", r.Judge)
			}
		}
	}
	code, stdout, stderr := apeval(t, "", "compare", runs[0], runs[1], "--format", "tsv")
	if code == exitUsage {
		t.Errorf("compare of two runs of one exec judge: exit %d\n%s%s", code, stdout, stderr)
	}
	leaks("compare", stdout+stderr)
	code, _, stderr = apeval(t, "", "compare", runs[0], runs[1], "--baseline", spec, "--format", "tsv")
	if code == exitUsage {
		t.Errorf("compare --baseline with the command as typed: exit %d\n%s", code, stderr)
	}
	leaks("compare --baseline", stderr)
}
