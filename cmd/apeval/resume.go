package main

import (
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/config"
	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/reports/rundir"
)

// applyResume reads DIR's run.json and takes its resolved settings for
// every setting the command line left unset (they replace apeval.toml's:
// DIR was made from it), so the new run replays the same dataset through
// the same judges. It counts DIR's failed calls.
func (o *runOptions) applyResume(cmd *cobra.Command) error {
	if o.Resume == "" {
		return nil
	}
	if o.NoCache {
		return usagef("--resume re-sends only the calls that failed in %s by answering every other call from the cache: it cannot run with --no-cache", o.Resume)
	}
	rs, err := rundir.OpenResume(o.Resume)
	if err != nil {
		return usagef("--resume %s: %v", o.Resume, err)
	}
	info, s := rs.Info, rs.Info.Settings
	unset := func(name string) bool { return !cmd.Flags().Changed(name) }
	if unset("dataset") {
		o.Datasets = nil
		for _, d := range s.Datasets {
			if d == datasets.SampleName {
				continue // the embedded sample: no --dataset
			}
			o.Datasets = append(o.Datasets, d)
		}
	}
	if unset("policy") {
		o.Policy = s.Policy
		if strings.HasPrefix(s.Policy, "sample:") {
			o.Policy = ""
		}
	}
	if unset("criteria") {
		o.Criteria = s.Criteria
	}
	if unset("baseline") && s.Baseline != "" {
		o.Baseline, o.baselineFromConfig = s.Baseline, false
	}
	if unset("concurrency") && s.Concurrency > 0 {
		o.Concurrency = s.Concurrency
	}
	if unset("timeout") && s.Timeout > 0 {
		o.Timeout = time.Duration(s.Timeout)
	}
	if unset("weak-labels") {
		o.WeakLabels = info.LabelSource == datasets.LabelSourceWeak
	}
	if unset("inconclusive") {
		o.Inconclusive = s.Inconclusive
	}
	if unset("repeat") && s.Repeat > 0 {
		o.Repeat.Repeat = s.Repeat
	}
	if unset("shuffle-rules") {
		o.Repeat.ShuffleRules = s.ShuffleRules
	}
	if unset("seed") && s.ShuffleSeed != nil {
		o.Filter.Seed = *s.ShuffleSeed
	}
	if unset("batch-size") {
		o.Repeat.BatchSize = s.BatchSize
	}
	if unset("judge") && len(s.Judges) > 0 {
		// The judges' servers and key variables come from this
		// invocation's flags and apeval.toml, never from DIR: a run
		// directory travels (CI artifacts) and an edited run.json must not
		// send a key to a server of its choosing.
		mine := o.fileJudges
		o.fileJudges, o.judgesFromFile = nil, true
		for i, d := range s.Judges {
			e, err := config.ParseJudgeFlag(d)
			if err != nil {
				return usagef("--resume %s: judge %s: %v", o.Resume, d, err)
			}
			if strings.Contains(e.Spec, mask.Masked) {
				// run.json shows a secret typed into the spec masked (an
				// exec command's --token …): the judge cannot be reopened
				// from it.
				return usagef("--resume %s: judge %s is recorded masked (its spec held a secret): give the judges again with --judge", o.Resume, d)
			}
			e.Options = s.JudgeOptions[d]
			recorded := e // the server and key variable DIR names
			if i < len(s.JudgeEntries) && s.JudgeEntries[i].Spec == e.Spec {
				je := s.JudgeEntries[i]
				recorded.BaseURL, recorded.KeyEnv, e.Prompt = je.BaseURL, je.APIKeyEnv, je.Prompt
			}
			own := config.JudgeEntry{Spec: e.Spec}
			for _, f := range mine {
				if f.Spec == e.Spec {
					own = f
					break
				}
			}
			if err := o.sameServer(recorded, own); err != nil {
				return err
			}
			e.BaseURL, e.KeyEnv = own.BaseURL, own.KeyEnv
			o.fileJudges = append(o.fileJudges, e)
		}
	}
	if unset("retries") && s.Retries > 0 {
		o.Judge.Retries = s.Retries
	}
	if f := info.Filter; f != nil && !o.Filter.active() {
		o.Filter.Rules, o.Filter.Tags, o.Filter.Limit, o.Filter.Sample, o.Filter.Slice = f.Rules, f.Tags, f.Limit, f.Sample, f.Slice
		if f.Seed != nil {
			o.Filter.Seed = *f.Seed
		}
	}
	o.resume = rs
	return nil
}

// sameServer refuses a resume whose run.json names another server or key
// variable for a judge than this invocation (its flags and apeval.toml)
// gives it, naming the difference. run.json holds the URL masked, so the
// masked forms are compared.
func (o *runOptions) sameServer(recorded, own config.JudgeEntry) error {
	rec, inv := o.Judge.defaults().Effective(recorded), o.Judge.defaults().Effective(own)
	flag := "--openai-base-url"
	if strings.HasPrefix(own.Spec, "ollama:") {
		flag = "--ollama-host"
	}
	show := func(u string) string {
		if u == "" {
			return "the default"
		}
		return config.MaskURL(u)
	}
	if config.MaskURL(rec.BaseURL) != config.MaskURL(inv.BaseURL) {
		return usagef("--resume %s: its run.json names the server %s for judge %s, this invocation %s (%s or apeval.toml); a resumed run sends only to the servers you give: give the same server again, or start a new run",
			o.Resume, show(rec.BaseURL), own.Spec, show(inv.BaseURL), flag)
	}
	if rec.KeyEnv != inv.KeyEnv {
		name := func(v string) string {
			if v == "" {
				return "OPENAI_API_KEY"
			}
			return v
		}
		return usagef("--resume %s: its run.json names the key variable %s for judge %s, this invocation %s (--openai-api-key-env or apeval.toml); a resumed run sends only the keys you name: give the same variable again, or start a new run",
			o.Resume, name(rec.KeyEnv), own.Spec, name(inv.KeyEnv))
	}
	return nil
}
