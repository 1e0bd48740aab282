// Package reports is the last stage of the apeval pipeline (datasets →
// replay → judge → replay → metrics → reports): it writes a run directory
// and formats what metrics computed. It never computes a statistic; the
// only counting it does is the gate-action tally of GateSummary.
//
// # Main types
//
// [RunWriter] writes run.json, decisions.parquet and gates.parquet while the
// replay streams; [ReadRun] reads them back into the identical
// replay.Results, which is how `apeval report` and `apeval merge` recompute
// everything from the files alone. [RunInfo] is run.json.
//
// A [Report] is what the renderers format: the run's metadata, the
// metrics.Summary and the exit code the command chose. [WriteRunReports]
// writes every other file of the run directory from it (summary.json,
// summary.md, junit.xml, metrics.parquet, the charts, report.html), each
// atomically ([WriteFileAtomic]). [Report.WriteTables] and
// [Report.WriteComparison] print to a terminal (aligned tables), a pipe
// (TSV) or as JSON, chosen by [Format].
//
// # Where to look
//
//	run.go, parquet.go   RunWriter and the decisions/gates Parquet rows
//	read.go              ReadRun, ReadRunInfo
//	pair.go              PairJudges, MatchJudge: which judges a comparison reads; JudgePair.Read/Run
//	                     (a rerun's judge renamed), RunDifferences (the warnings of compare)
//	labelsource.go       LabelSource, CheckSampleOn: weak and people's labels never mixed
//	columns.go           the machine formats' columns, read off the figure types' tags
//	metricsfile.go       metrics.parquet
//	compareparquet.go    compare.parquet
//	summaryjson.go       summary.json (keys in SUMMARY_JSON.md)
//	markdown.go, junit.go, html.go, charts.go   the other report files
//	tables.go, compare.go, gates.go, format.go  terminal output
//
// The run directory's files and every Parquet column with its logical type
// are written once, in docs/reports.md. The hive layout (--out-layout
// hive, hive.go) writes one pair of decision files per judge under
// judge=<identity>/. The labeling page of `apeval label serve` is the
// subpackage labelpage.
//
// Not a stable Go API: apeval is a command, and this package serves
// cmd/apeval; its exported names change with the command, without a
// compatibility promise between versions.
package reports
