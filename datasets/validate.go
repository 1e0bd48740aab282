package datasets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apeval/apeval/internal/trunc"
)

// Enumerations of the case format (see docs/cases.md), also
// the lists the policy is validated against (replay); the typed ones
// (Label, Action, ApprovalOutcome) are in vocab.go.
var (
	// HookPoints are the hook names of docs/cases.md.
	HookPoints = []string{"tool.before", "tool.after", "tool.denied", "completion.before_accept", "runtime.error"}
	// ApprovalStates are the values of context.approval_state.
	ApprovalStates = []string{"none", "pending", "approved", "denied"}
	// RecordedStatuses are the statuses of a recorded judge call.
	RecordedStatuses = []string{"ok", "unknown", "invalid", "timeout", "error"}
	// RecordedResults are the results of a recorded rule decision.
	RecordedResults = []string{"match", "no_match", "unknown"}
)

// DefaultHookPoint is the hook point of a record that names none.
const DefaultHookPoint = "tool.before"

// Decode parses and validates one JSONL line as a case and fills the
// defaults that do not depend on the line's position (hook_point,
// tool.category from cats, nil = built-in; session_id). Errors are
// *LineError for file:line.
func Decode(line []byte, file string, lineNo int, cats CategoryMap) (*Case, error) {
	return decodeCase(line, file, lineNo, cats)
}

func decodeCase(line []byte, file string, lineNo int, cats CategoryMap) (*Case, error) {
	return decodeWith(line, file, lineNo, cats, true)
}

// decodeWith decodes with the hand-written parser where it is exact (fast)
// or with encoding/json alone (the reference, for tests).
// sourceOf is file:line in one allocation (a case is decoded in a few).
func sourceOf(file string, line int) string {
	var b strings.Builder
	b.Grow(len(file) + 1 + 20)
	b.WriteString(file)
	b.WriteByte(':')
	var d [20]byte
	b.Write(strconv.AppendInt(d[:0], int64(line), 10))
	return b.String()
}

func decodeWith(line []byte, file string, lineNo int, cats CategoryMap, fast bool) (*Case, error) {
	c, err := decodeLine(line, file, lineNo, cats, fast)
	if err != nil {
		return nil, err
	}
	c.Source = sourceOf(file, lineNo)
	return c, nil
}

// decodeLine is decodeWith but for the case's Source, which the Reader
// gives a whole batch of cases in one allocation (see setSources).
func decodeLine(line []byte, file string, lineNo int, cats CategoryMap, fast bool) (*Case, error) {
	return decodeLineInto(nil, line, file, lineNo, cats, fast)
}

// decodeLineInto is decodeLine into c, a zero Case (nil: a new one).
func decodeLineInto(c *Case, line []byte, file string, lineNo int, cats CategoryMap, fast bool) (*Case, error) {
	fail := func(field, format string, args ...any) error {
		return &LineError{File: file, Line: lineNo, Field: field, Msg: fmt.Sprintf(format, args...), kind: formatKind(format)}
	}
	if first := firstNonSpace(line); first != '{' {
		hint := ""
		if first == '[' && lineNo == 1 {
			// A .json file holding one array of cases, not JSON Lines.
			hint = "; the file starts with '[': a JSON array, not JSON Lines (one case object per line): `apeval datasets import FILE --out cases.jsonl` reads it (or `jq -c '.[]' FILE`)"
		}
		if json.Valid(line) {
			return nil, fail("", "not a JSON object (got %s)%s", jsonKind(first), hint)
		}
		return nil, fail("", "invalid JSON: %s%s", syntaxMessage(line), hint)
	}
	if c == nil {
		c = new(Case)
	}
	// Lines are decoded without reflection by decodeFast, which gives up on
	// anything unusual (see caseParser); those, and any line it rejects, go
	// through encoding/json, whose results and error messages are the
	// reference (FuzzDecode and TestDecodePathsAgreeOnMutations check that
	// the two paths agree).
	ok := fast && decodeFast(line, c)
	if !ok {
		*c = Case{}
		sj := seqJSON{caseAlias: (*caseAlias)(c)}
		if err := json.Unmarshal(line, &sj); err != nil {
			return nil, decodeError(err, line, fail)
		}
		sj.apply()
	}
	if err := validate(c, fail); err != nil {
		return nil, err
	}
	normalize(c)
	if c.SessionID == "" {
		c.SessionID = c.ID
	}
	if c.HookPoint == "" {
		c.HookPoint = DefaultHookPoint
	}
	if c.Tool.Category == "" {
		c.Tool.Category = cats.Of(c.Tool.Name)
	}
	return c, nil
}

