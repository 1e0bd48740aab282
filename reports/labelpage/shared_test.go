package labelpage

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
)

// partServer is one `label serve --part K/2` of labeler "ana" on the
// labels file path, listening on 127.0.0.1: its own appender, its share
// of 20 queued items.
func partServer(t *testing.T, path string, k int, existing []datasets.SampleLabel) string {
	t.Helper()
	pairs := metrics.NewPairTable([]string{"j1"}, nil)
	var items []Item
	for i := 0; i < 20; i++ {
		id := fmt.Sprintf("c%02d", i)
		pairs.Add(&replay.Result{CaseID: id, SessionID: "s" + id, Judge: "j1",
			Rules: []replay.RuleResult{{RuleID: "r", Class: "dangerous", Result: judge.Match}}})
		if i%2 != k-1 {
			continue
		}
		items = append(items, Item{
			Line:  datasets.SampleLabel{Schema: datasets.SampleLabelsSchema, CaseID: id, RuleID: "r", Stratum: "A:match", StratumSize: 30, Order: i + 1},
			Input: judge.Input{Rules: []judge.Rule{{ID: "r", Condition: "deletes something"}}},
		})
	}
	app, err := datasets.OpenLabelAppender(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Close() })
	s, err := New(Config{Items: items, Labeler: "ana", Appender: app, Existing: existing, Pairs: pairs,
		Criteria: replay.KillCriteria{PrecisionMin: 0.9, Confidence: 0.95}, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	return hs.URL + "/" + s.Token() + "/api/"
}

func postState(t *testing.T, url, body string) stateView {
	t.Helper()
	r, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return stateView{}
	}
	defer r.Body.Close()
	var st stateView
	if err := json.NewDecoder(r.Body).Decode(&st); err != nil {
		t.Error(err)
	}
	return st
}

// Two label servers (parts 1/2 and 2/2 of one labeler, the default
// labels-NAME.jsonl) on one labels file: every label a page acknowledged
// is in the file, whole; undo on one page removes that page's own last
// label even when the other page wrote after it (issue 35 points 1, 3).
func TestTwoServersOneLabelsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "labels-ana.jsonl")
	one, two := partServer(t, path, 1, nil), partServer(t, path, 2, nil)
	var wg sync.WaitGroup
	for _, base := range []string{one, two} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for pos := 0; pos < 10; pos++ {
				if st := postState(t, base+"label", fmt.Sprintf(`{"pos":%d,"label":"match"}`, pos)); st.Error != "" || st.Done != pos+1 {
					t.Errorf("label %d: %+v", pos, st)
				}
			}
		}()
	}
	wg.Wait()
	got, err := datasets.ReadSampleLabels([]string{path}, false)
	if err != nil || len(got) != 20 {
		t.Fatalf("20 acknowledged labels, the file holds %d: %v", len(got), err)
	}

	// Part 1 relabels its first item, part 2 labels after it; part 1's
	// undo takes back its own label, not part 2's last line.
	if st := postState(t, one+"label", `{"pos":0,"label":"no_match"}`); st.Error != "" {
		t.Fatal(st.Error)
	}
	if st := postState(t, two+"label", `{"pos":3,"label":"skip"}`); st.Error != "" {
		t.Fatal(st.Error)
	}
	if st := postState(t, one+"undo", ""); st.Error != "" {
		t.Fatalf("undo: %s", st.Error)
	}
	got, err = datasets.ReadSampleLabels([]string{path}, false)
	if err != nil || len(got) != 21 {
		t.Fatalf("after undo: %d lines, %v", len(got), err)
	}
	last := got[len(got)-1]
	if last.CaseID != "c07" || last.Label != datasets.SampleSkip {
		t.Fatalf("part 1's undo removed part 2's label: last line %+v", last)
	}
	for _, l := range got {
		if l.CaseID == "c00" && l.Label == datasets.LabelNoMatch {
			t.Fatalf("part 1's undone label is still in the file")
		}
	}

	// A restart of part 1 resumes from the shared file with only its own
	// items' labels: its undo never reaches part 2's.
	one = partServer(t, path, 1, got)
	for i := 0; i < 10; i++ {
		if st := postState(t, one+"undo", ""); st.Error != "" {
			t.Fatalf("undo %d after restart: %s", i, st.Error)
		}
	}
	if st := postState(t, one+"undo", ""); st.Error != "nothing to undo" {
		t.Fatalf("undo past part 1's labels: %q", st.Error)
	}
	got, _ = datasets.ReadSampleLabels([]string{path}, false)
	for _, l := range got {
		var n int
		fmt.Sscanf(l.CaseID, "c%d", &n)
		if n%2 == 0 {
			t.Fatalf("part 1's label %s is left after undoing all of them", l.CaseID)
		}
	}
	if len(got) != 11 {
		t.Fatalf("part 2's 11 labels should stay, the file holds %d", len(got))
	}
}
