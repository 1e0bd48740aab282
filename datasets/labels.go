package datasets

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// DisagreementField is the member `apeval datasets disagreements` adds to
// each case line it emits. MergeLabels never copies it into a dataset;
// ReadLabels reads the per-rule "label" a reviewer filled in there.
const DisagreementField = "apeval_disagreement"

// maxListed caps how many problems one error message lists.
const maxListed = 20

// Labels are ground-truth labels by case ID and rule ID, read from a labels
// file with ReadLabels and merged into a dataset with MergeLabels.
type Labels struct {
	cases map[string]*caseLabels
	order []string // ids in first-seen order, for stable messages
	// empty counts labels-file lines that carried no label at all.
	empty int
}

type caseLabels struct {
	source string // file:line of the first line for this id
	rules  map[string]ruleLabel
	seen   bool // the dataset has this id
}

type ruleLabel struct {
	value  string
	source string
}

// Cases returns how many case IDs carry at least one label.
func (l *Labels) Cases() int { return len(l.order) }

// Count returns the number of (case, rule) labels.
func (l *Labels) Count() int {
	n := 0
	for _, c := range l.cases {
		n += len(c.rules)
	}
	return n
}

// Empty returns how many labels-file lines carried no label (for example a
// disagreements line nobody labeled yet); they are skipped.
func (l *Labels) Empty() int { return l.empty }

// ReadLabels reads labels files: JSONL objects with an "id" and a "labels"
// object mapping rule IDs to "match" or "no_match" (null means "not
// labeled" and is skipped). Lines written by `apeval datasets disagreements`
// may instead (or also) carry a label in apeval_disagreement.rules[].label;
// both places are read, and must agree. Every other member of a line is
// ignored, so the full case lines of a dataset are a valid labels file.
//
// The same id may appear on several lines; their labels are combined, and
// two different labels for one (case, rule) are an error naming both lines.
// All problems are reported together, each as "file:line: field: message".
//
// A labels file of `apeval label serve` (apeval.labels/v1: one
// {"case_id", "rule_id", "label"} line per pair, told by its first line's
// schema) is read too: a skipped pair carries no label; a weak label
// (label_source "weak", from apeval label weak) is an error, since it is a
// signal, not a review; two people who labeled one pair differently are an
// error naming both lines (apeval label agreement shows them all).
func ReadLabels(paths []string, stdin io.Reader) (*Labels, error) {
	l := &Labels{cases: map[string]*caseLabels{}}
	var errs []error
	var rawPaths []string
	for _, p := range paths {
		if p == "-" || !sampleLabelsFile(p) {
			rawPaths = append(rawPaths, p)
			continue
		}
		lines, err := ReadSampleLabels([]string{p}, false)
		if err != nil {
			return nil, err
		}
		for _, sl := range lines {
			switch {
			case sl.LabelSource == LabelSourceWeak:
				errs = append(errs, fmt.Errorf("%s: label_source: %q: a weak label is a signal, not a review, and is not merged into a dataset (apeval label agreement compares it with people)", sl.Source, sl.LabelSource))
			case sl.Label == SampleSkip:
				l.empty++
			default:
				errs = append(errs, l.add(sl.CaseID, sl.Source, map[string]string{sl.RuleID: string(sl.Label)})...)
			}
		}
	}
	err := ScanRaw(rawPaths, stdin, func(id string, line []byte, source string) error {
		found, lerrs := lineLabels(line)
		for _, e := range lerrs {
			errs = append(errs, fmt.Errorf("%s: %w", source, e))
		}
		if len(lerrs) > 0 {
			return nil
		}
		if len(found) == 0 {
			l.empty++
			return nil
		}
		errs = append(errs, l.add(id, source, found)...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		return nil, joinCapped(errs)
	}
	return l, nil
}

// add records the labels one line (source) gives case id; a label that
// differs from one an earlier line gave is an error naming both.
func (l *Labels) add(id, source string, found map[string]string) []error {
	var errs []error
	c := l.cases[id]
	if c == nil {
		c = &caseLabels{source: source, rules: map[string]ruleLabel{}}
		l.cases[id] = c
		l.order = append(l.order, id)
	}
	for _, rule := range sortedKeys(found) {
		v := found[rule]
		if prev, ok := c.rules[rule]; ok && prev.value != v {
			errs = append(errs, fmt.Errorf("%s: labels.%s: %q, but %s says %q for case %s", source, rule, v, prev.source, prev.value, id))
			continue
		}
		if _, ok := c.rules[rule]; !ok {
			c.rules[rule] = ruleLabel{value: v, source: source}
		}
	}
	return errs
}

// sampleLabelsFile reports whether a file's first line is an
// apeval.labels/v1 line (a labels file of apeval label serve).
func sampleLabelsFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	br, release, err := Decompress(bufio.NewReaderSize(f, 64<<10), path)
	if err != nil {
		return false
	}
	defer release()
	line, _ := br.ReadBytes('\n')
	var head struct {
		Schema string `json:"schema"`
	}
	return json.Unmarshal(bytes.TrimSpace(bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))), &head) == nil && head.Schema == SampleLabelsSchema
}

