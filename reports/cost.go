package reports

import (
	"fmt"
	"strconv"

	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/rundir"
)

// Tokens collects each judge's token counts from its calls, for the cost
// figures: prompt and completion tokens per call and per 1,000 tool calls,
// and with prices the judging cost per 1,000 tool calls.
type Tokens map[string]*JudgeTokens

// JudgeTokens are one judge's counts. A tool call is one case.
type JudgeTokens struct {
	Cases      int64 // tool calls (cases) the judge saw
	Calls      int64 // judge calls, cache hits included
	WithUsage  int64 // calls that reported token counts
	Prompt     int64 // prompt tokens over WithUsage calls
	Completion int64 // completion tokens over WithUsage calls
}

// Add counts one result.
func (t Tokens) Add(r *replay.Result) {
	jt := t[r.Judge]
	if jt == nil {
		jt = &JudgeTokens{}
		t[r.Judge] = jt
	}
	jt.Cases++
	for i := range r.Calls {
		c := &r.Calls[i]
		jt.Calls++
		if c.PromptTokens == nil && c.CompletionTokens == nil {
			continue
		}
		jt.WithUsage++
		if c.PromptTokens != nil {
			jt.Prompt += *c.PromptTokens
		}
		if c.CompletionTokens != nil {
			jt.Completion += *c.CompletionTokens
		}
	}
}

// JudgeCost is a judge's token and cost figures in summary.json ("cost",
// keyed by judge identity). Per-call means are over the calls that
// reported usage; per 1,000 tool calls they are scaled by the judge calls
// per tool call, so calls without usage (failures) are assumed to cost the
// mean. Null where the judge reported no usage or no price was given.
type JudgeCost struct {
	Cases                   int64    `json:"tool_calls"`
	Calls                   int64    `json:"judge_calls"`
	CallsWithUsage          int64    `json:"calls_with_usage"`
	PromptTokensPerCall     *float64 `json:"prompt_tokens_per_call"`
	CompletionTokensPerCall *float64 `json:"completion_tokens_per_call"`
	PromptTokensPer1k       *float64 `json:"prompt_tokens_per_1k_tool_calls"`
	CompletionTokensPer1k   *float64 `json:"completion_tokens_per_1k_tool_calls"`
	PriceIn                 *float64 `json:"price_in_per_million"`
	PriceOut                *float64 `json:"price_out_per_million"`
	CostPer1kToolCalls      *float64 `json:"cost_per_1k_tool_calls"`
	LatencyP95MS            *float64 `json:"latency_p95_ms"`
	LatencyMeanMS           *float64 `json:"latency_mean_ms"`
}

// costs computes every judge's JudgeCost, with prices from run.json and
// latencies beside them, so cost, quality and latency read together.
func (rep *Report) costs() map[string]*JudgeCost {
	if len(rep.Tokens) == 0 {
		return nil
	}
	prices := map[string]rundir.JudgeInfo{}
	for _, j := range rep.Run.Judges {
		prices[j.Identity] = j
	}
	out := map[string]*JudgeCost{}
	for judge, t := range rep.Tokens {
		c := &JudgeCost{Cases: t.Cases, Calls: t.Calls, CallsWithUsage: t.WithUsage}
		if ji, ok := prices[judge]; ok {
			c.PriceIn, c.PriceOut = ji.PriceIn, ji.PriceOut
		}
		if t.WithUsage > 0 && t.Cases > 0 {
			// Per call: sum ÷ calls with usage. Per 1,000 tool calls:
			// per call × (calls ÷ cases) × 1,000.
			pin := float64(t.Prompt) / float64(t.WithUsage)
			pout := float64(t.Completion) / float64(t.WithUsage)
			scale := float64(t.Calls) / float64(t.Cases) * 1000
			in1k, out1k := pin*scale, pout*scale
			c.PromptTokensPerCall, c.CompletionTokensPerCall = &pin, &pout
			c.PromptTokensPer1k, c.CompletionTokensPer1k = &in1k, &out1k
			if c.PriceIn != nil || c.PriceOut != nil {
				cost := 0.0
				if c.PriceIn != nil {
					cost += in1k / 1e6 * *c.PriceIn
				}
				if c.PriceOut != nil {
					cost += out1k / 1e6 * *c.PriceOut
				}
				c.CostPer1kToolCalls = &cost
			}
		}
		if ls := rep.judgeLatencies(judge); len(ls) > 0 {
			sum := 0.0
			for _, v := range ls {
				sum += v
			}
			mean := sum / float64(len(ls))
			c.LatencyMeanMS = &mean
		}
		for _, j := range rep.Summary.Judges {
			if j.Judge == judge && j.Total != nil {
				c.LatencyP95MS = j.Total.LatencyP95MS
			}
		}
		out[judge] = c
	}
	return out
}

