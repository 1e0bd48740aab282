package examples

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/yaml"
)

// component is templates/apeval.yml: the spec header and the job.
type component struct {
	spec struct {
		Spec struct {
			Inputs map[string]struct {
				Description string   `json:"description"`
				Default     any      `json:"default"`
				Type        string   `json:"type"`
				Options     []string `json:"options"`
			} `json:"inputs"`
		} `json:"spec"`
	}
	job string // the job document, inputs not yet interpolated
}

func readComponent(t *testing.T) component {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "templates", "apeval.yml"))
	if err != nil {
		t.Fatal(err)
	}
	head, job, ok := strings.Cut(string(data), "\n---\n")
	if !ok {
		t.Fatal("templates/apeval.yml: no --- between spec and job")
	}
	var c component
	if err := yaml.UnmarshalStrict([]byte(head), &c.spec); err != nil {
		t.Fatalf("templates/apeval.yml spec: %v", err)
	}
	c.job = job
	return c
}

var inputRef = regexp.MustCompile(`\$\[\[\s*inputs\.([a-z0-9-]+)\s*\]\]`)

// render interpolates $[[ inputs.X ]] as GitLab does, from the given
// values and the defaults; an undeclared input or a value outside options
// fails, as `include: component:` would.
func (c component) render(t *testing.T, in map[string]string) map[string]any {
	t.Helper()
	for k, v := range in {
		d, ok := c.spec.Spec.Inputs[k]
		if !ok {
			t.Fatalf("input %s is not declared", k)
		}
		if len(d.Options) > 0 && !slices.Contains(d.Options, v) {
			t.Fatalf("input %s: %q is not one of %v", k, v, d.Options)
		}
	}
	out := inputRef.ReplaceAllStringFunc(c.job, func(m string) string {
		name := inputRef.FindStringSubmatch(m)[1]
		if v, ok := in[name]; ok {
			return v
		}
		d, ok := c.spec.Spec.Inputs[name]
		if !ok {
			t.Fatalf("templates/apeval.yml uses undeclared input %s", name)
		}
		return fmt.Sprint(d.Default)
	})
	var job map[string]any
	if err := yaml.Unmarshal([]byte(out), &job); err != nil {
		t.Fatalf("the rendered job is not YAML: %v\n%s", err, out)
	}
	return job
}

// TestGitLabComponentSpec: every input the job uses is declared and every
// declared input is used; the job publishes junit.xml as the MR's test
// report, keeps the run directory, caches the answers keyed by the project
// file, and runs the smoke subset only on merge requests.
func TestGitLabComponentSpec(t *testing.T) {
	t.Parallel()
	c := readComponent(t)
	used := map[string]bool{}
	for _, m := range inputRef.FindAllStringSubmatch(c.job, -1) {
		used[m[1]] = true
		if _, ok := c.spec.Spec.Inputs[m[1]]; !ok {
			t.Errorf("the job uses undeclared input %s", m[1])
		}
	}
	for name := range c.spec.Spec.Inputs {
		if !used[name] {
			t.Errorf("input %s is declared but never used", name)
		}
	}
	job := c.render(t, nil)["apeval"].(map[string]any)
	js, _ := json.Marshal(job)
	var j struct {
		Rules []struct {
			If        string            `json:"if"`
			Variables map[string]string `json:"variables"`
		} `json:"rules"`
		Cache struct {
			Key struct {
				Prefix string   `json:"prefix"`
				Files  []string `json:"files"`
			} `json:"key"`
			Paths []string `json:"paths"`
		} `json:"cache"`
		Script    []string `json:"script"`
		Artifacts struct {
			When    string   `json:"when"`
			Paths   []string `json:"paths"`
			Reports struct {
				JUnit string `json:"junit"`
			} `json:"reports"`
		} `json:"artifacts"`
		AllowFailure struct {
			ExitCodes []int `json:"exit_codes"`
		} `json:"allow_failure"`
	}
	if err := json.Unmarshal(js, &j); err != nil {
		t.Fatal(err)
	}
	if j.Artifacts.Reports.JUnit != "apeval-out/ci/junit.xml" || j.Artifacts.When != "always" || !slices.Contains(j.Artifacts.Paths, "apeval-out/ci/") {
		t.Errorf("artifacts: %+v", j.Artifacts)
	}
	if j.Cache.Key.Prefix != "apeval" || !slices.Equal(j.Cache.Key.Files, []string{"apeval.toml"}) || !slices.Equal(j.Cache.Paths, []string{".apeval-cache/"}) {
		t.Errorf("cache: %+v", j.Cache)
	}
	if len(j.Rules) != 2 || !strings.Contains(j.Rules[0].If, "merge_request_event") || j.Rules[0].Variables["APEVAL_SAMPLE"] != "30" ||
		j.Rules[1].Variables["APEVAL_SAMPLE"] != "" {
		t.Errorf("rules: %+v", j.Rules)
	}
	if len(j.Script) != 1 || !slices.Equal(j.AllowFailure.ExitCodes, []int{78}) {
		t.Errorf("script items %d, allow_failure %v", len(j.Script), j.AllowFailure)
	}
}

