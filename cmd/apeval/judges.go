package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/apeval/apeval/internal/config"
	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/internal/runplan"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/reports"
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
	cfg.Log = mask.Writer(io.Err, "apeval: ")
	cfg.Getenv = io.Getenv
	return cfg
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
