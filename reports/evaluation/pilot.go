package evaluation

import (
	"fmt"
	"io"

	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
)

// PilotOptions set a plan from a pilot run (apeval plan RUN_DIR).
type PilotOptions struct {
	// CriteriaFile, PolicyFile and Baseline are the command's --criteria,
	// --policy and --baseline (RunSet.Criteria, RunSet.Baseline).
	CriteriaFile, PolicyFile, Baseline string
	// Plan sets the plan in sessions (metrics.PlanPilot).
	Plan metrics.PlanOptions
	// Labels, when set, plans the label path instead
	// (metrics.PlanLabels); its Baseline is the run's.
	Labels *metrics.LabelPlanOptions
	// PilotLabels are labels files whose labels count as the pilot's on
	// the label path, as the dataset's own do (plan --pilot-labels).
	PilotLabels []string
}

// PilotPlan is a plan from a pilot: the criteria it was sized against
// and the plans, per judge, rule and criterion.
type PilotPlan struct {
	Criteria replay.KillCriteria
	Plans    []metrics.PlanResult
}

// Pilot plans from the pilot run rs (one run directory): its figures
// come through the one pipeline under its criteria and baseline (or the
// options' replacements, said on errOut); then metrics.PlanPilot sizes
// the sessions that give an 80% chance of deciding each criterion or,
// on the label path, metrics.PlanLabels the labels from the queue over
// its pairs. A pilot with nothing to plan is an error naming it.
func (rs *RunSet) Pilot(o PilotOptions, errOut io.Writer) (*PilotPlan, error) {
	crit, from, err := rs.Criteria(o.CriteriaFile, o.PolicyFile, errOut)
	if err != nil {
		return nil, err
	}
	base, err := rs.Baseline(o.Baseline)
	if err != nil {
		return nil, err
	}
	ev, err := rs.Evaluate(Spec{Criteria: crit, CriteriaFrom: from, Baseline: base}, false, nil)
	if err != nil {
		return nil, err
	}
	rep, err := ev.Finish(rs.Infos[0])
	if err != nil {
		return nil, err
	}
	defer func() { _ = rep.Summary.Release() }()
	pilot := rs.Dirs[0]
	if o.Labels != nil {
		t, _, err := ReadPairs(pilot, nil, nil)
		if err != nil {
			return nil, err
		}
		if len(o.PilotLabels) > 0 {
			labels, err := FileLabels(o.PilotLabels)
			if err != nil {
				return nil, err
			}
			set, missing := t.SetFileLabels(labels)
			if len(labels) > 0 && missing == len(labels) {
				return nil, fmt.Errorf("--pilot-labels: none of the %d labels names a (case, rule) pair of %s in scope: they are another run's", len(labels), pilot)
			}
			fmt.Fprintf(errOut, "plan: %d labels of --pilot-labels count as the pilot's (%d are of pairs out of scope)\n", set, missing)
		}
		lo := *o.Labels
		lo.Baseline, lo.Pilot, lo.PilotLabels = base, pilot, o.PilotLabels
		plans, err := metrics.PlanLabels(t, crit, lo)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", pilot, err)
		}
		return &PilotPlan{crit, plans}, nil
	}
	plans, err := metrics.PlanPilot(rep.Summary, o.Plan)
	if err != nil {
		return nil, err
	}
	if len(plans) == 0 {
		return nil, fmt.Errorf("%s: no criterion to plan (no judge call, labeled pair or case in scope)", pilot)
	}
	return &PilotPlan{crit, plans}, nil
}
