// Package datasets is the first stage of the apeval pipeline (datasets →
// replay → judge → metrics → reports): the apeval.case/v1 record format
// (DESIGN §2), a streaming, validating Reader for JSONL and Parquet files,
// the built-in tool-name → category map, dataset statistics, and the
// embedded sample dataset and policy that `apeval run` uses when given no
// flags (sample/README.md says how the sample was made). gzip and zstd
// input is decompressed by its magic bytes (Decompress, OpenInput); the
// importers of agent logs are in the subpackage importers.
//
// The package knows nothing about judges or policies: a case's labels and
// recorded judge decisions are plain data here.
package datasets
