package labelpage

import (
	"context"
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
	pairs := metrics.NewPairTable([]string{"j1"}, nil)
	var items []Item
	for i, id := range []string{"c1", "c2", "c3"} {
		pairs.Add(&replay.Result{CaseID: id, SessionID: "s" + id, Judge: "j1",
			Rules: []replay.RuleResult{{RuleID: "r", Class: "dangerous", Result: judge.Match}}})
		items = append(items, Item{
			Line:  datasets.SampleLabel{Schema: datasets.SampleLabelsSchema, CaseID: id, RuleID: "r", Stratum: "A:match", StratumSize: 30, Order: i + 1},
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
	st = postLabel(t, base, `{"pos":0,"label":"match"}`)
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
// stands on the labels in queue order, anytime-valid. A queue of 100
// pairs the judge matched, all labeled match: open at first (with the
// reason), PASS once the confidence sequence alone on as many ones clears
// 0.9 (at the labels' share of α: every label match leaves no spread
// between sessions), "decided after" that many labels, and the page
// renders it.
func TestServerSequentialStanding(t *testing.T) {
	const n = 100
	srv := matchedQueue(t, n, func(i int) string { return fmt.Sprintf("sc%d", i) }, 0.9)
	// The sequence alone on ones: the label after which it clears 0.9.
	ref, want := metrics.NewConfidenceSequence(0.05*metrics.LabelSequenceShare), 0
	for i := 1; i <= n && want == 0; i++ {
		ref.Add(1)
		if lo, _ := ref.Interval(); lo > 0.9 {
			want = i
		}
	}
	if want < 2 {
		t.Fatalf("reference decided after %d of %d", want, n)
	}
	var st stateView
	for i := range n {
		st = srv.label(t, i, "match")
		q := st.Panel[0].Sequential
		switch {
		case q == nil:
			t.Fatalf("label %d: no sequential standing", i+1)
		case i+1 < want && (q.Status != metrics.StatusInconclusive || !strings.HasPrefix(q.Reason, "open: precision 1")):
			t.Fatalf("label %d: %+v", i+1, q)
		case i+1 >= want && (q.Status != metrics.StatusPass || q.DecidedAfter == nil || *q.DecidedAfter != want || q.Labels != i+1):
			t.Fatalf("label %d: %+v, want PASS decided after %d", i+1, q, want)
		}
	}
	if q := st.Panel[0].Sequential; !strings.Contains(q.Reason, fmt.Sprintf("PASS after %d labels", want)) {
		t.Errorf("reason %q", q.Reason)
	}
	if !strings.Contains(srv.page(t), "decided after \" + q.decided_after + \" labels") {
		t.Error("the page does not render the sequential standing")
	}
}

// TestServeStopsWithTheContext: Serve answers on the listener and
// returns nil once the context is done.
func TestServeStopsWithTheContext(t *testing.T) {
	s, _, _ := testServer(t)
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	resp, err := http.Get(s.URL(ln))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("page: HTTP %d", resp.StatusCode)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve after cancel: %v", err)
	}
	if _, err := http.Get(s.URL(ln)); err == nil {
		t.Error("still serving after the context ended")
	}
}

// TestServerHintInSessions: a rule whose every queued pair is labeled and
// whose precision_min is still open cannot be settled by more labels of
// these pairs; the panel says so and counts new sessions (it said "148
// more labels would settle it" with nothing left to label).
func TestServerHintInSessions(t *testing.T) {
	const n = 12
	srv := matchedQueue(t, n, func(i int) string { return fmt.Sprintf("s%d", i%6) }, 0.6)
	var st stateView
	for i := range n {
		label := "match"
		if i%3 == 0 {
			label = "no_match"
		}
		st = srv.label(t, i, label)
	}
	c := st.Panel[0].Criteria[0]
	if c.Status != string(metrics.StatusInconclusive) || c.Sessions == nil || *c.Sessions <= 0 {
		t.Fatalf("every pair labeled, precision 8/12 against 0.6: %+v", c)
	}
	want := fmt.Sprintf("more labels of these pairs would not settle it: about %d more sessions of traffic would", *c.Sessions)
	if !strings.HasPrefix(c.Hint, want) {
		t.Errorf("hint %q, want it to start %q", c.Hint, want)
	}
	if page := srv.page(t); !strings.Contains(page, "c.hint") || strings.Contains(page, "labels), would") {
		t.Error("the page does not print the served hint")
	}
}

// TestHintOf: the panel's sentence is whole (it ended "…, labeled (≈ 0
// labels), would") and names labels only where the new sessions bring
// some: at the queue's rate, or every match prediction of the judge in
// the new run with the queue command to draw.
func TestHintOf(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		more, sessions *int64
		queue          string
		want           string
	}{
		{n(0), n(233), "", "more labels of these pairs would not settle it: about 233 more sessions of traffic would"},
		{n(40), n(233), "", "more labels of these pairs would not settle it: about 233 more sessions of traffic would (≈ 40 labels at the queue's rate)"},
		{n(236), n(3831), "apeval label queue NEW_RUN --rule r --matches j", "more labels of these pairs would not settle it: about 3831 more sessions of traffic would (≈ 236 labels: the judge's every match prediction in the new run, apeval label queue NEW_RUN --rule r --matches j)"},
		{n(12), nil, "", "12 more labels would settle it"},
		{nil, nil, "", ""},
		{n(0), nil, "", ""},
	} {
		if got := hintOf(tc.more, tc.sessions, tc.queue); got != tc.want {
			t.Errorf("hintOf(%v, %v) = %q, want %q", tc.more, tc.sessions, got, tc.want)
		}
	}
}

// queueServer is a label page served on httptest for a test.
type queueServer struct {
	s  *Server
	hs *httptest.Server
}

// matchedQueue serves a queue of n pairs of rule r that judge j1 matched,
// case i in session session(i), for ana to label against precision_min.
func matchedQueue(t *testing.T, n int, session func(i int) string, precisionMin float64) queueServer {
	t.Helper()
	pairs := metrics.NewPairTable([]string{"j1"}, nil)
	var items []Item
	for i := range n {
		id := fmt.Sprintf("c%d", i)
		pairs.Add(&replay.Result{CaseID: id, SessionID: session(i), Judge: "j1",
			Rules: []replay.RuleResult{{RuleID: "r", Result: judge.Match}}})
		items = append(items, Item{
			Line:  datasets.SampleLabel{Schema: datasets.SampleLabelsSchema, CaseID: id, RuleID: "r", Stratum: "A:match", StratumSize: int64(n), Order: i + 1, Judges: []string{"A=j1"}},
			Input: judge.Input{Rules: []judge.Rule{{ID: "r", Condition: "deletes something"}}},
		})
	}
	app, err := datasets.OpenLabelAppender(filepath.Join(t.TempDir(), "labels.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Close() })
	s, err := New(Config{Items: items, Labeler: "ana", Appender: app, Pairs: pairs,
		Criteria: replay.KillCriteria{PrecisionMin: precisionMin, Confidence: 0.95}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	return queueServer{s: s, hs: hs}
}

// label posts a label for the queue's position pos and returns the state.
func (q queueServer) label(t *testing.T, pos int, label string) stateView {
	t.Helper()
	return postLabel(t, q.hs.URL+"/"+q.s.Token()+"/api/", fmt.Sprintf(`{"pos":%d,"label":%q}`, pos, label))
}

// postLabel posts body to the API at base's label and returns the state.
func postLabel(t *testing.T, base, body string) stateView {
	t.Helper()
	r, err := http.Post(base+"label", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var st stateView
	json.NewDecoder(r.Body).Decode(&st)
	return st
}

// page is the label page's HTML.
func (q queueServer) page(t *testing.T) string {
	t.Helper()
	r, err := http.Get(q.hs.URL + "/" + q.s.Token() + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	body, _ := io.ReadAll(r.Body)
	return string(body)
}

// TestServerIntervalMethod: each panel row says which interval its
// queue-labeled precision and recall print, as summary.json's
// precision_interval and interval_note do: the two-phase design's with
// why where the rule's pairs come from fewer sessions than the draws need,
// the stratified draws' where they come from enough; the page prints it.
func TestServerIntervalMethod(t *testing.T) {
	few := matchedQueue(t, 12, func(i int) string { return fmt.Sprintf("s%d", i%6) }, 0.6)
	var st stateView
	for i := range 4 {
		st = few.label(t, i, "match")
	}
	want := "intervals: two-phase design, not the stratified draws: the rule's recorded pairs in the labeled strata come from 6 sessions, fewer than the draws need (40)"
	if got := st.Panel[0].Interval; got != want {
		t.Errorf("6 sessions: interval %q, want %q", got, want)
	}
	many := matchedQueue(t, 60, func(i int) string { return fmt.Sprintf("s%d", i) }, 0.6)
	for i := range 10 {
		label := "match"
		if i == 3 {
			label = "no_match"
		}
		st = many.label(t, i, label)
	}
	// Precision only: no pair is a labeled positive the judge missed, and
	// recall is 1 on the labels, its interval the same method's.
	if got := st.Panel[0].Interval; got != "intervals: "+metrics.IntervalDraws {
		t.Errorf("60 sessions: interval %q, want the stratified draws", got)
	}
	if page := many.page(t); !strings.Contains(page, "r.interval") {
		t.Error("the page does not print the served interval")
	}
}

// TestIntervalOf: one line when precision and recall share a method, each
// named when they differ, nothing without a method.
func TestIntervalOf(t *testing.T) {
	v := 0.5
	f := func(m, why string) metrics.WeightedRatio {
		return metrics.WeightedRatio{Estimate: &v, Lo: &v, Hi: &v, Method: m, MethodWhy: why}
	}
	const d, two = metrics.IntervalDraws, metrics.IntervalTwoPhase
	for _, c := range []struct {
		p, r metrics.WeightedRatio
		want string
	}{
		{f("", ""), f("", ""), ""},
		{metrics.WeightedRatio{}, f(d, ""), "recall's interval: stratified draws"},
		{f(two, "its labels come from one session"), f(two, "its labels come from one session"), "intervals: two-phase design, not the stratified draws: its labels come from one session"},
		{f(d, ""), f(two, "the draws had no denominator"), "precision's interval: stratified draws; recall's: two-phase design, not the stratified draws: the draws had no denominator"},
	} {
		if got := intervalOf(c.p, c.r); got != c.want {
			t.Errorf("intervalOf(%q, %q) = %q, want %q", c.p.Method, c.r.Method, got, c.want)
		}
	}
}