// lineLabels collects the labels of one labels-file line from "labels" and
// from apeval_disagreement.rules[].label. Errors carry the field, not the
// position.
func lineLabels(line []byte) (map[string]string, []error) {
	var obj struct {
		Labels       map[string]json.RawMessage `json:"labels"`
		Disagreement *struct {
			Rules []struct {
				RuleID string          `json:"rule_id"`
				Label  json.RawMessage `json:"label"`
			} `json:"rules"`
		} `json:"apeval_disagreement"`
	}
	if err := json.Unmarshal(line, &obj); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Field != "" {
			return nil, []error{fmt.Errorf("%s: wrong type (got %s)", ute.Field, ute.Value)}
		}
		return nil, []error{err}
	}
	found := map[string]string{}
	var errs []error
	add := func(field, rule string, raw json.RawMessage) {
		v, err := labelValue(raw)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: %w", field, err))
		case strings.TrimSpace(rule) == "":
			errs = append(errs, fmt.Errorf("%s: empty rule ID", field))
		case v == "":
			// null: not labeled
		case found[rule] != "" && found[rule] != v:
			errs = append(errs, fmt.Errorf("%s: %q contradicts labels.%s = %q on the same line", field, v, rule, found[rule]))
		default:
			found[rule] = v
		}
	}
	for _, rule := range sortedKeys(obj.Labels) {
		add("labels."+rule, rule, obj.Labels[rule])
	}
	if obj.Disagreement != nil {
		for i, r := range obj.Disagreement.Rules {
			add(fmt.Sprintf("%s.rules[%d].label", DisagreementField, i), r.RuleID, r.Label)
		}
	}
	return found, errs
}

// labelValue reads one label: "match", "no_match", or null ("").
func labelValue(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("want \"match\", \"no_match\" or null, got %s", rawKind(raw))
	}
	if !Label(s).Valid() {
		return "", fmt.Errorf("want \"match\", \"no_match\" or null, got %q", s)
	}
	return s, nil
}

// MergeOptions change how MergeLabels treats conflicts and unknown ids.
type MergeOptions struct {
	// Overwrite replaces a dataset label that differs from the labels file
	// instead of failing.
	Overwrite bool
	// IgnoreUnknown skips labels for ids the dataset lacks instead of failing.
	IgnoreUnknown bool
}

// MergeStats says what MergeLabels did.
type MergeStats struct {
	Lines   int64 // dataset lines written
	Updated int64 // lines whose labels member was rewritten
	Added   int   // labels new to the dataset
	Changed int   // labels replaced (Overwrite)
	Kept    int   // labels the dataset already had, equal
	// Conflicts counts dataset labels that differ from the labels file and
	// were not overwritten (each is also in the error).
	Conflicts int
	// Unknown lists the labeled ids not found in the dataset, sorted.
	Unknown []string
}

