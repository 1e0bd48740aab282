package main

import (
	"github.com/apeval/apeval/internal/config"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/reports/rundir"
)

// defaults are the flags' settings for every judge (config.JudgeDefaults:
// an entry's own server, key variable and prompt win; --judge-option over
// its options).
func (f *judgeFlags) defaults() config.JudgeDefaults {
	return config.JudgeDefaults{OllamaHost: f.OllamaHost, OpenAIBaseURL: f.OpenAIBaseURL, OpenAIKeyEnv: f.OpenAIKeyEnv,
		Prompt: f.Prompt, Options: f.options}
}

// rememberPrices keeps the prices of an opened judge by identity.
func (f *judgeFlags) rememberPrices(j judge.Judge, p config.Prices) {
	if p.In == nil && p.Out == nil {
		return
	}
	if f.prices == nil {
		f.prices = map[string]config.Prices{}
	}
	f.prices[j.Identity().String()] = p
}

// setPrices copies a judge's prices into its run.json entry.
func (f *judgeFlags) setPrices(ji *rundir.JudgeInfo) {
	if p, ok := f.prices[ji.Identity]; ok {
		ji.PriceIn, ji.PriceOut = p.In, p.Out
	}
}
