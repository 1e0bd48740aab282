package main

import (
	"strings"

	"github.com/apeval/apeval/datasets/importers"
	"github.com/apeval/apeval/docs"
	"github.com/apeval/apeval/judge"
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
	applyHelp(root)
	return root
}

// applyHelp sets every command's description and examples from its page,
// docs/cli/<command>.md (package docs), with the parts the program
// generates filled in. A command that sets Long or Example in Go is a
// programming error (the page would silently win): it panics, so every
// test that builds the tree fails and names the page to edit.
func applyHelp(root *cobra.Command) {
	pages, err := docs.Pages()
	if err != nil {
		panic(err) // embedded; TestHelpPages reads every page
	}
	byCommand := make(map[string]docs.Page, len(pages))
	for _, p := range pages {
		byCommand[p.Command] = p
	}
	gen := helpGenerated()
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Long != "" || c.Example != "" {
			panic(c.CommandPath() + " sets its Long or Example in Go: its help text is its page, docs/cli/" + pageFile(c.CommandPath()))
		}
		if p, ok := byCommand[c.CommandPath()]; ok {
			c.Long, c.Example = p.Help(gen), p.Example
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// pageFile is a command's page under docs/cli: its path without "apeval",
// words joined by "-" ("label-queue.md"); the root's is "apeval.md".
func pageFile(path string) string {
	return strings.ReplaceAll(strings.TrimPrefix(path, "apeval "), " ", "-") + ".md"
}

// helpGenerated is the text of the pages' generated parts.
func helpGenerated() map[string]string {
	return map[string]string{
		"judge-specs": judge.SpecHelp(),
		"importers":   strings.Join(importers.Formats(), ", "),
	}
}

// newRoot is the root command without its verbs: its global flags and
// flag error function. Tests add one verb built with their own runF, to
// check what a command line parses to without running it.
func newRoot(io *IO) *cobra.Command {
	if io.term == nil {
		io.term = &termSettings{}
	}
	root := &cobra.Command{
		Use:           "apeval",
		Short:         "Offline shadow evaluation of judge models for agent tool-call gates",
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
