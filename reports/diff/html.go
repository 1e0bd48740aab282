package diff

import (
	_ "embed"
	"encoding/json"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/apeval/apeval/judge/core"
)

//go:embed page.html
var pageTemplate string

var page = template.Must(template.New(HTMLFile).Parse(pageTemplate))

// pageCase is a case as diff.html's script reads it (short keys keep a
// 100,000-case page small).
type pageCase struct {
	ID      string     `json:"id"`
	Session string     `json:"s"`
	Seq     int64      `json:"q"`
	Tool    string     `json:"t"`
	Class   string     `json:"c"`
	Label   string     `json:"l"`
	Stab    string     `json:"st,omitempty"`
	First   bool       `json:"f,omitempty"`
	Base    string     `json:"b"`
	Head    string     `json:"h"`
	BFired  []string   `json:"bf,omitempty"`
	HFired  []string   `json:"hf,omitempty"`
	Rules   []pageRule `json:"r"`
}

type pageRule struct {
	ID    string   `json:"id"`
	Label string   `json:"l,omitempty"`
	Base  pageSide `json:"b"`
	// Head is nil when it is the same as Base (most rules of a case), which
	// keeps a 100,000-case page small.
	Head *pageSide `json:"h,omitempty"`
	Mark string    `json:"m,omitempty"` // fixed, broken
	Stab string    `json:"st,omitempty"`
}

type pageSide struct {
	In     bool     `json:"i"`
	Result string   `json:"r,omitempty"`
	Conf   *float64 `json:"c,omitempty"`
	Fired  bool     `json:"f,omitempty"`
	Status string   `json:"s,omitempty"` // omitted when ok
	Votes  []string `json:"v,omitempty"`
}

func toPageSide(r Rule) pageSide {
	s := pageSide{In: r.In, Result: string(r.Result), Fired: r.Fired}
	if r.Status != core.StatusOK {
		s.Status = string(r.Status)
	}
	if r.Confidence != nil {
		c := math.Round(*r.Confidence*1000) / 1000
		s.Conf = &c
	}
	for _, v := range r.Votes {
		s.Votes = append(s.Votes, string(v))
	}
	return s
}

func sameSide(a, b pageSide) bool {
	return a.In == b.In && a.Result == b.Result && a.Fired == b.Fired && a.Status == b.Status &&
		(a.Conf == nil) == (b.Conf == nil) && (a.Conf == nil || *a.Conf == *b.Conf) && slices.Equal(a.Votes, b.Votes)
}

func toPage(c *Case) pageCase {
	p := pageCase{ID: c.CaseID, Session: c.SessionID, Seq: c.Seq, Tool: c.Tool, Class: c.Class, Label: c.Label,
		Stab: c.Stability, First: c.First, Base: string(c.Base.Gate), Head: string(c.Head.Gate), BFired: c.Base.Fired, HFired: c.Head.Fired}
	for _, r := range c.Rules {
		pr := pageRule{ID: r.ID, Label: string(r.Label), Base: toPageSide(r.Base), Stab: r.Stability}
		if h := toPageSide(r.Head); !sameSide(pr.Base, h) {
			pr.Head = &h
		}
		switch {
		case r.Fixed:
			pr.Mark = LabelFixed
		case r.Broken:
			pr.Mark = LabelBroken
		}
		p.Rules = append(p.Rules, pr)
	}
	return p
}

// chunkCases is how many cases one data element of diff.html holds: the
// page parses one chunk per task, so no single task parses a 100,000-case
// page at once.
const chunkCases = 2000

// WriteHTML writes diff.html: one self-contained page (no network) with
// the summary, filters, search, the cases side by side and permalinks.
func WriteHTML(w io.Writer, r *Result) error {
	head, err := json.Marshal(struct {
		Summary *Summary `json:"summary"`
		Omitted int64    `json:"omitted"`
		Total   int      `json:"total"`
	}{r.Summary, r.PageOmitted, len(r.Page)})
	if err != nil {
		return err
	}
	var chunks []template.JS
	for i := 0; i < len(r.Page); i += chunkCases {
		part := r.Page[i:min(i+chunkCases, len(r.Page))]
		cases := make([]pageCase, len(part))
		for k, c := range part {
			cases[k] = toPage(c)
		}
		b, err := json.Marshal(cases)
		if err != nil {
			return err
		}
		chunks = append(chunks, scriptJSON(b))
	}
	return page.Execute(w, struct {
		Title  string
		Head   template.JS
		Chunks []template.JS
	}{"apeval diff: " + r.Summary.Base.Judge + " → " + r.Summary.Head.Judge, scriptJSON(head), chunks})
}

// scriptJSON makes JSON safe inside a <script type="application/json">
// element: no "</" may close it early.
func scriptJSON(b []byte) template.JS {
	return template.JS(strings.ReplaceAll(string(b), "</", `<\/`))
}
