package main

import (
	"errors"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/internal/config"
)

// loadProjectConfig reads --config FILE, else ./apeval.toml when it exists
// (config.Load); no file gives an empty config.
func loadProjectConfig(cmd *cobra.Command) (*config.Project, error) {
	path, explicit := config.Name, false
	if f := cmd.Flag("config"); f != nil && f.Value.String() != "" {
		path, explicit = f.Value.String(), true
	}
	c, err := config.Load(path, explicit)
	var re *config.ReadError
	if errors.As(err, &re) {
		return nil, usagef("--config: %v", re.Err)
	}
	if err != nil {
		return nil, usageError{err}
	}
	return c, nil
}

// applyToRun fills the run/replay options the command line left unset.
func applyToRun(c *config.Project, cmd *cobra.Command, o *runOptions) error {
	if c.Path == "" {
		return nil
	}
	set := func(name string) bool { return !cmd.Flags().Changed(name) }
	if set("dataset") && len(c.Datasets) > 0 {
		o.Datasets = append([]string(nil), c.Datasets...)
	}
	if set("policy") && c.Policy != "" {
		o.Policy = c.Policy
	}
	// The file's judges, each with its own settings; --judge flags name
	// judges instead and take a file entry's settings when the spec is
	// the same. --judge-option (for every judge) overrides a key.
	o.fileJudges = nil
	for _, j := range c.Judges {
		o.fileJudges = append(o.fileJudges, j.Entry())
	}
	o.judgesFromFile = set("judge") && len(c.Judges) > 0
	if set("concurrency") && c.Concurrency > 0 {
		o.Concurrency = c.Concurrency
	}
	if set("timeout") && c.TimeoutDuration() > 0 {
		o.Timeout = c.TimeoutDuration()
	}
	if cmd.Flags().Lookup("criteria") != nil {
		if set("criteria") && c.Criteria != "" {
			o.Criteria = c.Criteria
		}
		if set("baseline") && c.Baseline != "" {
			o.Baseline, o.baselineFromConfig = c.Baseline, true
		}
		if set("inconclusive") && c.Inconclusive != "" {
			o.Inconclusive = c.Inconclusive
		}
	}
	if set("out") && c.Out != "" {
		o.outPattern = c.Out
	}
	return o.Filter.applyConfig(cmd, c)
}

// applyToEval fills report/gate/compare options the command line left unset.
func applyToEval(c *config.Project, cmd *cobra.Command, e *evalOptions) {
	if c.Path == "" {
		return
	}
	set := func(name string) bool { return !cmd.Flags().Changed(name) }
	if set("criteria") && set("policy") && e.Criteria == "" && e.Policy == "" && c.Criteria != "" {
		e.Criteria = c.Criteria
	}
	if set("baseline") && c.Baseline != "" {
		e.Baseline = c.Baseline
	}
	if set("inconclusive") && c.Inconclusive != "" {
		e.Inconclusive = c.Inconclusive
	}
}

// expandOut turns the out pattern into a directory: {run_id} and {date}
// (UTC, YYYY-MM-DD) are replaced.
func expandOut(pattern, runID string, now time.Time) string {
	return strings.NewReplacer("{run_id}", runID, "{date}", now.UTC().Format("2006-01-02")).Replace(pattern)
}

// applyConfig reads apeval.toml (or --config) into report, gate and
// compare options the command line left unset.
func (e *evalOptions) applyConfig(cmd *cobra.Command) error {
	c, err := loadProjectConfig(cmd)
	if err != nil {
		return err
	}
	applyToEval(c, cmd, e)
	return nil
}
