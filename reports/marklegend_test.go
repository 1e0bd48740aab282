package reports

import (
	"bytes"
	"strings"
	"testing"
)

// One legend for "~", from one place (MarkLegend), in every output that
// marks differences: the terminal and Markdown comparison tables, the
// pull-request comment and report.html; none says the marks follow p
// (issue 35 point 14).
func TestOneMarkLegend(t *testing.T) {
	t.Parallel()
	rep := fixtureReport()
	if len(rep.Summary.Comparisons) == 0 {
		t.Fatal("the fixture has no comparison")
	}
	c := rep.Summary.Comparisons[0]
	legend := MarkLegend(rep.Summary.Thresholds.Confidence)
	outs := map[string]string{}
	for _, f := range []Format{FormatTable, FormatMarkdown} {
		var b bytes.Buffer
		if err := rep.WriteComparison(&b, c, f); err != nil {
			t.Fatal(err)
		}
		outs[string(f)] = b.String()
	}
	var b bytes.Buffer
	if err := rep.WriteComment(&b, c, CommentOptions{}); err != nil {
		t.Fatal(err)
	}
	outs["comment"] = b.String()
	b.Reset()
	if err := rep.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	outs["html"] = strings.ReplaceAll(b.String(), "&ndash;", "–")
	for name, out := range outs {
		if name == "html" {
			legendHTML := strings.NewReplacer("≥", "&ge;").Replace(legend)
			if !strings.Contains(out, legend) && !strings.Contains(out, legendHTML) {
				t.Errorf("%s lacks the legend %q", name, legend)
			}
		} else if !strings.Contains(out, legend) {
			t.Errorf("%s lacks the legend %q", name, legend)
		}
		for _, wrong := range []string{"could be chance (p ≥", "p below 1 − confidence", "is below 1 − confidence"} {
			if strings.Contains(out, wrong) {
				t.Errorf("%s still says %q", name, wrong)
			}
		}
	}
}
