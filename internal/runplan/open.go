package runplan

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apeval/apeval/internal/config"
	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/judge/cache"
	"github.com/apeval/apeval/reports/rundir"
)

// Judges are the judges of one run, opened (State.OpenJudges): each under
// its own settings, told apart by server, under the budget and wrapped in
// the response cache. Close closes them and then the cache.
type Judges struct {
	List    []judge.Judge
	closers []func()
}

// Close closes the judges and then the cache, in the reverse order of
// opening. It may be called on a nil *Judges.
func (js *Judges) Close() {
	if js == nil {
		return
	}
	for i := len(js.closers) - 1; i >= 0; i-- {
		js.closers[i]()
	}
	js.closers = nil
}

// IDs are the judges' identities, in order.
func (js *Judges) IDs() []string {
	var ids []string
	for _, j := range js.List {
		ids = append(ids, j.Identity().String())
	}
	return ids
}

// Infos are the judges as run.json lists them (JudgeInfo).
func (js *Judges) Infos() []rundir.JudgeInfo {
	var infos []rundir.JudgeInfo
	for _, j := range js.List {
		infos = append(infos, JudgeInfo(j))
	}
	return infos
}

// JudgeInfo is j as run.json lists it: its identity and, for a backend
// that describes itself, its details, masked (run.json is a file that
// leaves apeval: an option such as --judge-option api_key=… is a secret).
func JudgeInfo(j judge.Judge) rundir.JudgeInfo {
	id := j.Identity()
	ji := rundir.JudgeInfo{
		Identity:      id.String(),
		Backend:       id.Backend,
		Model:         id.Model,
		Digest:        id.Digest,
		PromptVersion: id.PromptVersion,
	}
	if d, ok := j.(judge.Describer); ok {
		ji.Details = map[string]string{}
		for k, v := range d.Details() {
			ji.Details[k] = mask.String(v)
		}
	}
	return ji
}

// OpenJudges opens the judges of entries, each under its own settings
// (cfg is the configuration shared by all, with the command's log and
// environment; an entry's server, key variable, prompt and options win):
// a backend that checks its server at startup (an unreachable server, a
// refused key) fails here, not on every call. Two judges of one model and
// prompt on two servers are told apart by their server (judge.TellApart);
// on one server they are an error. Then each live judge goes under the
// budget (its prices kept for run.json; --budget-usd needs them) and into
// the response cache (--cache, else the user cache directory; not with
// --no-cache). warn receives the cache's warning (a damaged cache moved
// aside). Every error names the flag; on error nothing stays open.
func (s *State) OpenJudges(ctx context.Context, entries []config.JudgeEntry, cfg judge.Config, warn func(string)) (_ *Judges, err error) {
	p := s.Plan
	cfg.Quiet = p.Quiet
	js := &Judges{}
	defer func() {
		if err != nil {
			js.Close()
		}
	}()
	// Open every judge first: two of one model and prompt on two servers
	// are told apart by their server before anything keys on identities.
	d := p.Judge.Defaults()
	var (
		opened  []judge.Judge
		specs   []string
		servers []string // the effective server URL, "" for none
		prices  []config.Prices
	)
	for _, e := range entries {
		spec := e.Display()
		jcfg := e.Config(cfg)
		opts, pr, err := d.OptionsFor(e)
		if err != nil {
			return nil, err
		}
		jcfg.Options = opts
		j, err := judge.Open(ctx, e.Spec, jcfg)
		if err != nil {
			return nil, fmt.Errorf("--judge %s: %v", spec, err)
		}
		if c, ok := j.(interface{ Close() error }); ok {
			js.closers = append(js.closers, func() { _ = c.Close() })
		}
		if sc, ok := j.(judge.StartupChecker); ok {
			if err := sc.StartupCheck(ctx); err != nil {
				return nil, fmt.Errorf("--judge %s: %v", spec, err)
			}
		}
		opened, specs = append(opened, j), append(specs, spec)
		servers, prices = append(servers, d.Effective(e).BaseURL), append(prices, pr)
	}
	if err := judge.TellApart(opened, servers); err != nil {
		var same *judge.SameJudge
		if errors.As(err, &same) {
			return nil, fmt.Errorf("--judge %s and --judge %s are the same judge (%s) on the same server: give one another model, prompt or server", specs[same.First], specs[same.Second], same.Identity)
		}
		return nil, err
	}
	var store *cache.Cache
	for i, j := range opened {
		if j, err = s.Limit(j, specs[i], prices[i]); err != nil {
			return nil, err
		}
		if judge.IsLive(j) && !p.NoCache {
			if store == nil {
				if store, err = openCache(p.CacheDir, warn); err != nil {
					return nil, err
				}
				// Closed after the judges (closers run in reverse order).
				c := store
				js.closers = append([]func(){func() { _ = c.Close() }}, js.closers...)
			}
			j = cache.Cached(j, store)
		}
		js.List = append(js.List, j)
	}
	return js, nil
}

// openCache opens the response cache in dir, else in the user cache
// directory; warn receives its warning.
func openCache(dir string, warn func(string)) (*cache.Cache, error) {
	if dir == "" {
		d, err := cache.DefaultDir()
		if err != nil {
			return nil, fmt.Errorf("no user cache directory (%v): pass --cache DIR or --no-cache", err)
		}
		dir = d
	}
	c, err := cache.Open(dir)
	if err != nil {
		if strings.Contains(err.Error(), "--no-cache") {
			return nil, fmt.Errorf("--cache %s: %v", dir, err)
		}
		return nil, fmt.Errorf("--cache %s: %v (use --no-cache to run without one)", dir, err)
	}
	if w := c.Warning(); w != "" && warn != nil {
		warn(w)
	}
	return c, nil
}
