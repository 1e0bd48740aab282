package runplan

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/config"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/reports/rundir"
)

// Options are the flags of `apeval run` and `apeval replay` as parsed:
// plain values, nothing resolved (the command binds its flags to them).
// Resolve makes a Plan of them.
type Options struct {
	// ReplayOnly: `apeval replay` (decision files only).
	ReplayOnly bool
	// OTLPEndpoint, when set (or OTEL_EXPORTER_OTLP_ENDPOINT is), sends
	// the run as OpenTelemetry traces.
	OTLPEndpoint string
	Datasets     []string
	Policy       string
	// PermissionsFrom are agents' permission files (KIND:PATH) added to the
	// policy's permissions layer.
	PermissionsFrom []string
	Judges          []string
	Out             string
	OutLayout       string
	Concurrency     int
	Timeout         time.Duration
	CacheDir        string
	NoCache         bool
	SkipInvalid     bool
	Shard           string
	ShardCount      int
	Criteria        string
	Baseline        string
	Inconclusive    string
	Format          string
	JSON            bool
	Quiet           bool
	RunID           string
	By              []string
	Labels          []string
	WeakLabels      bool
	Judge           JudgeFlags
	Filter          Filter
	Budget          Budget
	Repeat          Repeat
	// Resume is --resume DIR: finish that run, re-sending only its failed calls.
	Resume string
}

// JudgeFlags configure the live judge backends (run, replay and judges
// check): --ollama-host, --openai-base-url, --openai-api-key-env,
// --judge-option, --prompt, --retries, --max-response-bytes.
type JudgeFlags struct {
	OllamaHost    string
	OpenAIBaseURL string
	OpenAIKeyEnv  string
	Options       []string
	Prompt        string
	Retries       int
	MaxResponse   int64

	options map[string]string // Options parsed by Validate
}

// MaxRetries bounds --retries: each retry can wait out a whole --timeout.
const MaxRetries = 10

// Bounds of --max-response-bytes.
const (
	minResponseCap = 1 << 10
	maxResponseCap = 64 << 20
)

