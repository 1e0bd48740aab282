package runplan

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/internal/config"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/judge/cache"
)

// openAIServer speaks the OpenAI API's model list (GET /v1/models), which
// the openai backend's startup check reads; status other than 200 answers
// with that status and the API's error shape.
func openAIServer(t *testing.T, status int, models ...string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		if status != http.StatusOK {
			w.WriteHeader(status)
			_, _ = io.WriteString(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`)
			return
		}
		var data []string
		for _, m := range models {
			data = append(data, `{"id":"`+m+`","object":"model","owned_by":"me"}`)
		}
		_, _ = io.WriteString(w, `{"object":"list","data":[`+strings.Join(data, ",")+`]}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func planFor(t *testing.T, set func(*Options)) *State {
	t.Helper()
	o := defaults()
	set(&o)
	p, err := Resolve(o, givenOf(), noFile(), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	return p.Start(time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC))
}

// entry is --judge spec as the command parses it (spec@server).
func entry(t *testing.T, spec string) config.JudgeEntry {
	t.Helper()
	e, err := config.ParseJudgeFlag(spec)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func judgeCfg(st *State) judge.Config {
	cfg := st.Plan.Judge.Config(st.Plan.Timeout, st.Plan.Concurrency)
	cfg.Log = io.Discard
	cfg.Getenv = noEnv
	return cfg
}

// A live judge goes into the response cache in --cache's directory; a
// recorded one (not live) does not, and opens no cache at all.
func TestOpenJudgesCachesLiveJudges(t *testing.T) {
	t.Parallel()
	srv := openAIServer(t, http.StatusOK, "m")
	dir := t.TempDir()
	st := planFor(t, func(o *Options) { o.CacheDir = dir })
	js, err := st.OpenJudges(t.Context(), []config.JudgeEntry{entry(t, "openai:m@"+srv.URL+"/v1"), {Spec: "none"}}, judgeCfg(st), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer js.Close()
	if len(js.List) != 2 {
		t.Fatalf("judges: %d", len(js.List))
	}
	if _, ok := js.List[0].(*cache.Judge); !ok {
		t.Errorf("live judge not cached: %T", js.List[0])
	}
	if _, ok := js.List[1].(*cache.Judge); ok {
		t.Errorf("none is cached")
	}
	if ids := js.IDs(); len(ids) != 2 || !strings.HasPrefix(ids[0], "openai/m") || ids[1] != "none" {
		t.Errorf("ids: %v", ids)
	}
	if ents, _ := os.ReadDir(dir); len(ents) == 0 {
		t.Errorf("no cache in %s", dir)
	}
	infos := js.Infos()
	if infos[0].Backend != "openai" || infos[0].Model != "m" || infos[0].Details["base_url"] != srv.URL+"/v1" {
		t.Errorf("run.json judge: %+v", infos[0])
	}

	// --no-cache: the live judge is itself, and no cache directory is read.
	st = planFor(t, func(o *Options) { o.NoCache = true })
	js2, err := st.OpenJudges(t.Context(), []config.JudgeEntry{entry(t, "openai:m@"+srv.URL+"/v1")}, judgeCfg(st), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer js2.Close()
	if _, ok := js2.List[0].(*cache.Judge); ok {
		t.Errorf("--no-cache: judge cached")
	}
}

// Two judges of one model and prompt: on two servers they are told apart
// by server; on one server they are a usage error naming both specs.
func TestOpenJudgesTellsApartOrRefuses(t *testing.T) {
	t.Parallel()
	a, b := openAIServer(t, http.StatusOK, "m"), openAIServer(t, http.StatusOK, "m")
	st := planFor(t, func(o *Options) { o.NoCache = true })
	js, err := st.OpenJudges(t.Context(), []config.JudgeEntry{entry(t, "openai:m@"+a.URL+"/v1"), entry(t, "openai:m@"+b.URL+"/v1")}, judgeCfg(st), nil)
	if err != nil {
		t.Fatal(err)
	}
	ids := js.IDs()
	js.Close()
	if ids[0] == ids[1] {
		t.Errorf("not told apart: %v", ids)
	}
	spec := "openai:m@" + a.URL + "/v1"
	_, err = st.OpenJudges(t.Context(), []config.JudgeEntry{entry(t, spec), entry(t, spec)}, judgeCfg(st), nil)
	if err == nil || !strings.Contains(err.Error(), "--judge "+spec+" and --judge "+spec+" are the same judge (") ||
		!strings.HasSuffix(err.Error(), "on the same server: give one another model, prompt or server") {
		t.Errorf("same judge: %v", err)
	}
}

// A server refusing the key fails at opening, naming the --judge; so does
// a live judge without prices under --budget-usd, and an unknown backend.
func TestOpenJudgesErrorsNameTheJudge(t *testing.T) {
	t.Parallel()
	bad := openAIServer(t, http.StatusUnauthorized)
	ok := openAIServer(t, http.StatusOK, "m")
	for _, tc := range []struct {
		set   func(*Options)
		entry config.JudgeEntry
		want  string
	}{
		{func(o *Options) { o.NoCache = true }, entry(t, "openai:m@"+bad.URL+"/v1"), "--judge openai:m@" + bad.URL + "/v1: "},
		{func(o *Options) { o.NoCache, o.Budget.BudgetUSD = true, 1 }, entry(t, "openai:m@"+ok.URL+"/v1"), "--budget-usd: judge openai:m@" + ok.URL + "/v1 has no prices"},
		{func(o *Options) {}, config.JudgeEntry{Spec: "nosuch:m"}, "--judge nosuch:m: "},
	} {
		st := planFor(t, tc.set)
		js, err := st.OpenJudges(t.Context(), []config.JudgeEntry{tc.entry}, judgeCfg(st), nil)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.entry.Spec, err, tc.want)
		}
		if js != nil {
			t.Errorf("%s: judges returned with an error", tc.entry.Spec)
		}
	}
	// With prices the same judge opens under the budget; they reach run.json.
	st := planFor(t, func(o *Options) { o.NoCache, o.Budget.BudgetUSD = true, 1 })
	e := entry(t, "openai:m@"+ok.URL+"/v1")
	e.Options = []string{"price_in=3", "price_out=15"}
	js, err := st.OpenJudges(t.Context(), []config.JudgeEntry{e}, judgeCfg(st), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer js.Close()
	info := st.Info(Run{Judges: js.Infos()})
	if pi := info.Judges[0].PriceIn; pi == nil || *pi != 3 {
		t.Errorf("price_in in run.json: %v", pi)
	}
}

// A cache directory that cannot be opened names --cache and the way out.
func TestOpenJudgesCacheError(t *testing.T) {
	t.Parallel()
	srv := openAIServer(t, http.StatusOK, "m")
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := planFor(t, func(o *Options) { o.CacheDir = file })
	_, err := st.OpenJudges(t.Context(), []config.JudgeEntry{entry(t, "openai:m@"+srv.URL+"/v1")}, judgeCfg(st), nil)
	if err == nil || !strings.HasPrefix(err.Error(), "--cache "+file+": ") || !strings.Contains(err.Error(), "--no-cache") {
		t.Errorf("cache error: %v", err)
	}
}
