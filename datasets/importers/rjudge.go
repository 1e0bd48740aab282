package importers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/trunc"
)

func init() {
	register(format{"r-judge", 9, func(o Options) importer { return &rJudge{ruleID: cmpOr(o.RuleID, DefaultRuleID)} },
		func(r sniffed) bool { return r.has("scenario", "contents") }, 11})
	register(format{"assebench", 10, func(o Options) importer { return &rJudge{ruleID: cmpOr(o.RuleID, DefaultRuleID), assebench: true} },
		func(r sniffed) bool {
			return r.has("contents", "risk_type") || r.has("contents", "application_scenario") || r.has("contents", "failure_mode")
		}, 10})
}

// R-Judge (Yuan et al., 2024, github.com/Lordog/R-Judge): JSON files
// <Category>/{benign,harmful}.json, each an array of records
//
//	{"id": 1, "scenario": "...", "profile": "...", "goal": "...",
//	 "contents": [[{"role": "user", "content": "..."},
//	               {"role": "agent", "thought": "...", "action": "..."},
//	               {"role": "environment", "content": "..."}], ...],
//	 "label": 1, "risk_description": "...", "attack_type": "..."}
//
// label 1 = the interaction is unsafe, 0 = safe. Labeling rule (see
// docs/import.md): in a safe record every action is labeled no_match; in
// an unsafe one the last action is labeled match and the earlier ones are
// left unlabeled, since the record does not say which of them is unsafe.

type rjRecord struct {
	ID              json.RawMessage   `json:"id"`
	Scenario        string            `json:"scenario"`
	Profile         string            `json:"profile"`
	Goal            string            `json:"goal"`
	Contents        []json.RawMessage `json:"contents"`
	Label           *int              `json:"label"`
	RiskDescription string            `json:"risk_description"`
	AttackType      string            `json:"attack_type"`
	// ASSEBench's fields.
	Ambiguous           *int   `json:"ambiguous"`
	RiskType            string `json:"risk_type"`
	FailureMode         string `json:"failure_mode"`
	ApplicationScenario string `json:"application_scenario"`
}

type rjTurn struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	Thought string `json:"thought"`
	Action  string `json:"action"`
}

// rJudge reads R-Judge's records, and ASSEBench's (assebench: the same
// schema with risk_type, failure_mode, application_scenario, ambiguous).
type rJudge struct {
	ruleID    string
	assebench bool
}

func (rj *rJudge) format() string {
	if rj.assebench {
		return "assebench"
	}
	return "r-judge"
}

func (rJudge) stream() bool { return false }

func (rJudge) match(p string) bool { return strings.HasSuffix(stripCompression(p), ".json") }

// LabelScopeTrajectory tags a case whose label is its trajectory's, not
// the call's own (ASSEBench): tags reach the reports' case lists and the
// per-tag slices, so the scope of the labels is shown beside the figures.
const LabelScopeTrajectory = "label_scope=trajectory"

// maxJSONFile caps an R-Judge file read into memory (the whole benchmark
// is a few megabytes).
const maxJSONFile = 512 << 20

func (rj *rJudge) file(r io.Reader, sum *SourceSummary, out *output) error {
	data, err := io.ReadAll(io.LimitReader(r, maxJSONFile+1))
	if err != nil {
		return err
	}
	if len(data) > maxJSONFile {
		return fmt.Errorf("larger than %d bytes", maxJSONFile)
	}
	base := filepath.Base(stripCompression(sum.Source))
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	category := filepath.Base(filepath.Dir(sum.Source))
	lineAt := func(off int64) int { return bytes.Count(data[:min(int(off), len(data))], []byte{'\n'}) + 1 }
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('[') {
		sum.errorf(1, "not a JSON array of records")
		return nil
	}
	for index := 0; dec.More(); index++ {
		start := dec.InputOffset()
		for int(start) < len(data) && bytes.IndexByte([]byte(", \t\r\n"), data[start]) >= 0 {
			start++ // the record starts after the separator
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			sum.Records++
			sum.errorf(lineAt(start), "record %d: %s", index, jsonError(data[start:], err))
			return nil // the array cannot be followed past a broken record
		}
		sum.Records++
		line := lineAt(start)
		var rec rjRecord
		if err := json.Unmarshal(raw, &rec); err != nil {
			sum.errorf(line, "record %d: %s", index, jsonError(raw, err))
			continue
		}
		if err := rj.record(&rec, index, line, category, stem, sum, out); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		sum.errorf(lineAt(dec.InputOffset()), "truncated: the array does not end (%v)", err)
	}
	return nil
}

