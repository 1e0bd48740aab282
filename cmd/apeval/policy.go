package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/datasets/source"
	"github.com/apeval/apeval/internal/outfile"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/replay/automode"
	"github.com/apeval/apeval/reports"
)

func newPolicyCmd(io IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Policies from an agent's own gate: import auto-mode rule sets",
	}
	cmd.AddCommand(newPolicyImportCmd(io, nil), newPolicyCoverageCmd(io, nil))
	return cmd
}

type policyImportOptions struct {
	From     string
	Out      string
	Defaults string
	Summary  string
	Rules    string
	Settings []string // the arguments
}

// newPolicyImportCmd is `apeval policy import`; runF is runPolicyImport
// unless a test passes its own.
func newPolicyImportCmd(io IO, runF func(context.Context, *policyImportOptions, IO) error) *cobra.Command {
	if runF == nil {
		runF = runPolicyImport
	}
	o := &policyImportOptions{}
	cmd := &cobra.Command{
		Use:   "import --from claude-auto-mode|codex-auto-review SETTINGS...",
		Short: "Write an apeval policy from Claude Code auto-mode or Codex auto-review settings",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("policy import: give at least one settings file")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Settings = args
			return runF(cmd.Context(), o, io)
		},
	}
	f := cmd.Flags()
	enumVar(f, &o.From, "from", "", automode.Formats, func(v string) error {
		for _, p := range automode.Formats {
			if v == p {
				return nil
			}
		}
		return usagef("--from %q: want one of %s", v, strings.Join(automode.Formats, ", "))
	}, "settings format: "+strings.Join(automode.Formats, ", "))
	f.StringVarP(&o.Out, "out", "o", "-", "policy file to write (- for stdout)")
	f.StringVar(&o.Defaults, "defaults", "", "built-in lists to splice for $defaults (claude auto-mode defaults output; default: apeval's versioned copy)")
	f.StringVar(&o.Summary, "summary", "", "write the import summary as JSON to this file")
	enumVar(f, &o.Rules, "rules", automode.RulesBoth, automode.RuleSets, func(v string) error {
		if !slices.Contains(automode.RuleSets, v) {
			return usagef("--rules %q: want one of %s", v, strings.Join(automode.RuleSets, ", "))
		}
		return nil
	},
		"rules to write: both, entries (one per hard_deny/soft_deny entry, or per forbidden execpolicy rule, for a verdict per rule), classifier (only claude-auto-mode or codex-auto-review, to compare a judge with the vendor's recorded decisions)")
	return cmd
}

// runPolicyImport is `apeval policy import` with parsed options.
func runPolicyImport(_ context.Context, o *policyImportOptions, io IO) error {
	if o.From == "" {
		return usagef("policy import: --from is required (one of %s)", strings.Join(automode.Formats, ", "))
	}
	var buf bytes.Buffer
	sum, err := automode.ImportFrom(o.From, o.Settings, o.Defaults, o.Rules, &buf)
	if err != nil {
		return usageError{fmt.Errorf("policy import: %w", err)}
	}
	if o.Out == "-" {
		if _, err := io.Out.Write(buf.Bytes()); err != nil {
			return err
		}
	} else if err := outfile.Bytes(o.Out, buf.Bytes()); err != nil {
		return usageError{err}
	}
	switch s := sum.(type) {
	case *automode.Summary:
		reports.WritePolicySummary(io.Err, s, o.Out)
	case *automode.CodexSummary:
		reports.WriteCodexSummary(io.Err, s, o.Out)
	}
	if o.Summary != "" {
		return outfile.JSON(o.Summary, sum)
	}
	return nil
}

type policyCoverageOptions struct {
	Policy   string
	Datasets []string
	JSON     bool
	List     bool
}

// newPolicyCoverageCmd is `apeval policy coverage`; runF is
// runPolicyCoverage unless a test passes its own.
func newPolicyCoverageCmd(io IO, runF func(context.Context, *policyCoverageOptions, IO) error) *cobra.Command {
	if runF == nil {
		runF = runPolicyCoverage
	}
	o := &policyCoverageOptions{}
	cmd := &cobra.Command{
		Use:   "coverage --policy POLICY --dataset FILE...",
		Short: "How many calls reach the vendor's classifier, per tool and category",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runF(cmd.Context(), o, io)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Policy, "policy", "p", "", "policy written by apeval policy import (required)")
	f.StringArrayVarP(&o.Datasets, "dataset", "d", nil, "cases file (repeatable; - for stdin)")
	f.BoolVar(&o.JSON, "json", false, "print the counts as JSON")
	f.BoolVar(&o.List, "list", false, "list the calls the classifier never saw")
	return cmd
}

func runPolicyCoverage(_ context.Context, o *policyCoverageOptions, io IO) error {
	if o.Policy == "" || len(o.Datasets) == 0 {
		return usagef("policy coverage: --policy and --dataset are required")
	}
	pol, err := replay.LoadPolicy(o.Policy)
	if err != nil {
		return usageError{err}
	}
	cv, ok := automode.NewCoverage(pol)
	if !ok {
		return usagef("policy coverage: %s has no rule %s or %s (write it with apeval policy import --from claude-auto-mode or codex-auto-review)", o.Policy, automode.AggregateRuleID, automode.CodexRuleID)
	}
	bad, err := cv.Count(pol, source.OpenReader(o.Datasets, io.In), func(err error) { fmt.Fprintln(io.Err, err) })
	if err != nil {
		return usageError{err}
	}
	if o.JSON {
		if !o.List {
			cv.NotReached = nil
		}
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(cv); err != nil {
			return err
		}
	} else {
		reports.WriteCoverage(io.Out, cv, o.List)
	}
	if bad > 0 {
		return usagef("policy coverage: %d unreadable lines (the counts above leave them out)", bad)
	}
	return nil
}
