package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// ParseOutput validates a model's answer against the §6.2 output schema for
// the rule IDs that were asked. It returns the decisions in the order the
// rules were asked and StatusOK, or nil, StatusInvalid and the reason.
//
// The whole call is invalid when the body is not one JSON object, its version
// is not SchemaVersion (a missing version counts as 0), a decision names a
// rule that was not asked, names a rule twice, a rule asked has no decision,
// a result is not match/no_match/unknown, or a confidence lies outside [0, 1].
// Unknown fields are ignored, so a model adding a "reason" is still valid; a
// missing confidence is allowed (nil).
//
// Small models often wrap their JSON in a Markdown code fence or surround it
// with blank lines; one ```json … ``` (or bare ``` … ```) fence and any
// surrounding whitespace are stripped before parsing. Any other prose around
// the object makes the answer invalid.
func ParseOutput(body []byte, asked []string) ([]Decision, Status, error) {
	body = stripFence(body)
	if len(body) == 0 {
		return nil, StatusInvalid, fmt.Errorf("empty answer")
	}
	if body[0] != '{' {
		return nil, StatusInvalid, fmt.Errorf("answer is not a JSON object: %s", snippet(body))
	}
	var out struct {
		Version   *int `json:"version"`
		Decisions []struct {
			RuleID     *string  `json:"rule_id"`
			Result     *string  `json:"result"`
			Confidence *float64 `json:"confidence"`
		} `json:"decisions"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, StatusInvalid, fmt.Errorf("answer is not valid JSON: %v", err)
	}
	if out.Version == nil {
		return nil, StatusInvalid, fmt.Errorf("answer has no version (want %d)", SchemaVersion)
	}
	if *out.Version != SchemaVersion {
		return nil, StatusInvalid, fmt.Errorf("unsupported answer version %d (want %d)", *out.Version, SchemaVersion)
	}
	want := make(map[string]int, len(asked))
	order := make([]string, 0, len(asked))
	for _, id := range asked {
		if _, dup := want[id]; !dup {
			want[id] = len(order)
			order = append(order, id)
		}
	}
	got := make([]*Decision, len(order))
	for i, d := range out.Decisions {
		if d.RuleID == nil {
			return nil, StatusInvalid, fmt.Errorf("decision %d has no rule_id", i)
		}
		id := *d.RuleID
		at, ok := want[id]
		if !ok {
			return nil, StatusInvalid, fmt.Errorf("decision for rule %q that was not asked", id)
		}
		if got[at] != nil {
			return nil, StatusInvalid, fmt.Errorf("duplicate decision for rule %q", id)
		}
		if d.Result == nil {
			return nil, StatusInvalid, fmt.Errorf("decision for rule %q has no result", id)
		}
		r := Result(*d.Result)
		if r != Match && r != NoMatch && r != Unknown {
			return nil, StatusInvalid, fmt.Errorf("decision for rule %q has result %q (want match, no_match or unknown)", id, *d.Result)
		}
		if c := d.Confidence; c != nil && (math.IsNaN(*c) || *c < 0 || *c > 1) {
			return nil, StatusInvalid, fmt.Errorf("decision for rule %q has confidence %v outside [0, 1]", id, *c)
		}
		got[at] = &Decision{RuleID: id, Result: r, Confidence: d.Confidence}
	}
	decisions := make([]Decision, len(order))
	for i, d := range got {
		if d == nil {
			return nil, StatusInvalid, fmt.Errorf("no decision for rule %q", order[i])
		}
		decisions[i] = *d
	}
	return decisions, StatusOK, nil
}

// stripFence removes surrounding whitespace and one Markdown code fence
// (```json or ```), which small models add despite being asked not to.
func stripFence(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if !bytes.HasPrefix(b, []byte("```")) {
		return b
	}
	rest := b[3:]
	nl := bytes.IndexByte(rest, '\n')
	if nl < 0 {
		return b
	}
	lang := bytes.TrimSpace(rest[:nl])
	if len(lang) > 0 && !bytes.EqualFold(lang, []byte("json")) {
		return b
	}
	rest = bytes.TrimSpace(rest[nl+1:])
	if !bytes.HasSuffix(rest, []byte("```")) {
		return b
	}
	return bytes.TrimSpace(rest[:len(rest)-3])
}

// snippet shortens a body for an error message.
func snippet(b []byte) string {
	const max = 80
	if len(b) > max {
		return fmt.Sprintf("%q…", b[:max])
	}
	return fmt.Sprintf("%q", b)
}