// Refused explains a merge that failed with err (MergeLabels): nothing
// was written, and which option would let it through — Overwrite for
// conflicting labels, IgnoreUnknown for unknown ids (named as
// apeval datasets label-import's flags).
func (st MergeStats) Refused(err error, o MergeOptions) error {
	var hints []string
	if st.Conflicts > 0 {
		hints = append(hints, "--overwrite replaces conflicting labels")
	}
	if len(st.Unknown) > 0 && !o.IgnoreUnknown {
		hints = append(hints, "--ignore-unknown skips unknown ids")
	}
	if len(hints) == 0 {
		return err
	}
	return fmt.Errorf("%w\nnothing written (%s)", err, strings.Join(hints, "; "))
}

// MergeLabels copies the dataset files to w, one line per non-blank input
// line, setting the labels of every case the labels file names. Only the
// "labels" member of such a line is rewritten (appended at the end of the
// object when absent); labels for other rules stay, in their order, and
// every other byte of the line is kept, so unknown fields, nested objects,
// key order and unicode survive. A line that gains nothing is copied
// unchanged. Lines end in "\n" (a "\r\n" ending and a byte-order mark
// are dropped, as ScanRaw does); blank lines are not copied.
//
// Errors (all collected, then returned together): a dataset label that
// differs from the labels file (unless opt.Overwrite), naming both
// file:lines; a labeled id found twice in the dataset; labeled ids the
// dataset lacks (unless opt.IgnoreUnknown). On error w holds partial
// output: write to a temporary file and discard it (the command does).
func MergeLabels(w io.Writer, paths []string, stdin io.Reader, labels *Labels, opt MergeOptions) (MergeStats, error) {
	var st MergeStats
	var errs []error
	where := map[string]string{} // labeled id → dataset file:line
	err := ScanRaw(paths, stdin, func(id string, line []byte, source string) error {
		st.Lines++
		c := labels.cases[id]
		if c == nil {
			return writeLine(w, line)
		}
		if prev, dup := where[id]; dup {
			errs = append(errs, fmt.Errorf("%s: id: %q already at %s", source, id, prev))
			return writeLine(w, line)
		}
		where[id] = source
		c.seen = true
		out, changed, cerrs := applyLabels(line, c, source, opt.Overwrite, &st)
		errs = append(errs, cerrs...)
		if changed {
			st.Updated++
		}
		return writeLine(w, out)
	})
	if err != nil {
		return st, err
	}
	for _, id := range labels.order {
		if !labels.cases[id].seen {
			st.Unknown = append(st.Unknown, id)
		}
	}
	slices.Sort(st.Unknown)
	if len(st.Unknown) > 0 && !opt.IgnoreUnknown {
		var list []string
		for i, id := range st.Unknown {
			if i == maxListed {
				list = append(list, fmt.Sprintf("and %d more", len(st.Unknown)-maxListed))
				break
			}
			list = append(list, fmt.Sprintf("%s (%s)", id, labels.cases[id].source))
		}
		errs = append(errs, fmt.Errorf("labels for %d id(s) not in the dataset: %s", len(st.Unknown), strings.Join(list, ", ")))
	}
	if len(errs) > 0 {
		return st, joinCapped(errs)
	}
	return st, nil
}

// applyLabels sets c's labels into one dataset line.
func applyLabels(line []byte, c *caseLabels, source string, overwrite bool, st *MergeStats) ([]byte, bool, []error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		return line, false, []error{fmt.Errorf("%s: %w", source, err)}
	}
	existing := map[string]string{}
	cur, has := obj["labels"]
	if has && string(bytes.TrimSpace(cur)) == "null" {
		has = false
	}
	if has {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(cur, &raw); err != nil {
			return line, false, []error{fmt.Errorf("%s: labels: want an object of rule ID → label, got %s", source, rawKind(cur))}
		}
		for rule, v := range raw {
			// A value that is not a string is kept as its JSON text, so
			// it shows up as a conflict instead of being overwritten.
			var s string
			if json.Unmarshal(v, &s) != nil {
				s = string(bytes.TrimSpace(v))
			}
			existing[rule] = s
		}
	}
	var errs []error
	var set []string
	for _, rule := range sortedKeys(c.rules) {
		want := c.rules[rule]
		old, ok := existing[rule]
		switch {
		case !ok:
			st.Added++
			set = append(set, rule)
		case old == want.value:
			st.Kept++
		case overwrite:
			st.Changed++
			set = append(set, rule)
		default:
			st.Conflicts++
			errs = append(errs, fmt.Errorf("%s: labels.%s: the dataset says %q, %s says %q", source, rule, old, want.source, want.value))
		}
	}
	if len(errs) > 0 || len(set) == 0 {
		return line, false, errs
	}
	obj2 := []byte("{}")
	if has {
		obj2 = bytes.TrimSpace(cur)
	}
	for _, rule := range set {
		var err error
		if obj2, err = SetMember(obj2, rule, quoteJSON(c.rules[rule].value)); err != nil {
			return line, false, []error{fmt.Errorf("%s: labels: %w", source, err)}
		}
	}
	out, err := SetMember(line, "labels", obj2)
	if err != nil {
		return line, false, []error{fmt.Errorf("%s: %w", source, err)}
	}
	return out, true, nil
}

