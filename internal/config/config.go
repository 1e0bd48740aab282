// Package config reads apeval.toml, the project file (Project, Load,
// Parse): datasets, policy, criteria, baseline, out pattern, concurrency,
// timeout, the [[judge]] tables, [filter], [slices.NAME] and [simulate];
// and the judges' settings from --judge flags and [[judge]] tables
// (JudgeEntry, JudgeDefaults).
// Every problem is an error naming file:line and the key. It decides only
// what the file says; how its values combine with the command line (a flag
// overrides the file) is the command's resolution (internal/runplan for
// run and replay). It is not a stable Go API.
//
// Where to look:
//
//	config.go   Project and its tables, Load, Parse and its checks
//	judges.go   JudgeEntry (a --judge flag or [[judge]] table), ParseJudgeFlag, JudgeEntries,
//	            JudgeDefaults (the flags' server, key, prompt, --judge-option; prices split off)
//	server.go   CheckServerURL, BackendOf (a judge spec's backend)
package config

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

	"github.com/apeval/apeval/internal/objstore"
	"github.com/apeval/apeval/internal/tomlfile"
	"github.com/apeval/apeval/judge"
)

// Name is the project file apeval init writes and run, replay,
// report, compare, gate and simulate read from the working directory.
const Name = "apeval.toml"

// Marker is the project file a pull-request comment's hidden marker
// names (compare --comment), by which CI finds its own comment: the
// --config path when given, else Name when it is in the working
// directory, else "".
func Marker(configFlag string) string {
	if configFlag != "" {
		return configFlag
	}
	if _, err := os.Stat(Name); err == nil {
		return Name
	}
	return ""
}

// Schema is the schema value of apeval.toml.
const Schema = "apeval.config/v1"

// Project is apeval.toml. Relative paths are relative to the file's
// directory. Every field is optional; a flag given on the command line
// overrides the file.
type Project struct {
	Schema       string            `toml:"schema"`
	Datasets     []string          `toml:"datasets"`
	Policy       string            `toml:"policy"`
	Criteria     string            `toml:"criteria"`
	Baseline     string            `toml:"baseline"`
	Out          string            `toml:"out"`
	Concurrency  int               `toml:"concurrency"`
	Timeout      string            `toml:"timeout"`
	Inconclusive string            `toml:"inconclusive"`
	Judges       []Judge           `toml:"judge"`
	Filter       Filter            `toml:"filter"`
	Slices       map[string]Filter `toml:"slices"`
	Simulate     Simulate          `toml:"simulate"`

	// Path is the file read, "" when none.
	Path    string        `toml:"-"`
	timeout time.Duration // Timeout parsed
}

// TimeoutDuration is timeout parsed (0 when not set).
func (c *Project) TimeoutDuration() time.Duration { return c.timeout }

// Judge is one [[judge]] table: a spec, its own server, API key
// variable and prompt, backend options (as --judge-option) and prices in
// currency units per million tokens.
type Judge struct {
	Spec      string         `toml:"spec"`
	BaseURL   string         `toml:"base_url"`
	APIKeyEnv string         `toml:"api_key_env"`
	Prompt    string         `toml:"prompt"`
	Options   map[string]any `toml:"options"`
	PriceIn   *float64       `toml:"price_in"`
	PriceOut  *float64       `toml:"price_out"`
}

// Filter selects part of a dataset (the [filter] table, or a named
// [slices.NAME] table chosen with --slice NAME).
type Filter struct {
	Rules  []string `toml:"rules"`
	Tags   []string `toml:"tags"`
	Limit  int      `toml:"limit"`
	Sample int      `toml:"sample"`
	Seed   *uint64  `toml:"seed"`
}

// Simulate is apeval.toml's [simulate] table: the configurations CI
// simulates when the command line names none.
type Simulate struct {
	HookTimeouts []string `toml:"hook_timeouts"`
	OnFailure    string   `toml:"on_failure"`
	Judges       []string `toml:"judges"`
	Cascades     []string `toml:"cascades"`
	Votes        []string `toml:"votes"`
	Deployed     string   `toml:"deployed"`
	// EffectiveRecallMin is refused: the criterion lives in the policy's
	// [kill_criteria] with the others.
	EffectiveRecallMin *float64 `toml:"effective_recall_min"`
}

// Load reads the project file path; when it is not explicit (the default
// ./apeval.toml rather than --config FILE) a missing file gives an empty
// Project. A file that cannot be read is the os error as it is; one that
// does not parse is Parse's error.
func Load(path string, explicit bool) (*Project, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if !explicit && errors.Is(err, fs.ErrNotExist) {
			return &Project{}, nil
		}
		return nil, &ReadError{err}
	}
	return Parse(data, path)
}

// ReadError is a project file that could not be read (the command names
// its --config flag).
type ReadError struct{ Err error }

func (e *ReadError) Error() string { return e.Err.Error() }
func (e *ReadError) Unwrap() error { return e.Err }

// Parse decodes and checks apeval.toml; every problem is reported as
// file:line: key: message, unknown keys included, in the order of the
// lines. Relative paths are made relative to the file's directory.
func Parse(data []byte, name string) (*Project, error) {
	var c Project
	md, err := toml.Decode(string(data), &c)
	if err != nil {
		return nil, tomlfile.Error(name, string(data), err)
	}
	loc := tomlfile.Locate(string(data))
	var errs []string
	errf := func(key, format string, args ...any) {
		line := max(loc.Line(loc.Indexed(key)), 1)
		errs = append(errs, fmt.Sprintf("%s:%d: %s: %s", name, line, key, fmt.Sprintf(format, args...)))
	}
	var unknown []toml.Key
	for _, k := range md.Undecoded() {
		// Backend options are free-form: the backend checks them.
		if !strings.HasPrefix(k.String(), "judge.options.") {
			unknown = append(unknown, k)
		}
	}
	for _, key := range loc.Unknown(unknown) {
		errf(key, "unknown key")
	}
	if c.Schema != "" && c.Schema != Schema {
		errf("schema", "%q is not supported (want %q)", c.Schema, Schema)
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
		b, _ := judge.Lookup(BackendOf(j.Spec))
		if j.BaseURL != "" {
			if !b.Server {
				errf(fmt.Sprintf("judge[%d].base_url", i), "only %s judges have a server (spec %q)", backendsWith(func(b judge.Backend) bool { return b.Server }), j.Spec)
			} else if err := CheckServerURL(j.BaseURL); err != nil {
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
	checkFilter := func(prefix string, f Filter) {
		if f.Limit < 0 {
			errf(prefix+"limit", "must not be negative, got %d", f.Limit)
		}
		if f.Sample < 0 {
			errf(prefix+"sample", "must not be negative, got %d", f.Sample)
		}
	}
	checkFilter("filter.", c.Filter)
	for _, n := range SortedKeys(c.Slices) {
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
	c.Path = name
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

// SortedKeys are m's keys in order ([slices.NAME] tables, options).
func SortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// OptionStrings renders a [[judge]] table's options as --judge-option
// key=value strings (prices included), so both sources go one way.
func (j Judge) OptionStrings() []string {
	var out []string
	for _, k := range SortedKeys(j.Options) {
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
