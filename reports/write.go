package reports

import (
	"io"
	"path/filepath"

	"github.com/apeval/apeval/reports/rundir"
)

// WriteRunReports writes every report of a run into dir, each file
// atomically: metrics.parquet, compare.parquet (with a baseline judge),
// summary.json, summary.md, junit.xml, the
// charts (*.svg) and report.html. decisions.parquet, gates.parquet and
// run.json are RunWriter's.
func WriteRunReports(dir string, rep *Report) error {
	if rep.Summary == nil {
		return errNoSummary
	}
	plain := *rep
	plain.Color = false
	rep = &plain
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{rundir.MetricsFile, func(w io.Writer) error { return WriteMetricsParquet(w, rep.Summary, rep.Run.LabelSource) }},
		{rundir.SummaryJSON, rep.WriteJSON},
		{rundir.SummaryMD, rep.WriteMarkdown},
		{rundir.JUnitFile, rep.WriteJUnit},
	}
	if cs := rep.Summary.Comparisons; len(cs) > 0 {
		files = append(files, struct {
			name  string
			write func(io.Writer) error
		}{rundir.CompareFile, func(w io.Writer) error {
			return WriteComparisonParquet(w, cs, rep.Summary.Thresholds.Confidence, rep.Run.LabelSource)
		}})
	}
	for _, f := range files {
		if err := rundir.WriteFileAtomic(filepath.Join(dir, f.name), f.write); err != nil {
			return err
		}
	}
	charts, err := rep.Charts()
	if err != nil {
		return err
	}
	for _, c := range charts {
		if err := rundir.WriteFileAtomic(filepath.Join(dir, c.File), func(w io.Writer) error { return writeChart(w, c) }); err != nil {
			return err
		}
	}
	return rundir.WriteFileAtomic(filepath.Join(dir, rundir.HTMLFile), rep.WriteHTML)
}