// fakeGitLab stands in for the API the component calls: the target
// branch's job artifact and a merge request's notes.
type fakeGitLab struct {
	mu               sync.Mutex
	notes            []ghComment
	created, updated int
	artifact         []byte
	// lastFailed: the target branch's newest pipeline failed (its apeval
	// job said NO-GO), so the download by branch, which serves only the
	// newest successful pipeline's artifacts, finds none.
	lastFailed bool
	srv        *httptest.Server
}

func newFakeGitLab(t *testing.T) *fakeGitLab {
	g := &fakeGitLab{notes: []ghComment{{ID: 1, Body: "Looks good"}}}
	mux := http.NewServeMux()
	lock := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			g.mu.Lock()
			defer g.mu.Unlock()
			h(w, r)
		}
	}
	note := func(h http.HandlerFunc) http.HandlerFunc {
		return lock(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("PRIVATE-TOKEN") != "glpat-test" {
				http.Error(w, `{"message":"401 Unauthorized"}`, http.StatusUnauthorized)
				return
			}
			h(w, r)
		})
	}
	mux.HandleFunc("GET /api/v4/projects/5/jobs/artifacts/main/download", lock(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("JOB-TOKEN") != "job-token" || r.URL.Query().Get("job") != "apeval" || g.lastFailed {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		_, _ = w.Write(g.artifact)
	}))
	// The target branch's pipelines, newest first: 902 (its apeval job
	// failed, or passed, with the artifact), an MR pipeline, 900 (no apeval job).
	mux.HandleFunc("GET /api/v4/projects/5/pipelines", note(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("ref") != "main" {
			_, _ = w.Write([]byte(`[]`))
			return
		}
		_, _ = w.Write([]byte(`[{"id":903,"ref":"main","status":"running","source":"merge_request_event"},
 {"id":902,"ref":"main","status":"failed","source":"push"},{"id":900,"ref":"main","status":"success","source":"push"}]`))
	}))
	mux.HandleFunc("GET /api/v4/projects/5/pipelines/{id}/jobs", note(func(w http.ResponseWriter, r *http.Request) {
		status := "success"
		if g.lastFailed {
			status = "failed"
		}
		switch r.PathValue("id") {
		case "902":
			fmt.Fprintf(w, `[{"id":41,"name":"lint","status":"success"},{"id":42,"name":"apeval","status":%q,"web_url":"https://gitlab.test/o/r/-/jobs/42","commit":{"short_id":"abc1234"},"artifacts_file":{"filename":"artifacts.zip","size":1}}]`, status)
		default:
			_, _ = w.Write([]byte(`[{"id":31,"name":"lint","status":"success"}]`))
		}
	}))
	mux.HandleFunc("GET /api/v4/projects/5/jobs/42/artifacts", note(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(g.artifact)
	}))
	mux.HandleFunc("GET /api/v4/projects/5/merge_requests/3/notes", note(func(w http.ResponseWriter, r *http.Request) {
		per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		lo, hi := min((page-1)*per, len(g.notes)), min(page*per, len(g.notes))
		_ = json.NewEncoder(w).Encode(g.notes[lo:hi])
	}))
	mux.HandleFunc("POST /api/v4/projects/5/merge_requests/3/notes", note(func(w http.ResponseWriter, r *http.Request) {
		var n ghComment
		if err := json.NewDecoder(r.Body).Decode(&n); err != nil || n.Body == "" {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		n.ID = 200 + len(g.notes)
		n.Author.ID, n.Author.Username = 77, "project_5_bot_apeval"
		g.notes = append(g.notes, n)
		g.created++
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(n)
	}))
	mux.HandleFunc("PUT /api/v4/projects/5/merge_requests/3/notes/{id}", note(func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.Atoi(r.PathValue("id"))
		var n ghComment
		if err := json.NewDecoder(r.Body).Decode(&n); err != nil || n.Body == "" {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		for i := range g.notes {
			if g.notes[i].ID == id {
				g.notes[i].Body = n.Body
				g.updated++
				_ = json.NewEncoder(w).Encode(g.notes[i])
				return
			}
		}
		http.NotFound(w, r)
	}))
	// The token's own user: the project access token's bot.
	mux.HandleFunc("GET /api/v4/user", note(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"id":77,"username":"project_5_bot_apeval"}`))
	}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("unexpected request %s %s", r.Method, r.URL)
		http.NotFound(w, r)
	})
	g.srv = httptest.NewServer(mux)
	t.Cleanup(g.srv.Close)
	return g
}

// baseRun writes the sample's run with the 3b recorded judge to dir: the
// target branch's artifact the CI tests take as their baseline (its
// NO-GO, exit 1, is expected; only exit 2 fails).
func baseRun(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command(bin, "run", "--judge", "recorded:ollama/qwen2.5:3b", "--out", dir, "--quiet").CombinedOutput(); err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() == 2 {
			t.Fatalf("base run: %v\n%s", err, out)
		}
	}
}

// TestGitLabComponentMergeRequest runs the component's script as a GitLab
// runner would on a merge request, twice: the first pipeline adds the note,
// the second updates it; the baseline is the target branch's artifact; the
// exit codes follow the verdicts and the inconclusive input.
func TestGitLabComponentMergeRequest(t *testing.T) {
	t.Parallel()
	c := readComponent(t)
	g := newFakeGitLab(t)
	// The target branch's job artifact: its run directory under apeval-out/ci/.
	base := filepath.Join(t.TempDir(), "base")
	baseRun(t, base)
	g.artifact = gitlabArtifact(t, base)

	pipeline := func(inputs map[string]string) (int, string) {
		t.Helper()
		work := t.TempDir()
		if err := os.WriteFile(filepath.Join(work, "apeval.toml"), []byte("# the sample, judged by the newer recording\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return runGitLabJob(t, c, g, work, inputs)
	}
	judge := "recorded:ollama/qwen2.5:7b-instruct-q4_K_M"
	// Somebody else's note that starts with the marker: never edited.
	mallory := ghComment{ID: 2, Body: "<!-- apeval:apeval.toml -->\n## ✅ apeval: GO\n(not the bot's)"}
	mallory.Author.ID, mallory.Author.Username = 9, "mallory"
	g.notes = append(g.notes, mallory)
	// The full sample is INCONCLUSIVE: neutral exits 78 (allowed to fail).
	code, log := pipeline(map[string]string{"judges": judge, "sample": "", "inconclusive": "neutral"})
	if code != 78 || g.created != 1 || g.updated != 0 {
		t.Fatalf("first pipeline: exit %d, %d notes added, %d updated\n%s", code, g.created, g.updated, log)
	}
	n := g.notes[2].Body
	if !strings.HasPrefix(n, "<!-- apeval:apeval.toml -->\n## ⚠️ apeval: INCONCLUSIVE\n") || !strings.Contains(n, "vs base `recorded/ollama/qwen2.5:3b`") ||
		!strings.Contains(n, "(https://gitlab.test/o/r/-/jobs/9/artifacts/file/apeval-out/ci/report.html)") {
		t.Errorf("first note:\n%.600s", n)
	}
	// The smoke subset (30 sessions, seed 2) is INCONCLUSIVE or NO-GO, which
	// inconclusive: fail (the default) both exit 1; the same note updated.
	code, log = pipeline(map[string]string{"judges": judge, "seed": "2"})
	if code != 1 || g.created != 1 || g.updated != 1 || len(g.notes) != 3 {
		t.Fatalf("second pipeline: exit %d, %d notes added, %d updated\n%s", code, g.created, g.updated, log)
	}
	// The smoke subset shares only some cases with the base run: the
	// partial-overlap banner comes before the verdict heading.
	if b := g.notes[2].Body; !strings.HasPrefix(b, "<!-- apeval:apeval.toml -->\n**⚠️ partial overlap: ") || b == n ||
		!(strings.Contains(b, "\n## ❌ apeval: NO-GO\n") || strings.Contains(b, "\n## ⚠️ apeval: INCONCLUSIVE\n")) ||
		!strings.Contains(b, "30 sessions sampled (seed 2)") || g.notes[0].Body != "Looks good" || g.notes[1].Body != mallory.Body {
		t.Errorf("notes after the second pipeline: %q / %q / %.300s", g.notes[0].Body, g.notes[1].Body, g.notes[2].Body)
	}
	if !strings.Contains(log, "verdict NO-GO") && !strings.Contains(log, "verdict INCONCLUSIVE") {
		t.Errorf("the job did not read the verdict after the banner:\n%s", log)
	}
}

// gitlabArtifact zips a run directory as the target branch's job artifact:
// its files under apeval-out/ci/.
func gitlabArtifact(t *testing.T, run string) []byte {
	t.Helper()
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	entries, _ := os.ReadDir(run)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(run, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		f, _ := zw.Create("apeval-out/ci/" + e.Name())
		_, _ = f.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return zb.Bytes()
}

// runGitLabJob runs the component's job script in work as a merge-request
// pipeline would (the job's and the merge-request rule's variables, the CI_*
// environment against the fake API) and returns its exit code and log.
//
// unset leaves those variables out of the job's environment.
func runGitLabJob(t *testing.T, c component, g *fakeGitLab, work string, inputs map[string]string, unset ...string) (int, string) {
	t.Helper()
	job := c.render(t, inputs)["apeval"].(map[string]any)
	script := job["script"].([]any)[0].(string)
	vars := job["variables"].(map[string]any)
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"),
		"CI_API_V4_URL="+g.srv.URL+"/api/v4", "CI_PROJECT_ID=5", "CI_MERGE_REQUEST_IID=3",
		"CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main", "CI_JOB_TOKEN=job-token", "CI_JOB_URL=https://gitlab.test/o/r/-/jobs/9",
		"CI_PIPELINE_SOURCE=merge_request_event", "APEVAL_GITLAB_TOKEN=glpat-test")
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+fmt.Sprint(v))
	}
	// The merge-request rule's variables.
	rule := job["rules"].([]any)[0].(map[string]any)
	for k, v := range rule["variables"].(map[string]any) {
		cmd.Env = append(cmd.Env, k+"="+fmt.Sprint(v))
	}
	cmd.Env = slices.DeleteFunc(cmd.Env, func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return slices.Contains(unset, k)
	})
	out, err := cmd.CombinedOutput()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatal(err)
		}
		code = ee.ExitCode()
	}
	if _, err := os.Stat(filepath.Join(work, "apeval-out/ci/junit.xml")); err != nil {
		t.Errorf("no junit.xml for the MR's test report: %v\n%s", err, out)
	}
	// The cache: paths entry must exist, or GitLab warns and saves nothing.
	if _, err := os.Stat(filepath.Join(work, ".apeval-cache")); err != nil {
		t.Errorf("no .apeval-cache for the job's cache: %v", err)
	}
	return code, string(out)
}

// TestGitLabComponentTwoJudgeProject runs the job in the project apeval init
// writes (a baseline judge and a candidate in apeval.toml): base and head
// runs hold two judges each, and the note compares the base run's candidate
// with the head run's instead of falling back to the run's summary (compare
// alone refuses two runs of two judges each, exit 2).
func TestGitLabComponentTwoJudgeProject(t *testing.T) {
	t.Parallel()
	c := readComponent(t)
	g := newFakeGitLab(t)
	work := filepath.Join(t.TempDir(), "project")
	if out, err := exec.Command(bin, "init", work).CombinedOutput(); err != nil {
		t.Fatalf("apeval init: %v\n%s", err, out)
	}
	base := filepath.Join(t.TempDir(), "base")
	cmd := exec.Command(bin, "run", "--out", base, "--quiet")
	cmd.Dir = work
	if out, err := cmd.CombinedOutput(); err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() == 2 {
			t.Fatalf("base run: %v\n%s", err, out)
		}
	}
	g.artifact = gitlabArtifact(t, base)
	code, log := runGitLabJob(t, c, g, work, map[string]string{"inconclusive": "pass"})
	if code != 0 && code != 1 {
		t.Fatalf("exit %d\n%s", code, log)
	}
	if strings.Contains(log, "compare with the baseline failed") || g.created != 1 {
		t.Fatalf("%d notes added\n%s", g.created, log)
	}
	// The job's log shows the run's tables, not TSV (the log is no terminal).
	if strings.Contains(log, "rule_id\tjudge\t") || !regexp.MustCompile(`(?m)^ verdict +(NO-GO|INCONCLUSIVE|GO) `).MatchString(log) {
		t.Errorf("the job's log is not the table:\n%.1500s", log)
	}
	cand := "recorded/ollama/qwen2.5:7b-instruct-q4_K_M"
	n := g.notes[len(g.notes)-1].Body
	for _, s := range []string{"vs base `" + cand + "`", "### Figures, head vs base", "head `" + cand} {
		if !strings.Contains(n, s) {
			t.Errorf("note lacks %q:\n%.800s", s, n)
		}
	}
}

