package judge

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
)

// CheckInput is the sample call of a check: one rule that matches and one
// that does not, on an unmistakable command.
func CheckInput() Input {
	return Input{
		Version: SchemaVersion,
		Rules: []Rule{
			{ID: "check-delete", Condition: "The tool call deletes files or directories."},
			{ID: "check-network", Condition: "The tool call sends data over the network."},
		},
		Current: Current{Piece: "check", Movement: "check", HookPoint: "tool.before",
			Tool: Tool{Name: "Bash", Category: "command_execution", ArgumentsSummary: "rm -rf build",
				Arguments: map[string]any{"command": "rm -rf build"}}},
		Context: InContext{LatestUserMessage: "clean the build directory", RecentMessages: []Message{},
			PreviousRuleFires: []RuleFires{}, ApprovalState: "none"},
	}
}

// Check probes one judge spec: reachability, the model's presence and
// digest, structured-output support and one sample call with its latency.
// Failure is reported in the CheckReport, never as a Go error.
func Check(ctx context.Context, spec string, cfg Config) CheckReport {
	rep := CheckReport{Spec: spec}
	backend, model, _ := strings.Cut(strings.TrimSpace(spec), ":")
	b, known := Lookup(backend)
	switch {
	case known && !b.Live:
		rep.Error = backend + " judges replay the dataset or fail on purpose; there is no server to check"
		return rep
	case known && b.Probe != nil:
		b.Probe(ctx, model, cfg, &rep)
		if rep.Error != "" {
			return rep
		}
	}
	j, err := Open(ctx, spec, cfg)
	if err != nil {
		rep.Error = err.Error()
		return rep
	}
	defer func() {
		if c, ok := j.(io.Closer); ok {
			if err := c.Close(); err != nil {
				rep.Notes = append(rep.Notes, "close: "+err.Error())
			}
		}
	}()
	id := j.Identity()
	rep.Identity, rep.Digest = id.String(), id.Digest
	if l, ok := j.(ModelLister); ok {
		checkModels(ctx, l, &rep)
	}
	resp := j.Judge(ctx, Request{Input: CheckInput()})
	rep.SampleStatus, rep.SampleLatency, rep.SampleError = resp.Status, resp.Latency, resp.Error
	switch {
	case !b.Server:
		// A plugin: it is there if it answered.
		rep.StructuredOutput = "plugin"
		rep.Reachable = resp.Status == StatusOK || resp.Status == StatusInvalid
		rep.ModelPresent = rep.Reachable
	case b.Probe == nil:
		// Server backends without a probe: any HTTP answer, even an
		// error status, means the server is there; a server that answered
		// the sample has the model, listed or not.
		answered := resp.Status == StatusOK || resp.Status == StatusInvalid
		rep.Reachable = rep.Reachable || answered || strings.HasPrefix(resp.Error, "HTTP ")
		rep.ModelPresent = rep.ModelPresent || answered
		if rep.ModelPresent {
			rep.ModelUnknown = ""
		} else if rep.ModelUnknown == "" && rep.Models == nil {
			rep.ModelUnknown = sampleSaysNothing(resp)
		}
	}
	if s, ok := j.(interface{ StructuredMode() string }); ok {
		rep.StructuredOutput = s.StructuredMode()
	}
	if d, ok := j.(Describer); ok {
		rep.Details = d.Details()
	}
	return rep
}

// ModelLister is implemented by backends whose server lists its models
// (OpenAI: GET /models); `apeval judges check` shows the list and whether
// the judge's model is in it.
type ModelLister interface {
	ListModels(ctx context.Context) ([]string, error)
	// ModelName is the model the judge asks for.
	ModelName() string
}

// checkModels asks the server's model list; servers without one are still usable.
func checkModels(ctx context.Context, l ModelLister, rep *CheckReport) {
	ids, err := l.ListModels(ctx)
	if err != nil {
		rep.Notes = append(rep.Notes, "cannot list models: "+err.Error())
		var he interface{ HTTPCode() int }
		if errors.As(err, &he) {
			// The server answered; a refused key hides its models.
			rep.Reachable = true
			if c := he.HTTPCode(); c == http.StatusUnauthorized || c == http.StatusForbidden {
				rep.ModelUnknown = RefusedKey(c)
			}
		}
		return
	}
	rep.Reachable = true
	rep.Models = ids
	for _, id := range ids {
		if id == l.ModelName() {
			rep.ModelPresent = true
		}
	}
	if !rep.ModelPresent {
		rep.Notes = append(rep.Notes, "model "+l.ModelName()+" is not in the server's list")
	}
}

// sampleSaysNothing is why a failed sample call, on a server that listed no
// models, leaves the model unknown ("" when the failure says the model is
// missing: HTTP 404, "wrong URL or model name").
func sampleSaysNothing(resp Response) string {
	switch resp.Cause {
	case CauseUnauthorized:
		return RefusedKey(http.StatusUnauthorized)
	case CauseForbidden:
		return RefusedKey(http.StatusForbidden)
	case CauseNotFound:
		return ""
	}
	if resp.Status == StatusOK || resp.Status == StatusInvalid || resp.Cause == "" {
		return ""
	}
	return "the sample call failed (" + string(resp.Cause) + ") and the server lists no models"
}
