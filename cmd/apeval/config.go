package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/spf13/cobra"

	"github.com/apeval/apeval/internal/objstore"
	"github.com/apeval/apeval/internal/tomlfile"
	"github.com/apeval/apeval/judge"
)

// ConfigFile is the project file apeval init writes and run, replay,
// report, compare and gate read from the working directory.
const ConfigFile = "apeval.toml"

// ConfigSchema is the schema value of apeval.toml.
const ConfigSchema = "apeval.config/v1"

// projectConfig is apeval.toml. Relative paths are relative to the file's
// directory. Every field is optional; a flag given on the command line
// overrides the file.
type projectConfig struct {
	Schema       string                  `toml:"schema"`
	Datasets     []string                `toml:"datasets"`
	Policy       string                  `toml:"policy"`
	Criteria     string                  `toml:"criteria"`
	Baseline     string                  `toml:"baseline"`
	Out          string                  `toml:"out"`
	Concurrency  int                     `toml:"concurrency"`
	Timeout      string                  `toml:"timeout"`
	Inconclusive string                  `toml:"inconclusive"`
	Judges       []judgeConfig           `toml:"judge"`
	Filter       filterConfig            `toml:"filter"`
	Slices       map[string]filterConfig `toml:"slices"`
	Simulate     simulateConfig          `toml:"simulate"`

	path    string        // the file read, "" when none
	timeout time.Duration // Timeout parsed
}

// judgeConfig is one [[judge]] table: a spec, its own server, API key
// variable and prompt, backend options (as --judge-option) and prices in
// currency units per million tokens.
type judgeConfig struct {
	Spec      string         `toml:"spec"`
	BaseURL   string         `toml:"base_url"`
	APIKeyEnv string         `toml:"api_key_env"`
	Prompt    string         `toml:"prompt"`
	Options   map[string]any `toml:"options"`
	PriceIn   *float64       `toml:"price_in"`
	PriceOut  *float64       `toml:"price_out"`
}

// filterConfig selects part of a dataset (the [filter] table, or a named
// [slices.NAME] table chosen with --slice NAME).
type filterConfig struct {
	Rules  []string `toml:"rules"`
	Tags   []string `toml:"tags"`
	Limit  int      `toml:"limit"`
	Sample int      `toml:"sample"`
	Seed   *uint64  `toml:"seed"`
}

// loadProjectConfig reads --config FILE, else ./apeval.toml when it exists;
// no file gives an empty config.
func loadProjectConfig(cmd *cobra.Command) (*projectConfig, error) {
	path, explicit := "", false
	if f := cmd.Flag("config"); f != nil && f.Value.String() != "" {
		path, explicit = f.Value.String(), true
	} else {
		path = ConfigFile
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if !explicit && errors.Is(err, fs.ErrNotExist) {
			return &projectConfig{}, nil
		}
		return nil, usagef("--config: %v", err)
	}
	c, err := parseProjectConfig(data, path)
	if err != nil {
		return nil, usageError{err}
	}
	return c, nil
}

