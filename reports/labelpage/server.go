// Package labelpage serves the labeling page of `apeval label serve`: one
// page on loopback, behind a random token, that shows one queued (case,
// rule) pair at a time exactly as a judge saw it (masked), takes a key
// (m match, n no_match, s skip, u undo, arrows to move) and appends each
// label, synced, to the labeler's labels file before moving on. Judges'
// answers are never sent while labeling (blind); review mode shows them
// beside the person's label. A side panel shows, per rule and judge, what
// the labels decide so far (metrics.SampleFiguresOf): the weighted
// precision with its criterion status and how many more labels would
// settle it. Everything statistical comes from metrics; this package only
// serves and formats.
//
// # Where to look
//
//	server.go   Server: state, the JSON API, the appender; Serve (until the context ends)
//	page.go     the page (HTML, CSS, JS in one self-contained document)
//	items.go    the page's items (a labeler's part of the queue, cases and rules read back), the labels file
//
// Not a stable Go API: apeval is a command, and this package serves it;
// its exported names change with the command, without a compatibility
// promise between versions.
package labelpage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/judge/core"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
)

// Item is one queued pair with what the page shows of it.
type Item struct {
	Line datasets.SampleLabel
	// Input is the judge input of the pair (the rule alone), masked
	// exactly as it is sent to a judge.
	Input core.Input
	// RuleName is the rule's name from the policy.
	RuleName string
}

// Config is what a Server needs.
type Config struct {
	Items   []Item
	Labeler string
	// Appender receives the labels; Existing are the labels the file held
	// at start (to resume).
	Appender *datasets.LabelAppender
	Existing []datasets.SampleLabel
	// Pairs are the run's pairs (the judges' results for review mode and
	// the panel); Criteria the run's kill criteria.
	Pairs    *metrics.PairTable
	Criteria replay.KillCriteria
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Server is the labeling page's state and handlers.
type Server struct {
	cfg   Config
	token string
	mu    sync.Mutex
	// labels is every label line of this labeler, in file order; cur the
	// current label per item index ("" none).
	labels []datasets.SampleLabel
	cur    []datasets.Label
	index  map[[2]string]int
	// seq caches the sequential standing per rule and judge, keyed by the
	// rule's labels it was computed on (only the labeled rule changes).
	seq map[seqKey]seqEntry
}

type seqKey struct {
	rule  string
	judge int
}

type seqEntry struct {
	sig string
	st  metrics.LabelStanding
}

// New builds a Server; Existing labels resume it.
func New(cfg Config) (*Server, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	tok := make([]byte, 16)
	if _, err := rand.Read(tok); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, token: hex.EncodeToString(tok), cur: make([]datasets.Label, len(cfg.Items)), index: map[[2]string]int{}, seq: map[seqKey]seqEntry{}}
	for i, it := range cfg.Items {
		s.index[it.Line.Key()] = i
	}
	for _, l := range cfg.Existing {
		// This labeler's labels of this page's items: the file may also
		// hold other labelers' and other parts' labels.
		if _, mine := s.index[l.Key()]; l.Labeler != cfg.Labeler || !mine {
			continue
		}
		s.labels = append(s.labels, l)
		if i, ok := s.index[l.Key()]; ok {
			s.cur[i] = l.Label
		}
	}
	return s, nil
}

// Token is the random path prefix of every URL.
func (s *Server) Token() string { return s.token }

// CheckAddr accepts a loopback address only (host:port), so that a
// command refuses any other before it creates a file.
func CheckAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", addr, err)
	}
	ip := net.ParseIP(host)
	if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("--addr %s: the labeling page serves loopback only (127.0.0.1 or ::1)", addr)
	}
	return nil
}

// Listen binds addr, which must be a loopback address (CheckAddr).
func Listen(addr string) (net.Listener, error) {
	if err := CheckAddr(addr); err != nil {
		return nil, err
	}
	return net.Listen("tcp", addr)
}

// Serve serves the page on l until ctx is done, then shuts the server
// down (waiting up to 2 s for requests in flight) and returns nil; it
// returns the server's error if it stops otherwise. Each label was synced
// when it was taken, so stopping loses nothing.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(l) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
		return nil
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
}

