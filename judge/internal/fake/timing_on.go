//go:build timing

package fake

// timingChecks: built with -tags timing (make bench), the wall-clock
// bounds of the tests are asserted (see within).
const timingChecks = true