// Validate checks the judge flags and parses --judge-option.
func (f *JudgeFlags) Validate() error {
	if f.Retries < 0 || f.Retries > MaxRetries {
		return fmt.Errorf("--retries must be between 0 and %d, got %d", MaxRetries, f.Retries)
	}
	if f.MaxResponse < minResponseCap || f.MaxResponse > maxResponseCap {
		return fmt.Errorf("--max-response-bytes must be between %d and %d, got %d", minResponseCap, maxResponseCap, f.MaxResponse)
	}
	f.options = map[string]string{}
	for _, kv := range f.Options {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return fmt.Errorf("--judge-option %q: want key=value", kv)
		}
		f.options[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	if f.Prompt != "" {
		if _, err := os.Stat(f.Prompt); err != nil {
			return fmt.Errorf("--prompt: %v", err)
		}
	}
	return nil
}

// Defaults are the flags' settings for every judge (an entry's own
// server, key variable and prompt win; --judge-option over its options).
func (f *JudgeFlags) Defaults() config.JudgeDefaults {
	return config.JudgeDefaults{OllamaHost: f.OllamaHost, OpenAIBaseURL: f.OpenAIBaseURL, OpenAIKeyEnv: f.OpenAIKeyEnv,
		Prompt: f.Prompt, Options: f.options}
}

// Config is the judge configuration shared by every judge of a run (each
// entry then sets its own server, key and prompt: config.JudgeEntry.Config).
func (f *JudgeFlags) Config(timeout time.Duration, concurrency int) judge.Config {
	return judge.Config{
		OllamaHost:       f.OllamaHost,
		OpenAIBaseURL:    f.OpenAIBaseURL,
		OpenAIKeyEnv:     f.OpenAIKeyEnv,
		Options:          config.WithoutPrices(f.options),
		PromptFile:       f.Prompt,
		Timeout:          timeout,
		Retries:          f.Retries,
		Concurrency:      concurrency,
		MaxResponseBytes: f.MaxResponse,
	}
}

// Filter are the iteration filters of run and replay: --rule, --tag,
// --limit, --sample/--seed and --slice. Limit and sample choose whole
// sessions, so trajectory state (boundary crossings, max_fires) is the one
// a full run would have; --tag replays the sessions holding a tagged case
// and reports only the tagged cases.
type Filter struct {
	Rules  []string
	Tags   []string
	Limit  int
	Sample int
	Seed   uint64
	Slice  string
}

// applyConfig merges the file's [filter] table (or the --slice chosen)
// under the flags.
func (f *Filter) applyConfig(given func(string) bool, c *config.Project) error {
	fc := c.Filter
	if f.Slice != "" {
		s, ok := c.Slices[f.Slice]
		if !ok {
			names := config.SortedKeys(c.Slices)
			if c.Path == "" {
				return fmt.Errorf("--slice %s: no %s (slices are defined in [slices.NAME] tables)", f.Slice, config.Name)
			}
			return fmt.Errorf("--slice %s: %s has no [slices.%s]; it has: %s", f.Slice, c.Path, f.Slice, strings.Join(names, ", "))
		}
		fc = s
	}
	set := func(name string) bool { return !given(name) }
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

func (f *Filter) validate() error {
	if f.Limit < 0 {
		return fmt.Errorf("--limit must not be negative, got %d", f.Limit)
	}
	if f.Sample < 0 {
		return fmt.Errorf("--sample must not be negative, got %d", f.Sample)
	}
	if f.Limit > 0 && f.Sample > 0 {
		return fmt.Errorf("--limit and --sample exclude each other")
	}
	return nil
}

// Active reports whether the run is filtered.
func (f *Filter) Active() bool {
	return len(f.Rules) > 0 || len(f.Tags) > 0 || f.Limit > 0 || f.Sample > 0
}

// Info is the filter as run.json and every report header show it; nil when
// the run is not filtered.
func (f *Filter) Info() *rundir.Filter {
	if !f.Active() {
		return nil
	}
	fi := &rundir.Filter{Rules: f.Rules, Tags: f.Tags, Limit: f.Limit, Sample: f.Sample, Slice: f.Slice}
	if f.Sample > 0 {
		seed := f.Seed
		fi.Seed = &seed
	}
	return fi
}

// Sessions is the --tag/--limit/--sample filter (datasets.SessionFilter
// decides which sessions it keeps).
func (f *Filter) Sessions() datasets.SessionFilter {
	return datasets.SessionFilter{Tags: f.Tags, Limit: f.Limit, Sample: f.Sample, Seed: f.Seed}
}

// Budget bounds what a run sends to its live judges: --max-calls and
// --budget-usd (at the judges' prices).
type Budget struct {
	MaxCalls  int64
	BudgetUSD float64
}

func (f *Budget) validate(retries int) error {
	if f.MaxCalls < 0 {
		return fmt.Errorf("--max-calls must not be negative, got %d", f.MaxCalls)
	}
	if f.BudgetUSD < 0 {
		return fmt.Errorf("--budget-usd must not be negative, got %g", f.BudgetUSD)
	}
	if f.MaxCalls > 0 && f.MaxCalls < int64(retries)+1 {
		return fmt.Errorf("--max-calls %d cannot hold one call with --retries %d (a call holds %d requests while it may retry)", f.MaxCalls, retries, retries+1)
	}
	return nil
}

// MaxRepeat bounds --repeat: each repeat is one more call per judge call.
const MaxRepeat = 100

// Repeat measures how a judge wavers: the same call several times
// (--repeat), the rules in another order (--shuffle-rules), or in other
// company (--batch-size).
type Repeat struct {
	Repeat       int
	ShuffleRules bool
	BatchSize    int
}

func (f *Repeat) validate() error {
	if f.Repeat < 1 || f.Repeat > MaxRepeat {
		return fmt.Errorf("--repeat must be between 1 and %d, got %d", MaxRepeat, f.Repeat)
	}
	if f.BatchSize < 0 {
		return fmt.Errorf("--batch-size must be at least 1 (0 keeps the policy's max_rules_per_call), got %d", f.BatchSize)
	}
	return nil
}