// URL is the page's address on l.
func (s *Server) URL(l net.Listener) string {
	return fmt.Sprintf("http://%s/%s/", l.Addr().String(), s.token)
}

// Handler serves the page and its API under /<token>/; anything else is
// 404.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	p := "/" + s.token + "/"
	mux.HandleFunc("GET "+p+"{$}", s.page)
	mux.HandleFunc("GET "+p+"api/state", s.state)
	mux.HandleFunc("POST "+p+"api/label", s.label)
	mux.HandleFunc("POST "+p+"api/undo", s.undo)
	return securityHeaders(mux)
}

func securityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:")
		w.Header().Set("Referrer-Policy", "no-referrer")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}

func (s *Server) page(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, pageHTML)
}

func (s *Server) firstOpen() int {
	for i, c := range s.cur {
		if c == "" {
			return i
		}
	}
	return len(s.cur)
}

type itemView struct {
	Pos     int             `json:"pos"`
	CaseID  string          `json:"case_id"`
	RuleID  string          `json:"rule_id"`
	Rule    string          `json:"rule_name"`
	Order   int             `json:"order"`
	Stratum string          `json:"stratum,omitempty"` // review mode only: it names the judges' results
	Overlap bool            `json:"overlap"`
	Label   datasets.Label  `json:"label"`
	Input   core.Input      `json:"input"`
	Judges  []judgeAnswer   `json:"judges,omitempty"`
	Raw     json.RawMessage `json:"-"`
}

type judgeAnswer struct {
	Judge  string `json:"judge"`
	Result string `json:"result"`
}

type panelRow struct {
	RuleID    string `json:"rule_id"`
	Judge     string `json:"judge"`
	Sampled   int64  `json:"sampled"`
	Census    int64  `json:"census"`
	Precision *ci    `json:"precision"`
	Recall    *ci    `json:"recall"`
	// Interval says which interval the queue-labeled precision and recall
	// print and, for the two-phase design's, why not the stratified draws
	// (summary.json's precision_interval, recall_interval, interval_note):
	// intervalOf. "" where every label weighs 1.
	Interval string  `json:"interval,omitempty"`
	Criteria []crits `json:"criteria"`
	// Sequential is where precision_min stands on the labels in queue
	// order, anytime-valid: "decided after 140 labels" or "open: about 60
	// more labels" (metrics.LabelSequential).
	Sequential *metrics.LabelStanding `json:"sequential,omitempty"`
}

type ci struct {
	Est, Lo, Hi float64
}

type crits struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	More   *int64 `json:"more,omitempty"`
	// Sessions is set when labels of these pairs cannot settle it (every
	// queued pair labeled, or the recorded sessions' own spread): More
	// then counts the labels those new sessions bring, not queue labels.
	Sessions *int64 `json:"sessions,omitempty"`
	Reason   string `json:"reason"`
	// Hint is the panel's sentence on what would settle it ("" when
	// nothing is offered): hintOf.
	Hint string `json:"hint,omitempty"`
}

// hintOf is the panel's sentence on what would settle an open criterion:
// "12 more labels would settle it", or, where labels of these pairs
// cannot, "more labels of these pairs would not settle it: about 233 more
// sessions of traffic would (≈ 40 labels at the queue's rate)". The page
// built it in JavaScript and cut it after "would", with "(≈ 0 labels)"
// where the new sessions bring no labels at the queue's rate.
func hintOf(more, sessions *int64, queue string) string {
	switch {
	case sessions != nil && *sessions > 0:
		h := fmt.Sprintf("more labels of these pairs would not settle it: about %d more sessions of traffic would", *sessions)
		if more != nil && *more > 0 && queue != "" {
			h += fmt.Sprintf(" (≈ %d labels: the judge's every match prediction in the new run, %s)", *more, queue)
		} else if more != nil && *more > 0 {
			h += fmt.Sprintf(" (≈ %d labels at the queue's rate)", *more)
		}
		return h
	case more != nil && *more > 0:
		return fmt.Sprintf("%d more labels would settle it", *more)
	}
	return ""
}

