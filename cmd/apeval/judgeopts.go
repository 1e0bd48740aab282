package main

import (
	"sort"
	"strconv"
	"strings"

	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/reports"
)

// Price options: currency units per million prompt (price_in) and
// completion (price_out) tokens. They are apeval's, never sent to a backend.
const (
	optPriceIn  = "price_in"
	optPriceOut = "price_out"
)

// judgePrices are one judge's prices, nil when not given.
type judgePrices struct{ in, out *float64 }

// optionsFor merges the options of one judge spec: apeval.toml's [[judge]]
// options first, --judge-option over them key by key. The prices are split
// off; a bad price is a usage error.
func (f *judgeFlags) optionsFor(spec string, file map[string][]string) (map[string]string, judgePrices, error) {
	kv := map[string]string{}
	fromFile := file[spec]
	if fromFile == nil && strings.HasPrefix(spec, "recorded:") {
		fromFile = file["recorded"]
	}
	for _, s := range fromFile {
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
			return nil, p, usagef("judge %s: %s=%q: want a price per million tokens (a number ≥ 0)", spec, name, v)
		}
		if name == optPriceIn {
			p.in = &x
		} else {
			p.out = &x
		}
	}
	return kv, p, nil
}

// optionList is the merged options of a spec as sorted key=value strings,
// prices included, for run.json.
func (f *judgeFlags) optionList(spec string, file map[string][]string) []string {
	kv, p, err := f.optionsFor(spec, file)
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
func (f *judgeFlags) setPrices(ji *reports.JudgeInfo) {
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
