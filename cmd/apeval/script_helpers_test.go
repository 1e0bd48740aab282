package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// scriptServers starts the judge servers the scripts point apeval at, as a
// user's typo or wrong URL would: $NOTFOUND_URL answers every request with
// HTTP 404 (a model name the server does not have), $HTMLPAGE_URL with a
// web page (a login portal where the API was meant).
func scriptServers(env *testscript.Env) error {
	notFound := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":{"message":"The model 'typo-model' does not exist","type":"invalid_request_error"}}`)
	}))
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<!DOCTYPE html><html><head><title>Sign in</title></head><body><form>…</form></body></html>")
	}))
	// Another web service on the judge's port, as `python3 -m http.server`
	// answers: a 404 page for GETs of paths it lacks (/v1/models), a 501
	// page for every POST.
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code, msg := http.StatusNotFound, "File not found"
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			code, msg = http.StatusNotImplemented, fmt.Sprintf("Unsupported method (%q)", r.Method)
		}
		w.Header().Set("Content-Type", "text/html;charset=utf-8")
		w.WriteHeader(code)
		fmt.Fprintf(w, "<!DOCTYPE HTML>\n<html lang=\"en\">\n    <head>\n        <meta charset=\"utf-8\">\n        <title>Error response</title>\n    </head>\n    <body>\n        <h1>Error response</h1>\n        <p>Error code: %d</p>\n        <p>Message: %s.</p>\n    </body>\n</html>\n", code, msg)
	}))
	env.Defer(notFound.Close)
	env.Defer(page.Close)
	env.Defer(web.Close)
	env.Setenv("NOTFOUND_URL", notFound.URL)
	env.Setenv("HTMLPAGE_URL", page.URL)
	env.Setenv("WEBSERVER_URL", web.URL)
	return nil
}

// keywordJudge is an exec judge plugin: every rule matches when the
// command contains "rm ", after $KEYWORD_JUDGE_MS milliseconds (default 20).
func keywordJudge() {
	ms, _ := strconv.Atoi(os.Getenv("KEYWORD_JUDGE_MS"))
	if ms == 0 {
		ms = 20
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for in.Scan() {
		var req struct {
			Rules   []struct{ ID string } `json:"rules"`
			Current struct {
				Tool struct {
					Arguments map[string]any `json:"arguments"`
				} `json:"tool"`
			} `json:"current"`
		}
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			os.Exit(1)
		}
		time.Sleep(time.Duration(ms) * time.Millisecond)
		cmd, _ := req.Current.Tool.Arguments["command"].(string)
		result := "no_match"
		if strings.Contains(cmd, "rm ") {
			result = "match"
		}
		var ds []string
		for _, r := range req.Rules {
			ds = append(ds, fmt.Sprintf(`{"rule_id":%q,"result":%q,"confidence":0.9}`, r.ID, result))
		}
		fmt.Printf("{\"version\":1,\"decisions\":[%s]}\n", strings.Join(ds, ","))
	}
}

// cmdSameFigures is `samefigures A.json B.json`: two summary.json files give
// the same verdicts and figures. What says where a figure came from rather
// than what it is — the run block, run IDs, how many answers were cached —
// is left out.
func cmdSameFigures(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: samefigures A.json B.json")
	}
	a, b := figuresOf(ts, args[0]), figuresOf(ts, args[1])
	same := reflect.DeepEqual(a, b)
	if same == neg {
		ja, _ := json.MarshalIndent(a, "", " ")
		jb, _ := json.MarshalIndent(b, "", " ")
		ts.Fatalf("%s and %s: same figures %v, want %v\n%s\n---\n%s", args[0], args[1], same, !neg, firstDiff(string(ja), string(jb)), "")
	}
}

// SummaryProvenance are summary.json keys that describe how a run was made,
// not its evidence: left out when two runs' figures are compared.
var summaryProvenance = map[string]bool{"run": true, "run_id": true, "run_ids": true, "cached_calls": true, "cache_hits": true}

func figuresOf(ts *testscript.TestScript, file string) any {
	var v any
	if err := json.Unmarshal([]byte(ts.ReadFile(file)), &v); err != nil {
		ts.Fatalf("%s: %v", file, err)
	}
	return stripKeys(v, summaryProvenance)
}

func stripKeys(v any, drop map[string]bool) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if !drop[k] {
				out[k] = stripKeys(e, drop)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = stripKeys(e, drop)
		}
		return out
	}
	return v
}

// firstDiff shows where two renderings first differ.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d: %q vs %q", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("lengths %d vs %d lines", len(la), len(lb))
}

// cmdP95Steady is `p95steady summary.json PCT`: every judge's P95 latency is
// within PCT percent of its P50, the steady state of a judge whose every
// call takes about the same time.
func cmdP95Steady(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: p95steady summary.json PCT")
	}
	pct, err := strconv.ParseFloat(args[1], 64)
	if err != nil {
		ts.Fatalf("p95steady: %v", err)
	}
	var s struct {
		Judges []struct {
			Judge string
			Total struct {
				Calls int64    `json:"calls"`
				P50   *float64 `json:"latency_p50_ms"`
				P95   *float64 `json:"latency_p95_ms"`
			}
		}
	}
	if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &s); err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
	for _, j := range s.Judges {
		if j.Total.P50 == nil || j.Total.P95 == nil {
			ts.Fatalf("%s: no latency figures", j.Judge)
		}
		ts.Logf("%s: %d calls, P50 %.1f ms, P95 %.1f ms", j.Judge, j.Total.Calls, *j.Total.P50, *j.Total.P95)
		if *j.Total.P95 > *j.Total.P50*(1+pct/100) {
			ts.Fatalf("%s: P95 %.1f ms is more than %g %% above its steady P50 %.1f ms", j.Judge, *j.Total.P95, pct, *j.Total.P50)
		}
	}
}

// wholeProcess marks a test that runs whole evaluations end to end (the
// sample many times over, shards and merges, a bucket server): `make test`
// runs the suite with -short and leaves these to `make e2e`, which runs them
// all. The fast smoke of the same paths stays in testdata/script.
func wholeProcess(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("whole-process test: make e2e runs it (go test without -short)")
	}
}
