//go:build !timing

package main

// timingChecks: without -tags timing the scripts' [timing] lines are left
// out; `make bench` runs them (a loaded machine must not fail `make test`).
const timingChecks = false
