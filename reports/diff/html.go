package diff

import (
	_ "embed"
	"encoding/json"
	"html/template"
	"io"
	"strings"
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
	Head  pageSide `json:"h"`
	Mark  string   `json:"m,omitempty"` // fixed, broken
	Stab  string   `json:"st,omitempty"`
}

type pageSide struct {
	In     bool     `json:"i"`
	Result string   `json:"r,omitempty"`
	Conf   *float64 `json:"c,omitempty"`
	Fired  bool     `json:"f,omitempty"`
	Status string   `json:"s,omitempty"`
	Source string   `json:"o,omitempty"`
	Votes  []string `json:"v,omitempty"`
}

func toPageSide(r Rule) pageSide {
	s := pageSide{In: r.In, Result: string(r.Result), Conf: r.Confidence, Fired: r.Fired, Status: string(r.Status), Source: string(r.Source)}
	for _, v := range r.Votes {
		s.Votes = append(s.Votes, string(v))
	}
	return s
}

func toPage(c *Case) pageCase {
	p := pageCase{ID: c.CaseID, Session: c.SessionID, Seq: c.Seq, Tool: c.Tool, Class: c.Class, Label: c.Label,
		Stab: c.Stability, First: c.First, Base: string(c.Base.Gate), Head: string(c.Head.Gate), BFired: c.Base.Fired, HFired: c.Head.Fired}
	for _, r := range c.Rules {
		pr := pageRule{ID: r.ID, Label: string(r.Label), Base: toPageSide(r.Base), Head: toPageSide(r.Head), Stab: r.Stability}
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

// WriteHTML writes diff.html: one self-contained page (no network) with
// the summary, filters, search, the cases side by side and permalinks.
func WriteHTML(w io.Writer, r *Result) error {
	cases := make([]pageCase, len(r.Page))
	for i, c := range r.Page {
		cases[i] = toPage(c)
	}
	data, err := json.Marshal(struct {
		Summary *Summary   `json:"summary"`
		Omitted int64      `json:"omitted"`
		Cases   []pageCase `json:"cases"`
	}{r.Summary, r.PageOmitted, cases})
	if err != nil {
		return err
	}
	// The JSON goes into a <script type="application/json"> element: no
	// "</" may close it early.
	js := strings.ReplaceAll(string(data), "</", `<\/`)
	return page.Execute(w, struct {
		Title string
		Data  template.JS
	}{"apeval diff: " + r.Summary.Base.Judge + " → " + r.Summary.Head.Judge, template.JS(js)})
}
