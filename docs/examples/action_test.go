package examples

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/yaml"
)

// actionFile is the part of action.yml the runner reads.
type actionFile struct {
	Inputs map[string]struct {
		Default string `json:"default"`
	} `json:"inputs"`
	Outputs map[string]struct {
		Value string `json:"value"`
	} `json:"outputs"`
	Runs struct {
		Using string `json:"using"`
		Steps []struct {
			ID    string            `json:"id"`
			If    string            `json:"if"`
			Uses  string            `json:"uses"`
			Shell string            `json:"shell"`
			Env   map[string]string `json:"env"`
			With  map[string]string `json:"with"`
			Run   string            `json:"run"`
		} `json:"steps"`
	} `json:"runs"`
}

// fakeGitHub is a loopback stand-in for the parts of GitHub's REST API the
// action calls: a pull request's comments (list, create, update) and the
// repository's artifacts (list by name, download).
type fakeGitHub struct {
	t        *testing.T
	mu       sync.Mutex
	comments []ghComment
	nextID   int
	created  int
	updated  int
	artifact []byte // the zip served as the base branch's newest artifact
	srv      *httptest.Server
	gobin    string // GOBIN of every run: go install relinks only once
	// actionRef is what github.action_ref gives the composite action's
	// steps ("" for a local action); env is added to every step's.
	actionRef string
	env       []string
	// prPage: the first page of the artifacts list holds 100 newer
	// artifacts of pull-request runs (a busy repository); the base
	// branch's are on page 2.
	prPage bool
}

type ghComment struct {
	ID   int    `json:"id"`
	Body string `json:"body"`
	User struct {
		Login string `json:"login"`
	} `json:"user"`
	// Author is a GitLab note's.
	Author struct {
		ID       int    `json:"id"`
		Username string `json:"username"`
	} `json:"author"`
}

const (
	ghRepo  = "octo/agent"
	ghPR    = 7
	ghToken = "ghs_test-token"
)

