package reports

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/replay"
)

// FuzzRunRoundTrip writes results built from fuzzed values and reads them
// back: whatever the strings, numbers and nil-ness, the Result must come
// back identical.
func FuzzRunRoundTrip(f *testing.F) {
	f.Add("c-1", "s-1", int64(3), "judge", "match", "a,b", false, 0.91, true, 412.5, uint8(2), true, int64(812))
	f.Add("", "", int64(-1), "", "", "", true, 0.0, false, 0.0, uint8(0), false, int64(0))
	f.Add("ケース", "s\x00", int64(math.MaxInt64), "j|x", "no_match", ",", false, -1.5, true, math.Inf(1), uint8(7), true, int64(-3))
	f.Fuzz(func(t *testing.T, caseID, session string, seq int64, judgeID, label, tags string, nilTags bool,
		conf float64, hasConf bool, lat float64, nRules uint8, cached bool, tokens int64) {
		if math.IsNaN(conf) || math.IsNaN(lat) {
			t.Skip("NaN never equals itself; DeepEqual cannot compare it")
		}
		r := &replay.Result{RunID: "fuzz", CaseID: caseID, SessionID: session, Seq: seq, Judge: judgeID,
			Model: judgeID, Permission: "allow", GateAction: datasets.ActionAllow, ExpectedAction: datasets.Action(label)}
		if !nilTags {
			r.Tags = strings.Split(tags, ",")
		}
		n := int(nRules % 5)
		if n > 0 {
			call := replay.Call{Rules: n, Status: "ok", LatencyMS: lat, Cached: cached, Attempts: n}
			if !cached {
				call.PromptTokens, call.ServerTotalMS = &tokens, &lat
			}
			r.Calls = []replay.Call{call}
			r.JudgeCalled, r.CacheHit, r.RulesJudged, r.LatencyMS, r.Status = true, cached, n, &lat, "ok"
		}
		for i := range n {
			rr := replay.RuleResult{RuleID: label + string(rune('a'+i)), RuleVersion: i, Class: "dangerous",
				Label: datasets.Label(label), Source: replay.SourceJudge, Result: "match", Action: datasets.ActionDenyCurrentTool,
				Status: "ok", Error: tags, Fingerprint: fingerprint(caseID), BaselineResult: judge.Result(label), Call: 0}
			if hasConf {
				c := conf
				rr.Confidence = &c
			}
			r.Rules = append(r.Rules, rr)
		}
		r.RulesInScope = n
		dir := t.TempDir()
		writeRun(t, dir, []*replay.Result{r})
		_, got := readRun(t, dir)
		if len(got) != 1 || !reflect.DeepEqual(got[0], r) {
			t.Fatalf("round trip changed the result:\n got %+v\nwant %+v", got, r)
		}
	})
}
