package reports

import (
	"io"

	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/rundir"
)

// The run directory's format lives in reports/rundir (run.json, the
// decisions and gates Parquet files, shards, the hive layout, atomic
// writes); its names are re-exported here so that the renderers and the
// command say reports.X while they move to rundir.X.
type (
	RunInfo     = rundir.RunInfo
	Resumed     = rundir.Resumed
	FileRef     = rundir.FileRef
	JudgeInfo   = rundir.JudgeInfo
	Duration    = rundir.Duration
	RunWriter   = rundir.RunWriter
	LabelWeight = rundir.LabelWeight
	ShardSet    = rundir.ShardSet
	Filter      = rundir.Filter
	Settings    = rundir.Settings
	JudgeEntry  = rundir.JudgeEntry
)

// The run directory's file names, schema, lock and layouts (rundir's).
const (
	DecisionsFile    = rundir.DecisionsFile
	GatesFile        = rundir.GatesFile
	MetricsFile      = rundir.MetricsFile
	RunFile          = rundir.RunFile
	SummaryJSON      = rundir.SummaryJSON
	SummaryMD        = rundir.SummaryMD
	JUnitFile        = rundir.JUnitFile
	HTMLFile         = rundir.HTMLFile
	CompareFile      = rundir.CompareFile
	SimulateFile     = rundir.SimulateFile
	SimulateJSONFile = rundir.SimulateJSONFile
	RunSchema        = rundir.RunSchema
	LockFile         = rundir.LockFile
	EarlierDir       = rundir.EarlierDir
	LayoutFlat       = rundir.LayoutFlat
	LayoutHive       = rundir.LayoutHive
)

// ErrRunDirBusy is rundir.ErrRunDirBusy.
var ErrRunDirBusy = rundir.ErrRunDirBusy

// CreateRun is rundir.CreateRun.
func CreateRun(dir string, meta RunInfo) (*RunWriter, error) { return rundir.CreateRun(dir, meta) }

// CreateRunWeighted is rundir.CreateRunWeighted.
func CreateRunWeighted(dir string, meta RunInfo, weigh func(caseID, ruleID, label string) LabelWeight) (*RunWriter, error) {
	return rundir.CreateRunWeighted(dir, meta, weigh)
}

// ReadRun is rundir.ReadRun.
func ReadRun(dir string, fn func(*replay.Result) error) (RunInfo, error) {
	return rundir.ReadRun(dir, fn)
}

// ReadRunInfo is rundir.ReadRunInfo.
func ReadRunInfo(dir string) (RunInfo, error) { return rundir.ReadRunInfo(dir) }

// WriteRunInfo is rundir.WriteRunInfo.
func WriteRunInfo(dir string, info RunInfo) error { return rundir.WriteRunInfo(dir, info) }

// WriteFileAtomic is rundir.WriteFileAtomic.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	return rundir.WriteFileAtomic(path, write)
}

// IsRegularOrAbsent is rundir.IsRegularOrAbsent.
func IsRegularOrAbsent(path string) bool { return rundir.IsRegularOrAbsent(path) }

// ParseLayout is rundir.ParseLayout.
func ParseLayout(s string) (string, error) { return rundir.ParseLayout(s) }

// RunDir is rundir.RunDir.
func RunDir(runID string) string { return rundir.RunDir(runID) }

// JudgeDir is rundir.JudgeDir.
func JudgeDir(identity string) string { return rundir.JudgeDir(identity) }

// CriteriaDiff is rundir.CriteriaDiff.
func CriteriaDiff(a, b *metrics.Thresholds) string { return rundir.CriteriaDiff(a, b) }

// RepeatsJSON is rundir.RepeatsJSON.
func RepeatsJSON(r *replay.Result, rr *replay.RuleResult) string { return rundir.RepeatsJSON(r, rr) }
