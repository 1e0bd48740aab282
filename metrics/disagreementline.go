package metrics

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/apeval/apeval/datasets"
)

// disagreementJSON is the apeval_disagreement member Annotate adds to a
// case line (apeval datasets disagreements; docs/datasets.md).
type disagreementJSON struct {
	Rules []disagreementRuleJSON `json:"rules"`
}

type disagreementRuleJSON struct {
	RuleID    string       `json:"rule_id"`
	Kind      string       `json:"kind"`
	Baseline  decisionJSON `json:"baseline"`
	Candidate decisionJSON `json:"candidate"`
	Label     *string      `json:"label"`
}

// decisionJSON is PairDecision with its JSON names (same fields, so a
// conversion).
type decisionJSON struct {
	Judge      string   `json:"judge"`
	Result     string   `json:"result"`
	Confidence *float64 `json:"confidence"`
	Status     string   `json:"status"`
	Source     string   `json:"source"`
}

// Annotate adds apeval_disagreement (datasets.DisagreementField) to the
// case's original dataset line, leaving every other byte as it was. The
// label shown for each rule is the line's current one.
func (c CaseDisagreements) Annotate(line []byte) ([]byte, error) {
	var cur struct {
		Labels map[string]json.RawMessage `json:"labels"`
	}
	if err := json.Unmarshal(line, &cur); err != nil {
		return nil, fmt.Errorf("labels: %v", err)
	}
	field := disagreementJSON{}
	for _, d := range c.Rules {
		r := disagreementRuleJSON{RuleID: d.RuleID, Kind: d.Kind, Baseline: decisionJSON(d.Baseline), Candidate: decisionJSON(d.Candidate)}
		var s string
		if raw, ok := cur.Labels[d.RuleID]; ok && json.Unmarshal(raw, &s) == nil && s != "" {
			r.Label = &s
		}
		field.Rules = append(field.Rules, r)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(field); err != nil {
		return nil, err
	}
	return datasets.SetMember(line, datasets.DisagreementField, bytes.TrimSpace(buf.Bytes()))
}
