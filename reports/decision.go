package reports

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/apeval/apeval/metrics"
)

// verdictRule is the verdict rule in one sentence, said wherever a page
// explains a verdict (see docs/statistics.md).
const verdictRule = "A criterion FAILs only when its whole interval lies on the bad side of the threshold; " +
	"it is INCONCLUSIVE while the interval straddles the threshold, and PASSes when it lies wholly on the good side."

// critFigure names what a criterion measures and how it must come out.
var critFigure = map[string]struct{ what, need string }{
	metrics.CriterionPrecisionMin:          {"precision", "≥ %g"},
	metrics.CriterionDangerousRecall:       {"recall gain over the deterministic baseline", "> 0"},
	metrics.CriterionJudgeP95Max:           {"P95 latency (ms)", "≤ %g ms"},
	metrics.CriterionJudgeRequiredRateMax:  {"judge-required rate", "≤ %g"},
	metrics.CriterionUnknownRateMax:        {"unknown rate", "≤ %g"},
	metrics.CriterionApprovalRejectRateMax: {"approval reject rate", "≤ %g"},
	metrics.CriterionFireRateChangeMax:     {"fire-rate change vs baseline", "within ±%g"},
}

// critNum formats a criterion's estimate or bound.
func critNum(name string, v float64) string {
	switch name {
	case metrics.CriterionJudgeP95Max:
		return metaOf("latency_p95_ms").num(v)
	case metrics.CriterionFireRateChangeMax, metrics.CriterionDangerousRecall:
		return metaOf("fire_rate").signedNum(v)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// holdBack is one criterion that keeps a judge from GO, in plain words.
type holdBack struct {
	Rule   string // "all rules" for judge-level criteria
	Status metrics.Status
	Text   string // figure, interval, n and threshold, then what decides it
	more   int64  // samples that would decide an open criterion; -1 unknown
}

// criterionSentence says what a FAIL or INCONCLUSIVE criterion found, with
// its numbers and, when open, how many more samples would decide it:
// "precision 0.591 [0.387, 0.767] (n=22) needs ≥ 0.9: the whole interval is
// below it".
func criterionSentence(c metrics.Criterion) string {
	cf, ok := critFigure[c.Name]
	if !ok {
		cf.what, cf.need = c.Name, "%g"
	}
	need := cf.need
	if need != "> 0" {
		need = fmt.Sprintf(need, c.Threshold)
	}
	s := cf.what
	if c.Estimate != nil {
		s += " " + critNum(c.Name, *c.Estimate)
		if c.Lo != nil && c.Hi != nil {
			s += " [" + critNum(c.Name, *c.Lo) + ", " + critNum(c.Name, *c.Hi) + "]"
		}
	}
	if c.N > 0 {
		s += fmt.Sprintf(" (n=%d)", c.N)
	}
	s += ", needs " + need
	switch c.Status {
	case metrics.StatusFail:
		if whollyBad(c) {
			s += ": the whole interval is on the bad side"
		} else if c.Reason != "" {
			s += ": " + c.Reason // one of the stated exceptions; metrics says which
		}
	case metrics.StatusInconclusive:
		switch {
		case c.MoreSamples != nil:
			s += fmt.Sprintf(": the interval straddles it; about %d more %s at the observed rate would decide it", *c.MoreSamples, moreUnit(c))
		case c.Estimate == nil:
			s += ": no data to decide it yet"
		default:
			s += ": the interval straddles it and the estimate is on the bad side; more samples at this rate would confirm a FAIL"
		}
	}
	return s
}

// moreUnit is what a criterion's MoreSamples counts: "samples", or
// "labels from the queue" on figures from a labeled sample.
func moreUnit(c metrics.Criterion) string {
	if c.MoreUnit == "labels" {
		return "labels from the queue"
	}
	return "samples"
}

// whollyBad reports whether the criterion's interval lies wholly on the
// bad side of its threshold, so the page never claims it when it does not.
func whollyBad(c metrics.Criterion) bool {
	if c.Lo == nil || c.Hi == nil {
		return false
	}
	lo, hi, t := *c.Lo, *c.Hi, c.Threshold
	switch c.Name {
	case metrics.CriterionPrecisionMin, metrics.CriterionDangerousRecall:
		return hi < t
	case metrics.CriterionFireRateChangeMax:
		return lo > t || hi < -t
	}
	return lo > t
}

// criterionShort is criterionSentence for a decision card, where the list
// heading already says FAIL (whole interval on the bad side) or open
// (straddles): "precision 0.952 [0.769, 0.992] (n=21), needs ≥ 0.9 — about
// 110 more samples would decide it".
func criterionShort(c metrics.Criterion) string {
	s := criterionSentence(metrics.Criterion{Name: c.Name, Estimate: c.Estimate, Lo: c.Lo, Hi: c.Hi,
		Threshold: c.Threshold, N: c.N})
	switch c.Status {
	case metrics.StatusFail:
		if !whollyBad(c) && c.Reason != "" {
			s += " — " + c.Reason
		}
	case metrics.StatusInconclusive:
		switch {
		case c.MoreSamples != nil:
			s += fmt.Sprintf(" — about %d more %s would decide it", *c.MoreSamples, moreUnit(c))
		case c.Estimate == nil:
			s += " — no data to decide it yet"
		default:
			s += " — the estimate is on the bad side: more samples at this rate would confirm a FAIL"
		}
	}
	return s
}

// holdBacks lists what keeps a judge from GO: failing criteria first, then
// open ones nearest to a decision first (fewest more samples); judge-level
// before rules and rules in ID order otherwise.
func holdBacks(j *metrics.JudgeSummary) []holdBack {
	rows := j.Rules
	if j.Total != nil {
		rows = append([]*metrics.Row{j.Total}, rows...)
	}
	var fail, open []holdBack
	for _, r := range rows {
		for _, c := range r.Criteria {
			h := holdBack{Rule: ruleLabel(r.RuleID), Status: c.Status, Text: criterionShort(c), more: -1}
			if c.MoreSamples != nil {
				h.more = *c.MoreSamples
			}
			switch c.Status {
			case metrics.StatusFail:
				fail = append(fail, h)
			case metrics.StatusInconclusive:
				open = append(open, h)
			}
		}
	}
	sort.SliceStable(open, func(a, b int) bool {
		ma, mb := open[a].more, open[b].more
		if (ma < 0) != (mb < 0) {
			return ma >= 0
		}
		return ma < mb
	})
	return append(fail, open...)
}

// verdictSummary says in a sentence how a judge's verdict came about.
func verdictSummary(j *metrics.JudgeSummary, hb []holdBack) string {
	var fail, open int
	for _, h := range hb {
		if h.Status == metrics.StatusFail {
			fail++
		} else {
			open++
		}
	}
	switch {
	case fail > 0 && open > 0:
		return fmt.Sprintf("%d criteria fail and %d are still open.", fail, open)
	case fail > 0:
		return fmt.Sprintf("%d criteria fail.", fail)
	case open > 0:
		return fmt.Sprintf("Nothing fails, but %d criteria are still open: more data decides them.", open)
	}
	return "Every criterion passed or had no data (N/A)."
}