type stateView struct {
	Labeler string     `json:"labeler"`
	Total   int        `json:"total"`
	Done    int        `json:"done"`
	Next    int        `json:"next"`
	Review  bool       `json:"review"`
	Item    *itemView  `json:"item"`
	Panel   []panelRow `json:"panel"`
	Error   string     `json:"error,omitempty"`
}

func (s *Server) state(w http.ResponseWriter, r *http.Request) {
	pos := -1
	fmt.Sscan(r.URL.Query().Get("pos"), &pos)
	review := r.URL.Query().Get("review") == "1"
	s.mu.Lock()
	defer s.mu.Unlock()
	if pos < 0 || pos > len(s.cur) {
		pos = s.firstOpen()
	}
	s.reply(w, pos, review, "")
}

// reply writes the state at pos; the caller holds mu.
func (s *Server) reply(w http.ResponseWriter, pos int, review bool, msg string) {
	st := stateView{Labeler: s.cfg.Labeler, Total: len(s.cur), Next: pos, Review: review, Error: msg}
	for _, c := range s.cur {
		if c != "" {
			st.Done++
		}
	}
	if pos < len(s.cfg.Items) {
		it := s.cfg.Items[pos]
		v := &itemView{Pos: pos, CaseID: mask.ID(it.Line.CaseID), RuleID: it.Line.RuleID, Rule: it.RuleName,
			Order: it.Line.Order, Overlap: it.Line.Overlap, Label: s.cur[pos], Input: it.Input}
		if review {
			v.Stratum = it.Line.Stratum
			if p := s.cfg.Pairs.Row(it.Line.CaseID, it.Line.RuleID); p != nil {
				for j, id := range s.cfg.Pairs.Judges {
					v.Judges = append(v.Judges, judgeAnswer{Judge: id, Result: p.Results[j]})
				}
			}
		}
		st.Item = v
	}
	st.Panel = s.panel()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(st)
}

// panel computes the side panel from this labeler's labels; the caller
// holds mu.
func (s *Server) panel() []panelRow {
	labels, err := metrics.ResolveSampleLabels(s.labels)
	if err != nil {
		return nil
	}
	var rows []panelRow
	seen := map[string]bool{}
	queue := make([]datasets.SampleLabel, len(s.cfg.Items))
	for i, it := range s.cfg.Items {
		queue[i] = it.Line
	}
	sigs := map[string]*strings.Builder{}
	for _, l := range labels {
		b := sigs[l.RuleID]
		if b == nil {
			b = &strings.Builder{}
			sigs[l.RuleID] = b
		}
		fmt.Fprintf(b, "%s=%t;", l.CaseID, l.Match)
	}
	for _, it := range s.cfg.Items {
		rule := it.Line.RuleID
		if seen[rule] {
			continue
		}
		seen[rule] = true
		for j := range s.cfg.Pairs.Judges {
			f := metrics.SampleFiguresOf(s.cfg.Pairs, rule, j, labels, s.cfg.Criteria)
			pr := panelRow{RuleID: rule, Judge: f.Judge, Sampled: f.Sampled, Census: f.Census,
				Precision: ciOf(f.Precision), Recall: ciOf(f.Recall), Interval: intervalOf(f.Precision, f.Recall)}
			for _, c := range []metrics.Criterion{f.PrecisionMin, f.DangerousRecall} {
				if c.Status == metrics.StatusNA {
					continue
				}
				pr.Criteria = append(pr.Criteria, crits{Name: c.Name, Status: string(c.Status), More: c.MoreSamples, Sessions: c.MoreSessions, Reason: c.Reason,
					Hint: hintOf(c.MoreSamples, c.MoreSessions, c.MoreLabelsQueue)})
			}
			sig := ""
			if b := sigs[rule]; b != nil {
				sig = b.String()
			}
			k := seqKey{rule, j}
			e, ok := s.seq[k]
			if !ok || e.sig != sig {
				e = seqEntry{sig, metrics.LabelSequential(s.cfg.Pairs, rule, j, queue, labels, s.cfg.Criteria)}
				s.seq[k] = e
			}
			pr.Sequential = &e.st
			rows = append(rows, pr)
		}
	}
	return rows
}

