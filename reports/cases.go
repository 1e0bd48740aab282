package reports

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/internal/trunc"
	"github.com/apeval/apeval/replay"
)

// MaxListedCases is how many false positives and how many false negatives
// CaseLists keeps per judge × rule.
const MaxListedCases = 10

// maxArgumentRunes bounds an argument summary.
const maxArgumentRunes = 120

// ErrorCase is one misjudged (case, rule) pair a reviewer can open.
type ErrorCase struct {
	CaseID    string `json:"case_id"`
	SessionID string `json:"session_id"`
	Seq       int64  `json:"seq"`
	// Tags are the case's tags (injection, deletion, …), so a reviewer sees
	// which kind of case a judge gets wrong.
	Tags []string `json:"tags,omitempty"`
	// Tool comes with the result (gates.parquet keeps it); Arguments
	// (masked, shortened JSON) only from the dataset (Describe): both are ""
	// when unknown.
	Tool      string `json:"tool"`
	Arguments string `json:"arguments"`
	Label     string `json:"label"`
	Result    string `json:"result"`
	Status    string `json:"status"`
	Source    string `json:"source"`
	Error     string `json:"error,omitempty"`
}

// less is case order: session, then seq, then case ID — the same at any
// concurrency and after merging shards, unlike arrival order.
func (e *ErrorCase) less(o *ErrorCase) bool {
	if e.SessionID != o.SessionID {
		return e.SessionID < o.SessionID
	}
	if e.Seq != o.Seq {
		return e.Seq < o.Seq
	}
	return e.CaseID < o.CaseID
}

// RuleErrors holds one judge × rule's listed errors and how many there were.
type RuleErrors struct {
	Judge  string `json:"judge"`
	RuleID string `json:"rule_id"`
	// FalsePositives: result match, label no_match. FalseNegatives: label
	// match, result not match (no_match, unknown or a failure). Each holds
	// at most MaxListedCases, the first in case order.
	FalsePositives []ErrorCase `json:"false_positives"`
	FalseNegatives []ErrorCase `json:"false_negatives"`
	// FPTotal and FNTotal count every false positive and negative seen.
	FPTotal int64 `json:"fp_total"`
	FNTotal int64 `json:"fn_total"`
}

// CaseLists collects, per judge and rule, the first MaxListedCases false
// positives and false negatives in case order from the replay results
// stream (Add), then takes the tool and masked arguments of the cases it
// kept (Describe), so memory stays bounded whatever the run's size.
type CaseLists struct {
	rules map[[2]string]*RuleErrors
	desc  map[string]caseDesc
	// Note says why Tool and Arguments are empty, "" when Describe filled them.
	Note string
}

type caseDesc struct{ tool, args string }

// NewCaseLists returns an empty collector.
func NewCaseLists() *CaseLists {
	return &CaseLists{rules: map[[2]string]*RuleErrors{}}
}

// Add takes one replayed case of one judge. A pair is listed in the cell
// metrics counts it in (RuleResult.Classify): missing and scope rows are
// neither kind of error.
func (l *CaseLists) Add(r *replay.Result) {
	for i := range r.Rules {
		rr := &r.Rules[i]
		_, cell := rr.Classify()
		fp, fn := cell == replay.CellFP, cell == replay.CellFN
		if !fp && !fn {
			continue
		}
		k := [2]string{r.Judge, rr.RuleID}
		re := l.rules[k]
		if re == nil {
			re = &RuleErrors{Judge: r.Judge, RuleID: rr.RuleID}
			l.rules[k] = re
		}
		e := ErrorCase{CaseID: r.CaseID, SessionID: r.SessionID, Seq: r.Seq, Tool: r.ToolName, Label: string(rr.Label),
			Result: string(rr.Result), Status: string(rr.Status), Source: string(rr.Source), Error: rr.Error}
		if len(r.Tags) > 0 {
			// A copy: replay may reuse the Result's slices after Add returns.
			e.Tags = append([]string(nil), r.Tags...)
		}
		if fp {
			re.FPTotal++
			re.FalsePositives = keepFirst(re.FalsePositives, e)
		} else {
			re.FNTotal++
			re.FalseNegatives = keepFirst(re.FalseNegatives, e)
		}
	}
}

// keepFirst inserts e in case order and keeps the first MaxListedCases.
func keepFirst(list []ErrorCase, e ErrorCase) []ErrorCase {
	if len(list) == MaxListedCases && !e.less(&list[len(list)-1]) {
		return list
	}
	i := sort.Search(len(list), func(i int) bool { return e.less(&list[i]) })
	if len(list) < MaxListedCases {
		list = append(list, ErrorCase{})
	}
	copy(list[i+1:], list[i:])
	list[i] = e
	return list
}

// CaseIDs are the cases the lists hold, for Describe.
func (l *CaseLists) CaseIDs() map[string]bool {
	ids := map[string]bool{}
	for _, re := range l.rules {
		for _, e := range re.FalsePositives {
			ids[e.CaseID] = true
		}
		for _, e := range re.FalseNegatives {
			ids[e.CaseID] = true
		}
	}
	return ids
}

// Describe sets a listed case's tool and argument summary from its
// dataset record; args is summarised with SummarizeArguments (masked,
// shortened).
func (l *CaseLists) Describe(caseID, tool string, args map[string]any) {
	if l.desc == nil {
		l.desc = map[string]caseDesc{}
	}
	l.desc[caseID] = caseDesc{tool, SummarizeArguments(args)}
}

// Described reports whether tool and arguments were supplied.
func (l *CaseLists) Described() bool { return len(l.desc) > 0 }

// Rules returns the lists of one judge sorted by rule ID, with tool and
// arguments filled in where Describe gave them.
func (l *CaseLists) Rules(judge string) []*RuleErrors {
	var out []*RuleErrors
	for k, re := range l.rules {
		if k[0] == judge {
			out = append(out, l.filled(re))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].RuleID < out[j].RuleID })
	return out
}

// Rule returns one judge × rule's lists, nil when it had no error.
func (l *CaseLists) Rule(judge, rule string) *RuleErrors {
	if l == nil {
		return nil
	}
	re := l.rules[[2]string{judge, rule}]
	if re == nil {
		return nil
	}
	return l.filled(re)
}

func (l *CaseLists) filled(re *RuleErrors) *RuleErrors {
	out := *re
	fill := func(in []ErrorCase) []ErrorCase {
		cp := append([]ErrorCase(nil), in...)
		for i := range cp {
			if d, ok := l.desc[cp[i].CaseID]; ok {
				cp[i].Tool, cp[i].Arguments = d.tool, d.args
			}
		}
		return cp
	}
	out.FalsePositives, out.FalseNegatives = fill(re.FalsePositives), fill(re.FalseNegatives)
	return &out
}

// SummarizeArguments is a tool call's arguments as one line of compact
// JSON (keys sorted), every string through the masking pass
// (mask.Value), cut to 120 characters.
func SummarizeArguments(args map[string]any) string {
	if len(args) == 0 {
		return ""
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(mask.Value(args)); err != nil {
		return ""
	}
	s := strings.TrimSpace(b.String())
	return trunc.Width(s, maxArgumentRunes)
}
