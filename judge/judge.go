package judge

import (
	"github.com/apeval/apeval/judge/core"
)

// The shared judge types live in judge/core, which imports no backend
// (replay, metrics and reports use it); they are re-exported here so that
// backends and the command say judge.X.
type (
	Input         = core.Input
	Rule          = core.Rule
	Current       = core.Current
	Tool          = core.Tool
	InContext     = core.InContext
	Message       = core.Message
	RuleFires     = core.RuleFires
	Output        = core.Output
	Result        = core.Result
	Decision      = core.Decision
	Status        = core.Status
	Recording     = core.Recording
	Request       = core.Request
	ServerTimings = core.ServerTimings
	Response      = core.Response
	Identity      = core.Identity
	Judge         = core.Judge
	Cause         = core.Cause
	CheckReport   = core.CheckReport
	BudgetReport  = core.BudgetReport
)

// SchemaVersion is the judge I/O schema version (see docs/judges.md).
const SchemaVersion = core.SchemaVersion

const (
	Match             = core.Match
	NoMatch           = core.NoMatch
	Unknown           = core.Unknown
	StatusOK          = core.StatusOK
	ModelYes          = core.ModelYes
	ModelNo           = core.ModelNo
	ModelUnknown      = core.ModelUnknown
	StatusUnknown     = core.StatusUnknown
	StatusInvalid     = core.StatusInvalid
	StatusTimeout     = core.StatusTimeout
	StatusError       = core.StatusError
	StatusMissing     = core.StatusMissing
	CauseTimeout      = core.CauseTimeout
	CauseCancelled    = core.CauseCancelled
	CauseRefused      = core.CauseRefused
	CauseDNS          = core.CauseDNS
	CauseTLS          = core.CauseTLS
	CauseTransport    = core.CauseTransport
	CauseUnauthorized = core.CauseUnauthorized
	CauseForbidden    = core.CauseForbidden
	CauseNotFound     = core.CauseNotFound
	CauseNotServed    = core.CauseNotServed
	CauseNotTheAPI    = core.CauseNotTheAPI
	CauseRateLimited  = core.CauseRateLimited
	CauseServer       = core.CauseServer
	CauseClient       = core.CauseClient
	CauseInvalid      = core.CauseInvalid
	CausePlugin       = core.CausePlugin
	CauseBudget       = core.CauseBudget
	CauseNoJudge      = core.CauseNoJudge
	CauseOther        = core.CauseOther
	SetupUnauthorized = core.SetupUnauthorized
	SetupForbidden    = core.SetupForbidden
	SetupNotFound     = core.SetupNotFound
	SetupNotServed    = core.SetupNotServed
	SetupHTML         = core.SetupHTML
	SetupRefused      = core.SetupRefused
	SetupUnknownHost  = core.SetupUnknownHost
	SetupTLS          = core.SetupTLS
)

// RefusedKey is CheckReport.ModelUnknown's reason for a refused key (core.RefusedKey).
func RefusedKey(code int) string { return core.RefusedKey(code) }

// CauseOfError types a transport error (core.CauseOfError).
func CauseOfError(err error) Cause { return core.CauseOfError(err) }

// CauseOfHTTP types an HTTP error answer (core.CauseOfHTTP).
func CauseOfHTTP(code int, html bool) Cause { return core.CauseOfHTTP(code, html) }

// CauseFromText reads a cause back from a message (core.CauseFromText).
func CauseFromText(status Status, msg string) Cause { return core.CauseFromText(status, msg) }

func looksHTML(contentType, body string) bool { return core.LooksHTML(contentType, body) }

func askedIDs(in Input) []string { return core.AskedIDs(in) }
