package reports

import "strings"

// Figures on weak labels (run --weak-labels: users' overrides, not
// reviews) are never shown without the word: every grid of a weak run
// marks each cell naming a figure that rests on labels, the machine
// forms carry label_source, and the prose says so (docs/vendor-judges.md).

// WeakBanner opens every human-readable report of a run on weak labels.
const WeakBanner = "Figures on weak labels (run --weak-labels): precision, recall, their criteria and the verdict on them rest on users' overrides, a signal, not ground truth; label a slice (apeval label queue --weak-labels) and correct them with it (apeval label correct)."

// Weak reports whether the run's labels are weak labels.
func (rep *Report) Weak() bool { return rep.Run.LabelSource == "weak" }

// labelWords name the figures that rest on labels.
var labelWords = []string{"precision", "recall", "labeled", "tp/fp", "false positive", "false negative", "false-positive", "false-negative", "fp/fn", "friction"}

// onLabels reports whether s names a figure that rests on labels.
func onLabels(s string) bool {
	l := strings.ToLower(s)
	for _, w := range labelWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// weakMark marks s as weak when it names a figure on labels.
func weakMark(s string) string {
	if !onLabels(s) || strings.Contains(strings.ToLower(s), "weak") {
		return s
	}
	return s + " (weak)"
}

// markWeak returns g with every cell naming a label figure marked (a copy;
// g itself is unchanged), or g when it is not weak.
func (g *grid) markWeak() *grid {
	if !g.weak {
		return g
	}
	m := *g
	m.header = make([]string, len(g.header))
	for i, h := range g.header {
		m.header[i] = weakMark(h)
	}
	m.rows = make([][]string, len(g.rows))
	for i, r := range g.rows {
		m.rows[i] = make([]string, len(r))
		for j, c := range r {
			m.rows[i][j] = weakMark(c)
		}
	}
	m.notes = []string{WeakBanner}
	for _, n := range g.notes {
		m.notes = append(m.notes, weakMark(n))
	}
	return &m
}

// weakTSV is g's machine form on weak labels: a label_source column,
// "weak" on every row.
func (g *grid) weakTSV() *grid {
	if !g.weak {
		return g
	}
	m := *g
	m.header = append(append([]string(nil), g.header...), "label_source")
	m.rows = make([][]string, len(g.rows))
	for i, r := range g.rows {
		m.rows[i] = append(append([]string(nil), r...), "weak")
	}
	return &m
}

// markWeak marks every text of the page that names a figure on labels,
// and opens the decision with the banner.
func (p *htmlPage) markWeak() {
	p.Weak = true
	p.Alerts = append([]htmlAlert{{Lines: []string{WeakBanner}}}, p.Alerts...)
	p.VerdictRule = weakMark(p.VerdictRule)
	hb := func(hs []holdBack) {
		for i := range hs {
			if onLabels(hs[i].Name + " " + hs[i].Text) {
				hs[i].Text = weakMark(hs[i].Text + " (precision/recall on weak labels)")
			}
		}
	}
	for i := range p.Judges {
		j := &p.Judges[i]
		j.Summary = weakMark(j.Summary)
		hb(j.Fail)
		hb(j.FailMore)
		hb(j.Open)
		hb(j.OpenMore)
	}
	for i := range p.NA {
		p.NA[i] = weakMark(p.NA[i])
	}
	for i := range p.Facts {
		p.Facts[i] = weakMark(p.Facts[i])
	}
	for i := range p.Rules {
		for k := range p.Rules[i].Judges {
			rj := &p.Rules[i].Judges[k]
			rj.HoldsBack = weakMark(rj.HoldsBack)
			for c := range rj.Criteria {
				cr := &rj.Criteria[c]
				if onLabels(cr.Name + " " + cr.Text) {
					cr.Name = weakMark(cr.Name + " (precision/recall)")
					cr.Text = weakMark(cr.Text)
				}
			}
		}
	}
	tables := func(ts []htmlTable) {
		for i := range ts {
			ts[i].markWeak()
		}
	}
	for i := range p.Comparisons {
		c := &p.Comparisons[i]
		if c.Total != nil {
			c.Total.markWeak()
		}
		tables(c.RuleTables)
		tables(c.Slices)
		tables(c.Fallback)
	}
	for i := range p.SliceKinds {
		p.SliceKinds[i].Table.markWeak()
	}
	tables(p.Tables)
	for i := range p.Charts {
		p.Charts[i].Title = weakMark(p.Charts[i].Title)
	}
	for i := range p.Warnings {
		p.Warnings[i] = weakMark(p.Warnings[i])
	}
}

// markWeakSections marks the comment's lines: table cells one by one, the
// other lines as a whole; the banner opens the first section.
func markWeakSections(secs []commentSection) {
	for i := range secs {
		s := &secs[i]
		s.head, s.tail = weakText(s.head), weakText(s.tail)
		for k := range s.lines {
			s.lines[k] = weakText(s.lines[k])
		}
	}
	if len(secs) > 0 {
		secs[0].head += "\n> [!WARNING]\n> " + WeakBanner + "\n"
	}
}

// weakText marks each line of a Markdown text: a table row cell by cell
// (a mark after the last pipe would not render), another line as a whole.
func weakText(t string) string {
	if !onLabels(t) {
		return t
	}
	lines := strings.Split(t, "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "|") {
			cells := strings.Split(l, "|")
			for k := range cells {
				if c := strings.TrimSpace(cells[k]); c != "" {
					cells[k] = strings.Replace(cells[k], c, weakMark(c), 1)
				}
			}
			lines[i] = strings.Join(cells, "|")
			continue
		}
		lines[i] = weakMark(l)
	}
	return strings.Join(lines, "\n")
}

// markWeak marks the table's cells and notes naming a figure on labels.
func (t *htmlTable) markWeak() {
	t.Caption = weakMark(t.Caption)
	for i := range t.Header {
		t.Header[i].Text = weakMark(t.Header[i].Text)
	}
	for _, r := range t.Rows {
		for i := range r {
			r[i].Text = weakMark(r[i].Text)
		}
	}
	for i := range t.Notes {
		t.Notes[i] = weakMark(t.Notes[i])
	}
}