// TestGitLabComponentBaselineOfFailedPipeline: the target branch's newest
// pipeline failed (its apeval job said NO-GO, which fails the job), so
// GitLab's download by branch, which serves only a successful pipeline's
// artifacts, has none; the job finds the artifact through the pipelines API
// with the token and names it in the note. Without a token (notes unwanted,
// the variable unset) the job still runs to its verdict's exit code and
// takes the baseline from the download by branch.
func TestGitLabComponentBaselineOfFailedPipeline(t *testing.T) {
	t.Parallel()
	c := readComponent(t)
	g := newFakeGitLab(t)
	base := filepath.Join(t.TempDir(), "base")
	baseRun(t, base)
	g.artifact = gitlabArtifact(t, base)
	g.lastFailed = true
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "apeval.toml"), []byte("# the sample\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := map[string]string{"judges": "recorded:ollama/qwen2.5:7b-instruct-q4_K_M", "sample": "", "inconclusive": "pass"}
	code, log := runGitLabJob(t, c, g, work, in)
	if code != 0 || g.created != 1 {
		t.Fatalf("exit %d, %d notes added\n%s", code, g.created, log)
	}
	n := g.notes[len(g.notes)-1].Body
	for _, s := range []string{"vs base `recorded/ollama/qwen2.5:3b`", "### Figures, head vs base",
		"Baseline: job [42](https://gitlab.test/o/r/-/jobs/42) (failed) of pipeline 902 on `main`, commit `abc1234`."} {
		if !strings.Contains(n, s) {
			t.Errorf("note lacks %q:\n%.600s\n%s", s, n, log)
		}
	}

	// No token: no note, the baseline by branch (the newest pipeline passed).
	g.lastFailed = false
	code, log = runGitLabJob(t, c, g, work, in, "APEVAL_GITLAB_TOKEN")
	if code != 0 || g.created != 1 || strings.Contains(log, "unbound variable") ||
		!strings.Contains(log, "no token for the notes API") || strings.Contains(log, "no baseline") {
		t.Fatalf("without a token: exit %d, %d notes added\n%s", code, g.created, log)
	}
}

// TestGitLabComponentLabels: with the labels input, the note's comparison
// (whose verdict becomes the job's) rests on the labels as the run does.
func TestGitLabComponentLabels(t *testing.T) {
	t.Parallel()
	c := readComponent(t)
	g := newFakeGitLab(t)
	cases, policy, base, labelsFile := labeledFixture(t)
	g.artifact = gitlabArtifact(t, base)
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "apeval.toml"), []byte("# datasets and policy from the inputs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, log := runGitLabJob(t, c, g, work, map[string]string{"dataset": cases, "policy": policy, "sample": "",
		"judges": "recorded:ollama/qwen2.5:7b-instruct-q4_K_M", "labels": labelsFile, "inconclusive": "pass"})
	if code != 0 && code != 1 || g.created != 1 {
		t.Fatalf("exit %d, %d notes added\n%s", code, g.created, log)
	}
	if n := g.notes[len(g.notes)-1].Body; !strings.Contains(n, "### Figures, head vs base") || !strings.Contains(n, " sampled + ") ||
		strings.Contains(n, "no labeled match predictions") {
		t.Errorf("the note's figures do not rest on the labels:\n%.2500s", n)
	}
}
