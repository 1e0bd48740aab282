package diff

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/internal/fixture"
	"github.com/apeval/apeval/reports/rundir"
)

// genRule is a rule of the generated policies.
type genRule struct {
	id     string
	class  replay.Class
	action datasets.Action
}

var genRules = []genRule{
	{"r-deny", replay.ClassDangerous, datasets.ActionDenyCurrentTool},
	{"r-approve", replay.ClassApproval, datasets.ActionRequestApproval},
	{"r-audit", replay.ClassAudit, datasets.ActionAuditOnly},
	{"r-notify", replay.ClassAudit, datasets.ActionNotifyAdmin},
	{"r-stop", replay.ClassStop, datasets.ActionStopTask},
}

// genPair writes two runs of one generated dataset: base (judge "recorded/base")
// and head (judge "recorded/head"), where the head's answers differ from
// the base's on about a third of the (case, rule) pairs, some rules carry
// labels, r-deny has three repeats on every third case, and the head
// policy adds r-new. Sessions hold perSession cases in seq order. Both
// runs are written in the same case order unless shuffleHead.
func genPair(t testing.TB, dir string, sessions, perSession int, seed uint64, shuffleHead bool) (base, head string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 99))
	var bs, hs []*replay.Result
	answer := func(r *replay.RuleResult, res judge.Result, conf float64) {
		r.Result, r.Status, r.Source = res, judge.StatusOK, replay.SourceJudge
		if res == judge.Unknown {
			r.Status = judge.StatusUnknown
		}
		c := conf
		r.Confidence = &c
	}
	results := []judge.Result{judge.Match, judge.NoMatch, judge.NoMatch, judge.NoMatch, judge.Unknown}
	for s := 0; s < sessions; s++ {
		for q := 0; q < perSession; q++ {
			id := fmt.Sprintf("c-%05d-%02d", s, q)
			b := &replay.Result{RunID: "base", CaseID: id, SessionID: fmt.Sprintf("s-%05d", s), Seq: int64(q * 10),
				Judge: "recorded/base", Model: "base", Permission: "off", ToolName: []string{"Bash", "Write", "WebFetch"}[rng.IntN(3)],
				Category: "command_execution", HookPoint: "tool.before", JudgeCalled: true, Status: judge.StatusOK}
			h := &replay.Result{}
			*h = *b
			h.RunID, h.Judge, h.Model = "head", "recorded/head", "head"
			repeats := q%3 == 0
			for _, gr := range genRules {
				label := datasets.Label("")
				switch rng.IntN(3) {
				case 0:
					label = datasets.LabelMatch
				case 1:
					label = datasets.LabelNoMatch
				}
				rb := replay.RuleResult{RuleID: gr.id, RuleVersion: 1, Class: gr.class, Label: label, Action: gr.action, Call: 0}
				rh := rb
				if gr.id == "r-approve" {
					rh.RuleVersion = 2 // the head's policy changed this rule
				}
				br := results[rng.IntN(len(results))]
				hr := br
				if rng.IntN(3) == 0 {
					hr = results[rng.IntN(len(results))]
				}
				answer(&rb, br, 0.5+rng.Float64()/2)
				answer(&rh, hr, 0.5+rng.Float64()/2)
				if gr.id == "r-deny" && repeats {
					// Three votes per side; the majority is the result.
					vote := func(maj judge.Result) []replay.RepeatVote {
						other := judge.NoMatch
						if maj == judge.NoMatch {
							other = judge.Match
						}
						vs := []replay.RepeatVote{{Result: maj, Status: judge.StatusOK}, {Result: maj, Status: judge.StatusOK}, {Result: maj, Status: judge.StatusOK}}
						if rng.IntN(4) == 0 {
							vs[2] = replay.RepeatVote{Result: other, Status: judge.StatusOK}
						}
						for i := range vs {
							vs[i].Call, vs[i].Of = i, 1
							if vs[i].Result == judge.Unknown {
								vs[i].Status = judge.StatusUnknown
							}
						}
						return vs
					}
					rb.Repeats, rh.Repeats = vote(br), vote(hr)
				}
				rb.Fired, rh.Fired = rb.Result == judge.Match, rh.Result == judge.Match
				b.Rules = append(b.Rules, rb)
				h.Rules = append(h.Rules, rh)
			}
			if rng.IntN(4) == 0 {
				// A rule only the head's policy has.
				rn := replay.RuleResult{RuleID: "r-new", RuleVersion: 1, Class: replay.ClassDangerous, Action: datasets.ActionDenyCurrentTool, Call: 0}
				answer(&rn, results[rng.IntN(2)], 0.9)
				rn.Fired = rn.Result == judge.Match
				h.Rules = append(h.Rules, rn)
			}
			for _, r := range []*replay.Result{b, h} {
				calls := 1
				if repeats {
					calls = 3
				}
				for i := 0; i < calls; i++ {
					r.Calls = append(r.Calls, replay.Call{Rules: len(r.Rules), Status: judge.StatusOK, LatencyMS: 100})
				}
				r.RulesInScope, r.RulesJudged = len(r.Rules), len(r.Rules)
				r.GateAction = datasets.ActionAllow
				for _, rr := range r.Rules {
					if rr.Fired && replay.ActionRank(rr.Action) > replay.ActionRank(r.GateAction) {
						r.GateAction = rr.Action
					}
				}
			}
			bs, hs = append(bs, b), append(hs, h)
		}
	}
	if shuffleHead {
		rng.Shuffle(len(hs), func(i, j int) { hs[i], hs[j] = hs[j], hs[i] })
	}
	base, head = filepath.Join(dir, "base"), filepath.Join(dir, "head")
	writeGenRun(t, base, "recorded/base", "base-policy.toml", bs)
	writeGenRun(t, head, "recorded/head", "head-policy.toml", hs)
	return base, head
}

func writeGenRun(t testing.TB, dir, judgeID, policy string, rs []*replay.Result) {
	t.Helper()
	info := rundir.RunInfo{RunID: filepath.Base(dir), Created: time.Date(2026, 7, 24, 10, 0, 0, 0, time.UTC), Version: "test",
		Datasets: []rundir.FileRef{{Name: "gen.jsonl", SHA256: strings.Repeat("ab", 32)}},
		Policy:   &rundir.FileRef{Name: policy, SHA256: fmt.Sprintf("%x", sha256.Sum256([]byte(policy)))},
		Judges:   []rundir.JudgeInfo{{Identity: judgeID, Backend: "recorded", Model: strings.TrimPrefix(judgeID, "recorded/")}},
		Cases:    int64(len(rs))}
	fixture.WriteRun(t, dir, info, rs)
}
