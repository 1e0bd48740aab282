package runplan

import (
	"fmt"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
)

// ResolveBaseline finds the judge --baseline (or apeval.toml's baseline)
// means among the opened judges' identities: its identity, its spec form
// (backend:model) or a unique prefix (reports.MatchJudge); "" without a
// baseline. The error says when the baseline came from apeval.toml.
func (p *Plan) ResolveBaseline(ids []string) (string, error) {
	if p.Baseline == "" {
		return "", nil
	}
	id, err := reports.MatchJudge("--baseline", p.Baseline, ids)
	if err != nil {
		if p.BaselineFromConfig {
			return "", fmt.Errorf("%v (the baseline comes from %s; pass --baseline to choose another)", err, p.Config)
		}
		return "", err
	}
	return id, nil
}

// CheckResumed makes sure the judges opened (their identities) are the
// judges of the run --resume finishes; nil without --resume.
func (p *Plan) CheckResumed(ids []string) error {
	if p.Resuming == nil {
		return nil
	}
	if err := p.Resuming.CheckIdentities(ids); err != nil {
		return fmt.Errorf("--resume %s: %v", p.Resuming.Dir, err)
	}
	return nil
}

// Feed is the run's case feed over rd (replay.Feed): invalid lines
// skipped and counted with --skip-invalid, else fatal; only this shard's
// sessions and the selection's; no more cases once the budget stopped the
// run; labels naming no rule checked; --weak-labels' swap.
func (s *State) Feed(rd *datasets.Reader, sel *datasets.Selection, stray *datasets.StrayLabels) *replay.Feed {
	p := s.Plan
	in := &replay.Feed{Reader: rd, Invalid: datasets.InvalidLines{Skip: p.SkipInvalid}, Shard: p.ShardOf, Selection: sel, Stop: &s.Stopped, Stray: stray}
	if p.WeakLabels {
		in.Weak = &datasets.WeakSwap{}
	}
	return in
}
