package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/datasets/importers"
	"github.com/apeval/apeval/internal/outfile"
	"github.com/apeval/apeval/reports"
)

// importOptions are the options of `apeval datasets import`.
type importOptions struct {
	from, out, summary, ruleID, workspace, policy string
	noMask                                        bool
	sources                                       []string // the arguments
}

// newImportCmd is `apeval datasets import`; runF is runImport unless a
// test passes its own. --from is checked when the command line is parsed.
func newImportCmd(io IO, runF func(context.Context, *importOptions, IO) error) *cobra.Command {
	if runF == nil {
		runF = runImport
	}
	o := &importOptions{}
	cmd := &cobra.Command{
		Use:   "import [--from FORMAT] SOURCE...",
		Short: "Turn agent logs (Claude Code, Codex, Gemini CLI, OpenCode, OpenTelemetry, R-Judge, trajectory events) into cases",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.sources = args
			return runF(cmd.Context(), o, io)
		},
	}
	f := cmd.Flags()
	enumVar(f, &o.from, "from", importers.Auto, []string{"FORMAT"}, func(v string) error {
		if err := importers.CheckFormat(v); err != nil {
			return usageError{err}
		}
		return nil
	}, "source format: auto (told from the first records), "+strings.Join(importers.Formats(), ", "))
	f.StringVarP(&o.out, "out", "o", "-", "cases file to write (- for stdout)")
	f.StringVar(&o.summary, "summary", "", "write the per-source summary as JSON to this file")
	f.BoolVar(&o.noMask, "no-mask", false, "keep secrets in arguments and messages (masked by default)")
	f.StringVar(&o.ruleID, "rule-id", importers.DefaultRuleID, "rule ID that R-Judge labels are written under")
	f.StringVar(&o.workspace, "workspace", "", "the calls' workspace where the log records none (codex-exec-json, gemini-cli, opencode-run-json, trajectory-events)")
	f.StringVar(&o.policy, "policy", "", "policy whose [categories] table classifies tools")
	return cmd
}

// runImport is `apeval datasets import` with parsed options.
func runImport(ctx context.Context, o *importOptions, io IO) error {
	sources := o.sources
	opt := importers.Options{NoMask: o.noMask, RuleID: o.ruleID, Workspace: o.workspace, Stdin: &stopReader{ctx: ctx, r: io.In}}
	if o.policy != "" {
		pol, _, err := loadPolicy(o.policy)
		if err != nil {
			return err
		}
		if len(pol.Categories) > 0 {
			opt.Categories = datasets.CategoryMap(pol.Categories)
		}
	}
	var sum *importers.Summary
	err := outfile.WriteCases(o.out, io.Out, func(emit func(*datasets.Case) error) error {
		var err error
		// Ctrl-C: stdin ends there (stopReader), so the cases read so far
		// come out whole; files stop at the next case.
		fromStdin := len(sources) == 1 && sources[0] == "-"
		sum, err = importers.Import(o.from, sources, opt, func(c *datasets.Case) error {
			if !fromStdin && ctx.Err() != nil {
				return errImportStopped
			}
			return emit(c)
		}, func(msg string) { fmt.Fprintln(io.Err, msg) })
		if ctx.Err() != nil && (err == nil || errors.Is(err, errImportStopped)) {
			// The cases imported so far are written, whole lines
			// (atomically to a file), and the stop is said below.
			return nil
		}
		return err
	})
	if ctx.Err() != nil && sum != nil {
		reports.WriteImportSummary(io.Err, sum)
		fmt.Fprintf(io.Err, "apeval: interrupted; the %d cases imported so far are in %s (the import did not reach the end of its sources: run it again for all)\n", sum.Cases, outName(o.out))
		return exitCodeError{exitInterrupted}
	}
	if sum == nil {
		return usageError{err}
	}
	reports.WriteImportFound(io.Err, sum)
	if sum.Detected != "" {
		fmt.Fprintf(io.Err, "datasets import: format %s (detected from %s; --from %s to choose it)\n", sum.Format, sum.Detected, sum.Format)
	}
	reports.WriteImportSummary(io.Err, sum)
	if o.summary != "" {
		if serr := outfile.JSON(o.summary, sum); serr != nil && err == nil {
			err = serr
		}
	}
	if err != nil {
		return usageError{err}
	}
	if sum.Errors > 0 {
		return exitCodeError{exitUsage}
	}
	return nil
}

// errImportStopped ends an import on Ctrl-C.
var errImportStopped = errors.New("the import was interrupted")

// stopReader is r (stdin) that ends (io.EOF) once ctx is done, also while
// a Read waits for input that may never come (a pipe whose writer stays
// open, tail -f): that Read goes on in a goroutine the stopping process
// leaves behind. Without it Ctrl-C did nothing until the input ended. An
// end, not an error, so that the importer writes out every case it read.
type stopReader struct {
	ctx context.Context
	r   io.Reader
}

func (s *stopReader) Read(p []byte) (int, error) {
	if s.ctx.Err() != nil {
		return 0, io.EOF
	}
	type result struct {
		n   int
		err error
	}
	buf := make([]byte, len(p))
	done := make(chan result, 1)
	go func() {
		n, err := s.r.Read(buf)
		done <- result{n, err}
	}()
	select {
	case r := <-done:
		return copy(p, buf[:r.n]), r.err
	case <-s.ctx.Done():
		return 0, io.EOF
	}
}

// outName is where --out put the cases, for messages.
func outName(out string) string {
	if outfile.ToStdout(out) {
		return "stdout"
	}
	return out
}
