package labelpage

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
)

func testServer(t *testing.T) (*Server, *httptest.Server, string) {
	t.Helper()
	return testServerSized(t, 30)
}

// testServerSized is testServer with the queue's one stratum of size
// pairs (the three queued among them).
func testServerSized(t *testing.T, size int64) (*Server, *httptest.Server, string) {
	t.Helper()
	pairs := metrics.NewPairTable([]string{"j1"}, nil)
	var items []Item
	for i, id := range []string{"c1", "c2", "c3"} {
		pairs.Add(&replay.Result{CaseID: id, SessionID: "s" + id, Judge: "j1",
			Rules: []replay.RuleResult{{RuleID: "r", Class: "dangerous", Result: judge.Match}}})
		items = append(items, Item{
			Line:  datasets.SampleLabel{Schema: datasets.SampleLabelsSchema, CaseID: id, RuleID: "r", Stratum: "A:match", StratumSize: size, Order: i + 1},
			Input: judge.Input{Rules: []judge.Rule{{ID: "r", Condition: "deletes something"}}},
		})
	}
	path := filepath.Join(t.TempDir(), "labels.jsonl")
	app, err := datasets.OpenLabelAppender(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Close() })
	s, err := New(Config{Items: items, Labeler: "ana", Appender: app, Pairs: pairs,
		Criteria: replay.KillCriteria{PrecisionMin: 0.9, Confidence: 0.95},
		Now:      func() time.Time { return time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	return s, hs, path
}

func getState(t *testing.T, url string) (stateView, string) {
	t.Helper()
	r, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var raw json.RawMessage
	json.NewDecoder(r.Body).Decode(&raw)
	var st stateView
	json.Unmarshal(raw, &st)
	return st, string(raw)
}

func TestServerNeedsToken(t *testing.T) {
	s, hs, _ := testServer(t)
	for _, p := range []string{"/", "/api/state", "/wrong/api/state"} {
		r, err := http.Get(hs.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, r.StatusCode)
		}
	}
	r, _ := http.Get(hs.URL + "/" + s.Token() + "/")
	if r.StatusCode != 200 || !strings.Contains(r.Header.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Errorf("page: %d %v", r.StatusCode, r.Header)
	}
	r.Body.Close()
	if _, err := Listen("0.0.0.0:0"); err == nil {
		t.Error("listened on a non-loopback address")
	}
}

func TestServerBlindLabelsAndReview(t *testing.T) {
	s, hs, path := testServer(t)
	base := hs.URL + "/" + s.Token() + "/api/"
	st, raw := getState(t, base+"state")
	if st.Item == nil || st.Item.Pos != 0 || strings.Contains(raw, `"judges"`) || strings.Contains(raw, "A:match") {
		t.Fatalf("labeling state shows the judges: %s", raw)
	}
	post := func(body string) stateView {
		r, err := http.Post(base+"label", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		var st stateView
		json.NewDecoder(r.Body).Decode(&st)
		return st
	}
	st = post(`{"pos":0,"label":"match"}`)
	if st.Next != 1 || st.Done != 1 {
		t.Fatalf("after a label: %+v", st)
	}
	// On disk before the reply.
	got, err := datasets.ReadSampleLabels([]string{path}, false)
	if err != nil || len(got) != 1 || got[0].Label != "match" || got[0].Labeler != "ana" || got[0].Stratum != "A:match" {
		t.Fatalf("%v %+v", err, got)
	}
	if len(st.Panel) != 1 || st.Panel[0].Sampled != 1 || st.Panel[0].Precision == nil {
		t.Errorf("panel %+v", st.Panel)
	}
	if r, _ := http.Post(base+"label", "application/json", strings.NewReader(`{"pos":1,"label":"maybe"}`)); r.StatusCode != 400 {
		t.Errorf("bad label: %d", r.StatusCode)
	}
	// Review mode shows the judges.
	st, raw = getState(t, base+"state?pos=0&review=1")
	if len(st.Item.Judges) != 1 || st.Item.Judges[0].Result != "match" || st.Item.Stratum != "A:match" {
		t.Errorf("review: %s", raw)
	}
	// Undo removes the line.
	r, _ := http.Post(base+"undo", "application/json", nil)
	json.NewDecoder(r.Body).Decode(&st)
	r.Body.Close()
	if st.Next != 0 || st.Done != 0 {
		t.Errorf("after undo: %+v", st)
	}
	if got, _ := datasets.ReadSampleLabels([]string{path}, false); len(got) != 0 {
		t.Errorf("undo left %+v", got)
	}
}

// TestServerSequentialStanding: the panel says where precision_min
// stands on the labels in queue order, anytime-valid. With the stratum's
// three pairs all queued, two match labels leave the third unknown
// (precision ≥ 2/3: open); the third settles it: PASS, decided after 3
// labels. On 3 of 30 pairs it stays open, with the reason.
func TestServerSequentialStanding(t *testing.T) {
	label := func(base string, pos int, l string) stateView {
		r, err := http.Post(base+"label", "application/json", strings.NewReader(fmt.Sprintf(`{"pos":%d,"label":%q}`, pos, l)))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		var st stateView
		json.NewDecoder(r.Body).Decode(&st)
		return st
	}
	s, hs, _ := testServerSized(t, 3)
	base := hs.URL + "/" + s.Token() + "/api/"
	label(base, 0, "match")
	st := label(base, 1, "match")
	q := st.Panel[0].Sequential
	if q == nil || q.Status != metrics.StatusInconclusive || q.Labels != 2 || q.Queued != 3 || q.DecidedAfter != nil || *q.Lo > 0.67 || *q.Lo < 0.66 {
		t.Fatalf("after 2 labels: %+v", q)
	}
	st = label(base, 2, "match")
	q = st.Panel[0].Sequential
	if q == nil || q.Status != metrics.StatusPass || q.DecidedAfter == nil || *q.DecidedAfter != 3 || *q.Lo != 1 || !strings.Contains(q.Reason, "PASS after 3 labels") {
		t.Fatalf("after 3 labels: %+v", q)
	}
	// The page renders it.
	r, _ := http.Get(hs.URL + "/" + s.Token() + "/")
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if !strings.Contains(string(body), "decided after \" + q.decided_after + \" labels") {
		t.Error("the page does not render the sequential standing")
	}

	s, hs, _ = testServerSized(t, 30)
	base = hs.URL + "/" + s.Token() + "/api/"
	st = label(base, 0, "match")
	q = st.Panel[0].Sequential
	if q == nil || q.Status != metrics.StatusInconclusive || q.Labels != 1 || !strings.HasPrefix(q.Reason, "open: precision 1") {
		t.Errorf("1 of 30: %+v", q)
	}
}
