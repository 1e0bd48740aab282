package main

import (
	"sort"
	"strconv"
	"strings"

	"github.com/apeval/apeval/internal/config"
	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/reports/rundir"
)

// Price options: currency units per million prompt (price_in) and
// completion (price_out) tokens. They are apeval's, never sent to a backend.
const (
	optPriceIn  = "price_in"
	optPriceOut = "price_out"
)

// judgePrices are one judge's prices, nil when not given.
type judgePrices struct{ in, out *float64 }

// judgeEntry is one judge of a run with its own settings: from a
// [[judge]] table of apeval.toml, or a --judge flag (whose SPEC@URL form
// carries a server).
type judgeEntry struct {
	Spec    string   // backend:argument, without a server
	BaseURL string   // openai: base URL, ollama: host; "" = the flags' (--openai-base-url, --ollama-host)
	KeyEnv  string   // openai: the API key's variable; "" = --openai-api-key-env
	Prompt  string   // prompt file; "" = --prompt, else the built-in prompt
	Options []string // key=value, prices included; under --judge-option
}

// display is the entry as a --judge flag would give it: SPEC[@URL], the
// URL masked (run.json is a report).
func (e judgeEntry) display() string {
	if e.BaseURL == "" {
		return mask.String(e.Spec)
	}
	return mask.String(e.Spec) + "@" + maskURL(e.BaseURL)
}

// effective is the entry with the flags' server, key variable and prompt
// where it sets none of its own.
func (f *judgeFlags) effective(e judgeEntry) judgeEntry {
	switch {
	case strings.HasPrefix(e.Spec, "openai:"):
		if e.BaseURL == "" {
			e.BaseURL = f.OpenAIBaseURL
		}
		if e.KeyEnv == "" && f.OpenAIKeyEnv != "OPENAI_API_KEY" {
			e.KeyEnv = f.OpenAIKeyEnv
		}
	case strings.HasPrefix(e.Spec, "ollama:"):
		if e.BaseURL == "" {
			e.BaseURL = f.OllamaHost
		}
	default:
		// Other backends have no server flags: their server and key
		// variable come from SPEC@URL and the [[judge]] table.
		if b, ok := judge.Lookup(config.BackendOf(e.Spec)); !ok || !b.Prompt {
			return e
		}
	}
	if e.Prompt == "" {
		e.Prompt = f.Prompt
	}
	return e
}

// hasOwnSettings reports whether the entry sets more than a spec and options.
func (e judgeEntry) hasOwnSettings() bool {
	return e.BaseURL != "" || e.KeyEnv != "" || e.Prompt != ""
}

// parseJudgeFlag reads one --judge value: SPEC, or for a backend with a
// server (openai:, ollama:, anthropic:; judge.Backend.Server) SPEC@URL with
// URL an http(s) server (the base URL, the Ollama host). A model name may itself hold "@": only an "@http://" or
// "@https://" separates a server.
func parseJudgeFlag(v string) (judgeEntry, error) {
	v = strings.TrimSpace(v)
	if b, ok := judge.Lookup(config.BackendOf(v)); !ok || !b.Server {
		return judgeEntry{Spec: v}, nil
	}
	i := max(strings.LastIndex(v, "@http://"), strings.LastIndex(v, "@https://"))
	if i < 0 {
		return judgeEntry{Spec: v}, nil
	}
	e := judgeEntry{Spec: v[:i], BaseURL: v[i+1:]}
	if err := config.CheckServerURL(e.BaseURL); err != nil {
		return e, usagef("--judge %s: %v", v, err)
	}
	return e, nil
}

// maskURL hides a URL's credentials and query values for messages and run.json.
func maskURL(s string) string { return mask.String(s) }

// judgeEntries are the run's judges: the file's [[judge]] tables when
// --judge was not given, else one per --judge flag, each taking the
// settings of the first [[judge]] with the same spec (a flag's @URL wins).
func (o *runOptions) judgeEntries() ([]judgeEntry, error) {
	if o.judgesFromFile {
		return append([]judgeEntry(nil), o.fileJudges...), nil
	}
	var out []judgeEntry
	for _, v := range o.Judges {
		e, err := parseJudgeFlag(v)
		if err != nil {
			return nil, err
		}
		for _, f := range o.fileJudges {
			if f.Spec == e.Spec {
				url := e.BaseURL
				e = f
				if url != "" {
					e.BaseURL = url
				}
				break
			}
		}
		if e.Options == nil {
			// recorded:NAME takes a bare "recorded" table's options.
			if strings.HasPrefix(e.Spec, "recorded:") {
				for _, f := range o.fileJudges {
					if f.Spec == "recorded" {
						e.Options = f.Options
						break
					}
				}
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// optionsFor merges the options of one judge: its own (apeval.toml's
// [[judge]] options) first, --judge-option over them key by key. The
// prices are split off; a bad price is a usage error.
func (f *judgeFlags) optionsFor(e judgeEntry) (map[string]string, judgePrices, error) {
	kv := map[string]string{}
	for _, s := range e.Options {
		k, v, _ := strings.Cut(s, "=")
		kv[k] = v
	}
	for k, v := range f.options {
		kv[k] = v
	}
	var p judgePrices
	for _, name := range []string{optPriceIn, optPriceOut} {
		v, ok := kv[name]
		if !ok {
			continue
		}
		delete(kv, name)
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || x < 0 {
			return nil, p, usagef("judge %s: %s=%q: want a price per million tokens (a number ≥ 0)", e.Spec, name, v)
		}
		if name == optPriceIn {
			p.in = &x
		} else {
			p.out = &x
		}
	}
	return kv, p, nil
}

// optionList is the merged options of a judge as sorted key=value
// strings, prices included, for run.json.
func (f *judgeFlags) optionList(e judgeEntry) []string {
	kv, p, err := f.optionsFor(e)
	if err != nil {
		return nil
	}
	var out []string
	for k, v := range kv {
		out = append(out, k+"="+v)
	}
	if p.in != nil {
		out = append(out, optPriceIn+"="+strconv.FormatFloat(*p.in, 'g', -1, 64))
	}
	if p.out != nil {
		out = append(out, optPriceOut+"="+strconv.FormatFloat(*p.out, 'g', -1, 64))
	}
	sort.Strings(out)
	return out
}

// rememberPrices keeps the prices of an opened judge by identity.
func (f *judgeFlags) rememberPrices(j judge.Judge, p judgePrices) {
	if p.in == nil && p.out == nil {
		return
	}
	if f.prices == nil {
		f.prices = map[string]judgePrices{}
	}
	f.prices[j.Identity().String()] = p
}

// setPrices copies a judge's prices into its run.json entry.
func (f *judgeFlags) setPrices(ji *rundir.JudgeInfo) {
	if p, ok := f.prices[ji.Identity]; ok {
		ji.PriceIn, ji.PriceOut = p.in, p.out
	}
}

// withoutPrices drops the price options, which are no backend's business.
func withoutPrices(kv map[string]string) map[string]string {
	out := make(map[string]string, len(kv))
	for k, v := range kv {
		if k != optPriceIn && k != optPriceOut {
			out[k] = v
		}
	}
	return out
}
