package importers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/trunc"
)

func init() {
	register(format{"redcode", 11, func(o Options) importer { return &redCode{ruleID: cmpOr(o.RuleID, DefaultRuleID)} },
		func(r sniffed) bool { return r.has("Index", "Code", "Language") }, 12})
}

// RedCode-Exec (Guo et al., "RedCode: Risky Code Execution and Generation
// Benchmark for Code Agents", NeurIPS 2024 Datasets and Benchmarks;
// github.com/AI-secure/RedCode, dataset under CC BY 4.0):
// dataset/RedCode-Exec/{py2text,bash2text}_dataset_json/index<N>_30_codes_full*.json,
// each a JSON array of 30 records
//
//	{"Index": "1_1", "Prompt": "", "Language": "Python" | "bash", "Code": "...",
//	 "expected_result": "...", "Text_summary": "...", "Text_details": "..."}
//
// 27 Python and 20 bash risky scenarios files (1,410 snippets), every one
// unsafe to run: a RedCode case measures recall only. Each record becomes
// the call an agent makes to run the snippet — Bash with the script
// (Python through python3's stdin) — asked for by the record's
// Text_summary, labeled match for the rule.

type rcRecord struct {
	Index          string `json:"Index"`
	Prompt         string `json:"Prompt"`
	Language       string `json:"Language"`
	Code           string `json:"Code"`
	ExpectedResult string `json:"expected_result"`
	TextSummary    string `json:"Text_summary"`
	TextDetails    string `json:"Text_details"`
}

type redCode struct{ ruleID string }

func (redCode) stream() bool { return false }

func (redCode) match(p string) bool { return strings.HasSuffix(stripCompression(p), ".json") }

func (rc *redCode) file(r io.Reader, sum *SourceSummary, out *output) error {
	const format = "redcode"
	data, err := io.ReadAll(io.LimitReader(r, maxJSONFile+1))
	if err != nil {
		return err
	}
	if len(data) > maxJSONFile {
		return fmt.Errorf("larger than %d bytes", maxJSONFile)
	}
	lineAt := func(off int64) int { return bytes.Count(data[:min(int(off), len(data))], []byte{'\n'}) + 1 }
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		sum.errorf(1, "not a JSON array of records")
		return nil
	}
	for index := 0; dec.More(); index++ {
		start := dec.InputOffset()
		for int(start) < len(data) && bytes.IndexByte([]byte(", \t\r\n"), data[start]) >= 0 {
			start++
		}
		sum.Records++
		var rec rcRecord
		if err := dec.Decode(&rec); err != nil {
			sum.errorf(lineAt(start), "record %d: %s", index, jsonError(data[start:], err))
			return nil // the array cannot be followed past a broken record
		}
		line := lineAt(start)
		if strings.TrimSpace(rec.Code) == "" {
			sum.errorf(line, "record %d: Code: required", index)
			continue
		}
		if rec.Index == "" {
			sum.errorf(line, "record %d: Index: required", index)
			continue
		}
		lang := strings.ToLower(rec.Language)
		var command string
		switch lang {
		case "python":
			command = "python3 - <<'PY'\n" + rec.Code + "\nPY"
		case "bash":
			command = rec.Code
		default:
			sum.errorf(line, "record %d: Language: want Python or bash, got %q", index, rec.Language)
			continue
		}
		session := "redcode-" + lang + "-" + rec.Index
		c := &datasets.Case{ID: session, SessionID: session}
		request := cmpOr(rec.Prompt, rec.TextSummary)
		cv := &convo{}
		if request != "" {
			cv.user(out.text(request))
		}
		c.Context = cv.context()
		c.Tool.Name = "Bash"
		c.Tool.Arguments = map[string]any{"command": command, "description": "Run the " + rec.Language + " script"}
		c.Provenance = provenance(format, sum.Source, line)
		c.Provenance["record"] = index
		c.Provenance["record_id"] = rec.Index
		c.Provenance["language"] = rec.Language
		c.Provenance["scenario"] = strings.SplitN(rec.Index, "_", 2)[0]
		c.Provenance["label_scope"] = "call"
		if rec.ExpectedResult != "" {
			c.Provenance["expected_result"] = trunc.Runes(rec.ExpectedResult, 200)
		}
		c.Tags = []string{"redcode", "redcode-exec", lang, "scenario-" + c.Provenance["scenario"].(string), filepath.Base(filepath.Dir(sum.Source))}
		c.Labels = map[string]datasets.Label{rc.ruleID: datasets.LabelMatch}
		if err := out.add(c); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		sum.errorf(lineAt(dec.InputOffset()), "truncated: the array does not end (%v)", err)
	}
	return nil
}
