package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/apeval/apeval/internal/config"
	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/internal/runplan"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/judge/cache"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/rundir"
)

// registerJudgeFlags defines the live judge backends' flags (run, replay
// and judges check; runplan.JudgeFlags).
func registerJudgeFlags(fs *pflag.FlagSet, f *runplan.JudgeFlags) {
	fs.StringVar(&f.OllamaHost, "ollama-host", "", "Ollama server URL (default $OLLAMA_HOST, else http://127.0.0.1:11434)")
	fs.StringVar(&f.OpenAIBaseURL, "openai-base-url", "", "OpenAI-compatible API base URL, e.g. http://localhost:8000/v1 (default https://api.openai.com/v1)")
	fs.StringVar(&f.OpenAIKeyEnv, "openai-api-key-env", "OPENAI_API_KEY", "name of the environment variable holding the OpenAI-compatible API key")
	fs.StringArrayVar(&f.Options, "judge-option", nil, "backend option `key=value` (e.g. temperature=0.2, num_ctx=4096, keep_alive=5m); repeatable")
	fs.StringVar(&f.Prompt, "prompt", "", "prompt template file to evaluate instead of the built-in one (its hash becomes the prompt version)")
	fs.IntVar(&f.Retries, "retries", 0, "retries of a judge call that timed out or failed in transport / HTTP 429 / 5xx")
	fs.Int64Var(&f.MaxResponse, "max-response-bytes", judge.DefaultMaxResponseBytes, "largest judge response body or exec plugin line read; a larger one counts as invalid")
}

// judgeConfig is f's judge configuration with the command's streams: the
// judges' warnings go to stderr, prefixed and masked.
func judgeConfig(f *runplan.JudgeFlags, timeout time.Duration, concurrency int, io IO) judge.Config {
	cfg := f.Config(timeout, concurrency)
	cfg.Log = prefixWriter{w: io.Err, prefix: "apeval: "}
	cfg.Getenv = io.Getenv
	return cfg
}

// openJudges opens every judge, each under its own settings, and wraps
// live ones in the response cache.
func openJudges(ctx context.Context, entries []config.JudgeEntry, st *runplan.State, io IO) ([]judge.Judge, func(), error) {
	o := st.Plan
	cfg := judgeConfig(&o.Judge, o.Timeout, o.Concurrency, io)
	cfg.Quiet = o.Quiet
	var (
		out     []judge.Judge
		closers []func()
		store   *cache.Cache
	)
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	// Open every judge first: two of one model and prompt on two servers
	// are told apart by their server before anything keys on identities.
	type opened struct {
		j      judge.Judge
		spec   string
		server string // the effective server URL, "" for none
		prices config.Prices
	}
	var all []opened
	for _, e := range entries {
		spec := e.Display()
		jcfg := e.Config(cfg)
		opts, prices, err := o.Judge.Defaults().OptionsFor(e)
		if err != nil {
			closeAll()
			return nil, nil, usageError{err}
		}
		jcfg.Options = opts
		j, err := judge.Open(ctx, e.Spec, jcfg)
		if err != nil {
			closeAll()
			return nil, nil, usagef("--judge %s: %v", spec, err)
		}
		if c, ok := j.(interface{ Close() error }); ok {
			closers = append(closers, func() { _ = c.Close() })
		}
		if oa, ok := j.(judge.StartupChecker); ok {
			// Like Ollama's model lookup: an unreachable server or a refused
			// key fails here, not on every call.
			if err := oa.StartupCheck(ctx); err != nil {
				closeAll()
				return nil, nil, usagef("--judge %s: %v", spec, err)
			}
		}
		all = append(all, opened{j: j, spec: spec, server: o.Judge.Defaults().Effective(e).BaseURL, prices: prices})
	}
	js, servers := make([]judge.Judge, len(all)), make([]string, len(all))
	for i, x := range all {
		js[i], servers[i] = x.j, x.server
	}
	if err := judge.TellApart(js, servers); err != nil {
		closeAll()
		var same *judge.SameJudge
		if errors.As(err, &same) {
			return nil, nil, usagef("--judge %s and --judge %s are the same judge (%s) on the same server: give one another model, prompt or server", all[same.First].spec, all[same.Second].spec, same.Identity)
		}
		return nil, nil, err
	}
	for i := range all {
		all[i].j = js[i]
	}
	for _, x := range all {
		j, spec, prices := x.j, x.spec, x.prices
		var err error
		if j, err = st.Limit(j, spec, prices); err != nil {
			closeAll()
			return nil, nil, usageError{err}
		}
		if judge.IsLive(j) && !o.NoCache {
			if store == nil {
				dir := o.CacheDir
				if dir == "" {
					d, err := cache.DefaultDir()
					if err != nil {
						closeAll()
						return nil, nil, usagef("no user cache directory (%v): pass --cache DIR or --no-cache", err)
					}
					dir = d
				}
				c, err := cache.Open(dir)
				if err != nil {
					closeAll()
					if strings.Contains(err.Error(), "--no-cache") {
						return nil, nil, usagef("--cache %s: %v", dir, err)
					}
					return nil, nil, usagef("--cache %s: %v (use --no-cache to run without one)", dir, err)
				}
				if w := c.Warning(); w != "" {
					fmt.Fprintf(io.Err, "apeval: cache: %s\n", w)
				}
				store = c
				// Closed after the judges (closers run in reverse order).
				closers = append([]func(){func() { _ = c.Close() }}, closers...)
			}
			j = cache.Cached(j, store)
		}
		out = append(out, j)
	}
	return out, closeAll, nil
}

