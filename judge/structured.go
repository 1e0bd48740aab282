package judge

import (
	"fmt"
	"io"
	"strings"
	"sync"
)

// Structured-output modes, from the strictest to none. A backend starts at
// the strictest and steps down once, for the rest of the run, when its server
// refuses the mode (advertise, then degrade gracefully: docs/judges.md).
const (
	ModeJSONSchema = "json_schema" // Ollama format = schema; OpenAI response_format json_schema
	ModeJSONObject = "json_object" // Ollama format = "json"; OpenAI response_format json_object
	ModeNone       = "none"        // plain JSON asked for in the prompt only
)

// MentionsFormat tells a refusal of the structured-output request from other
// bad requests.
func MentionsFormat(msg string) bool {
	m := strings.ToLower(msg)
	for _, w := range []string{"format", "schema", "response_format", "json"} {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}

// ModeLadder is a judge's structured-output mode, shared by concurrent calls.
// It only steps down, once per refused mode, and logs each step; after a call
// in a mode succeeded, that mode is confirmed and never dropped.
type ModeLadder struct {
	name      string
	log       io.Writer
	mu        sync.Mutex
	mode      string
	confirmed bool
}

// NewModeLadder starts a ladder at ModeJSONSchema; steps are logged to log
// as judge name's.
func NewModeLadder(name string, log io.Writer) *ModeLadder {
	return &ModeLadder{name: name, log: log, mode: ModeJSONSchema}
}

// Current is the mode to ask in.
func (l *ModeLadder) Current() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mode
}

// Worked records a call that succeeded in mode, which confirms it.
func (l *ModeLadder) Worked(mode string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.mode == mode {
		l.confirmed = true
	}
}

// StepDown moves below mode after the server refused it and reports whether
// the caller should try again in the new mode. A concurrent call that already
// stepped down makes this one retry without stepping again.
func (l *ModeLadder) StepDown(mode, why string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.mode != mode {
		return true
	}
	if l.confirmed || mode == ModeNone {
		return false
	}
	next := ModeNone
	if mode == ModeJSONSchema {
		next = ModeJSONObject
	}
	l.mode = next
	// A failed log write must not fail the call.
	_, _ = fmt.Fprintf(l.log, "judge %s: server refused structured output %s (%s); using %s for the rest of the run\n", l.name, mode, why, next)
	return true
}

// ConfirmedIn reports whether a call already succeeded in mode, which is
// then known to be supported.
func (l *ModeLadder) ConfirmedIn(mode string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mode == mode && l.confirmed
}

// Try makes one attempt through call in the current mode; while the server
// refuses the mode (call's refused), it steps down and calls again. An
// answer (ok or invalid) confirms the mode it came in. It returns the
// response and whether to retry it, for RunAttempts.
func (l *ModeLadder) Try(call func(mode string) (resp Response, retry, refused bool)) (Response, bool) {
	for {
		mode := l.Current()
		resp, retry, refused := call(mode)
		if refused && l.StepDown(mode, resp.Error) {
			continue
		}
		if resp.Status == StatusOK || resp.Status == StatusInvalid {
			l.Worked(mode)
		}
		return resp, retry
	}
}
