package runplan

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/rundir"
)

// Policy is the run's policy as the plan makes it: --policy (or the
// embedded sample's) with the agents' permission files, only the --rule
// rules, --batch-size over max_rules_per_call; the kill criteria (the
// policy's, or --criteria's) and where they came from, for run.json; and
// the check of labels naming no rule, made before --rule (a rule filtered
// out is not a typo).
type Policy struct {
	*replay.Policy
	Ref          *rundir.FileRef
	Criteria     replay.KillCriteria
	CriteriaFrom string
	Stray        *datasets.StrayLabels
}

// LoadPolicy reads the plan's policy and criteria files.
func (p *Plan) LoadPolicy() (Policy, error) {
	pol, name, sha, err := replay.ReadPolicy(p.Policy)
	if err != nil {
		return Policy{}, err
	}
	out := Policy{Ref: &rundir.FileRef{Name: name, SHA256: sha}}
	if err := replay.AddPermissionImports(pol, p.PermissionsFrom); err != nil {
		return Policy{}, err
	}
	out.Stray = datasets.NewStrayLabels(pol.RuleIDs())
	if pol, err = pol.Only(p.Filter.Rules); err != nil {
		return Policy{}, err
	}
	if p.Repeat.BatchSize > 0 {
		pol.MaxRulesPerCall = p.Repeat.BatchSize // --batch-size: the same rules alone or in other company
	}
	out.Policy, out.Criteria = pol, pol.KillCriteria
	out.CriteriaFrom = cmp.Or(p.Options.Policy, replay.SamplePolicyName)
	if p.Criteria != "" {
		out.CriteriaFrom = p.Criteria + " (--criteria)"
		if out.Criteria, err = replay.ReadCriteria(p.Criteria); err != nil {
			return Policy{}, err
		}
	}
	return out, nil
}

// Outcome judges a finished replay.Run of the feed in: interrupted when
// the run was cancelled; an error when its input was bad (a malformed line
// without --skip-invalid: nothing is reported from a run that would
// silently miss cases), when it held no valid case (nothing to evaluate is
// an input error, not a GO on no evidence), or when the replay failed
// (a session out of seq order among them).
func Outcome(ctx context.Context, in *replay.Feed, runErr error) (interrupted bool, err error) {
	if err := in.Err(); err != nil {
		return false, err
	}
	interrupted = errors.Is(runErr, context.Canceled) || ctx.Err() != nil
	if in.Valid == 0 && !interrupted {
		if in.Invalid.Count > 0 {
			return false, fmt.Errorf("the dataset has no valid case (%d invalid line(s) skipped)", in.Invalid.Count)
		}
		return false, errors.New("the dataset has no cases")
	}
	if runErr != nil && !interrupted {
		return false, runErr
	}
	return interrupted, nil
}

// Counted is what the replay stage counted, for run.json (State.Finish).
type Counted struct {
	Datasets    []rundir.FileRef
	Feed        *replay.Feed
	Interrupted bool
	Time        time.Duration
}
