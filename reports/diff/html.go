package diff

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"html"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/apeval/apeval/judge/core"
)

//go:embed page.html
var pageTemplate string

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
	// BaseInput and HeadInput are what each judge saw (masked), absent
	// when not built or when that judge was not asked.
	BaseInput json.RawMessage `json:"bi,omitempty"`
	HeadInput json.RawMessage `json:"hi,omitempty"`
	// Hook is the side ("base" or "head") of auto mode's recorded decision
	// where it judged an input a PreToolUse hook changed, the other side
	// the model's input (Case.HookRewritten); "" otherwise.
	Hook string `json:"hw,omitempty"`
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
const chunkCases = 500

// pageSpill keeps diff.html's cases out of memory while the diff runs:
// each chunk of chunkCases cases is one line of JSON in a temporary file.
type pageSpill struct {
	f      *os.File
	w      *bufio.Writer
	buf    []pageCase
	chunks int
	// hookSide is the side that is auto mode's recorded decisions ("base"
	// or "head"), for the cases a hook rewrote.
	hookSide string
}

func newPageSpill() (*pageSpill, error) {
	f, err := os.CreateTemp("", "apeval-diff-page-*.tmp")
	if err != nil {
		return nil, err
	}
	return &pageSpill{f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

func (p *pageSpill) add(c *Case, baseInput, headInput []byte) error {
	pc := toPage(c)
	pc.BaseInput, pc.HeadInput = baseInput, headInput
	if c.HookRewritten {
		pc.Hook = p.hookSide
	}
	p.buf = append(p.buf, pc)
	if len(p.buf) == chunkCases {
		return p.flush()
	}
	return nil
}

func (p *pageSpill) flush() error {
	if len(p.buf) == 0 {
		return nil
	}
	b, err := json.Marshal(p.buf)
	if err != nil {
		return err
	}
	p.buf = p.buf[:0]
	p.chunks++
	if _, err := p.w.Write(scriptSafe(b)); err != nil {
		return err
	}
	return p.w.WriteByte('\n')
}

// each calls fn with every chunk, in order.
func (p *pageSpill) each(fn func([]byte) error) error {
	if err := p.flush(); err != nil {
		return err
	}
	if err := p.w.Flush(); err != nil {
		return err
	}
	if _, err := p.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	sc := bufio.NewScanner(p.f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		if err := fn(sc.Bytes()); err != nil {
			return err
		}
	}
	return sc.Err()
}

func (p *pageSpill) close() {
	_ = p.f.Close()
	_ = os.Remove(p.f.Name())
}

// scriptSafe makes JSON safe inside a <script type="application/json">
// element: no "</" may close it early.
func scriptSafe(b []byte) []byte {
	return bytes.ReplaceAll(b, []byte("</"), []byte(`<\/`))
}

var pageParts = strings.SplitN(pageTemplate, "{{CHUNKS}}", 2)

// WriteHTML writes diff.html: one self-contained page (no network) with
// the summary, filters, search, the cases side by side and permalinks.
func WriteHTML(w io.Writer, r *Result) error {
	head, err := json.Marshal(struct {
		Summary *Summary `json:"summary"`
		Omitted int64    `json:"omitted"`
		Total   int64    `json:"total"`
		Refirst bool     `json:"refirst,omitempty"`
		Inputs  bool     `json:"inputs"`
		Note    string   `json:"inputs_note,omitempty"`
	}{r.Summary, r.PageOmitted, r.PageCases, r.Refirst, r.inputs, r.InputsNote})
	if err != nil {
		return err
	}
	title := html.EscapeString("apeval diff: " + r.Summary.Base.Judge + " → " + r.Summary.Head.Judge)
	top := strings.Replace(pageParts[0], "{{TITLE}}", title, 1)
	top = strings.Replace(top, "{{HEAD}}", string(scriptSafe(head)), 1)
	if _, err := io.WriteString(w, top); err != nil {
		return err
	}
	if r.page != nil {
		if err := r.page.each(func(chunk []byte) error {
			if _, err := io.WriteString(w, `<script class="cases" type="application/json">`); err != nil {
				return err
			}
			if _, err := w.Write(chunk); err != nil {
				return err
			}
			_, err := io.WriteString(w, "</script>\n")
			return err
		}); err != nil {
			return err
		}
	}
	_, err = io.WriteString(w, pageParts[1])
	return err
}
