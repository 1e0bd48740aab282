// Package importers turns the logs agents already write into apeval cases
// (`apeval datasets import`): Claude Code hook payloads, session
// transcripts, stream-json output and OpenTelemetry events, Codex CLI
// rollout files and exec --json events, Gemini CLI and OpenCode sessions,
// OpenTelemetry GenAI execute_tool spans (OTLP JSON, read with the
// collector's pdata module), the R-Judge benchmark and runner trajectory
// events (docs/import.md). Detect tells a source's format from its first
// records (--from auto). It sits at the very start of the pipeline, before
// datasets.Reader: its output is apeval.case/v1 JSONL that `datasets
// validate` accepts and `run` replays.
//
// Every importer streams its sources (a file, a directory tree, or "-" for
// stdin where the format is line-based), in a deterministic order, and
// hands each case to an emit function as soon as its context is known.
// Each case carries a provenance object (format, source file, line or
// record, the agent's own tool-use id), a deterministic id (same input,
// same ids), and — unless Options.NoMask — arguments, messages and
// provenance texts masked with internal/mask before they leave the
// importer.
//
// Nothing is dropped silently: a record that cannot be read is counted in
// the source's Summary with its file:line, and a record that is read but
// is not a tool call (another hook event, a user message, a session header)
// is counted under the reason it was skipped. docs/import.md has the field
// mapping of every format.
//
// Not a stable Go API: apeval is a command, and this package serves it;
// its exported names change with the command, without a compatibility
// promise between versions.
package importers