// newFakeGitHub starts the stand-in REST API. Its GOBIN is empty: the
// action's install step must build and install apeval there. Tests that
// do not test installing call installed() instead.
func newFakeGitHub(t *testing.T) *fakeGitHub {
	g := &fakeGitHub{t: t, nextID: 100, gobin: t.TempDir()}
	// Somebody else's comment, which the action must leave alone.
	g.comments = append(g.comments, ghComment{ID: 1, Body: "LGTM"})
	mux := http.NewServeMux()
	auth := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+ghToken {
				http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
				return
			}
			g.mu.Lock()
			defer g.mu.Unlock()
			h(w, r)
		}
	}
	comments := fmt.Sprintf("/repos/%s/issues/%d/comments", ghRepo, ghPR)
	mux.HandleFunc("GET "+comments, auth(func(w http.ResponseWriter, r *http.Request) {
		per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if per <= 0 {
			per = 30
		}
		if page <= 0 {
			page = 1
		}
		lo, hi := min((page-1)*per, len(g.comments)), min(page*per, len(g.comments))
		_ = json.NewEncoder(w).Encode(g.comments[lo:hi])
	}))
	mux.HandleFunc("POST "+comments, auth(func(w http.ResponseWriter, r *http.Request) {
		var c ghComment
		if err := json.NewDecoder(r.Body).Decode(&c); err != nil || c.Body == "" {
			http.Error(w, `{"message":"Invalid request"}`, http.StatusUnprocessableEntity)
			return
		}
		c.ID = g.nextID
		g.nextID++
		c.User.Login = "github-actions[bot]"
		g.comments = append(g.comments, c)
		g.created++
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(c)
	}))
	mux.HandleFunc("PATCH /repos/"+ghRepo+"/issues/comments/{id}", auth(func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.Atoi(r.PathValue("id"))
		var c ghComment
		if err := json.NewDecoder(r.Body).Decode(&c); err != nil || c.Body == "" {
			http.Error(w, `{"message":"Invalid request"}`, http.StatusUnprocessableEntity)
			return
		}
		for i := range g.comments {
			if g.comments[i].ID == id {
				g.comments[i].Body = c.Body
				g.updated++
				_ = json.NewEncoder(w).Encode(g.comments[i])
				return
			}
		}
		http.NotFound(w, r)
	}))
	mux.HandleFunc("GET /repos/"+ghRepo+"/actions/artifacts", auth(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("name") != "apeval-run" {
			_, _ = w.Write([]byte(`{"total_count":0,"artifacts":[]}`))
			return
		}
		if page := r.URL.Query().Get("page"); g.prPage && (page == "" || page == "1") {
			var arts []string
			for i := range 100 {
				arts = append(arts, fmt.Sprintf(`{"id":%d,"name":"apeval-run","expired":false,"created_at":"2026-12-03T10:%02d:00Z","archive_download_url":"%s/repos/%s/actions/artifacts/%d/zip","workflow_run":{"id":%d,"repository_id":55,"head_repository_id":55,"head_branch":"feature-%d"}}`,
					1000+i, i%60, g.srv.URL, ghRepo, 1000+i, 9000+i, i))
			}
			fmt.Fprintf(w, `{"total_count":105,"artifacts":[%s]}`, strings.Join(arts, ","))
			return
		}
		// The newest unexpired one of a push to main of this repository
		// (55) is the baseline; newer ones must be passed over: another
		// branch's, an expired one, a fork's (repository 999) whose branch
		// is called main too, and one of a pull-request run.
		fmt.Fprintf(w, `{"total_count":5,"artifacts":[
 {"id":11,"name":"apeval-run","expired":false,"created_at":"2026-11-30T10:00:00Z","archive_download_url":"%[1]s/repos/%[2]s/actions/artifacts/11/zip","workflow_run":{"id":501,"repository_id":55,"head_repository_id":55,"head_branch":"main","head_sha":"abc1234def"}},
 {"id":12,"name":"apeval-run","expired":false,"created_at":"2026-12-01T10:00:00Z","archive_download_url":"%[1]s/repos/%[2]s/actions/artifacts/12/zip","workflow_run":{"id":502,"repository_id":55,"head_repository_id":55,"head_branch":"feature"}},
 {"id":13,"name":"apeval-run","expired":true,"created_at":"2026-12-01T11:00:00Z","archive_download_url":"%[1]s/repos/%[2]s/actions/artifacts/13/zip","workflow_run":{"id":503,"repository_id":55,"head_repository_id":55,"head_branch":"main"}},
 {"id":14,"name":"apeval-run","expired":false,"created_at":"2026-12-02T09:00:00Z","archive_download_url":"%[1]s/repos/%[2]s/actions/artifacts/14/zip","workflow_run":{"id":504,"repository_id":55,"head_repository_id":999,"head_branch":"main"}},
 {"id":15,"name":"apeval-run","expired":false,"created_at":"2026-12-02T10:00:00Z","archive_download_url":"%[1]s/repos/%[2]s/actions/artifacts/15/zip","workflow_run":{"id":505,"repository_id":55,"head_repository_id":55,"head_branch":"main"}}]}`,
			g.srv.URL, ghRepo)
	}))
	mux.HandleFunc("GET /repos/"+ghRepo+"/actions/runs/{id}", auth(func(w http.ResponseWriter, r *http.Request) {
		event := "pull_request"
		if r.PathValue("id") == "501" {
			event = "push"
		}
		fmt.Fprintf(w, `{"id":%s,"event":%q,"head_sha":"abc1234def","html_url":"https://github.test/%s/actions/runs/%s"}`,
			r.PathValue("id"), event, ghRepo, r.PathValue("id"))
	}))
	// The job's token cannot read /user (as on GitHub).
	mux.HandleFunc("GET /user", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"message":"Resource not accessible by integration"}`, http.StatusForbidden)
	})
	mux.HandleFunc("GET /repos/"+ghRepo+"/actions/artifacts/{id}/zip", auth(func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") != "11" {
			http.Error(w, "wrong artifact", http.StatusNotFound)
			return
		}
		_, _ = w.Write(g.artifact)
	}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("unexpected request %s %s", r.Method, r.URL)
		http.NotFound(w, r)
	})
	g.srv = httptest.NewServer(mux)
	t.Cleanup(g.srv.Close)
	return g
}

// installed puts the apeval TestMain built into the fake runner's GOBIN
// (a hard link; a copy where links fail), for tests of something other
// than installing: the install step's go install then finds an up-to-date
// binary and does not link one (about 5 CPU-s and 110 MB each time). The
// install step itself is tested from an empty GOBIN by
// TestActionPullRequest and TestActionInstallRefFallback.
func (g *fakeGitHub) installed() {
	g.t.Helper()
	dst := filepath.Join(g.gobin, "apeval")
	if err := os.Link(bin, dst); err == nil {
		return
	}
	data, err := os.ReadFile(bin)
	if err == nil {
		err = os.WriteFile(dst, data, 0o755)
	}
	if err != nil {
		g.t.Fatal(err)
	}
}

// zipDir zips a directory's files at the archive's root, as an artifact of
// an uploaded directory is.
func zipDir(t *testing.T, dir string) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		f, err := zw.Create(e.Name())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// parseCommandFile reads $GITHUB_OUTPUT (or $GITHUB_ENV): NAME=value lines
// and NAME<<DELIM heredocs.
func parseCommandFile(t *testing.T, path string) map[string]string {
	out := map[string]string{}
	data, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return out
		}
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if name, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(name, "=") {
			var v []string
			for sc.Scan() && sc.Text() != delim {
				v = append(v, sc.Text())
			}
			out[name] = strings.Join(v, "\n")
			continue
		}
		if name, v, ok := strings.Cut(line, "="); ok {
			out[name] = v
		} else if line != "" {
			t.Errorf("%s: a line the runner cannot read: %q", path, line)
		}
	}
	return out
}

var expr = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// actionRun is one run of the composite action, as the runner would do it:
// each shell step with its env expressions resolved, its own
// $GITHUB_OUTPUT, $GITHUB_PATH applied to later steps; the uses: steps
// (setup-go, cache, upload-artifact) stand in by their outputs.
type actionRun struct {
	outputs map[string]string // the action's outputs
	steps   map[string]map[string]string
	exit    int    // the exit code of the step that ended the action
	log     string // all steps' output
	summary string // $GITHUB_STEP_SUMMARY
}

func runAction(t *testing.T, g *fakeGitHub, inputs map[string]string, event string) actionRun {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using = %q, want composite", a.Runs.Using)
	}
	for k := range inputs {
		if _, ok := a.Inputs[k]; !ok {
			t.Fatalf("input %q is not declared in action.yml", k)
		}
	}
	work := t.TempDir()
	gh := map[string]string{
		"GITHUB_ACTION_PATH":  repoRoot,
		"GITHUB_API_URL":      g.srv.URL,
		"GITHUB_SERVER_URL":   "https://github.test",
		"GITHUB_REPOSITORY":   ghRepo,
		"GITHUB_EVENT_NAME":   "pull_request",
		"GITHUB_EVENT_PATH":   filepath.Join(work, "event.json"),
		"GITHUB_BASE_REF":     "main",
		"GITHUB_RUN_ID":       "4242",
		"GITHUB_STEP_SUMMARY": filepath.Join(work, "step-summary.md"),
		"GITHUB_PATH":         filepath.Join(work, "path.txt"),
		"RUNNER_TEMP":         filepath.Join(work, "runner-temp"),
		"GOBIN":               g.gobin,
	}
	if err := os.WriteFile(gh["GITHUB_EVENT_PATH"], []byte(event), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{gh["RUNNER_TEMP"], gh["GOBIN"]} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	res := actionRun{steps: map[string]map[string]string{}, outputs: map[string]string{}}
	resolve := func(s string) string {
		return expr.ReplaceAllStringFunc(s, func(m string) string {
			e := expr.FindStringSubmatch(m)[1]
			parts := strings.Split(e, ".")
			switch {
			case len(parts) == 2 && parts[0] == "inputs":
				if v, ok := inputs[parts[1]]; ok {
					return v
				}
				in, ok := a.Inputs[parts[1]]
				if !ok {
					t.Fatalf("action.yml uses undeclared input %s", parts[1])
				}
				if in.Default == "${{ github.token }}" {
					return ghToken
				}
				return in.Default
			case e == "github.action_ref":
				return g.actionRef // "": a local action (uses: ./), install the checkout
			case e == "github.token":
				return ghToken
			case len(parts) == 4 && parts[0] == "steps" && parts[2] == "outputs":
				return res.steps[parts[1]][parts[3]]
			case e == "always()":
				return "true"
			}
			t.Fatalf("action.yml: expression the test runner does not know: %s", m)
			return ""
		})
	}
	var log strings.Builder
	var path []string
	for i, st := range a.Runs.Steps {
		if st.If != "" && resolve("${{ "+st.If+" }}") != "true" {
			t.Fatalf("step %d: condition %q: the test runner runs only always() steps", i, st.If)
		}
		if st.Uses != "" {
			with := map[string]string{}
			for k, v := range st.With {
				with[k] = resolve(v)
			}
			switch {
			case strings.HasPrefix(st.Uses, "actions/upload-artifact@"):
				if with["name"] == "" || with["path"] == "" {
					t.Errorf("upload-artifact without name or path: %v", with)
				}
				if st.ID != "" {
					res.steps[st.ID] = map[string]string{"artifact-url": "https://github.test/" + ghRepo + "/actions/runs/4242/artifacts/99"}
				}
			case strings.HasPrefix(st.Uses, "actions/cache/"):
				if with["path"] == "" || with["key"] == "" {
					t.Errorf("%s without path or key: %v", st.Uses, with)
				}
				// actions/cache/save warns ("Path Validation Error") on a
				// path that does not exist: an annotation on every run.
				if _, err := os.Stat(with["path"]); strings.HasPrefix(st.Uses, "actions/cache/save@") && err != nil {
					t.Errorf("%s: the cache path does not exist: %v", st.Uses, err)
				}
			case strings.HasPrefix(st.Uses, "actions/setup-go@"):
			default:
				t.Fatalf("step %d uses %s, which the test runner does not stand in for", i, st.Uses)
			}
			continue
		}
		if st.Shell != "bash" {
			t.Fatalf("step %s: shell %q, want bash", st.ID, st.Shell)
		}
		outFile := filepath.Join(work, fmt.Sprintf("output-%d.txt", i))
		cmd := exec.Command("bash", "-eo", "pipefail", "-c", st.Run)
		cmd.Dir = work
		env := os.Environ()
		for k, v := range gh {
			env = append(env, k+"="+v)
		}
		env = append(env, "GITHUB_OUTPUT="+outFile)
		env = append(env, g.env...)
		if len(path) > 0 {
			env = append(env, "PATH="+strings.Join(path, ":")+":"+os.Getenv("PATH"))
		}
		for k, v := range st.Env {
			env = append(env, k+"="+resolve(v))
		}
		cmd.Env = env
		outb, err := cmd.CombinedOutput()
		fmt.Fprintf(&log, "== step %s\n%s", st.ID, outb)
		res.steps[st.ID] = parseCommandFile(t, outFile)
		if p, err := os.ReadFile(gh["GITHUB_PATH"]); err == nil {
			path = strings.Fields(string(p))
		}
		if err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatal(err)
			}
			res.exit = ee.ExitCode()
			if i != len(a.Runs.Steps)-1 {
				t.Fatalf("step %s failed (exit %d) before the last step:\n%s", st.ID, res.exit, log.String())
			}
		}
	}
	for name, o := range a.Outputs {
		res.outputs[name] = resolve(o.Value)
	}
	res.log = log.String()
	if s, err := os.ReadFile(gh["GITHUB_STEP_SUMMARY"]); err == nil {
		res.summary = string(s)
	}
	return res
}

// TestActionPullRequest runs the composite action's shell steps as GitHub's
// runner would, twice on one pull request, against a loopback stand-in for
// the REST API: the first push (the full dataset, inconclusive: neutral)
// creates the comment, the second (a --sample smoke subset, inconclusive:
// fail) updates the same one; outputs, the step summary and the exit codes
// follow the verdicts. A third run with a judge whose server is down is an
// ERROR that fails the job.
func TestActionPullRequest(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "curl", "jq", "unzip", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed (GitHub's runners have it): %v", tool, err)
		}
	}
	g := newFakeGitHub(t)
	// The target branch's run, uploaded there by this action as apeval-run.
	base := filepath.Join(t.TempDir(), "base")
	baseRun(t, base)
	g.artifact = zipDir(t, base)
	event := fmt.Sprintf(`{"action":"synchronize","number":%d,"pull_request":{"number":%d,"base":{"ref":"main"}},"repository":{"id":55,"default_branch":"main"}}`, ghPR, ghPR)
	head := "recorded:ollama/qwen2.5:7b-instruct-q4_K_M"
	cfg := filepath.Join(t.TempDir(), "apeval.toml")
	if err := os.WriteFile(cfg, []byte("# the sample's dataset and policy, judged by the newer recording\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	marker := "<!-- apeval:" + cfg + " -->\n"
	// Somebody else's comment that starts with the marker: never edited.
	mallory := ghComment{ID: 2, Body: marker + "## ✅ apeval: GO\n(not the bot's)"}
	mallory.User.Login = "mallory"
	g.comments = append(g.comments, mallory)

	// First push: the full sample, INCONCLUSIVE mapped neutral (exit 0).
	r1 := runAction(t, g, map[string]string{"config": cfg, "judges": head, "baseline": "apeval-run", "inconclusive": "neutral"}, event)
	if r1.exit != 0 || r1.outputs["verdict"] != "INCONCLUSIVE" || r1.outputs["exit-code"] != "0" {
		t.Fatalf("first push: exit %d, outputs %v\n%s", r1.exit, r1.outputs, r1.log)
	}
	if !strings.Contains(r1.log, "::warning title=apeval::INCONCLUSIVE") {
		t.Errorf("neutral did not warn:\n%s", r1.log)
	}
	if rd := r1.outputs["run-dir"]; rd == "" || r1.outputs["report"] != filepath.Join(rd, "report.html") {
		t.Errorf("outputs run-dir %q, report %q", rd, r1.outputs["report"])
	} else if _, err := os.Stat(r1.outputs["report"]); err != nil {
		t.Errorf("report output: %v", err)
	}
	if key := r1.steps["prepare"]["cache-key"]; !regexp.MustCompile(`^apeval-[0-9a-f]{16}-[0-9a-f]{16}-4242$`).MatchString(key) {
		t.Errorf("cache key %q", key)
	}
	if !strings.HasPrefix(r1.summary, "## ⚠️ apeval: INCONCLUSIVE") {
		t.Errorf("step summary: %.200s", r1.summary)
	}
	if g.created != 1 || g.updated != 0 || len(g.comments) != 3 {
		t.Fatalf("first push: %d created, %d updated, %d comments; want one new comment\n%s", g.created, g.updated, len(g.comments), r1.log)
	}
	c1 := g.comments[2]
	for _, s := range []string{marker + "## ⚠️ apeval: INCONCLUSIVE\n", "vs base `recorded/ollama/qwen2.5:3b`",
		"Baseline: artifact `apeval-run` of [run 501](https://github.test/" + ghRepo + "/actions/runs/501) (push to `main`, commit `abc1234`).",
		"(https://github.test/" + ghRepo + "/actions/runs/4242/artifacts/99)", "### Figures, head vs base",
		"### What changes", "🔎 **[diff.html](https://github.test/" + ghRepo + "/actions/runs/4242/artifacts/99)**"} {
		if !strings.Contains(c1.Body, s) {
			t.Errorf("first comment lacks %q:\n%.600s", s, c1.Body)
		}
	}

	// Second push: the smoke subset with inconclusive: fail; these 30
	// sessions are INCONCLUSIVE or NO-GO (which, depends on the statistics'
	// intervals), and either way the job fails with 1. The same comment is
	// updated and leads with that verdict.
	r2 := runAction(t, g, map[string]string{"config": cfg, "judges": head, "baseline": "apeval-run", "inconclusive": "fail",
		"sample": "30", "seed": "2"}, event)
	v2 := r2.outputs["verdict"]
	if r2.exit != 1 || (v2 != "NO-GO" && v2 != "INCONCLUSIVE") || r2.outputs["exit-code"] != "1" {
		t.Fatalf("second push: exit %d, outputs %v\n%s", r2.exit, r2.outputs, r2.log)
	}
	if g.created != 1 || g.updated != 1 || len(g.comments) != 3 || g.comments[2].ID != c1.ID {
		t.Fatalf("second push: %d created, %d updated, %d comments; want the first one updated\n%s", g.created, g.updated, len(g.comments), r2.log)
	}
	// The smoke subset shares only some cases with the base run: the
	// partial-overlap banner may come before the verdict heading.
	if b := g.comments[2].Body; !(strings.HasPrefix(b, marker+"## ") || strings.HasPrefix(b, marker+"**⚠️ partial overlap: ")) || !strings.Contains(b, "\n## ") || !strings.Contains(b, " apeval: "+v2+"\n") ||
		!strings.Contains(b, "30 sessions sampled (seed 2)") || b == c1.Body {
		t.Errorf("updated comment:\n%.600s", b)
	}
	if g.comments[0].Body != "LGTM" || g.comments[1].Body != mallory.Body {
		t.Errorf("somebody else's comment was changed: %q, %q", g.comments[0].Body, g.comments[1].Body)
	}

	// A judge whose server is down: apeval stops with exit 2 before it
	// replays; the verdict is ERROR, the job fails with apeval's code
	// whatever inconclusive says, and the comment says why.
	r3 := runAction(t, g, map[string]string{"config": cfg, "judges": "openai:gpt-test", "inconclusive": "pass", "sample": "3",
		"args": "--openai-base-url http://127.0.0.1:1/v1"}, event)
	if r3.exit != 2 || r3.outputs["verdict"] != "ERROR" || r3.outputs["exit-code"] != "2" {
		t.Fatalf("broken judge: exit %d, outputs %v\n%s", r3.exit, r3.outputs, r3.log)
	}
	if b := g.comments[2].Body; g.created != 1 || g.updated != 2 || !strings.HasPrefix(b, marker+"## 🛑 apeval: ERROR\n") ||
		!strings.Contains(b, "cannot reach the server") {
		t.Fatalf("broken judge: %d created, %d updated, comment:\n%s\n%s", g.created, g.updated, b, r3.log)
	}

	// comment: false, or a push that is no pull request: no API call.
	before := g.updated + g.created
	runAction(t, g, map[string]string{"config": cfg, "judges": head, "sample": "3", "comment": "false"}, event)
	runAction(t, g, map[string]string{"config": cfg, "judges": head, "sample": "3"}, `{"ref":"refs/heads/main","repository":{"default_branch":"main"}}`)
	if g.updated+g.created != before {
		t.Errorf("a run without a pull request or with comment: false commented")
	}
}

// TestActionTwoJudgeProject runs the action on the project apeval init
// writes: a baseline judge and a candidate in one apeval.toml, so the base
// and the head run each hold two judges. The comment compares the base run's
// candidate with the head run's (compare and diff alone would refuse two
// runs of two judges each, exit 2, and the comment would fall back to the
// run's summary without its "head vs base" figures or its diff.html).
func TestActionTwoJudgeProject(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "curl", "jq", "unzip", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed (GitHub's runners have it): %v", tool, err)
		}
	}
	g := newFakeGitHub(t)
	g.installed()
	project := filepath.Join(t.TempDir(), "project")
	if out, err := exec.Command(bin, "init", project).CombinedOutput(); err != nil {
		t.Fatalf("apeval init: %v\n%s", err, out)
	}
	cfg := filepath.Join(project, "apeval.toml")
	base := filepath.Join(t.TempDir(), "base")
	if out, err := exec.Command(bin, "run", "--config", cfg, "--out", base, "--quiet").CombinedOutput(); err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() == 2 {
			t.Fatalf("base run: %v\n%s", err, out)
		}
	}
	g.artifact = zipDir(t, base)
	event := fmt.Sprintf(`{"action":"synchronize","number":%d,"pull_request":{"number":%d,"base":{"ref":"main"}},"repository":{"id":55,"default_branch":"main"}}`, ghPR, ghPR)
	r := runAction(t, g, map[string]string{"config": cfg, "baseline": "apeval-run", "sample": "30", "inconclusive": "pass"}, event)
	if strings.Contains(r.log, "failed (exit 2)") || strings.Contains(r.log, "diff with the baseline failed") {
		t.Errorf("compare or diff with the baseline failed:\n%s", r.log)
	}
	if g.created != 1 || len(g.comments) != 2 {
		t.Fatalf("%d created, %d comments; want one new comment\n%s", g.created, len(g.comments), r.log)
	}
	cand := "recorded/ollama/qwen2.5:7b-instruct-q4_K_M"
	b := g.comments[1].Body
	for _, s := range []string{"vs base `" + cand + "`", "### Figures, head vs base", "### What changes", "head `" + cand} {
		if !strings.Contains(b, s) {
			t.Errorf("comment lacks %q:\n%.800s", s, b)
		}
	}
	if _, err := os.Stat(filepath.Join(r.outputs["diff-dir"], "diff.html")); err != nil {
		t.Errorf("diff.html: %v", err)
	}
	if v := r.outputs["verdict"]; v != "INCONCLUSIVE" && v != "NO-GO" && v != "GO" {
		t.Errorf("verdict %q\n%s", v, r.log)
	}
	// The job's log shows the run's tables, not TSV (the log is no terminal).
	if strings.Contains(r.log, "rule_id\tjudge\t") || !regexp.MustCompile(`(?m)^ verdict +(NO-GO|INCONCLUSIVE|GO) `).MatchString(r.log) {
		t.Errorf("the run step's log is not the table:\n%.1500s", r.log)
	}
}

