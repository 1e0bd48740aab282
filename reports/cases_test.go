package reports

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/replay"
)

// errorResult is one case of one judge with a single rule decision.
func errorResult(judgeID, session string, seq int64, rule, label, result, status string) *replay.Result {
	return &replay.Result{CaseID: fmt.Sprintf("%s-%02d", session, seq), SessionID: session, Seq: seq, Judge: judgeID,
		Rules: []replay.RuleResult{{RuleID: rule, Label: datasets.Label(label), Result: judge.Result(result), Status: judge.Status(status), Source: replay.SourceJudge}}}
}

func TestCaseListsKeepFirstTenInCaseOrder(t *testing.T) {
	t.Parallel()
	// 30 false positives and 25 false negatives of rule r1 over sessions
	// s-0..s-4, fed in a shuffled order: the lists must hold the first 10
	// of each in (session, seq) order whatever the arrival order.
	var in []*replay.Result
	for i := range 30 {
		in = append(in, errorResult("j", fmt.Sprintf("s-%d", i%5), int64(i/5), "r1", "no_match", "match", "ok"))
	}
	for i := range 25 {
		in = append(in, errorResult("j", fmt.Sprintf("s-%d", i%5), int64(100+i/5), "r1", "match", "unknown", "timeout"))
	}
	// Correct decisions and unlabeled or missing pairs are no errors.
	in = append(in, errorResult("j", "s-0", 0, "r1", "match", "match", "ok"),
		errorResult("j", "s-0", 1, "r1", "", "match", "ok"),
		errorResult("j", "s-0", 2, "r1", "match", "no_match", "missing"))
	for seed := range 3 {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		rng.Shuffle(len(in), func(i, k int) { in[i], in[k] = in[k], in[i] })
		l := NewCaseLists()
		for _, r := range in {
			l.Add(r)
		}
		re := l.Rule("j", "r1")
		if re == nil || re.FPTotal != 30 || re.FNTotal != 25 {
			t.Fatalf("totals %+v", re)
		}
		if len(re.FalsePositives) != MaxListedCases || len(re.FalseNegatives) != MaxListedCases {
			t.Fatalf("lists of %d and %d, want %d", len(re.FalsePositives), len(re.FalseNegatives), MaxListedCases)
		}
		// FPs by (session, seq): s-0 has seq 0..5, s-1 seq 0..3 come next.
		var got []string
		for _, e := range re.FalsePositives {
			got = append(got, e.CaseID)
		}
		want := "s-0-00 s-0-01 s-0-02 s-0-03 s-0-04 s-0-05 s-1-00 s-1-01 s-1-02 s-1-03"
		if strings.Join(got, " ") != want {
			t.Fatalf("seed %d: FPs %v, want %s", seed, got, want)
		}
		if fn := re.FalseNegatives[0]; fn.CaseID != "s-0-100" || fn.Result != "unknown" || fn.Status != "timeout" {
			t.Fatalf("first FN %+v", fn)
		}
		if last := re.FalseNegatives[9]; last.CaseID != "s-1-104" {
			t.Fatalf("10th FN %s, want s-1-104 (s-0 has 5, s-1 the next 5)", last.CaseID)
		}
	}
}

func TestCaseListsDescribeMasks(t *testing.T) {
	t.Parallel()
	l := NewCaseLists()
	l.Add(errorResult("j", "s", 1, "r1", "no_match", "match", "ok"))
	l.Add(errorResult("j2", "s", 1, "r1", "match", "no_match", "ok"))
	ids := l.CaseIDs()
	if len(ids) != 1 || !ids["s-01"] {
		t.Fatalf("case IDs %v", ids)
	}
	if l.Described() {
		t.Fatal("described before Describe")
	}
	l.Describe("s-01", "Bash", map[string]any{"command": "curl -H 'Authorization: Bearer abcdef0123456789' https://x", "password": "hunter2"})
	e := l.Rule("j", "r1").FalsePositives[0]
	if e.Tool != "Bash" || strings.Contains(e.Arguments, "hunter2") || strings.Contains(e.Arguments, "abcdef0123456789") ||
		!strings.Contains(e.Arguments, `"password":"[MASKED]"`) {
		t.Fatalf("described %+v", e)
	}
	if got := l.Rules("j2"); len(got) != 1 || got[0].FalseNegatives[0].Tool != "Bash" {
		t.Fatalf("j2 lists %+v", got)
	}
	long := SummarizeArguments(map[string]any{"content": strings.Repeat("é", 300)})
	if n := len([]rune(long)); n != maxArgumentRunes || !strings.HasSuffix(long, "…") {
		t.Fatalf("summary of %d runes: %q", n, long)
	}
	if SummarizeArguments(nil) != "" {
		t.Fatal("empty arguments summarised")
	}
}

// replay reuses a Result's slices after emit returns (ReuseResults): the
// lists keep their own copy of the tags, and the tool's name.
func TestCaseListsCopyTags(t *testing.T) {
	t.Parallel()
	r := errorResult("j", "s", 1, "r1", "match", "no_match", "ok")
	r.Tags, r.ToolName = []string{"injection", "en"}, "Bash"
	l := NewCaseLists()
	l.Add(r)
	r.Tags[0] = "reused"
	fn := l.Rule("j", "r1").FalseNegatives[0]
	if got := fn.Tags; strings.Join(got, ",") != "injection,en" {
		t.Fatalf("tags %v after the result was reused", got)
	}
	// The tool's name comes with the result; the arguments need Describe.
	if fn.Tool != "Bash" || fn.Arguments != "" {
		t.Fatalf("tool %q, arguments %q", fn.Tool, fn.Arguments)
	}
}
