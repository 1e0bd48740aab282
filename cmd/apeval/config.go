package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/apeval/apeval/internal/config"
	"github.com/apeval/apeval/reports/evaluation"
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

// applyToEval fills report/gate/compare options the command line left
// unset from apeval.toml (evaluation.Settings.Under).
func applyToEval(c *config.Project, cmd *cobra.Command, e *evalOptions) {
	s := evaluation.Settings{Criteria: e.Criteria, Policy: e.Policy, Baseline: e.Baseline, Inconclusive: e.Inconclusive}
	s.Under(cmd.Flags().Changed, evaluation.Settings{Criteria: c.Criteria, Baseline: c.Baseline, Inconclusive: c.Inconclusive})
	e.Criteria, e.Baseline, e.Inconclusive = s.Criteria, s.Baseline, s.Inconclusive
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