func (rj *rJudge) record(rec *rjRecord, index, line int, category, stem string, sum *SourceSummary, out *output) error {
	format := rj.format()
	label := -1
	switch {
	case rec.Label != nil:
		label = *rec.Label
	case stem == "harmful":
		label = 1
	case stem == "benign":
		label = 0
	}
	if label != 0 && label != 1 {
		sum.errorf(line, "record %d: label: want 0 or 1", index)
		return nil
	}
	id := strings.Trim(string(rec.ID), `"`)
	if id == "" {
		id = strconv.Itoa(index)
	}
	session := "rjudge-" + category + "-" + stem + "-" + id
	if rj.assebench {
		session = "assebench-" + stem + "-" + id // AgentJudge-security-90, rjudge-12, agentharm-1-1
	}
	var turns []rjTurn
	for i, c := range rec.Contents {
		c = bytes.TrimSpace(c)
		if len(c) > 0 && c[0] == '[' {
			var round []rjTurn
			if err := json.Unmarshal(c, &round); err != nil {
				sum.errorf(line, "record %d: contents[%d]: %v", index, i, err)
				return nil
			}
			turns = append(turns, round...)
		} else {
			var t rjTurn
			if err := json.Unmarshal(c, &t); err != nil {
				sum.errorf(line, "record %d: contents[%d]: %v", index, i, err)
				return nil
			}
			turns = append(turns, t)
		}
	}
	cv := &convo{}
	var cases []*datasets.Case
	for ti, t := range turns {
		switch t.Role {
		case "user":
			cv.user(out.text(t.Content))
		case "environment":
			cv.turn("tool", out.text(t.Content))
		case "agent":
			calls, final, rest := parseAction(t.Action)
			mk := func(k int) *datasets.Case {
				c := &datasets.Case{ID: fmt.Sprintf("%s-%d", session, len(cases)+1), SessionID: session, Context: cv.context()}
				c.Provenance = provenance(format, sum.Source, line)
				c.Provenance["record"] = index
				c.Provenance["record_id"] = id
				c.Provenance["turn"] = ti
				c.Provenance["raw_action"] = trunc.Runes(t.Action, 2000)
				if rec.RiskDescription != "" {
					c.Provenance["risk_description"] = rec.RiskDescription
				}
				if rec.AttackType != "" {
					c.Provenance["attack_type"] = rec.AttackType
				}
				c.Tags = []string{"r-judge", category}
				if rec.Scenario != "" {
					c.Tags = append(c.Tags, rec.Scenario)
				}
				if rj.assebench {
					c.Tags = []string{"assebench", stem}
					for k, v := range map[string]string{"risk_type": rec.RiskType, "failure_mode": rec.FailureMode, "application_scenario": rec.ApplicationScenario} {
						if v != "" {
							c.Provenance[k] = v
						}
					}
					if rec.RiskType != "" {
						c.Tags = append(c.Tags, rec.RiskType)
					}
					if rec.Ambiguous != nil {
						c.Provenance["ambiguous"] = *rec.Ambiguous == 1
						if *rec.Ambiguous == 1 {
							c.Tags = append(c.Tags, "ambiguous")
						}
					}
				}
				return c
			}
			switch {
			case final:
				c := mk(0)
				c.HookPoint = "completion.before_accept"
				c.Tool.Name = "final_answer"
				c.Tool.Arguments = map[string]any{"text": cmpOr(rest, strings.TrimSpace(t.Action))}
				c.Provenance["action_form"] = "final answer"
				cases = append(cases, c)
			case len(calls) == 0:
				sum.skip("agent turn without action")
			default:
				for k, call := range calls {
					c := mk(k)
					c.Tool.Name = call.Name
					c.Tool.Arguments = call.Args
					c.Provenance["action_form"] = call.Form
					if rest != "" && k == len(calls)-1 {
						c.Provenance["unparsed_rest"] = trunc.Runes(rest, 500)
						sum.note("action text left unparsed after its calls")
					}
					cases = append(cases, c)
				}
			}
			if t.Thought != "" {
				cv.turn("assistant", out.text(t.Thought))
			}
		default:
			sum.skip("turn role " + cmpOr(t.Role, "(none)"))
		}
	}
	if len(cases) == 0 {
		sum.skip("record without agent action")
		return nil
	}
	for i, c := range cases {
		switch {
		case rj.assebench:
			// ASSEBench labels the trajectory, not the action: every
			// action carries the trajectory's label, marked as such
			// (label_scope), so a report tells these from per-call labels.
			c.Labels = map[string]datasets.Label{rj.ruleID: datasets.LabelNoMatch}
			if label == 1 {
				c.Labels[rj.ruleID] = datasets.LabelMatch
			}
			c.Provenance["label_scope"] = "trajectory"
			c.Tags = append(c.Tags, LabelScopeTrajectory)
		case label == 0:
			c.Labels = map[string]datasets.Label{rj.ruleID: datasets.LabelNoMatch}
		case i == len(cases)-1:
			c.Labels = map[string]datasets.Label{rj.ruleID: datasets.LabelMatch}
		}
		if label == 1 {
			c.Tags = append(c.Tags, "harmful")
		} else {
			c.Tags = append(c.Tags, "benign")
		}
		if err := out.add(c); err != nil {
			return err
		}
	}
	return nil
}
