package main

import (
	"github.com/spf13/pflag"

	"github.com/apeval/apeval/internal/runplan"
)

// registerFilter defines --rule, --tag, --limit, --sample, --seed and --slice
// (runplan.Filter).
func registerFilter(fs *pflag.FlagSet, f *runplan.Filter) {
	fs.StringArrayVar(&f.Rules, "rule", nil, "evaluate only this rule `ID` (repeatable); the other rules are left out of the policy")
	fs.StringArrayVar(&f.Tags, "tag", nil, "report only cases with this tag `T` (repeatable: any of them); their sessions are replayed whole")
	fs.IntVar(&f.Limit, "limit", 0, "replay only the first `N` sessions (whole sessions, in dataset order)")
	fs.IntVar(&f.Sample, "sample", 0, "replay `N` sessions drawn at random (whole sessions; see --seed)")
	fs.Uint64Var(&f.Seed, "seed", 1, "random seed of --sample")
	fs.StringVar(&f.Slice, "slice", "", "apply the filters of [slices.`NAME`] in apeval.toml")
}