// normalize makes empty objects and lists nil, so a case reads the same
// whether a field was written as {} or [] or left out (WriteJSONL leaves
// them out).
func normalize(c *Case) {
	if len(c.Tool.Arguments) == 0 {
		c.Tool.Arguments = nil
	}
	if len(c.Labels) == 0 {
		c.Labels = nil
	}
	if len(c.Tags) == 0 {
		c.Tags = nil
	}
	if len(c.Recorded) == 0 {
		c.Recorded = nil
	}
	for i := range c.Recorded {
		if len(c.Recorded[i].Decisions) == 0 {
			c.Recorded[i].Decisions = nil
		}
	}
	if len(c.Context.RecentMessages) == 0 {
		c.Context.RecentMessages = nil
	}
	if len(c.Context.ApprovedFingerprints) == 0 {
		c.Context.ApprovedFingerprints = nil
	}
	if len(c.Provenance) == 0 {
		c.Provenance = nil
	}
}

func firstNonSpace(b []byte) byte {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c
		}
	}
	return 0
}

// jsonKind names the JSON type of a value from its first byte (0: none).
func jsonKind(first byte) string {
	switch first {
	case 0:
		return "nothing"
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// syntaxMessage describes why a line is not JSON, with the byte offset.
func syntaxMessage(line []byte) string {
	var v any
	err := json.Unmarshal(line, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (at byte %d)", se.Error(), se.Offset)
	}
	if err != nil {
		return err.Error()
	}
	return "malformed"
}

// decodeError turns an encoding/json error into a LineError naming the field.
func decodeError(err error, line []byte, fail func(field, format string, args ...any) error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := indexedField(line, strings.TrimPrefix(te.Field, "caseAlias."), te.Value)
		if msg := numberRange(te); msg != "" {
			return fail(field, "%s", msg)
		}
		err := fail(field, "expected %s, got %s", jsonType(te.Type), te.Value)
		err.(*LineError).kind = "" // the two types are the kind: "expected string, got number"
		return err
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fail("", "invalid JSON: %s (at byte %d)", se.Error(), se.Offset)
	}
	// time.Time reports its own errors without the field; it is the only
	// custom unmarshaler in Case.
	var probe struct {
		Time json.RawMessage `json:"time"`
	}
	if json.Unmarshal(line, &probe) == nil && len(probe.Time) > 0 {
		var t time.Time
		if terr := json.Unmarshal(probe.Time, &t); terr != nil {
			return fail("time", "want an RFC 3339 time string, got %s", trunc.Bytes(string(probe.Time), 60))
		}
	}
	return fail("", "%v", err)
}

// indexedField puts the list indices and map keys into an encoding/json
// type error's field, which names "context.recent_messages.content" for
// the content of context.recent_messages[3] and "tags" for a bad element of
// tags: it walks the line to the first value of the wrong JSON kind (value:
// the error's "number", "string", "number 1e400", …) at that field, giving
// "context.recent_messages[3].content", "tags[2]", "labels.r". A field it
// cannot place is returned as it is.
func indexedField(line []byte, field, value string) string {
	kind, _, _ := strings.Cut(value, " ")
	var v any
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return field
	}
	var parts []string
	if field != "" {
		parts = strings.Split(field, ".")
	}
	if p, ok := placeField(v, parts, kind); ok {
		return strings.TrimPrefix(p, ".")
	}
	return field
}