func judgeInfo(j judge.Judge) rundir.JudgeInfo {
	id := j.Identity()
	ji := rundir.JudgeInfo{
		Identity:      id.String(),
		Backend:       id.Backend,
		Model:         id.Model,
		Digest:        id.Digest,
		PromptVersion: id.PromptVersion,
	}
	if d, ok := j.(judge.Describer); ok {
		// run.json is a file that leaves apeval: details (options such as
		// --judge-option api_key=…) go through the masking pass too.
		ji.Details = map[string]string{}
		for k, v := range d.Details() {
			ji.Details[k] = mask.String(v)
		}
	}
	return ji
}

func newJudgesCmd(io IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "judges",
		Short: "Check judge backends",
	}
	cmd.AddCommand(newJudgesCheckCmd(io, nil))
	return cmd
}

// judgesCheckOptions are the options of `apeval judges check`.
type judgesCheckOptions struct {
	Judge   runplan.JudgeFlags
	Timeout time.Duration
	JSON    bool
	Specs   []string // the judge specs (arguments)
}

// newJudgesCheckCmd is `apeval judges check`; runF is runJudgesCheck unless
// a test passes its own.
func newJudgesCheckCmd(io IO, runF func(context.Context, *judgesCheckOptions, IO) error) *cobra.Command {
	if runF == nil {
		runF = runJudgesCheck
	}
	o := &judgesCheckOptions{}
	check := &cobra.Command{
		Use:   "check SPEC...",
		Short: "Check that judges are reachable, the model is present, and one sample call works",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("judges check needs at least one judge spec, e.g. ollama:qwen2.5:3b")
			}
			if err := o.Judge.Validate(); err != nil {
				return usageError{err}
			}
			o.Specs = args
			return runF(cmd.Context(), o, io)
		},
	}
	registerJudgeFlags(check.Flags(), &o.Judge)
	check.Flags().DurationVar(&o.Timeout, "timeout", 30*time.Second, "deadline of each check call")
	check.Flags().BoolVar(&o.JSON, "json", false, "print the reports as JSON")
	return check
}

// runJudgesCheck is `apeval judges check` with checked options.
func runJudgesCheck(ctx context.Context, o *judgesCheckOptions, io IO) error {
	cfg := judgeConfig(&o.Judge, o.Timeout, 1, io)
	var rep []judge.CheckReport
	ok := true
	for _, arg := range o.Specs {
		e, err := config.ParseJudgeFlag(arg)
		if err != nil {
			return err
		}
		r := judge.Check(ctx, e.Spec, e.Config(cfg)).Masked()
		rep = append(rep, r)
		ok = ok && r.OK()
	}
	if err := reports.RenderChecks(io.Out, rep, checksFormat(o.JSON, io)); err != nil {
		return err
	}
	if !ok {
		return exitCodeError{1}
	}
	return nil
}

func checksFormat(asJSON bool, io IO) reports.Format {
	if asJSON {
		return reports.FormatJSON
	}
	return outputFormat("", io.Out)
}

// prefixWriter prefixes every write (one log line) for the judges' warnings.
type prefixWriter struct {
	w      interface{ Write([]byte) (int, error) }
	prefix string
}

// Every line goes through the masking pass: warnings quote URLs, commands
// and servers' messages.
func (p prefixWriter) Write(b []byte) (int, error) {
	if _, err := fmt.Fprintf(p.w, "%s%s", p.prefix, mask.Lines(string(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}
