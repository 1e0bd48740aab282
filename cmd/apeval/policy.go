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
		Long: `apeval policy turns the rule sets an agent's own LLM gate runs with into an
apeval policy, so that gate's rules are evaluated on your sessions like any
other (docs/vendor-judges.md).`,
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
		Long: `Reads Claude Code settings files and writes the apeval policy their auto mode
runs with: one rule per autoMode.hard_deny entry (blocks whatever the user
asked) and per soft_deny entry (blocks unless an allow exception or the user's
explicit request clears it; the allow and environment entries are part of its
condition), plus the rule claude-auto-mode, the classifier's whole decision,
which the vendor's recorded decisions answer (--rules entries or classifier
writes only one kind). Every rule names the FILE:LINE of each entry it was made
of.

SETTINGS are KIND:PATH or PATH, KIND one of managed, flag (--settings), local,
project, user; a bare PATH's kind is told from its name (managed-settings.json,
settings.local.json, .claude/settings.json in your home directory = user,
another .claude/settings.json = project). The lists of every file are added up,
highest precedence first (managed, flag, local, user). Claude Code does not
read autoMode from shared project settings: those entries are skipped with a
warning (their permissions rules are kept). "$defaults" splices the built-in
list in; a list set without it replaces the built-in list; a list no file sets
keeps it. The built-in lists come from a versioned copy whose source the policy
header names; --defaults takes the exact lists of your version
(claude auto-mode defaults > defaults.json).

Auto mode's tiering becomes a deterministic precondition of every rule
([[rule.when.unless]]): read-only tools, edits inside the working directory,
read-only shell commands (unless classifyAllShell) and calls a narrow
permissions.allow rule grants never reach the classifier, in the replay as in
the agent. The files' permissions rules are imported as [permissions].

Unknown autoMode keys, skipped and repeated entries are warnings on stderr
with counts; a file that is not JSON or a rule that is not a string is exit 2
naming FILE:LINE and the key, and nothing is written.

--from codex-auto-review reads Codex's files instead (KIND:PATH or PATH, KIND
one of managed = requirements.toml, project = a project's .codex/config.toml,
user = ~/.codex/config.toml, rules = an execpolicy .rules file; a bare PATH's
kind is told from its name). Each execpolicy prefix_rule with decision
forbidden becomes a deterministic rule (Codex rejects the command without
review); the rule codex-auto-review is the reviewer's whole decision, which
recorded codex-auto-review@VERSION decisions answer: its condition is the
reviewer's policy (managed guardian_policy_config over [auto_review].policy
over Codex's built-in policy, paraphrased; guardian_extra_policy or
[auto_review].extra_policy added), and its [[rule.when.unless]] take out what
never reaches the reviewer (commands an allow rule covers, forbidden ones).
Prompt rules are listed under it (they always reach the reviewer). A setting
that sends approvals to a person (approvals_reviewer unset or user) or asks
for none (approval_policy = never) is a warning; an unknown [auto_review] key
warns; a file that is not TOML, a policy that is not a string or a broken
rules file is exit 2 naming FILE:LINE.`,
		Example: `  apeval policy import --from claude-auto-mode ~/.claude/settings.json .claude/settings.local.json \
    /etc/claude-code/managed-settings.json --out auto-mode.toml
  claude auto-mode defaults > defaults-2.1.json
  apeval policy import --from claude-auto-mode --defaults defaults-2.1.json user:settings.json
  apeval run --dataset cases.jsonl --policy auto-mode.toml --judge ollama:qwen2.5:3b
  apeval policy import --from codex-auto-review ~/.codex/config.toml .codex/config.toml \
    .codex/rules/team.rules /etc/codex/requirements.toml --out codex.toml`,
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
		Long: `Counts, per tool and per category, the calls of a dataset that reach Claude
Code's auto-mode classifier (or Codex's auto-review reviewer, for a policy
imported --from codex-auto-review: allowed and forbidden execpolicy commands
never reach it) under an imported policy (apeval policy import):
a call is not reached when a permission rule denies or asks first, or when auto
mode's tiering lets it run without the classifier (read-only tools, edits in the
working directory, read-only shell commands, narrow permissions.allow rules).
Beside each row, what the vendor recorded (recorded/claude-auto-mode@VERSION or
codex-auto-review@VERSION):
blocked, ran, failed, reached calls without a recording, and calls the tiering
says were never reached on which the classifier blocked or failed all the same
(where the tiering model is wrong).
--list prints the not-reached calls one by one; --json prints everything.`,
		Example: `  apeval policy coverage --policy auto-mode.toml --dataset cases.jsonl
  apeval policy coverage --policy auto-mode.toml --dataset cases.jsonl --list --json`,
		Args: noArgs,
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
	r := source.OpenReader(o.Datasets, io.In)
	bad := 0
	for r.Scan() {
		rec := r.Record()
		if rec.Err != nil {
			fmt.Fprintln(io.Err, rec.Err)
			bad++
			continue
		}
		cv.Add(pol, rec.Case)
	}
	if err := r.Err(); err != nil {
		return usageError{err}
	}
	cv.Close()
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