// placeField finds, depth first in the line's order (arrays) or by key
// (objects: the struct field named by parts[0], matched as encoding/json
// matches it, else the values of a map), the path to the first value of
// JSON kind at parts.
func placeField(v any, parts []string, kind string) (string, bool) {
	if len(parts) == 0 && genericKind(v) == kind {
		return "", true
	}
	switch n := v.(type) {
	case []any:
		for i, e := range n {
			if p, ok := placeField(e, parts, kind); ok {
				return "[" + strconv.Itoa(i) + "]" + p, true
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(n))
		for k := range n {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if len(parts) > 0 {
			for _, k := range keys {
				if strings.EqualFold(k, parts[0]) {
					if p, ok := placeField(n[k], parts[1:], kind); ok {
						return "." + k + p, true
					}
				}
			}
		}
		// A map (labels, a map of objects): its keys are not in the path.
		for _, k := range keys {
			if p, ok := placeField(n[k], parts, kind); ok {
				return "." + k + p, true
			}
		}
	}
	return "", false
}

// genericKind names a decoded JSON value's kind as encoding/json's type
// errors do.
func genericKind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "bool"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "null"
}

// numberRange says why a JSON number did not fit when it is out of range
// (encoding/json reports "expected number, got number 1e400"), else "".
func numberRange(te *json.UnmarshalTypeError) string {
	num, ok := strings.CutPrefix(te.Value, "number ")
	if !ok {
		return ""
	}
	if _, err := strconv.ParseFloat(num, 64); err != nil {
		return fmt.Sprintf("number %s is out of range (a JSON number apeval reads must fit a 64-bit float)", num)
	}
	switch te.Type.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if strings.ContainsAny(num, ".eE") {
			return ""
		}
		return fmt.Sprintf("integer %s is out of range (a %d-bit integer)", num, te.Type.Bits())
	}
	return ""
}

// jsonType names a Go type the way a dataset author thinks of it.
func jsonType(t reflect.Type) string {
	if t == nil {
		return "a different type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice, reflect.Array:
		return "array"
	}
	return t.String()
}

// labelsValid reports whether every label has a rule id and a known value:
// the usual case, checked without the sorted pass that picks which error
// to report.
func labelsValid(labels map[string]Label) bool {
	for k, v := range labels {
		if k == "" || !v.Valid() {
			return false
		}
	}
	return true
}

// validate checks required fields, enumerations and ranges.
func validate(c *Case, fail func(field, format string, args ...any) error) error {
	if c.ID == "" {
		return fail("id", "required")
	}
	if c.Tool.Name == "" {
		return fail("tool.name", "required")
	}
	if c.Seq < 0 {
		return fail("seq", "must be 0 or more, got %d", c.Seq)
	}
	if err := oneOf(c.HookPoint, HookPoints, "hook_point", fail); err != nil {
		return err
	}
	if c.Tool.Category != "" && !ValidCategory(c.Tool.Category) {
		return fail("tool.category", "unknown value %q (want one of %s)", c.Tool.Category, strings.Join(Categories, ", "))
	}
	if err := oneOf(c.Context.ApprovalState, ApprovalStates, "context.approval_state", fail); err != nil {
		return err
	}
	for i, m := range c.Context.RecentMessages {
		if m.Role == "" {
			return fail(fmt.Sprintf("context.recent_messages[%d].role", i), "required")
		}
	}
	if len(c.Labels) > 0 && !labelsValid(c.Labels) {
		// Sorted so the error for a line with several bad labels is stable.
		keys := make([]string, 0, len(c.Labels))
		for k := range c.Labels {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if k == "" {
				return fail("labels", "empty rule id")
			}
			if v := c.Labels[k]; !v.Valid() {
				return fail("labels."+k, "unknown value %q (want match or no_match)", v)
			}
		}
	}
	if err := oneOf(c.ExpectedAction, Actions, "expected_action", fail); err != nil {
		return err
	}
	if err := oneOf(c.ApprovalOutcome, ApprovalOutcomes, "approval_outcome", fail); err != nil {
		return err
	}
	for i, rc := range c.Recorded {
		p := fmt.Sprintf("recorded[%d]", i)
		if rc.Judge == "" {
			return fail(p+".judge", "required")
		}
		if rc.LatencyMS < 0 {
			return fail(p+".latency_ms", "must not be negative, got %g", rc.LatencyMS)
		}
		if err := oneOf(rc.Status, RecordedStatuses, p+".status", fail); err != nil {
			return err
		}
		for j, d := range rc.Decisions {
			q := fmt.Sprintf("%s.decisions[%d]", p, j)
			if d.RuleID == "" {
				return fail(q+".rule_id", "required")
			}
			for _, e := range rc.Decisions[:j] {
				if e.RuleID == d.RuleID {
					return fail(q+".rule_id", "duplicate rule id %q in one call", d.RuleID)
				}
			}
			if !slices.Contains(RecordedResults, d.Result) {
				return fail(q+".result", "unknown value %q (want match, no_match or unknown)", d.Result)
			}
			if d.Confidence != nil && (*d.Confidence < 0 || *d.Confidence > 1) {
				return fail(q+".confidence", "%g is outside [0, 1]", *d.Confidence)
			}
		}
	}
	return nil
}