// parseProjectConfig decodes and checks apeval.toml; every problem is
// reported as file:line: key: message, unknown keys included.
func parseProjectConfig(data []byte, name string) (*projectConfig, error) {
	var c projectConfig
	md, err := toml.Decode(string(data), &c)
	if err != nil {
		return nil, tomlfile.Error(name, err)
	}
	loc := tomlfile.Locate(string(data))
	var errs []string
	errf := func(key, format string, args ...any) {
		line := max(loc.Line(loc.Indexed(key)), 1)
		errs = append(errs, fmt.Sprintf("%s:%d: %s: %s", name, line, key, fmt.Sprintf(format, args...)))
	}
	for _, k := range md.Undecoded() {
		key := k.String()
		// Backend options are free-form: the backend checks them.
		if strings.HasPrefix(key, "judge.options.") {
			continue
		}
		errf(key, "unknown key")
	}
	if c.Schema != "" && c.Schema != ConfigSchema {
		errf("schema", "%q is not supported (want %q)", c.Schema, ConfigSchema)
	}
	if c.Concurrency < 0 {
		errf("concurrency", "must be at least 1, got %d", c.Concurrency)
	}
	if c.Timeout != "" {
		d, err := time.ParseDuration(c.Timeout)
		if err != nil || d <= 0 {
			errf("timeout", "%q is not a positive duration (e.g. \"10s\")", c.Timeout)
		}
		c.timeout = d
	}
	switch c.Inconclusive {
	case "", "pass", "fail":
	default:
		errf("inconclusive", "%q is not pass or fail", c.Inconclusive)
	}
	for i, j := range c.Judges {
		if strings.TrimSpace(j.Spec) == "" {
			errf(fmt.Sprintf("judge[%d].spec", i), "required (ollama:MODEL, openai:MODEL, exec:CMD, recorded[:NAME] or none)")
		}
		b, _ := judge.Lookup(backendOf(j.Spec))
		if j.BaseURL != "" {
			if !b.Server {
				errf(fmt.Sprintf("judge[%d].base_url", i), "only %s judges have a server (spec %q)", backendsWith(func(b judge.Backend) bool { return b.Server }), j.Spec)
			} else if err := checkServerURL(j.BaseURL); err != nil {
				errf(fmt.Sprintf("judge[%d].base_url", i), "%v", err)
			}
		}
		if j.APIKeyEnv != "" && b.KeyEnv == "" {
			errf(fmt.Sprintf("judge[%d].api_key_env", i), "only %s judges take an API key (spec %q)", backendsWith(func(b judge.Backend) bool { return b.KeyEnv != "" }), j.Spec)
		}
		if j.Prompt != "" && !b.Prompt {
			errf(fmt.Sprintf("judge[%d].prompt", i), "only %s judges use apeval's prompt (spec %q)", backendsWith(func(b judge.Backend) bool { return b.Prompt }), j.Spec)
		}
		for _, p := range []struct {
			key string
			v   *float64
		}{{"price_in", j.PriceIn}, {"price_out", j.PriceOut}} {
			if p.v != nil && *p.v < 0 {
				errf(fmt.Sprintf("judge[%d].%s", i, p.key), "must not be negative, got %g", *p.v)
			}
		}
	}
	checkFilter := func(prefix string, f filterConfig) {
		if f.Limit < 0 {
			errf(prefix+"limit", "must not be negative, got %d", f.Limit)
		}
		if f.Sample < 0 {
			errf(prefix+"sample", "must not be negative, got %d", f.Sample)
		}
	}
	checkFilter("filter.", c.Filter)
	for _, n := range sortedKeys(c.Slices) {
		checkFilter("slices."+n+".", c.Slices[n])
	}
	if len(errs) > 0 {
		sort.SliceStable(errs, func(a, b int) bool { return lineOf(errs[a]) < lineOf(errs[b]) })
		return nil, errors.New(strings.Join(errs, "\n"))
	}
	// Paths are relative to the file.
	dir := filepath.Dir(name)
	rel := func(p string) string {
		if p == "" || p == "-" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	for i := range c.Datasets {
		c.Datasets[i] = rel(c.Datasets[i])
	}
	c.Policy, c.Criteria = rel(c.Policy), rel(c.Criteria)
	for i := range c.Judges {
		c.Judges[i].Prompt = rel(c.Judges[i].Prompt)
	}
	if c.Out != "" && !objstore.IsURL(c.Out) {
		c.Out = rel(c.Out)
	}
	c.path = name
	return &c, nil
}

func lineOf(msg string) int {
	parts := strings.SplitN(msg, ":", 3)
	if len(parts) < 3 {
		return 0
	}
	n, _ := strconv.Atoi(parts[1])
	return n
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// optionStrings renders a [[judge]] table's options as --judge-option
// key=value strings (prices included), so both sources go one way.
func (j judgeConfig) optionStrings() []string {
	var out []string
	for _, k := range sortedKeys(j.Options) {
		out = append(out, k+"="+fmt.Sprint(j.Options[k]))
	}
	if j.PriceIn != nil {
		out = append(out, "price_in="+strconv.FormatFloat(*j.PriceIn, 'g', -1, 64))
	}
	if j.PriceOut != nil {
		out = append(out, "price_out="+strconv.FormatFloat(*j.PriceOut, 'g', -1, 64))
	}
	return out
}

// entry is the [[judge]] table as a judge of the run.
func (j judgeConfig) entry() judgeEntry {
	return judgeEntry{Spec: strings.TrimSpace(j.Spec), BaseURL: j.BaseURL, KeyEnv: j.APIKeyEnv, Prompt: j.Prompt,
		Options: j.optionStrings()}
}

// applyToRun fills the run/replay options the command line left unset.
func (c *projectConfig) applyToRun(cmd *cobra.Command, o *runOptions) error {
	if c.path == "" {
		return nil
	}
	set := func(name string) bool { return !cmd.Flags().Changed(name) }
	if set("dataset") && len(c.Datasets) > 0 {
		o.Datasets = append([]string(nil), c.Datasets...)
	}
	if set("policy") && c.Policy != "" {
		o.Policy = c.Policy
	}
	// The file's judges, each with its own settings; --judge flags name
	// judges instead and take a file entry's settings when the spec is
	// the same. --judge-option (for every judge) overrides a key.
	o.fileJudges = nil
	for _, j := range c.Judges {
		o.fileJudges = append(o.fileJudges, j.entry())
	}
	o.judgesFromFile = set("judge") && len(c.Judges) > 0
	if set("concurrency") && c.Concurrency > 0 {
		o.Concurrency = c.Concurrency
	}
	if set("timeout") && c.timeout > 0 {
		o.Timeout = c.timeout
	}
	if cmd.Flags().Lookup("criteria") != nil {
		if set("criteria") && c.Criteria != "" {
			o.Criteria = c.Criteria
		}
		if set("baseline") && c.Baseline != "" {
			o.Baseline, o.baselineFromConfig = c.Baseline, true
		}
		if set("inconclusive") && c.Inconclusive != "" {
			o.Inconclusive = c.Inconclusive
		}
	}
	if set("out") && c.Out != "" {
		o.outPattern = c.Out
	}
	return o.Filter.applyConfig(cmd, c)
}

// applyToEval fills report/gate/compare options the command line left unset.
func (c *projectConfig) applyToEval(cmd *cobra.Command, e *evalOptions) {
	if c.path == "" {
		return
	}
	set := func(name string) bool { return !cmd.Flags().Changed(name) }
	if set("criteria") && set("policy") && e.Criteria == "" && e.Policy == "" && c.Criteria != "" {
		e.Criteria = c.Criteria
	}
	if set("baseline") && c.Baseline != "" {
		e.Baseline = c.Baseline
	}
	if set("inconclusive") && c.Inconclusive != "" {
		e.Inconclusive = c.Inconclusive
	}
}

// expandOut turns the out pattern into a directory: {run_id} and {date}
// (UTC, YYYY-MM-DD) are replaced.
func expandOut(pattern, runID string, now time.Time) string {
	return strings.NewReplacer("{run_id}", runID, "{date}", now.UTC().Format("2006-01-02")).Replace(pattern)
}

// applyConfig reads apeval.toml (or --config) into report, gate and
// compare options the command line left unset.
func (e *evalOptions) applyConfig(cmd *cobra.Command) error {
	c, err := loadProjectConfig(cmd)
	if err != nil {
		return err
	}
	c.applyToEval(cmd, e)
	return nil
}

// backendsWith names the registered backends with a property, as a message
// lists them: "openai: and ollama:", "openai:, ollama: and anthropic:".
func backendsWith(has func(judge.Backend) bool) string {
	var names []string
	for _, b := range judge.Backends() {
		if has(b) {
			names = append(names, b.Name+":")
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
