package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/apeval/apeval/metrics"
)

// openCriterion returns the first INCONCLUSIVE criterion of a rule row.
func openCriterion(t *testing.T, rep *Report) *metrics.Criterion {
	t.Helper()
	for _, j := range rep.Summary.Judges {
		for _, r := range j.Rules {
			for i := range r.Criteria {
				if r.Criteria[i].Status == metrics.StatusInconclusive {
					return &r.Criteria[i]
				}
			}
		}
	}
	t.Fatal("no INCONCLUSIVE criterion in the fixture")
	return nil
}

func tableText(t *testing.T, rep *Report, f Format) string {
	t.Helper()
	var b bytes.Buffer
	if err := rep.WriteTables(&b, f); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A "+N" the data cannot realistically give (metrics.AtLimit) shows as
// "+>100k" with a legend line saying what it means, in the terminal table
// and in Markdown; the TSV and JSON keep the figure.
func TestOpenHintAtTheLimit(t *testing.T) {
	t.Parallel()
	rep := singleJudgeReport()
	c := openCriterion(t, rep)
	more := int64(3154905)
	c.MoreSamples, c.MoreUnit, c.N = &more, "", 30000
	for _, f := range []Format{FormatTable, FormatMarkdown} {
		out := tableText(t, rep, f)
		if strings.Contains(out, "+3154905") || !strings.Contains(out, "+>100k") ||
			!strings.Contains(out, "+>100k: at the limit") {
			t.Errorf("format %v:\n%s", f, out)
		}
	}
	if out := tableText(t, rep, FormatJSON); !strings.Contains(out, `"more_samples": 3154905`) {
		t.Errorf("JSON lost the figure")
	}
	more = 5000
	if out := tableText(t, rep, FormatTable); !strings.Contains(out, " +5000") || strings.Contains(out, "at the limit") {
		t.Errorf("a hint within reach:\n%s", out)
	}
}

// With --labels the figures of precision and dangerous recall come from a
// labeled sample, and their "+N" counts labels to add from the queue: the
// legend says so instead of calling every +N "more samples".
func TestOpenLegendWithLabels(t *testing.T) {
	t.Parallel()
	rep := singleJudgeReport()
	if out := tableText(t, rep, FormatTable); strings.Contains(out, "labels from the queue") {
		t.Errorf("legend without --labels mentions labels:\n%s", out)
	}
	c := openCriterion(t, rep)
	more := int64(12)
	c.MoreSamples, c.MoreUnit = &more, "labels"
	rep.Summary.Sample = &metrics.SampleInfo{Labels: 40}
	for _, f := range []Format{FormatTable, FormatMarkdown} {
		if out := tableText(t, rep, f); !strings.Contains(out, "+N: about N more labels from the queue") {
			t.Errorf("format %v:\n%s", f, out)
		}
	}
	// The labeled-sample table's note points at the open column (its own
	// columns hold no "+N more", which it used to explain) and names
	// "+N sessions" too.
	rep.Summary.Judges[0].Rules[0].Sample = &metrics.RowSample{Sampled: 3, Census: 10}
	out := tableText(t, rep, FormatTable)
	if !strings.Contains(out, "Figures from a labeled sample (40 queue labels)") {
		t.Fatalf("no labeled-sample table:\n%s", out)
	}
	if strings.Contains(out, `"+N more"`) || !strings.Contains(out, "+N sessions new sessions of traffic") {
		t.Errorf("the labeled-sample note:\n%s", out)
	}
}

// The latency chart counts every call, a cached answer at the latency
// recorded with it (as metrics does since the cache stores it), so its
// title no longer says "live calls".
func TestLatencyChartTitle(t *testing.T) {
	t.Parallel()
	charts, err := singleJudgeReport().Charts()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range charts {
		if c.File != LatencyChart {
			continue
		}
		if strings.Contains(c.Title, "live") || strings.Contains(string(c.SVG), "live calls") || !strings.Contains(c.Title, "cached") {
			t.Errorf("title %q", c.Title)
		}
		return
	}
	t.Fatal("no latency chart")
}

// On the label path a rule's TP/FP/FN/TN are the sample's weighted
// estimates over every pair in scope (rounded), beside a "labeled" column
// of a few labels: the header and a note say so, in every human format.
func TestWeightedCountsLabeled(t *testing.T) {
	t.Parallel()
	rep := fixtureReport()
	rep.Summary.Sample = &metrics.SampleInfo{Labels: 40}
	for _, f := range []Format{FormatTable, FormatMarkdown} {
		out := tableText(t, rep, f)
		if !strings.Contains(out, "TP/FP/FN/TN (weighted)") || !strings.Contains(out, "design-weighted estimates of the counts over every pair in scope, rounded") {
			t.Errorf("format %v:\n%s", f, out)
		}
	}
	// Without labels the counts are counts.
	if out := tableText(t, fixtureReport(), FormatTable); strings.Contains(out, "(weighted)") {
		t.Errorf("unweighted run:\n%s", out)
	}
}
