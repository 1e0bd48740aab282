//go:build timing

package main

// timingChecks: built with -tags timing (make bench), the scripts' [timing]
// lines — wall-clock assertions such as p95steady — run.
const timingChecks = true
