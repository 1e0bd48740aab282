// Package all registers every judge backend that lives in its own package,
// by importing it: the command imports all (cmd/apeval/backends.go), as
// restic's backend/all does. A new backend adds its import line here.
// recorded and none (judge/recorded) register the same way.
//
// Where to look:
//
//	all.go                the import lines, one per backend
//	check_test.go         `apeval judges check` on every backend
//	fault_test.go         faults (resets, slow and huge bodies, HTML pages, 429) on the HTTP backends
//	setup_test.go         typed causes of real setup failures (TLS, DNS, error pages)
//	redact_test.go        secrets in URLs and hosts never reach an error or detail
//	body_test.go          request bodies carry only the judge input
//	options_test.go       sampling options checked when a judge opens
//	openaicache_test.go   an error in an HTTP 200 body is not cached
//	providers_test.go     the OpenTelemetry provider names the backends register
//	bench_test.go         throughput of a live judge and of a cache hit
//	helpers_test.go       opening each backend against judge/internal/fake
//
// Not a stable Go API: apeval is a command, and this package serves it;
// its exported names change with the command, without a compatibility
// promise between versions.
package all

import (
	_ "github.com/apeval/apeval/judge/anthropic"
	_ "github.com/apeval/apeval/judge/exec"
	_ "github.com/apeval/apeval/judge/ollama"
	_ "github.com/apeval/apeval/judge/openai"
	_ "github.com/apeval/apeval/judge/recorded"
)