// TestActionInstallRefFallback: github.action_ref is not promised in a
// composite action's steps (actions/runner#2473); when the ref the runner
// gives cannot be installed (here v5, as if it were setup-go's, with the
// module proxy off), the install step warns and builds the action's own
// copy instead of failing the job.
func TestActionInstallRefFallback(t *testing.T) {
	t.Parallel()
	g := newFakeGitHub(t)
	g.actionRef = "v5"
	g.env = []string{"GOPROXY=off"}
	event := `{"ref":"refs/heads/main","repository":{"default_branch":"main"}}`
	r := runAction(t, g, map[string]string{"judges": "recorded:ollama/qwen2.5:3b", "sample": "3", "comment": "false", "inconclusive": "pass"}, event)
	if !strings.Contains(r.log, "could not go install apeval@v5") || r.outputs["verdict"] == "" || r.outputs["verdict"] == "ERROR" {
		t.Fatalf("exit %d, outputs %v\n%s", r.exit, r.outputs, r.log)
	}
}

// TestActionLabels: with the labels input (unlabeled recordings and a file
// of labels from the labeling queue), the run's figures rest on the labels,
// and so must the pull-request comment's, whose verdict becomes the job's:
// compare gets --labels too (a run directory does not keep them). Without
// it the comment judged the unlabeled data: "no labeled match predictions".
func TestActionLabels(t *testing.T) {
	t.Parallel()
	g := newFakeGitHub(t)
	g.installed()
	cases, policy, base, labelsFile := labeledFixture(t)
	g.artifact = zipDir(t, base)
	event := fmt.Sprintf(`{"action":"synchronize","number":%d,"pull_request":{"number":%d,"base":{"ref":"main"}},"repository":{"id":55,"default_branch":"main"}}`, ghPR, ghPR)
	r := runAction(t, g, map[string]string{"dataset": cases, "policy": policy, "judges": "recorded:ollama/qwen2.5:7b-instruct-q4_K_M",
		"labels": labelsFile, "baseline": "apeval-run", "inconclusive": "pass"}, event)
	if g.created != 1 {
		t.Fatalf("%d comments created\n%s", g.created, r.log)
	}
	b := g.comments[len(g.comments)-1].Body
	if !strings.Contains(b, "### Figures, head vs base") || !strings.Contains(b, " sampled + ") || strings.Contains(b, "no labeled match predictions") {
		t.Errorf("the comment's figures do not rest on the labels:\n%.2500s", b)
	}
}

