// Package judge is the judge-model stage of the apeval pipeline (datasets →
// replay → judge → replay → metrics → reports). It holds the backend
// registry and the backends, and re-exports the shared types of
// judge/core — the [Judge] interface, the judge input and output schemas
// (docs/judges.md), [Response] and its typed failure [Cause] — which
// replay, metrics and reports import without any backend.
//
// A judge sees only its own [Input] type: an allow-listed, masked summary
// built by the replay package. It never sees a raw dataset record.
//
// # Main types
//
// [Open] turns a --judge spec into a [Judge] under a [Config] through the
// registry ([Register], [Lookup], [Backend]): [Ollama]
// (ollama:MODEL), [OpenAI] (openai:MODEL, any OpenAI-compatible server),
// [Exec] (exec:COMMAND, plugin processes; protocol in EXEC.md), [Recorded]
// (recorded:NAME, the decisions stored in the dataset), [None], and the
// backends in their own packages (judge/anthropic: anthropic:MODEL). A judge
// is known by its [Identity], backend/model@digest+prompt_version.
//
// Judge takes a [Request] and returns a [Response]: one [Decision] per
// asked rule, or a [Status] saying why not. Backends never panic and never
// return Go errors from Judge: failure is data. [ParseOutput] validates an
// answer; [Prompt] renders the prompt; [Cached] wraps a live judge with the
// on-disk [Cache]. [Check] tells whether a judge is reachable and ready.
//
// Every Judge is safe for concurrent use; judges holding processes
// implement io.Closer and are closed by the caller at the end of a run.
//
// # Where to look
//
//	open.go              Config, the registry (Backend, Register), Open
//	core/                the shared types, Cause, recorded and none (no backend)
//	kit.go               the call machinery exported for backend packages
//	ollama.go, openai.go, exec.go   the built-in backends; anthropic/ one in its own package
//	structured.go        structured-output schemas and the fallback ladder
//	parse.go             ParseOutput
//	prompt.go, prompts/  the prompt
//	cache.go             Cache, CachedJudge
//	check.go             `apeval judges check`
//	budget.go            Budget: --max-calls and --budget-usd
//	canonical.go         the judge input's canonical JSON (the cache key)
//	label.go             WithServer: the server in a judge's identity
//	limits.go            response size caps, Retry-After, error text for messages
//	exec_unix.go, exec_other.go  plugin process groups per platform
//
// How each backend is called, what makes an answer valid, retries, latency
// and the cache key are written once, in docs/judges.md.
//
// Not a stable Go API: apeval is a command, and this package serves
// cmd/apeval; its exported names change with the command, without a
// compatibility promise between versions.
package judge
