// Package planargs is what `apeval plan` plans, resolved from its flags
// (as internal/runplan is for `apeval run`): the flags as parsed
// (Options, a plain struct the command binds its flags to) are checked
// across each other and turned into a Spec: the guesses of a plan without
// a pilot (metrics.PlanGuesses from --rate KEY=VALUE, --icc,
// --session-size and the latency flags), the label guesses of a plan of
// the label path (--labels with --rate precision=P --rate recall=R), and
// the kill criteria a plan from guesses is sized against. Every error
// names the flag and the value; the command maps them to exit 2.
//
// Not a stable Go API: the package serves cmd/apeval and may change with
// it.
package planargs

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
)

// Options are `apeval plan`'s flags as parsed.
type Options struct {
	Rates       []string // --rate KEY=VALUE
	ICC         float64
	SessionSize float64
	Sessions    int64
	Criteria    string
	Policy      string
	JSON        bool
	Format      string
	Reps        int
	Seed        uint64
	// Pilot is a run directory to plan from (the argument or --pilot);
	// Baseline the judge its drift is planned against (the run's own
	// --baseline by default).
	Pilot, Baseline string
	// Labels, when set, plans the label path at that many labels.
	Labels int
	// LatencyP95, LatencyP50 guess the judge's call latency in ms.
	LatencyP95, LatencyP50 float64
}

// Spec is a checked plan: the options and what they resolve to.
type Spec struct {
	Options
	// Guesses are the guesses of a plan without a pilot.
	Guesses metrics.PlanGuesses
	// LabelGuess is what the labels will show on the label path (nil:
	// the pilot's own labels).
	LabelGuess *metrics.LabelGuess
}

// Resolve checks the options (changed reports whether a flag was given
// on the command line) and resolves the guesses.
func Resolve(o Options, changed func(flag string) bool) (*Spec, error) {
	s := &Spec{Options: o}
	if o.Format != "" {
		if _, err := reports.ParseFormat(o.Format); err != nil {
			return nil, fmt.Errorf("--format: %v", err)
		}
	}
	if changed("labels") {
		switch {
		case o.Pilot == "":
			return nil, fmt.Errorf("--labels %d: the label path is planned from a pilot run directory (its pairs make the queue)", o.Labels)
		case o.Labels < 1:
			return nil, fmt.Errorf("--labels %d: a label budget needs at least 1 label", o.Labels)
		}
		// --rate precision=P --rate recall=R guess what the labels show
		// where the pilot has none.
		return s, s.labelGuesses(changed)
	}
	if o.Pilot != "" {
		for _, f := range []string{"rate", "icc", "session-size"} {
			if changed(f) {
				return nil, fmt.Errorf("--%s: a plan from a pilot run fits it from %s; leave it out (with --labels, --rate precision=P --rate recall=R guess the labels)", f, o.Pilot)
			}
		}
	}
	if o.Baseline != "" && o.Pilot == "" {
		return nil, fmt.Errorf("--baseline %q: a baseline judge needs a pilot run directory", o.Baseline)
	}
	latency := changed("latency-p95") || changed("latency-p50")
	if o.Pilot != "" && latency {
		return nil, fmt.Errorf("--latency-p95/--latency-p50: a plan from a pilot run resamples its calls' latencies; leave them out")
	}
	if len(o.Rates) == 0 && !latency && o.Pilot == "" {
		return nil, fmt.Errorf("plan needs a pilot run directory or at least one guess: --rate CRITERION=RATE (e.g. --rate precision=0.95), --rate recall=R --rate baseline-recall=B, --rate drift=D --rate disagree=S, or --latency-p95 MS")
	}
	if o.Criteria != "" && o.Policy != "" {
		return nil, fmt.Errorf("--criteria and --policy exclude each other")
	}
	if changed("sessions") && o.Sessions < 1 {
		return nil, fmt.Errorf("--sessions %d: a budget needs at least 1 session", o.Sessions)
	}
	if o.Sessions > metrics.PlanMaxSessions {
		return nil, fmt.Errorf("--sessions %d: a plan simulates at most %d sessions (every simulated data set is held in memory)", o.Sessions, metrics.PlanMaxSessions)
	}
	if err := checkReps(o.Reps); err != nil {
		return nil, err
	}
	if o.Pilot != "" {
		return s, nil
	}
	return s, s.guesses(changed, latency)
}

