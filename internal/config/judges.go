package config

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/judge"
)

// Price options: currency units per million prompt (price_in) and
// completion (price_out) tokens. They are apeval's, never sent to a backend.
const (
	OptPriceIn  = "price_in"
	OptPriceOut = "price_out"
)

// Prices are one judge's prices, nil when not given.
type Prices struct{ In, Out *float64 }

// JudgeEntry is one judge of a run with its own settings: from a
// [[judge]] table of apeval.toml, or a --judge flag (whose SPEC@URL form
// carries a server).
type JudgeEntry struct {
	Spec    string   // backend:argument, without a server
	BaseURL string   // openai: base URL, ollama: host; "" = the flags' (--openai-base-url, --ollama-host)
	KeyEnv  string   // openai: the API key's variable; "" = --openai-api-key-env
	Prompt  string   // prompt file; "" = --prompt, else the built-in prompt
	Options []string // key=value, prices included; under --judge-option
}

// Entry is the [[judge]] table as a judge of the run.
func (j Judge) Entry() JudgeEntry {
	return JudgeEntry{Spec: strings.TrimSpace(j.Spec), BaseURL: j.BaseURL, KeyEnv: j.APIKeyEnv, Prompt: j.Prompt,
		Options: j.OptionStrings()}
}

// Display is the entry as a --judge flag would give it: SPEC[@URL], the
// URL masked (run.json is a report).
func (e JudgeEntry) Display() string {
	if e.BaseURL == "" {
		return mask.String(e.Spec)
	}
	return mask.String(e.Spec) + "@" + MaskURL(e.BaseURL)
}

// HasOwnSettings reports whether the entry sets more than a spec and options.
func (e JudgeEntry) HasOwnSettings() bool {
	return e.BaseURL != "" || e.KeyEnv != "" || e.Prompt != ""
}

// Config is the judge configuration of one entry: the shared one with the
// entry's own server, API key variable and prompt.
func (e JudgeEntry) Config(cfg judge.Config) judge.Config {
	if e.BaseURL != "" {
		if strings.HasPrefix(e.Spec, "ollama:") {
			cfg.OllamaHost = e.BaseURL
		} else {
			cfg.OpenAIBaseURL = e.BaseURL
		}
		cfg.Server = e.BaseURL
	}
	if e.KeyEnv != "" {
		cfg.OpenAIKeyEnv = e.KeyEnv
		cfg.KeyEnv = e.KeyEnv
	}
	if e.Prompt != "" {
		cfg.PromptFile = e.Prompt
	}
	return cfg
}

// ParseJudgeFlag reads one --judge value: SPEC, or for a backend with a
// server (openai:, ollama:, anthropic:; judge.Backend.Server) SPEC@URL with
// URL an http(s) server (the base URL, the Ollama host). A model name may
// itself hold "@": only an "@http://" or "@https://" separates a server.
// The error names --judge and the value.
func ParseJudgeFlag(v string) (JudgeEntry, error) {
	v = strings.TrimSpace(v)
	if b, ok := judge.Lookup(BackendOf(v)); !ok || !b.Server {
		return JudgeEntry{Spec: v}, nil
	}
	i := max(strings.LastIndex(v, "@http://"), strings.LastIndex(v, "@https://"))
	if i < 0 {
		return JudgeEntry{Spec: v}, nil
	}
	e := JudgeEntry{Spec: v[:i], BaseURL: v[i+1:]}
	if err := CheckServerURL(e.BaseURL); err != nil {
		return e, fmt.Errorf("--judge %s: %v", v, err)
	}
	return e, nil
}

// MaskURL hides a URL's credentials and query values for messages and run.json.
func MaskURL(s string) string { return mask.String(s) }

