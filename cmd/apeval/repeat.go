package main

import (
	"github.com/spf13/pflag"

	"github.com/apeval/apeval/internal/runplan"
)

// registerRepeat defines --repeat, --shuffle-rules and --batch-size.
func registerRepeat(fs *pflag.FlagSet, f *runplan.Repeat) {
	fs.IntVar(&f.Repeat, "repeat", 1, "send each live judge call `N` times: a rule takes the majority answer (a tie is unknown) and reports flip_rate, the share of pairs whose answers were not all equal")
	fs.BoolVar(&f.ShuffleRules, "shuffle-rules", false, "permute the rules within each live call, anew for each repeat (seeded by --seed); reports position_effect, the match rate first minus last in a call")
	fs.IntVar(&f.BatchSize, "batch-size", 0, "send at most `K` rules per judge call, overriding the policy's max_rules_per_call (1 judges every rule alone)")
}
