// Package datasets is the first stage of the apeval pipeline (datasets →
// replay → judge → replay → metrics → reports): the apeval.case/v1 record
// format, a streaming, validating reader for JSONL and Parquet files (gzip
// and zstd input is decompressed by its magic bytes: Decompress, OpenInput),
// the built-in tool-name → category map, dataset statistics, and the
// embedded sample dataset and policy that `apeval run` uses when given no
// flags (sample/README.md says how the sample was made). The importers of
// agent logs are in the subpackage importers.
//
// The package knows nothing about judges or policies: a case's labels and
// recorded judge decisions are plain data here.
//
// # Main types
//
// A [Case] is one recorded tool call with its [Tool], [Context], labels
// and [Recorded] judge decisions. [Open] returns a [Reader] over files
// ("-" is stdin) that works like bufio.Scanner: Scan, Record, Err. Each
// [Record] holds a Case or a [*LineError] naming file:line and field, so
// one bad line never hides the rest. [Decode] parses and validates a single
// line. [ReadLabels] and [MergeOptions] merge labels back into a dataset
// (`apeval datasets label-import`); [Stats] is `apeval datasets stats`;
// [SessionFilter] chooses the sessions of a filtered run and [InvalidLines]
// is the invalid-line policy of a pass over a dataset;
// [WriteJSONL] writes a case back. [Label], [Action] and [ApprovalOutcome]
// are the case format's enumerations, each with its values and a Parse
// function; the gate (replay) and the metrics use the same constants.
//
// # Where to look
//
//	case.go        the record types
//	vocab.go       the typed enumerations: Label, Action, ApprovalOutcome
//	reader.go      Reader: batches of lines decoded in parallel, in order
//	parquet.go     Parquet input, turned into the same JSON lines
//	validate.go    Decode: the decode paths and the field rules; Validate (datasets validate), ToolsOf
//	fastdecode.go  the fast decoder for well-formed lines
//	category.go    the tool-name → category map
//	labels.go, raw.go, writer.go   label import without losing fields; Lines: chosen cases' original lines; CaseIndex
//	stats.go       dataset statistics
//	labelcheck.go  StrayLabels (labels naming no rule), WeakSwap (run --weak-labels)
//	weaklabels.go  WeakLabel: a dataset's weak labels, read, keyed and exported as labels lines
//	sample.go      the embedded sample: cases, policy and the apeval.toml apeval init writes
//	grouping.go    Grouping, MarkGrouped: whether a written file holds each session together
//	sessions.go    SessionFilter: the whole sessions --tag, --limit and --sample keep
//	invalid.go     InvalidLines: skip invalid lines or fail after listing them (InvalidInput,
//	               LateDuplicate, MaskedLineText)
//	samplelabels.go  the apeval.labels/v1 queue and labels files; the synced appender
//	fastdecode_lists.go  the fast decoder's lists of known fields
//	idset.go       the duplicate-id check's set (spilled past DefaultMaxIDsInMemory)
//	seq.go         SeqError: a session's records out of seq order
//	bytool.go      per-tool rows of `datasets stats`
//	remote.go      Opener: datasets in object storage, opened by the program's opener
//	hash.go        FileSHA256: a dataset's hash for run.json, local or through the Opener
//	lock_unix.go, lock_other.go  the labels file's lock
//
// The record format and its field rules are in README.md (Cases) and on
// the Case type.
//
// Not a stable Go API: apeval is a command, and this package serves
// cmd/apeval; its exported names change with the command, without a
// compatibility promise between versions.
package datasets