// JudgeEntries are a run's judges: the file's [[judge]] tables (file)
// when fromFile (no --judge given), else one per --judge value (flags),
// each taking the settings of the first [[judge]] with the same spec (a
// flag's @URL wins); recorded:NAME takes a bare "recorded" table's options.
func JudgeEntries(flags []string, file []JudgeEntry, fromFile bool) ([]JudgeEntry, error) {
	if fromFile {
		return append([]JudgeEntry(nil), file...), nil
	}
	var out []JudgeEntry
	for _, v := range flags {
		e, err := ParseJudgeFlag(v)
		if err != nil {
			return nil, err
		}
		for _, f := range file {
			if f.Spec == e.Spec {
				url := e.BaseURL
				e = f
				if url != "" {
					e.BaseURL = url
				}
				break
			}
		}
		if e.Options == nil && strings.HasPrefix(e.Spec, "recorded:") {
			for _, f := range file {
				if f.Spec == "recorded" {
					e.Options = f.Options
					break
				}
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// JudgeDefaults are the command line's settings for every judge: the
// servers (--ollama-host, --openai-base-url), the key variable
// (--openai-api-key-env), --prompt and --judge-option (parsed).
type JudgeDefaults struct {
	OllamaHost    string
	OpenAIBaseURL string
	OpenAIKeyEnv  string
	Prompt        string
	Options       map[string]string
}

// Effective is the entry with the defaults' server, key variable and
// prompt where it sets none of its own.
func (d JudgeDefaults) Effective(e JudgeEntry) JudgeEntry {
	switch {
	case strings.HasPrefix(e.Spec, "openai:"):
		if e.BaseURL == "" {
			e.BaseURL = d.OpenAIBaseURL
		}
		if e.KeyEnv == "" && d.OpenAIKeyEnv != "OPENAI_API_KEY" {
			e.KeyEnv = d.OpenAIKeyEnv
		}
	case strings.HasPrefix(e.Spec, "ollama:"):
		if e.BaseURL == "" {
			e.BaseURL = d.OllamaHost
		}
	default:
		// Other backends have no server flags: their server and key
		// variable come from SPEC@URL and the [[judge]] table.
		if b, ok := judge.Lookup(BackendOf(e.Spec)); !ok || !b.Prompt {
			return e
		}
	}
	if e.Prompt == "" {
		e.Prompt = d.Prompt
	}
	return e
}

// OptionsFor merges the options of one judge: its own (apeval.toml's
// [[judge]] options) first, --judge-option over them key by key. The
// prices are split off; a bad price is an error naming the judge and key.
func (d JudgeDefaults) OptionsFor(e JudgeEntry) (map[string]string, Prices, error) {
	kv := map[string]string{}
	for _, s := range e.Options {
		k, v, _ := strings.Cut(s, "=")
		kv[k] = v
	}
	for k, v := range d.Options {
		kv[k] = v
	}
	var p Prices
	for _, name := range []string{OptPriceIn, OptPriceOut} {
		v, ok := kv[name]
		if !ok {
			continue
		}
		delete(kv, name)
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || x < 0 {
			return nil, p, fmt.Errorf("judge %s: %s=%q: want a price per million tokens (a number ≥ 0)", e.Spec, name, v)
		}
		if name == OptPriceIn {
			p.In = &x
		} else {
			p.Out = &x
		}
	}
	return kv, p, nil
}

// OptionList is the merged options of a judge as sorted key=value
// strings, prices included, for run.json; nil when they do not merge.
func (d JudgeDefaults) OptionList(e JudgeEntry) []string {
	kv, p, err := d.OptionsFor(e)
	if err != nil {
		return nil
	}
	var out []string
	for k, v := range kv {
		out = append(out, k+"="+v)
	}
	if p.In != nil {
		out = append(out, OptPriceIn+"="+strconv.FormatFloat(*p.In, 'g', -1, 64))
	}
	if p.Out != nil {
		out = append(out, OptPriceOut+"="+strconv.FormatFloat(*p.Out, 'g', -1, 64))
	}
	sort.Strings(out)
	return out
}

// WithoutPrices drops the price options, which are no backend's business.
func WithoutPrices(kv map[string]string) map[string]string {
	out := make(map[string]string, len(kv))
	for k, v := range kv {
		if k != OptPriceIn && k != OptPriceOut {
			out[k] = v
		}
	}
	return out
}
