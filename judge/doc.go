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
// registry ([Register], [Lookup], [Backend]). Each backend is a package
// that registers itself: judge/ollama (ollama:MODEL), judge/openai
// (openai:MODEL, any OpenAI-compatible server), judge/exec (exec:COMMAND,
// plugin processes; protocol in exec/EXEC.md), judge/anthropic
// (anthropic:MODEL), and judge/recorded: recorded:NAME (the decisions
// stored in the dataset) and none, registered as not live ([IsLive]: never
// cached, budgeted or retried); judge/all imports them all. A judge is
// known by its [Identity],
// backend/model@digest+prompt_version.
//
// Judge takes a [Request] and returns a [Response]: one [Decision] per
// asked rule, or a [Status] saying why not. Backends never panic and never
// return Go errors from Judge: failure is data. [ParseOutput] validates an
// answer; [Prompt] renders the prompt; judge/cache wraps a live judge with the
// on-disk answer cache. [Check] tells whether a judge is reachable and ready.
//
// Every Judge is safe for concurrent use; judges holding processes
// implement io.Closer and are closed by the caller at the end of a run.
//
// # Where to look
//
//	open.go              Config, the registry (Backend, Register, IsLive), Open, retries
//	judge.go             the judge/core types re-exported
//	core/                the shared types and Cause (no backend)
//	recorded/            the recorded and none judges (no model; registered as not live)
//	kit.go               the call machinery exported for backend packages
//	ollama/, openai/, exec/, anthropic/   the backends, one package each
//	all/                 imports every backend (and tests across them)
//	cache/               the on-disk answer cache (bbolt)
//	structured.go        structured-output modes and the fallback ladder
//	parse.go             ParseOutput
//	prompt.go, prompts/  the prompt and the output schemas
//	check.go             `apeval judges check`
//	budget.go            Budget: --max-calls and --budget-usd
//	canonical.go         the judge input's canonical JSON (the cache key)
//	label.go             WithServer: the server in a judge's identity
//	tellapart.go         TellApart: judges of one identity renamed by their servers (or refused, SameJudge)
//	limits.go            response size caps, Retry-After, error text for messages
//	judgetest/           fake judge servers for other packages' tests
//	internal/fake/       the fake servers and helpers the backends' tests share
//	internal/tinymodel/  a tiny GGUF model for the Ollama end-to-end tests
//	plugin/example/      a minimal exec plugin
//
// How each backend is called, what makes an answer valid, retries, latency
// and the cache key are written once, in docs/judges.md.
//
// Not a stable Go API: apeval is a command, and this package serves
// cmd/apeval; its exported names change with the command, without a
// compatibility promise between versions.
package judge
