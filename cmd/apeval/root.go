package main

import (
	"fmt"
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
	refuseUnknownSubcommands(root)
	return root
}

// refuseUnknownSubcommands makes a command that only groups others
// (datasets, judges, label, policy) refuse a word that names none of them:
// cobra prints such a group's help and exits 0 on "apeval datasets
// describe x", so a typo in a CI script passed silently. Now it is a usage
// error (exit 2) naming the word, with cobra's suggestions; the bare group
// still prints its help.
func refuseUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		refuseUnknownSubcommands(sub)
	}
	if !c.HasParent() || c.Runnable() || !c.HasSubCommands() {
		return
	}
	// Its usage stays "apeval datasets [command]", without the line a
	// runnable command gets.
	// (Its subcommands would inherit the template: they keep the usual one.)
	usual := c.UsageTemplate()
	for _, sub := range c.Commands() {
		sub.SetUsageTemplate(sub.UsageTemplate())
	}
	c.SetUsageTemplate(strings.Replace(usual, "{{if .Runnable}}\n  {{.UseLine}}{{end}}", "", 1))
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if cmd.SuggestionsMinimumDistance <= 0 {
			cmd.SuggestionsMinimumDistance = 2 // cobra's default for the root's suggestions
		}
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, " or ") + "?"
		}
		return usagef("%s (%s --help lists its commands)", msg, cmd.CommandPath())
	}
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
