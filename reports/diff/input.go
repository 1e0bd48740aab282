package diff

import (
	"encoding/json"
	"fmt"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
)

// inputBuilder rebuilds what each side's judge saw for a case: the rules
// the decision rows say went to the judge, with their conditions from that
// run's policy file and their earlier fires in the session, through
// replay.BuildInput (the one builder the replay uses, which masks). Auto
// mode's recorded decisions were made on the input a PreToolUse hook
// changed, where one did: its side shows that input
// (reports.JudgedArguments).
type inputBuilder struct {
	cases  func(string) (*datasets.Case, error)
	judges [2]string
	rules  [2]map[string]*replay.Rule
	// note says why no input can be built ("" when they can).
	note string
}

func newInputBuilder(in *Input, cases func(string) (*datasets.Case, error)) *inputBuilder {
	b := &inputBuilder{cases: cases, judges: [2]string{in.Base, in.Head}}
	for side, info := range []int{0, len(in.Infos) - 1} {
		p, note := loadPolicy(in.Infos[info].Policy)
		if p == nil {
			b.note = "judge inputs not shown: " + note
			return b
		}
		b.rules[side] = map[string]*replay.Rule{}
		for _, r := range p.Rules {
			b.rules[side][r.ID] = r
		}
	}
	return b
}

// build returns the base's and the head's judge input for c as JSON, nil
// for a side whose judge was not asked.
func (b *inputBuilder) build(c *Case) (base, head []byte, err error) {
	if b.note != "" || (len(c.asked[0]) == 0 && len(c.asked[1]) == 0) {
		return nil, nil, nil
	}
	dc, err := b.cases(c.CaseID)
	if err != nil {
		return nil, nil, &InputError{err}
	}
	if dc == nil {
		return nil, nil, inputErrorf("case %s is not in the dataset given for the judge inputs", c.CaseID)
	}
	var out [2][]byte
	for side := range out {
		if len(c.asked[side]) == 0 {
			continue
		}
		var rules []*replay.Rule
		fires := map[string]int{}
		for _, a := range c.asked[side] {
			r := b.rules[side][a.id]
			if r == nil {
				return nil, nil, inputErrorf("rule %s of case %s is not in the %s run's policy file", a.id, c.CaseID, sideName(side))
			}
			rules = append(rules, r)
			fires[a.id] = a.fires
		}
		seen := dc
		if args, changed := reports.JudgedArguments(b.judges[side], dc); changed {
			cp := *dc
			cp.Tool.Arguments = args
			seen = &cp
		}
		in := replay.BuildInput(seen, rules, fires)
		// The category the replay used (after the policy's overrides).
		if c.Category != "" {
			in.Current.Tool.Category = c.Category
		}
		if out[side], err = json.Marshal(in); err != nil {
			return nil, nil, fmt.Errorf("judge input of %s: %w", c.CaseID, err)
		}
	}
	return out[0], out[1], nil
}
