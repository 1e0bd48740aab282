package diff

import (
	"encoding/json"
	"errors"
	"io"
	"os"

	"github.com/apeval/apeval/reports/rundir"
	"github.com/parquet-go/parquet-go"
)

// File names of a diff's outputs.
const (
	ParquetFile = "diff.parquet"
	HTMLFile    = "diff.html"
)

// Row is one diff.parquet row: a case both runs hold (docs/diff.md lists
// the columns).
type Row struct {
	CaseID         string   `parquet:"case_id"`
	SessionID      string   `parquet:"session_id"`
	Seq            int64    `parquet:"seq"`
	ToolName       string   `parquet:"tool_name,optional,dict"`
	Category       string   `parquet:"category,optional,dict"`
	Class          string   `parquet:"class,dict"`
	LabelClass     string   `parquet:"label_class,dict"`
	Stability      string   `parquet:"stability,optional,dict"`
	Step           int32    `parquet:"step"`
	BaseJudge      string   `parquet:"base_judge,dict"`
	HeadJudge      string   `parquet:"head_judge,dict"`
	BaseAction     string   `parquet:"base_action,dict"`
	HeadAction     string   `parquet:"head_action,dict"`
	BasePermission string   `parquet:"base_permission,optional,dict"`
	HeadPermission string   `parquet:"head_permission,optional,dict"`
	BaseFired      []string `parquet:"base_fired,list"`
	HeadFired      []string `parquet:"head_fired,list"`
	FixedRules     int32    `parquet:"fixed_rules"`
	BrokenRules    int32    `parquet:"broken_rules"`
	AnswersChanged int32    `parquet:"answers_changed"`
	FirstInSession bool     `parquet:"first_in_session"`
	Differs        bool     `parquet:"differs"`
	// Rules is the case's rules on both sides as JSON ([]RuleDiff), for the
	// cases that differ; null for the others.
	Rules *string `parquet:"rules,optional"`
	// LabelSource is "weak" on every row when a run compared is on weak
	// labels (run --weak-labels): label_class, fixed_rules and
	// broken_rules rest on users' overrides; null otherwise.
	LabelSource string `parquet:"label_source,optional,dict"`
	// HookRewritten: auto mode's side judged an input a PreToolUse hook
	// changed, the other side the model's input (Case.HookRewritten);
	// false where neither judge is auto mode or the cases could not be
	// found.
	HookRewritten bool `parquet:"hook_rewritten"`
}

func toRow(c *Case) Row {
	r := Row{CaseID: c.CaseID, SessionID: c.SessionID, Seq: c.Seq, ToolName: c.Tool, Category: c.Category,
		Class: c.Class, LabelClass: c.Label, Stability: c.Stability, Step: int32(c.Step),
		BaseJudge: c.Base.Judge, HeadJudge: c.Head.Judge, BaseAction: string(c.Base.Gate), HeadAction: string(c.Head.Gate),
		BasePermission: c.Base.Permission, HeadPermission: c.Head.Permission,
		BaseFired: nonNil(c.Base.Fired), HeadFired: nonNil(c.Head.Fired),
		FixedRules: int32(c.FixedRules), BrokenRules: int32(c.BrokenRules), AnswersChanged: int32(c.AnswersChanged),
		FirstInSession: c.First, Differs: c.Differs(), HookRewritten: c.HookRewritten}
	if r.Differs {
		if b, err := json.Marshal(c.Rules); err == nil {
			s := string(b)
			r.Rules = &s
		}
	}
	return r
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// parquetOut streams diff.parquet into a temporary file beside its final
// path; commit renames it there, discard removes it.
type parquetOut struct {
	path        string
	f           *os.File
	w           *parquet.GenericWriter[Row]
	buf         []Row
	labelSource string // every row's label_source
}

func newParquetOut(path string) (*parquetOut, error) {
	f, err := rundir.CreateTemp(path)
	if err != nil {
		return nil, err
	}
	p := &parquetOut{path: path, f: f, buf: make([]Row, 0, 1024)}
	p.w = newRowWriter(f)
	return p, nil
}

func newRowWriter(w io.Writer) *parquet.GenericWriter[Row] {
	return parquet.NewGenericWriter[Row](w, parquet.Compression(&parquet.Zstd), parquet.CreatedBy("apeval", "", ""))
}

func (p *parquetOut) add(c *Case) error {
	r := toRow(c)
	r.LabelSource = p.labelSource
	p.buf = append(p.buf, r)
	if len(p.buf) == cap(p.buf) {
		return p.flush()
	}
	return nil
}

func (p *parquetOut) flush() error {
	if len(p.buf) == 0 {
		return nil
	}
	_, err := p.w.Write(p.buf)
	clear(p.buf)
	p.buf = p.buf[:0]
	return err
}

// finish closes the Parquet writer; firsts, when not nil, rewrites the
// first_in_session flags from each session's first diverging seq (needed
// only when the join met a session's calls out of order).
func (p *parquetOut) finish(firsts map[string]int64) error {
	if err := p.flush(); err != nil {
		return err
	}
	if err := p.w.Close(); err != nil {
		return err
	}
	if firsts == nil {
		return nil
	}
	// Read the rows back and write them again with the flags corrected.
	if _, err := p.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	st, err := p.f.Stat()
	if err != nil {
		return err
	}
	pf, err := parquet.OpenFile(p.f, st.Size())
	if err != nil {
		return err
	}
	g, err := rundir.CreateTemp(p.path)
	if err != nil {
		return err
	}
	r := parquet.NewGenericReader[Row](pf)
	w := newRowWriter(g)
	rows := make([]Row, 1024)
	for {
		n, err := r.Read(rows)
		for i := range rows[:n] {
			row := &rows[i]
			f, ok := firsts[row.SessionID]
			row.FirstInSession = ok && row.Class != ClassUnchanged && row.Seq == f
		}
		if n > 0 {
			if _, werr := w.Write(rows[:n]); werr != nil {
				rundir.DiscardTemp(g)
				return werr
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			rundir.DiscardTemp(g)
			return err
		}
	}
	if err := errors.Join(r.Close(), w.Close()); err != nil {
		rundir.DiscardTemp(g)
		return err
	}
	rundir.DiscardTemp(p.f)
	p.f = g
	return nil
}

func (p *parquetOut) discard() { rundir.DiscardTemp(p.f) }