// labeledFixture makes the sample as unlabeled recordings (cases, policy),
// a base run of its older judge, and a labels file: the first 120 items of
// that run's labeling queue, labeled from the sample's own labels.
func labeledFixture(t *testing.T) (cases, policy, base, labelsFile string) {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{{"datasets", "sample", "--unlabeled", "--out", filepath.Join(dir, "data")},
		{"datasets", "sample", "--out", filepath.Join(dir, "truth")}} {
		if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	cases, policy = filepath.Join(dir, "data", "cases.jsonl"), filepath.Join(dir, "data", "policy.toml")
	base = filepath.Join(dir, "base")
	if out, err := exec.Command(bin, "run", "--dataset", cases, "--policy", policy, "--judge", "recorded:ollama/qwen2.5:3b",
		"--out", base, "--quiet").CombinedOutput(); err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() == 2 {
			t.Fatalf("base run: %v\n%s", err, out)
		}
	}
	// The queue of the base run, labeled from the sample's own labels.
	queue := filepath.Join(dir, "queue.jsonl")
	if out, err := exec.Command(bin, "label", "queue", base, "--budget", "120", "--out", queue).CombinedOutput(); err != nil {
		t.Fatalf("label queue: %v\n%s", err, out)
	}
	truth := map[string]map[string]string{}
	data, err := os.ReadFile(filepath.Join(dir, "truth", "cases.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var c struct {
			ID     string            `json:"id"`
			Labels map[string]string `json:"labels"`
		}
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatal(err)
		}
		truth[c.ID] = c.Labels
	}
	q, err := os.ReadFile(queue)
	if err != nil {
		t.Fatal(err)
	}
	var labels strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(string(q)), "\n") {
		var item map[string]any
		if err := json.Unmarshal([]byte(l), &item); err != nil {
			t.Fatal(err)
		}
		lab := truth[item["case_id"].(string)][item["rule_id"].(string)]
		if lab != "match" && lab != "no_match" {
			lab = "skip"
		}
		item["label"], item["labeler"], item["time"] = lab, "ana", "2026-12-06T10:00:00Z"
		b, _ := json.Marshal(item)
		labels.Write(append(b, '\n'))
	}
	labelsFile = filepath.Join(dir, "labels-ana.jsonl")
	if err := os.WriteFile(labelsFile, []byte(labels.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return cases, policy, base, labelsFile
}

// TestActionLongStepSummary: GitHub drops a step summary above 1 MiB (an
// error annotation, and no summary at all); the publish step cuts a longer
// summary.md at a line below that and says where the rest is.
func TestActionLongStepSummary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	var md strings.Builder
	md.WriteString("## ❌ apeval: NO-GO\n\n| rule | judge | verdict |\n|---|---|---|\n")
	for i := 0; md.Len() < 2<<20; i++ {
		fmt.Fprintf(&md, "| rule-%06d | recorded/judge-v2 | NO-GO |\n", i)
	}
	if err := os.WriteFile(filepath.Join(run, "summary.md"), []byte(md.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	summary := filepath.Join(dir, "step-summary.md")
	cmd := exec.Command("bash", filepath.Join(repoRoot, ".ci", "gh-action.sh"), "publish")
	cmd.Env = append(os.Environ(), "GITHUB_STEP_SUMMARY="+summary, "GITHUB_OUTPUT="+filepath.Join(dir, "out.txt"),
		"RUNNER_TEMP="+dir, "APEVAL_RUN_DIR="+run, "APEVAL_COMMENT=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("publish: %v\n%s", err, out)
	}
	got, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > 1<<20 || !strings.HasPrefix(string(got), "## ❌ apeval: NO-GO\n") ||
		!strings.HasSuffix(string(got), "the whole summary.md is in the run directory's artifact.*\n") {
		t.Fatalf("step summary of %d bytes, ending %q", len(got), got[max(0, len(got)-200):])
	}
	// Cut at a line: every table line before the note is whole.
	lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
	if last := lines[len(lines)-3]; !strings.HasSuffix(last, "| NO-GO |") {
		t.Errorf("the last table line before the note is cut: %q", last)
	}
}

// A busy repository: the 100 newest artifacts of the name are all
// pull-request runs', and the target branch's push run is on page 2. The
// action read only the first page and compared with no baseline ("no
// artifact apeval-run from a push to main"); it reads on.
func TestActionBaselineBeyondTheFirstPage(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "curl", "jq", "unzip", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed (GitHub's runners have it): %v", tool, err)
		}
	}
	g := newFakeGitHub(t)
	g.installed()
	g.prPage = true
	base := filepath.Join(t.TempDir(), "base")
	baseRun(t, base)
	g.artifact = zipDir(t, base)
	event := fmt.Sprintf(`{"action":"synchronize","number":%d,"pull_request":{"number":%d,"base":{"ref":"main"}},"repository":{"id":55,"default_branch":"main"}}`, ghPR, ghPR)
	r := runAction(t, g, map[string]string{"judges": "recorded:ollama/qwen2.5:7b-instruct-q4_K_M", "baseline": "apeval-run",
		"sample": "30", "seed": "2", "inconclusive": "neutral"}, event)
	if strings.Contains(r.log, "no baseline") || len(g.comments) < 2 {
		t.Fatalf("no baseline found beyond the first page: exit %d\n%s", r.exit, r.log)
	}
	c := g.comments[len(g.comments)-1]
	if want := "Baseline: artifact `apeval-run` of [run 501]"; !strings.Contains(c.Body, want) {
		t.Errorf("comment lacks %q:\n%.600s", want, c.Body)
	}
}
