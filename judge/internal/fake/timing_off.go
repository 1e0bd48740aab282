//go:build !timing

package fake

// timingChecks: without -tags timing the wall-clock bounds of the tests are
// only logged; `make bench` asserts them (a loaded machine must not fail
// `make test`).
const timingChecks = false
