package main

import (
	"github.com/spf13/cobra"
)

func newRootCmd(io IO) *cobra.Command {
	root := newRoot(&io)
	root.AddCommand(
		newRunCmd(io, false, nil),
		newRunCmd(io, true, nil),
		newReportCmd(io, nil),
		newGateCmd(io, nil),
		newCompareCmd(io, nil),
		newDiffCmd(io, nil),
		newMergeCmd(io, nil),
		newSimulateCmd(io, nil),
		newPlanCmd(io, nil),
		newDatasetsCmd(io),
		newJudgesCmd(io),
		newInitCmd(io, nil),
		newRecordCmd(io, nil),
		newLabelCmd(io),
		newPolicyCmd(io),
	)
	return root
}

// newRoot is the root command without its verbs: its global flags and
// flag error function. Tests add one verb built with their own runF, to
// check what a command line parses to without running it.
func newRoot(io *IO) *cobra.Command {
	if io.term == nil {
		io.term = &termSettings{}
	}
	root := &cobra.Command{
		Use:   "apeval",
		Short: "Offline shadow evaluation of judge models for agent tool-call gates",
		Long: `apeval replays recorded tool.before contexts through a policy's deterministic
matchers and one or more judge models, measures precision, recall, unknown rate,
judge-required rate and P95 latency against the kill criteria, and says GO,
NO-GO or INCONCLUSIVE per judge and per rule.

Exit codes: 0 GO, 1 NO-GO, 2 usage or input error, 3 INCONCLUSIVE, 130 interrupted.`,
		Example: `  # Evaluate the embedded sample with its recorded judges
  apeval run

  # Your dataset and policy, two live judges, CI-friendly
  apeval run --dataset cases.jsonl --policy policy.toml \
    --judge ollama:qwen2.5:3b --judge openai:gpt-4o-mini --out out/run1`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.Err)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return flagError(err) })
	registerGlobalFlags(root, io.term)
	return root
}

// noArgs is cobra.NoArgs with a usage error.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s takes no arguments, got %q", cmd.CommandPath(), args)
	}
	return nil
}