// guesses resolves the guesses of a plan without a pilot.
func (s *Spec) guesses(changed func(string) bool, latency bool) error {
	g := metrics.PlanGuess{Rate: 0.5, ICC: s.ICC, SessionSize: s.SessionSize}
	if err := g.Check(); err != nil {
		flag := "--icc"
		if s.ICC >= 0 && s.ICC < 1 {
			flag = "--session-size"
		}
		return fmt.Errorf("%s: %v", flag, err)
	}
	s.Guesses = metrics.PlanGuesses{ICC: s.ICC, SessionSize: s.SessionSize}
	for _, r := range s.Rates {
		k, rate, err := parseRate(r, "want CRITERION=RATE")
		if err != nil {
			return err
		}
		if err := s.Guesses.Set(k, rate); err != nil {
			return fmt.Errorf("--rate %s: %v", r, err)
		}
	}
	if latency {
		if !changed("latency-p95") {
			return fmt.Errorf("--latency-p50 %g: give the P95 too (--latency-p95 MS); the criterion is on the P95", s.LatencyP50)
		}
		if changed("latency-p50") && s.LatencyP50 == 0 {
			return fmt.Errorf("--latency-p50 0: a latency is a positive number of ms")
		}
		s.Guesses.SetLatency(s.LatencyP50, s.LatencyP95)
	}
	if err := s.Guesses.Check(); err != nil {
		flag := "--rate"
		if strings.Contains(err.Error(), "latency") {
			flag = "--latency-p95/--latency-p50"
		}
		return fmt.Errorf("%s: %v", flag, err)
	}
	return nil
}

// labelGuesses checks the flags of a label plan: only --rate
// precision=P and --rate recall=R, both or neither.
func (s *Spec) labelGuesses(changed func(string) bool) error {
	for _, f := range []string{"icc", "session-size", "sessions"} {
		if changed(f) {
			return fmt.Errorf("--%s: a label plan counts labels (--labels N), not sessions; leave it out", f)
		}
	}
	if err := checkReps(s.Reps); err != nil {
		return err
	}
	var lg metrics.LabelGuesses
	for _, r := range s.Rates {
		k, rate, err := parseRate(r, "with --labels, give --rate precision=P and --rate recall=R (what the labels will show)")
		if err != nil {
			return err
		}
		if err := lg.Set(k, rate); err != nil {
			return fmt.Errorf("--rate %s: %v", r, err)
		}
	}
	g, err := lg.Guess()
	if err != nil {
		return fmt.Errorf("--rate: with --labels %v", err)
	}
	s.LabelGuess = g
	return nil
}

// checkReps bounds --reps: at least 10 simulated data sets, at most
// metrics.PlanMaxReps (the time grows with them; the Monte Carlo error
// does not need more).
func checkReps(n int) error {
	switch {
	case n < 10:
		return fmt.Errorf("--reps %d: at least 10 simulated data sets are needed", n)
	case n > metrics.PlanMaxReps:
		return fmt.Errorf("--reps %d: at most %d simulated data sets (a decision rate's Monte Carlo error is already ±%.3f there, 2 standard errors at 0.8; the time grows with them)", n, metrics.PlanMaxReps, 2*math.Sqrt(0.8*0.2/metrics.PlanMaxReps))
	}
	return nil
}

// parseRate splits --rate KEY=VALUE; want says what a value without "="
// should have been.
func parseRate(r, want string) (string, float64, error) {
	k, v, ok := strings.Cut(r, "=")
	if !ok {
		return "", 0, fmt.Errorf("--rate %q: %s", r, want)
	}
	rate, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		return "", 0, fmt.Errorf("--rate %q: %q is not a number", r, v)
	}
	return k, rate, nil
}

// KillCriteria are the criteria a plan from guesses is sized against:
// --criteria FILE's, --policy FILE's [kill_criteria], or the defaults.
func (s *Spec) KillCriteria() (replay.KillCriteria, error) {
	switch {
	case s.Criteria != "":
		return replay.ReadCriteria(s.Criteria)
	case s.Policy != "":
		p, _, _, err := replay.ReadPolicy(s.Policy)
		if err != nil {
			return replay.KillCriteria{}, err
		}
		return p.KillCriteria, nil
	}
	return replay.DefaultKillCriteria(), nil
}

// OutputFormat is --format (--json is json); a plan prints a table
// unless asked otherwise, also when piped.
func (s *Spec) OutputFormat() reports.Format {
	if s.JSON {
		return reports.FormatJSON
	}
	if s.Format == "" {
		return reports.FormatTable
	}
	f, _ := reports.ParseFormat(s.Format) // checked by Resolve
	return f
}

// PlanOptions are the simulation's options: the budget of sessions, the
// simulated data sets per size and the seed.
func (s *Spec) PlanOptions() metrics.PlanOptions {
	return metrics.PlanOptions{Budget: s.Sessions, Reps: s.Reps, Seed: s.Seed}
}

// LabelOptions are the options of a plan of the label path (nil when
// --labels was not given); the pilot's baseline judge fills Baseline.
func (s *Spec) LabelOptions() *metrics.LabelPlanOptions {
	if s.Labels <= 0 {
		return nil
	}
	return &metrics.LabelPlanOptions{Budget: s.Labels, Reps: s.Reps, Seed: s.Seed, Guess: s.LabelGuess}
}