func writeLine(w io.Writer, line []byte) error {
	if _, err := w.Write(line); err != nil {
		return err
	}
	_, err := w.Write([]byte{'\n'})
	return err
}

// SetMember returns the JSON object obj with member key set to value: the
// value of an existing member is replaced in place, a new member is
// appended after the last one. Every other byte of obj (other members,
// their order, whitespace, escapes) is kept as it is. obj and value must be
// valid JSON, obj an object; a key present twice is an error, since which
// one counts would depend on the reader.
func SetMember(obj []byte, key string, value json.RawMessage) ([]byte, error) {
	if !json.Valid(value) {
		return nil, fmt.Errorf("member %q: invalid JSON value", key)
	}
	members, closing, err := objectMembers(obj)
	if err != nil {
		return nil, err
	}
	at := -1
	for i, m := range members {
		if m.key == key {
			if at >= 0 {
				return nil, fmt.Errorf("member %q appears twice", key)
			}
			at = i
		}
	}
	var out []byte
	if at >= 0 {
		m := members[at]
		out = make([]byte, 0, len(obj)-(m.end-m.start)+len(value))
		out = append(out, obj[:m.start]...)
		out = append(out, value...)
		return append(out, obj[m.end:]...), nil
	}
	ins := closing
	sep := ""
	if n := len(members); n > 0 {
		ins = members[n-1].end
		sep = ","
	}
	k := quoteJSON(key)
	out = make([]byte, 0, len(obj)+len(sep)+len(k)+1+len(value))
	out = append(out, obj[:ins]...)
	out = append(out, sep...)
	out = append(out, k...)
	out = append(out, ':')
	out = append(out, value...)
	return append(out, obj[ins:]...), nil
}

// span is one top-level member of an object: its decoded key and the byte
// range of its value.
type span struct {
	key        string
	start, end int
}

// objectMembers lists the members of the JSON object obj and the offset of
// its closing brace.
func objectMembers(obj []byte) ([]span, int, error) {
	if !json.Valid(obj) {
		return nil, 0, errors.New("not valid JSON")
	}
	dec := json.NewDecoder(bytes.NewReader(obj))
	tok, err := dec.Token()
	if err != nil {
		return nil, 0, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, 0, errors.New("not a JSON object")
	}
	var members []span
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, 0, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, 0, err
		}
		end := int(dec.InputOffset())
		start := end - len(raw)
		for start < end && isSpace(obj[start]) {
			start++
		}
		members = append(members, span{key: key, start: start, end: end})
	}
	if _, err := dec.Token(); err != nil {
		return nil, 0, err
	}
	return members, int(dec.InputOffset()) - 1, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// quoteJSON encodes s as a JSON string without HTML escaping, so labels
// and keys stay as readable as the rest of the line.
func quoteJSON(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// joinCapped joins errors one per line, listing at most maxListed.
func joinCapped(errs []error) error {
	if len(errs) > maxListed {
		rest := len(errs) - maxListed
		errs = append(errs[:maxListed:maxListed], fmt.Errorf("and %d more", rest))
	}
	return errors.Join(errs...)
}