// intervalOf is the panel's line on which interval a row's figures print:
// "intervals: stratified draws" or "intervals: two-phase design, not the
// stratified draws: WHY", once when precision and recall share it, each
// named when they differ; "" where neither figure has a method (no
// figure, or every label weighs 1).
func intervalOf(p, r metrics.WeightedRatio) string {
	one := func(f metrics.WeightedRatio) string {
		if f.Estimate == nil || f.Method == "" {
			return ""
		}
		if f.MethodWhy != "" {
			return f.Method + ", not the stratified draws: " + f.MethodWhy
		}
		return f.Method
	}
	pm, rm := one(p), one(r)
	switch {
	case pm == "" && rm == "":
		return ""
	case pm == rm:
		return "intervals: " + pm
	case rm == "":
		return "precision's interval: " + pm
	case pm == "":
		return "recall's interval: " + rm
	}
	return "precision's interval: " + pm + "; recall's: " + rm
}

func ciOf(f metrics.WeightedRatio) *ci {
	if f.Estimate == nil {
		return nil
	}
	return &ci{*f.Estimate, *f.Lo, *f.Hi}
}

type labelReq struct {
	Pos    int            `json:"pos"`
	Label  datasets.Label `json:"label"`
	Review bool           `json:"review"`
}

func (s *Server) label(w http.ResponseWriter, r *http.Request) {
	var req labelReq
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	switch req.Label {
	case datasets.LabelMatch, datasets.LabelNoMatch, datasets.SampleSkip:
	default:
		http.Error(w, fmt.Sprintf("label %q: want match, no_match or skip", req.Label), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if req.Pos < 0 || req.Pos >= len(s.cfg.Items) {
		http.Error(w, "no such item", http.StatusBadRequest)
		return
	}
	now := s.cfg.Now().UTC()
	l := s.cfg.Items[req.Pos].Line
	l.Label, l.Labeler, l.Time, l.Source = req.Label, s.cfg.Labeler, &now, ""
	if err := s.cfg.Appender.Append(l); err != nil {
		// Not on disk: the page stays on the item and says so.
		s.reply(w, req.Pos, req.Review, "the label was not saved: "+err.Error())
		return
	}
	s.labels = append(s.labels, l)
	s.cur[req.Pos] = req.Label
	next := req.Pos + 1
	for next < len(s.cur) && s.cur[next] != "" {
		next++
	}
	if next >= len(s.cur) {
		next = s.firstOpen()
	}
	s.reply(w, next, req.Review, "")
}

func (s *Server) undo(w http.ResponseWriter, r *http.Request) {
	review := r.URL.Query().Get("review") == "1"
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.labels) == 0 {
		s.reply(w, s.firstOpen(), review, "nothing to undo")
		return
	}
	last := s.labels[len(s.labels)-1]
	// Only this labeler's own last label is removed, wherever it is in the
	// file (another labeler may have written after it), or nothing.
	if err := s.cfg.Appender.Remove(last); err != nil {
		if errors.Is(err, datasets.ErrLabelGone) {
			err = fmt.Errorf("your last label (%s, %s) is no longer in the labels file: it was removed outside this page", last.CaseID, last.RuleID)
		}
		s.reply(w, s.firstOpen(), review, "undo refused: "+err.Error())
		return
	}
	s.labels = s.labels[:len(s.labels)-1]
	pos := s.index[last.Key()]
	s.cur[pos] = ""
	for i := len(s.labels) - 1; i >= 0; i-- {
		if s.labels[i].Key() == last.Key() {
			s.cur[pos] = s.labels[i].Label
			break
		}
	}
	s.reply(w, pos, review, "")
}

// Summary is a one-line account for the terminal.
func (s *Server) Summary() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	done := 0
	for _, c := range s.cur {
		if c != "" {
			done++
		}
	}
	return fmt.Sprintf("%d of %d items labeled by %s", done, len(s.cur), strings.TrimSpace(s.cfg.Labeler))
}
