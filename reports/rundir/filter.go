package rundir

import (
	"fmt"
	"strings"
)

// Filter is how a run was narrowed for iteration (--rule, --tag, --limit,
// --sample/--seed, --slice); nil on a full run. Every report header shows
// it, so a filtered run is never mistaken for a full one.
type Filter struct {
	Rules  []string `json:"rules,omitempty"`
	Tags   []string `json:"tags,omitempty"`
	Limit  int      `json:"limit,omitempty"`  // first N sessions
	Sample int      `json:"sample,omitempty"` // N sessions drawn with Seed
	Seed   *uint64  `json:"seed,omitempty"`
	Slice  string   `json:"slice,omitempty"` // the apeval.toml slice the filters came from
}

// String is the one-line form of the report headers:
// "filtered: rules irreversible-delete; tags ja; first 20 sessions".
func (f *Filter) String() string {
	if f == nil {
		return ""
	}
	var parts []string
	if f.Slice != "" {
		parts = append(parts, "slice "+f.Slice)
	}
	if len(f.Rules) > 0 {
		parts = append(parts, "rules "+strings.Join(f.Rules, ", "))
	}
	if len(f.Tags) > 0 {
		parts = append(parts, "tags "+strings.Join(f.Tags, ", "))
	}
	if f.Limit > 0 {
		parts = append(parts, fmt.Sprintf("first %d sessions", f.Limit))
	}
	if f.Sample > 0 {
		seed := uint64(0)
		if f.Seed != nil {
			seed = *f.Seed
		}
		parts = append(parts, fmt.Sprintf("%d sessions sampled (seed %d)", f.Sample, seed))
	}
	if len(parts) == 0 {
		return ""
	}
	return "filtered run (" + strings.Join(parts, "; ") + "): not the full dataset"
}

// Settings are the resolved settings of a run — from apeval.toml, the
// flags and the defaults — as run.json records them.
type Settings struct {
	Config       string              `json:"config,omitempty"` // the apeval.toml read, "" when none
	Datasets     []string            `json:"datasets"`
	Policy       string              `json:"policy"`
	Criteria     string              `json:"criteria,omitempty"`
	Judges       []string            `json:"judges"`
	JudgeOptions map[string][]string `json:"judge_options,omitempty"` // judge spec → key=value
	// JudgeEntries are, one per judge in the order of Judges, each judge's
	// server, API key variable and prompt ([[judge]] base_url, api_key_env,
	// prompt; --judge SPEC@URL; else the flags'), when any judge has one.
	JudgeEntries []JudgeEntry `json:"judge_entries,omitempty"`
	// Retries is --retries when not 0.
	Retries      int      `json:"retries,omitempty"`
	Baseline     string   `json:"baseline,omitempty"`
	Out          string   `json:"out"`
	Concurrency  int      `json:"concurrency"`
	Timeout      Duration `json:"timeout"`
	Inconclusive string   `json:"inconclusive,omitempty"`
	// Repeats and rule order (--repeat, --shuffle-rules with --seed,
	// --batch-size) and the budget (--max-calls, --budget-usd); zero when
	// not used.
	Repeat       int     `json:"repeat,omitempty"`
	ShuffleRules bool    `json:"shuffle_rules,omitempty"`
	ShuffleSeed  *uint64 `json:"shuffle_seed,omitempty"`
	BatchSize    int     `json:"batch_size,omitempty"`
	MaxCalls     int64   `json:"max_calls,omitempty"`
	BudgetUSD    float64 `json:"budget_usd,omitempty"`
}

// JudgeEntry is one judge's own settings in run.json: the spec, its server
// (masked), the name of its API key variable (never the key), its prompt
// file and its options (masked).
type JudgeEntry struct {
	Spec      string   `json:"spec"`
	BaseURL   string   `json:"base_url,omitempty"`
	APIKeyEnv string   `json:"api_key_env,omitempty"`
	Prompt    string   `json:"prompt,omitempty"`
	Options   []string `json:"options,omitempty"`
}
