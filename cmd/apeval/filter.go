package main

import (
	"cmp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/config"
	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/rundir"
)

// filterFlags are the iteration filters of run and replay: --rule, --tag,
// --limit, --sample/--seed and --slice. Limit and sample choose whole
// sessions, so trajectory state (boundary crossings, max_fires) is the one
// a full run would have; --tag replays the sessions holding a tagged case
// and reports only the tagged cases.
type filterFlags struct {
	Rules  []string
	Tags   []string
	Limit  int
	Sample int
	Seed   uint64
	Slice  string
}

func (f *filterFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.Rules, "rule", nil, "evaluate only this rule `ID` (repeatable); the other rules are left out of the policy")
	fs.StringArrayVar(&f.Tags, "tag", nil, "report only cases with this tag `T` (repeatable: any of them); their sessions are replayed whole")
	fs.IntVar(&f.Limit, "limit", 0, "replay only the first `N` sessions (whole sessions, in dataset order)")
	fs.IntVar(&f.Sample, "sample", 0, "replay `N` sessions drawn at random (whole sessions; see --seed)")
	fs.Uint64Var(&f.Seed, "seed", 1, "random seed of --sample")
	fs.StringVar(&f.Slice, "slice", "", "apply the filters of [slices.`NAME`] in apeval.toml")
}

// applyConfig merges the file's [filter] table (or the --slice chosen) under
// the flags.
func (f *filterFlags) applyConfig(cmd *cobra.Command, c *config.Project) error {
	fc := c.Filter
	if f.Slice != "" {
		s, ok := c.Slices[f.Slice]
		if !ok {
			names := config.SortedKeys(c.Slices)
			if c.Path == "" {
				return usagef("--slice %s: no %s (slices are defined in [slices.NAME] tables)", f.Slice, config.Name)
			}
			return usagef("--slice %s: %s has no [slices.%s]; it has: %s", f.Slice, c.Path, f.Slice, strings.Join(names, ", "))
		}
		fc = s
	}
	set := func(name string) bool { return !cmd.Flags().Changed(name) }
	if set("rule") && len(fc.Rules) > 0 {
		f.Rules = fc.Rules
	}
	if set("tag") && len(fc.Tags) > 0 {
		f.Tags = fc.Tags
	}
	if set("limit") && fc.Limit > 0 {
		f.Limit = fc.Limit
	}
	if set("sample") && fc.Sample > 0 {
		f.Sample = fc.Sample
	}
	if set("seed") && fc.Seed != nil {
		f.Seed = *fc.Seed
	}
	return nil
}

func (f *filterFlags) validate() error {
	if f.Limit < 0 {
		return usagef("--limit must not be negative, got %d", f.Limit)
	}
	if f.Sample < 0 {
		return usagef("--sample must not be negative, got %d", f.Sample)
	}
	if f.Limit > 0 && f.Sample > 0 {
		return usagef("--limit and --sample exclude each other")
	}
	return nil
}

func (f *filterFlags) active() bool {
	return len(f.Rules) > 0 || len(f.Tags) > 0 || f.Limit > 0 || f.Sample > 0
}

// info is the filter as run.json and every report header show it; nil when
// the run is not filtered.
func (f *filterFlags) info() *rundir.Filter {
	if !f.active() {
		return nil
	}
	fi := &rundir.Filter{Rules: f.Rules, Tags: f.Tags, Limit: f.Limit, Sample: f.Sample, Slice: f.Slice}
	if f.Sample > 0 {
		seed := f.Seed
		fi.Seed = &seed
	}
	return fi
}

// restrictPolicy returns p with only the --rule rules (replay.Policy.Only).
func (f *filterFlags) restrictPolicy(p *replay.Policy) (*replay.Policy, error) {
	q, err := p.Only(f.Rules)
	if err != nil {
		return nil, usageError{err}
	}
	return q, nil
}

// sessions is the --tag/--limit/--sample filter (datasets.SessionFilter
// decides which sessions it keeps).
func (f *filterFlags) sessions() datasets.SessionFilter {
	return datasets.SessionFilter{Tags: f.Tags, Limit: f.Limit, Sample: f.Sample, Seed: f.Seed}
}

// selectSessions reads the dataset once (session IDs and tags only) and
// picks the sessions of this shard to replay (datasets.SessionFilter.Select);
// nil without --tag, --limit and --sample.
func (f *filterFlags) selectSessions(src *source, p *replay.Policy, sh replay.Shard) (*datasets.Selection, error) {
	sf := f.sessions()
	if !sf.Active() {
		return nil, nil
	}
	if err := src.spoolStdin(); err != nil {
		return nil, usageError{err}
	}
	r := src.reader(p)
	defer r.Close()
	sel, err := sf.Select(r, sh.Owns)
	if err != nil {
		return nil, usageError{err}
	}
	return sel, nil
}

// settings are the resolved settings run.json records.
func (o *runOptions) settings(entries []config.JudgeEntry, baseline string) *rundir.Settings {
	var specs []string
	for _, e := range entries {
		specs = append(specs, e.Display())
	}
	s := &rundir.Settings{
		Config:       o.config,
		Datasets:     maskURLs(o.Datasets),
		Policy:       o.Policy,
		Criteria:     o.Criteria,
		Judges:       specs,
		Baseline:     baseline,
		Out:          cmp.Or(o.remoteOut, o.Out),
		Concurrency:  o.Concurrency,
		Timeout:      rundir.Duration(o.Timeout),
		Inconclusive: o.Inconclusive,
		Repeat:       o.Repeat.Repeat,
		ShuffleRules: o.Repeat.ShuffleRules,
		BatchSize:    o.Repeat.BatchSize,
		MaxCalls:     o.Budget.MaxCalls,
		BudgetUSD:    o.Budget.BudgetUSD,
	}
	if s.Repeat == 1 {
		s.Repeat = 0 // the default: not written
	}
	if s.ShuffleRules {
		seed := o.Filter.Seed
		s.ShuffleSeed = &seed
	}
	if len(s.Datasets) == 0 {
		s.Datasets = []string{datasets.SampleName}
	}
	if s.Policy == "" {
		s.Policy = "sample:policy.toml"
	}
	opts := map[string][]string{}
	own := false
	var all []rundir.JudgeEntry
	for _, e := range entries {
		kv := o.Judge.defaults().OptionList(e)
		for i := range kv {
			kv[i] = mask.String(kv[i]) // run.json is a report: no key reaches it
		}
		if len(kv) > 0 {
			opts[e.Display()] = kv
		}
		// Each judge's effective server, key variable and prompt (its own,
		// else the flags'), so --resume can open the same judges.
		eff := o.Judge.defaults().Effective(e)
		own = own || eff.HasOwnSettings()
		all = append(all, rundir.JudgeEntry{Spec: mask.String(e.Spec), BaseURL: config.MaskURL(eff.BaseURL),
			APIKeyEnv: eff.KeyEnv, Prompt: eff.Prompt, Options: kv})
	}
	if own {
		s.JudgeEntries = all // one per judge, in the order of judges
	}
	if o.Judge.Retries > 0 {
		s.Retries = o.Judge.Retries
	}
	if len(opts) > 0 {
		s.JudgeOptions = opts
	}
	return s
}
