package main

import (
	"github.com/spf13/pflag"
)

// maxRepeat bounds --repeat: each repeat is one more call per judge call.
const maxRepeat = 100

// repeatFlags measure how a judge wavers: the same call several times,
// the rules in another order, or in other company.
type repeatFlags struct {
	Repeat       int
	ShuffleRules bool
	BatchSize    int
}

func (f *repeatFlags) register(fs *pflag.FlagSet) {
	fs.IntVar(&f.Repeat, "repeat", 1, "send each live judge call `N` times: a rule takes the majority answer (a tie is unknown) and reports flip_rate, the share of pairs whose answers were not all equal")
	fs.BoolVar(&f.ShuffleRules, "shuffle-rules", false, "permute the rules within each live call, anew for each repeat (seeded by --seed); reports position_effect, the match rate first minus last in a call")
	fs.IntVar(&f.BatchSize, "batch-size", 0, "send at most `K` rules per judge call, overriding the policy's max_rules_per_call (1 judges every rule alone)")
}

func (f *repeatFlags) validate() error {
	if f.Repeat < 1 || f.Repeat > maxRepeat {
		return usagef("--repeat must be between 1 and %d, got %d", maxRepeat, f.Repeat)
	}
	if f.BatchSize < 0 {
		return usagef("--batch-size must be at least 1 (0 keeps the policy's max_rules_per_call), got %d", f.BatchSize)
	}
	return nil
}