// oneOf accepts an empty value (the field's default) or one of want.
func oneOf[S ~string](v S, want []S, field string, fail func(field, format string, args ...any) error) error {
	if v == "" || slices.Contains(want, v) {
		return nil
	}
	return fail(field, "unknown value %q (want one of %s)", v, joinValues(want))
}

// caseAlias is Case without its methods, for seqJSON.
type caseAlias Case

// seqJSON decodes a case through the reflection decoders while noting
// whether "seq" was given: its Seq shadows the embedded case's (a shallower
// field wins in encoding/json), so a null or absent seq stays nil and any
// integer, 0 included, is a value.
type seqJSON struct {
	*caseAlias
	Seq *int64 `json:"seq"`
}

func (s *seqJSON) apply() {
	if s.Seq != nil {
		s.caseAlias.Seq, s.caseAlias.seqSet = *s.Seq, true
	}
}

// Validation is what apeval datasets validate found: valid and invalid
// lines, and each invalid line's message (masked, MaskedLineText) and
// kind (ErrorKind).
type Validation struct {
	Valid, Invalid int64
	Errors         []string
	kinds          []string
}

// KindsAfter counts the invalid lines after the first n by kind (ErrorKind),
// most frequent first: what validate says of the lines it does not list.
func (v Validation) KindsAfter(n int) []KindCount {
	var t KindTally
	for _, k := range v.kinds[min(n, len(v.kinds)):] {
		t.add(k)
	}
	return t.Counts()
}

// Validate reads every record of r and counts the lines run would accept:
// a record that does not decode, a session's record out of seq order or
// a duplicate ID (found late, after its case was counted valid) is
// invalid, and its message is handed to invalid too as it is found.
// stray, when not nil, checks each valid case's labels against the
// policy's rules. err is the reader's own failure.
func Validate(r *Reader, stray *StrayLabels, invalid func(msg string)) (Validation, error) {
	var v Validation
	var order SeqOrder // the check run applies, so validate accepts what run accepts
	for r.Scan() {
		rec := r.Record()
		if rec.Err == nil {
			rec.Err = order.Check(rec.Case)
		}
		if rec.Late {
			v.Valid-- // a duplicate found at the end: its case was counted valid
		}
		if rec.Err != nil {
			v.Invalid++
			msg := MaskedLineText(rec.Err) // a quoted secret is masked, the message kept
			v.Errors = append(v.Errors, msg)
			v.kinds = append(v.kinds, ErrorKind(rec.Err))
			invalid(msg)
			continue
		}
		v.Valid++
		if stray != nil {
			stray.Check(rec.Case)
		}
	}
	return v, r.Err()
}

// ToolsOf reads every case of r into per-tool rows (apeval datasets stats
// --by-tool): each tool name with its cases, category and where the
// category came from. A duplicate ID found late is an error: its case
// was counted.
func ToolsOf(r *Reader, cats CategoryMap) ([]ToolRow, error) {
	bt := NewByTool(cats)
	for r.Scan() {
		rec := r.Record()
		if rec.Late {
			return nil, LateDuplicate(rec.Err, "counted")
		}
		if rec.Case != nil {
			bt.Add(rec.Case)
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return bt.Rows(), nil
}

// WriteJSON writes the validation as apeval datasets validate --json
// prints it: {"errors", "invalid", "valid"} (errors [] when there are
// none), with "unknown_label_rules" when stray, the policy's label
// check, was made.
func (v Validation) WriteJSON(w io.Writer, stray *StrayLabels) error {
	errs := v.Errors
	if errs == nil {
		errs = []string{}
	}
	out := map[string]any{"valid": v.Valid, "invalid": v.Invalid, "errors": errs}
	if stray != nil {
		out["unknown_label_rules"] = append([]string{}, stray.IDs()...)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