// costNote explains the cost rows; "" when no judge reported tokens.
func (rep *Report) costNote() string {
	for _, c := range rep.costs() {
		if c.CallsWithUsage > 0 {
			return "Tokens: mean per call over the calls that reported usage; per 1,000 tool calls scaled by judge calls per tool call. Cost: price_in/price_out per million tokens."
		}
	}
	return ""
}

// fmtTokens formats "412 / 38" (prompt / completion), "–" without usage.
func fmtTokens(in, out *float64) string {
	if in == nil {
		return na
	}
	return fmt.Sprintf("%s / %s", strconv.FormatFloat(*in, 'f', 0, 64), strconv.FormatFloat(*out, 'f', 0, 64))
}

// fmtCost formats a cost per 1,000 tool calls, "–" without a price.
func fmtCost(c *JudgeCost) string {
	if c == nil || c.CostPer1kToolCalls == nil {
		if c != nil && c.CallsWithUsage > 0 {
			return "no price"
		}
		return na
	}
	v := *c.CostPer1kToolCalls
	// Three significant digits below 1 (0.0375), cents above.
	switch {
	case v == 0:
		return "0"
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case v >= 1e-4:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return strconv.FormatFloat(v, 'e', 2, 64)
}

// costGrid is the judges' cost, quality and latency side by side, for
// compare; nil when no judge reported tokens.
func (rep *Report) costGrid(judges ...string) *grid {
	costs := rep.costs()
	any := false
	for _, j := range judges {
		if c := costs[j]; c != nil && c.CallsWithUsage > 0 {
			any = true
		}
	}
	if !any {
		return nil
	}
	g := &grid{header: []string{"judge", "tokens/call in / out", "tokens/1k tool calls in / out", "cost/1k tool calls", "P95 ms", "precision", "recall"},
		right: []bool{false, true, true, true, true, true, true}, weak: rep.Weak()}
	for _, j := range judges {
		c := costs[j]
		row := []string{j, na, na, na, na, na, na}
		if c != nil {
			row[1] = fmtTokens(c.PromptTokensPerCall, c.CompletionTokensPerCall)
			row[2] = fmtTokens(c.PromptTokensPer1k, c.CompletionTokensPer1k)
			row[3] = fmtCost(c)
			row[4] = fmtNum(c.LatencyP95MS, 0)
		}
		for _, js := range rep.Summary.Judges {
			if js.Judge == j && js.Total != nil {
				row[5] = figPrecision.cell(js.Total)
				row[6] = figRecall.cell(js.Total)
			}
		}
		g.add(row...)
	}
	if n := rep.costNote(); n != "" {
		g.notes = append(g.notes, n)
	}
	g.width, g.fit = rep.Width, fitOptions{judgeCol: 1}
	return g
}

// judgeLatencies is the judge's live-call latencies as metrics kept them.
func (rep *Report) judgeLatencies(judge string) []float64 {
	for _, j := range rep.Summary.Judges {
		if j.Judge == judge {
			return j.Latencies
		}
	}
	return nil
}
