package judge

import (
	"context"
	"io"
	"strings"

	"github.com/ollama/ollama/api"
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
	switch backend {
	case "ollama":
		checkOllama(ctx, model, cfg, &rep)
		if rep.Error != "" {
			return rep
		}
	case "recorded", "none":
		rep.Error = backend + " judges replay the dataset or fail on purpose; there is no server to check"
		return rep
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
	if o, ok := j.(*OpenAI); ok {
		checkOpenAIModels(ctx, o, &rep)
	}
	resp := j.Judge(ctx, Request{Input: CheckInput()})
	rep.SampleStatus, rep.SampleLatency, rep.SampleError = resp.Status, resp.Latency, resp.Error
	switch backend {
	case "exec":
		rep.StructuredOutput = "plugin"
		rep.Reachable = resp.Status == StatusOK || resp.Status == StatusInvalid
		rep.ModelPresent = rep.Reachable
	default:
		if b, ok := Lookup(backend); !ok || !b.Server || backend == "ollama" {
			break
		}
		// openai and registered server backends: any HTTP answer, even an
		// error status, means the server is there; a server that answered
		// the sample has the model, listed or not.
		answered := resp.Status == StatusOK || resp.Status == StatusInvalid
		rep.Reachable = rep.Reachable || answered || strings.HasPrefix(resp.Error, "HTTP ")
		rep.ModelPresent = rep.ModelPresent || answered
	}
	if s, ok := j.(interface{ StructuredMode() string }); ok {
		rep.StructuredOutput = s.StructuredMode()
	}
	if d, ok := j.(Describer); ok {
		rep.Details = d.Details()
	}
	return rep
}

// checkOllama lists the server's models before Open, so an unreachable
// server and a missing model are told apart.
func checkOllama(ctx context.Context, model string, cfg Config, rep *CheckReport) {
	base, err := OllamaHost(cfg.OllamaHost, cfg.getenv("OLLAMA_HOST"))
	if err != nil {
		rep.Error = err.Error()
		return
	}
	lctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	list, err := api.NewClient(base, cfg.httpClient()).List(lctx)
	if err != nil {
		rep.Error = "ollama " + base.String() + " unreachable: " + err.Error()
		return
	}
	rep.Reachable = true
	for _, m := range list.Models {
		rep.Models = append(rep.Models, m.Name)
		if m.Name == model || m.Name == model+":latest" || m.Model == model {
			rep.ModelPresent = true
		}
	}
	if !rep.ModelPresent {
		rep.Error = "model " + model + " not on the server; run `ollama pull " + model + "`"
	}
}

// checkOpenAIModels asks GET /models; servers without it are still usable.
func checkOpenAIModels(ctx context.Context, o *OpenAI, rep *CheckReport) {
	ids, err := o.ListModels(ctx)
	if err != nil {
		rep.Notes = append(rep.Notes, "cannot list models: "+err.Error())
		return
	}
	rep.Reachable = true
	rep.Models = ids
	for _, id := range ids {
		if id == o.model {
			rep.ModelPresent = true
		}
	}
	if !rep.ModelPresent {
		rep.Notes = append(rep.Notes, "model "+o.model+" is not in the server's list")
	}
}
