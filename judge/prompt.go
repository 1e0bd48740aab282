package judge

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

//go:embed prompts/p1.txt
var promptFS embed.FS

// DefaultPromptVersion is the version of the built-in prompt template.
const DefaultPromptVersion = "p1"

// Prompt is a versioned prompt template. The file format is:
//
//	version: NAME          (optional header line, then a blank line)
//	system message …
//	=== user ===
//	user message …, with {{input}} and optionally {{rule_ids}}
//
// {{input}} becomes the judge Input as compact JSON and {{rule_ids}} the JSON
// array of the asked rule IDs. Go's JSON encoder escapes <, > and & as \u003c,
// \u003e and \u0026, so nothing inside the data can close a <data> fence or
// open a new tag: conditions, arguments and messages stay data.
type Prompt struct {
	// Version names the template in the judge identity: "p1" for the
	// built-in one; for a file, "NAME@<sha8>" when it has a version header,
	// else "file:<basename>@<sha8>", sha8 being the first 8 hex digits of
	// the file's SHA-256, so an edited file never shares cache entries with
	// its previous text.
	Version string
	System  string
	User    string
}

const userMarker = "=== user ==="

// DefaultPrompt returns the built-in prompt (version p1).
func DefaultPrompt() *Prompt {
	data, err := promptFS.ReadFile("prompts/p1.txt")
	if err != nil {
		panic("judge: built-in prompt missing: " + err.Error()) // impossible: embedded at build time
	}
	p, err := ParsePrompt(data)
	if err != nil {
		panic("judge: built-in prompt invalid: " + err.Error())
	}
	return p
}

// LoadPrompt reads a prompt variant for `--prompt FILE`.
func LoadPrompt(path string) (*Prompt, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("prompt: %w", err)
	}
	p, err := ParsePrompt(data)
	if err != nil {
		return nil, fmt.Errorf("prompt %s: %w", path, err)
	}
	sum := sha256.Sum256(data)
	sha8 := hex.EncodeToString(sum[:4])
	if p.Version == "" {
		p.Version = "file:" + filepath.Base(path) + "@" + sha8
	} else {
		p.Version += "@" + sha8
	}
	return p, nil
}

// ParsePrompt parses a template; Version is the header's value ("" without one).
func ParsePrompt(data []byte) (*Prompt, error) {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	var version string
	if first, rest, ok := strings.Cut(text, "\n"); ok && strings.HasPrefix(first, "version:") {
		version = strings.TrimSpace(strings.TrimPrefix(first, "version:"))
		if version == "" || strings.ContainsAny(version, " \t@+/") {
			return nil, fmt.Errorf("line 1: version %q must be one word without @, + or /", version)
		}
		text = rest
	}
	system, user, ok := strings.Cut(text, "\n"+userMarker+"\n")
	if !ok {
		return nil, fmt.Errorf("no %q line separating the system and user messages", userMarker)
	}
	if !strings.Contains(user, "{{input}}") {
		return nil, fmt.Errorf("the user message has no {{input}} placeholder")
	}
	return &Prompt{Version: version, System: strings.TrimSpace(system), User: strings.TrimSpace(user)}, nil
}

// Render builds the system and user messages for one input.
func (p *Prompt) Render(in Input) (system, user string, err error) {
	data, err := json.Marshal(in)
	if err != nil {
		return "", "", fmt.Errorf("encode judge input: %w", err)
	}
	ids, err := json.Marshal(askedIDs(in))
	if err != nil {
		return "", "", fmt.Errorf("encode rule ids: %w", err)
	}
	return p.System, fillPlaceholders(p.User, string(ids), string(data)), nil
}

// fillPlaceholders substitutes the template's placeholders in one pass over
// the template: every {{rule_ids}}, and the first {{input}}. Text put in
// (a rule ID spelled "{{input}}", an argument quoting "{{rule_ids}}") is
// never scanned again, so it cannot move the input out of its <data> fence.
func fillPlaceholders(tmpl, ids, input string) string {
	var b strings.Builder
	b.Grow(len(tmpl) + len(ids) + len(input))
	inputDone := false
	for {
		i := strings.Index(tmpl, "{{")
		if i < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		b.WriteString(tmpl[:i])
		rest := tmpl[i:]
		switch {
		case strings.HasPrefix(rest, "{{rule_ids}}"):
			b.WriteString(ids)
			tmpl = rest[len("{{rule_ids}}"):]
		case strings.HasPrefix(rest, "{{input}}") && !inputDone:
			b.WriteString(input)
			inputDone = true
			tmpl = rest[len("{{input}}"):]
		default:
			b.WriteString("{{")
			tmpl = rest[2:]
		}
	}
}

// OutputSchema is the JSON Schema of the §6.2 answer for the given rule IDs,
// used for structured output (Ollama `format`, OpenAI `response_format`).
// Every property is required and no other is allowed, as OpenAI strict mode
// demands; rule_id is an enum of the asked IDs, and the array holds exactly
// one item per rule.
func OutputSchema(ruleIDs []string) json.RawMessage {
	ids := ruleIDs
	if ids == nil {
		ids = []string{}
	}
	idsJSON, _ := json.Marshal(ids) // a []string always encodes
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"type":"object","properties":{"version":{"type":"integer","enum":[%d]},`, SchemaVersion)
	b.WriteString(`"decisions":{"type":"array","items":{"type":"object","properties":{`)
	fmt.Fprintf(&b, `"rule_id":{"type":"string","enum":%s},`, idsJSON)
	b.WriteString(`"result":{"type":"string","enum":["match","no_match","unknown"]},`)
	b.WriteString(`"confidence":{"type":"number"}},`)
	b.WriteString(`"required":["rule_id","result","confidence"],"additionalProperties":false},`)
	fmt.Fprintf(&b, `"minItems":%d,"maxItems":%d}},`, len(ids), len(ids))
	b.WriteString(`"required":["version","decisions"],"additionalProperties":false}`)
	return json.RawMessage(b.Bytes())
}

// TupleOutputSchema is OutputSchema with the decisions as a tuple: item k
// must carry the k-th asked rule ID (JSON Schema prefixItems, no items). A
// grammar-constrained server (Ollama, llama.cpp) then cannot repeat or skip
// an ID, which the enum form allows and small models do. Ollama's format
// takes it; OpenAI's strict json_schema keeps OutputSchema.
func TupleOutputSchema(ruleIDs []string) json.RawMessage {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"type":"object","properties":{"version":{"type":"integer","enum":[%d]},`, SchemaVersion)
	b.WriteString(`"decisions":{"type":"array","prefixItems":[`)
	for i, id := range ruleIDs {
		if i > 0 {
			b.WriteByte(',')
		}
		idJSON, _ := json.Marshal(id) // a string always encodes
		fmt.Fprintf(&b, `{"type":"object","properties":{"rule_id":{"type":"string","enum":[%s]},`, idJSON)
		b.WriteString(`"result":{"type":"string","enum":["match","no_match","unknown"]},`)
		b.WriteString(`"confidence":{"type":"number"}},`)
		b.WriteString(`"required":["rule_id","result","confidence"],"additionalProperties":false}`)
	}
	fmt.Fprintf(&b, `],"minItems":%d,"maxItems":%d}},`, len(ruleIDs), len(ruleIDs))
	b.WriteString(`"required":["version","decisions"],"additionalProperties":false}`)
	return json.RawMessage(b.Bytes())
}
