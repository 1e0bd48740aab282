package runplan

import (
	"fmt"
	"strings"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/config"
	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/reports/rundir"
)

// applyResume reads DIR's run.json and takes its resolved settings for
// every setting the command line left unset (they replace apeval.toml's:
// DIR was made from it), so the new run replays the same dataset through
// the same judges. It counts DIR's failed calls.
func (p *Plan) applyResume(given func(string) bool) error {
	if p.Options.Resume == "" {
		return nil
	}
	if p.NoCache {
		return fmt.Errorf("--resume re-sends only the calls that failed in %s by answering every other call from the cache: it cannot run with --no-cache", p.Options.Resume)
	}
	rs, err := rundir.OpenResume(p.Options.Resume)
	if err != nil {
		return fmt.Errorf("--resume %s: %v", p.Options.Resume, err)
	}
	info, s := rs.Info, rs.Info.Settings
	unset := func(name string) bool { return !given(name) }
	if unset("dataset") {
		p.Datasets = nil
		for _, d := range s.Datasets {
			if d == datasets.SampleName {
				continue // the embedded sample: no --dataset
			}
			p.Datasets = append(p.Datasets, d)
		}
	}
	if unset("policy") {
		p.Policy = s.Policy
		if strings.HasPrefix(s.Policy, "sample:") {
			p.Policy = ""
		}
	}
	if unset("criteria") {
		p.Criteria = s.Criteria
	}
	if unset("baseline") && s.Baseline != "" {
		p.Baseline, p.BaselineFromConfig = s.Baseline, false
	}
	if unset("concurrency") && s.Concurrency > 0 {
		p.Concurrency = s.Concurrency
	}
	if unset("timeout") && s.Timeout > 0 {
		p.Timeout = time.Duration(s.Timeout)
	}
	if unset("weak-labels") {
		p.WeakLabels = info.LabelSource == datasets.LabelSourceWeak
	}
	if unset("inconclusive") {
		p.Inconclusive = s.Inconclusive
	}
	if unset("repeat") && s.Repeat > 0 {
		p.Repeat.Repeat = s.Repeat
	}
	if unset("shuffle-rules") {
		p.Repeat.ShuffleRules = s.ShuffleRules
	}
	if unset("seed") && s.ShuffleSeed != nil {
		p.Filter.Seed = *s.ShuffleSeed
	}
	if unset("batch-size") {
		p.Repeat.BatchSize = s.BatchSize
	}
	if unset("judge") && len(s.Judges) > 0 {
		// The judges' servers and key variables come from this
		// invocation's flags and apeval.toml, never from DIR: a run
		// directory travels (CI artifacts) and an edited run.json must not
		// send a key to a server of its choosing.
		mine := p.FileJudges
		p.FileJudges, p.JudgesFromFile = nil, true
		for i, d := range s.Judges {
			e, err := config.ParseJudgeFlag(d)
			if err != nil {
				return fmt.Errorf("--resume %s: judge %s: %v", p.Options.Resume, d, err)
			}
			if strings.Contains(e.Spec, mask.Masked) {
				// run.json shows a secret typed into the spec masked (an
				// exec command's --token …): the judge cannot be reopened
				// from it.
				return fmt.Errorf("--resume %s: judge %s is recorded masked (its spec held a secret): give the judges again with --judge", p.Options.Resume, d)
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
			if err := p.sameServer(recorded, own); err != nil {
				return err
			}
			e.BaseURL, e.KeyEnv = own.BaseURL, own.KeyEnv
			p.FileJudges = append(p.FileJudges, e)
		}
	}
	if unset("retries") && s.Retries > 0 {
		p.Judge.Retries = s.Retries
	}
	if f := info.Filter; f != nil && !p.Filter.Active() {
		p.Filter.Rules, p.Filter.Tags, p.Filter.Limit, p.Filter.Sample, p.Filter.Slice = f.Rules, f.Tags, f.Limit, f.Sample, f.Slice
		if f.Seed != nil {
			p.Filter.Seed = *f.Seed
		}
	}
	p.Resuming = rs
	return nil
}

// sameServer refuses a resume whose run.json names another server or key
// variable for a judge than this invocation (its flags and apeval.toml)
// gives it, naming the difference. run.json holds the URL masked, so the
// masked forms are compared.
func (p *Plan) sameServer(recorded, own config.JudgeEntry) error {
	d := p.Judge.Defaults()
	rec, inv := d.Effective(recorded), d.Effective(own)
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
		return fmt.Errorf("--resume %s: its run.json names the server %s for judge %s, this invocation %s (%s or apeval.toml); a resumed run sends only to the servers you give: give the same server again, or start a new run",
			p.Options.Resume, show(rec.BaseURL), own.Spec, show(inv.BaseURL), flag)
	}
	if rec.KeyEnv != inv.KeyEnv {
		name := func(v string) string {
			if v == "" {
				return "OPENAI_API_KEY"
			}
			return v
		}
		return fmt.Errorf("--resume %s: its run.json names the key variable %s for judge %s, this invocation %s (--openai-api-key-env or apeval.toml); a resumed run sends only the keys you name: give the same variable again, or start a new run",
			p.Options.Resume, name(rec.KeyEnv), own.Spec, name(inv.KeyEnv))
	}
	return nil
}
