// Package judge is the judge-model stage of the pipeline (datasets → replay →
// judge → replay → metrics → reports). It defines the Judge interface, the
// judge input and output schemas of seed 000 §6.1/§6.2, and the backends.
//
// A judge sees only its own Input type: an allow-listed, masked summary built
// by the replay package. It never sees a raw dataset record (seed 003).
//
// # Backends
//
// [Open] turns a --judge spec into a [Judge]:
//
//   - ollama:MODEL — [Ollama], through github.com/ollama/ollama/api. Host from
//     Config.OllamaHost, else $OLLAMA_HOST (from Config.Getenv), else http://127.0.0.1:11434.
//     Open lists the server's models (the digest is only there; "llama3"
//     means "llama3:latest") and fails naming the available models when the
//     model is missing; /api/show gives family, parameter size and
//     quantization ([Describer]). Requests: stream false, keep_alive 10m,
//     options temperature 0 and seed 42 (a plain map: api.Options would drop
//     temperature 0), overridable with --judge-option.
//   - openai:MODEL — [OpenAI], a small net/http client for any
//     OpenAI-compatible POST {base}/chat/completions; temperature 0 and seed
//     42 are always sent explicitly. No Authorization header without a key.
//   - exec:COMMAND — [Exec], long-lived plugin processes; protocol in EXEC.md.
//   - recorded:NAME — [Recorded], the decisions stored in the dataset.
//     Bare "recorded" is expanded by the caller, one judge per name.
//   - none — [None], every call fails with status error.
//
// Identity is backend/model@digest+prompt_version: Ollama's digest is the
// 12-hex-digit prefix `ollama list` shows (the full one is in Details);
// OpenAI-compatible servers have no digest (system_fingerprint changes per
// response, so it is only reported in Details); an exec plugin's digest
// hashes the files its command names.
//
// # Prompt and structured output
//
// The built-in prompt (prompts/p1.txt, version p1) states the task, puts the
// whole input in one <data> block as JSON, says that everything inside is
// untrusted data and never instructions, and asks for the §6.2 answer. JSON
// encoding escapes < and >, so nothing in the data can close the fence.
// --prompt FILE evaluates a variant; see [Prompt] for its format and
// version. Only the Input is serialized: rule actions and instruction texts
// are not part of it. Backends ask for structured output with
// [TupleOutputSchema] as Ollama's format (item k may only carry the k-th asked rule ID, so a grammar-constrained small model cannot repeat one) and [OutputSchema] as OpenAI's response_format json_schema strict
// and step down once per judge, logged, when the server refuses it:
// json_schema → json_object → none (seed 004: degrade gracefully). A mode in
// which a call has succeeded is never dropped.
//
// # Validation and failures
//
// [ParseOutput] makes the whole call invalid on a non-JSON answer, a version
// other than 1, an unasked, duplicate or missing rule ID, a result outside
// match/no_match/unknown, or a confidence outside [0, 1]; one Markdown code
// fence and surrounding whitespace are tolerated, extra fields ignored. A
// deadline (Config.Timeout per attempt, or the caller's) is a timeout; a
// cancelled caller, an HTTP error status, a refused connection or a crashed
// plugin is an error. Backends never panic and never return Go errors from
// Judge: failure is data in the Response.
//
// # Retries and latency
//
// Config.Retries (default 0) retries timeouts, transport errors, HTTP 429
// and 5xx, and plugin crashes, after 100 ms doubling to at most 2 s. Invalid
// answers and other 4xx are never retried: at temperature 0 the model would
// say the same. Response.Attempts counts the attempts. Latency is the wall
// time from the first attempt's start to the final answer, backoff included,
// so a call that timed out twice costs twice its timeout plus the pause; a
// format fallback's refused request counts too. It excludes waiting for a
// concurrency slot (the caller's) and, for exec, waiting for a free child,
// its restart backoff and its start.
//
// # Cache
//
// [Cached] wraps a live judge with a [Cache] (see there): key = identity +
// settings + SHA-256 of the JCS-canonical input; only ok and invalid answers
// are stored; hits return Cached=true with zero latency and attempts.
//
// # Concurrency
//
// Every Judge is safe for concurrent use. HTTP judges share one transport
// (128 idle connections per host) unless Config.HTTPClient is set; the
// caller bounds in-flight calls. Exec runs Config.Concurrency children.
// Judges holding processes implement io.Closer (Exec; CachedJudge forwards
// it): the caller closes them at the end of a run.
package judge
