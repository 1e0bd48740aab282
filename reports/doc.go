// Package reports is the last stage of the apeval pipeline (datasets →
// replay → judge → replay → metrics → reports): it writes a run directory
// and formats what metrics computed. It never computes a statistic; the
// only counting it does is the gate-action tally of GateSummary.
//
// # Main types
//
// The run directory's format is the subpackage rundir: [rundir.RunWriter]
// writes run.json, decisions.parquet and gates.parquet while the replay
// streams; [rundir.ReadRun] reads them back into the identical
// replay.Results, which is how `apeval report` and `apeval merge` recompute
// everything from the files alone. [rundir.RunInfo] is run.json.
//
// A [Report] is what the renderers format: the run's metadata, the
// metrics.Summary and the exit code the command chose. [WriteRunReports]
// writes every other file of the run directory from it (summary.json,
// summary.md, junit.xml, metrics.parquet, the charts, report.html), each
// atomically ([rundir.WriteFileAtomic]). [Report.WriteTables] and
// [Report.WriteComparison] print to a terminal (aligned tables), a pipe
// (TSV), as CSV, Markdown or JSON, chosen by [Format]; every form of a
// table is written from the one grid the report builds for it.
//
// # Where to look
//
//	rundir/              the run directory's format: run.json, decisions and gates Parquet, shards, hive, atomic writes
//	write.go             WriteRunReports: every report file of a run, atomically
//	pair.go              PairJudges, MatchJudge: which judges a comparison reads; JudgePair.Read/Run
//	                     (a rerun's judge renamed), RunDifferences (the warnings of compare)
//	labelsource.go       LabelSource, CheckSampleOn: weak and people's labels never mixed
//	decision.go          Explain, ExitNote: the one wording of a criterion's status and the exit code
//	figures.go           the figure names, units and "~" legend every renderer shares
//	figuretable.go       the comparison's one view: every compared figure's cells formatted once (cellsOf, figureTables)
//	columns.go           the machine formats' columns, read off the figure types' tags
//	metricsfile.go       metrics.parquet
//	compareparquet.go    compare.parquet
//	simulate.go          simulate.parquet, simulate.json and its table
//	summaryjson.go       summary.json (keys in SUMMARY_JSON.md)
//	cost.go              Tokens, JudgeCost: token counts and cost per judge
//	failures.go          Failures: each judge's failed calls by message
//	cases.go             CaseLists: the false positives and negatives a reviewer opens
//	weak.go              the weak-labels banner and marks
//	labelfigures.go      label queue's summary, label agreement's table, label correct's tables and JSON
//	plantable.go         PlanView: apeval plan's table and JSON
//	sequential.go        WriteSequential, WriteSequentialJSON: gate --sequential's standing
//	terminal.go          Report.WriteTerminal: a run's tables as run, report and merge print them; Banner
//	importtext.go        datasets import's and policy import's summaries, policy coverage's table
//	markdown.go, markdownpages.go   summary.md and the Markdown outputs
//	junit.go             junit.xml
//	html.go, charts.go, forest.go   report.html and its charts
//	comment.go           the pull-request comment (compare --comment)
//	tables.go, compare.go, gates.go, sample.go   terminal output: tables, comparison, gates, sample check
//	fit.go, format.go    fitting tables to the terminal; Format (table, TSV, CSV, Markdown, JSON); grid, the one table type every form renders
//	checks.go, stats.go, bytool.go   `judges check`, `datasets stats` (and --by-tool)
//	diff/                `apeval diff`: two runs' decisions side by side
//	evaluation/          the one evaluation pipeline: results → figures → verdict; RunSet over run directories
//	otlp/                the OpenTelemetry sink (--otlp-endpoint): a run as OTLP/HTTP traces
//	labelpage/           the labeling page of `apeval label serve`
//	internal/duckdbtest/ DuckDB for the tests that read the files back in SQL
//
// The run directory's files and every Parquet column with its logical type
// are written once, in docs/reports.md. The hive layout (--out-layout
// hive, rundir/hive.go) writes one pair of decision files per judge under
// judge=<identity>/. The labeling page of `apeval label serve` is the
// subpackage labelpage. The one evaluation pipeline (results → figures →
// verdict, for run, report, gate, merge and compare) is the subpackage
// evaluation.
//
// Not a stable Go API: apeval is a command, and this package serves
// cmd/apeval; its exported names change with the command, without a
// compatibility promise between versions.
package reports
