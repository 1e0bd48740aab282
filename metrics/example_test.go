package metrics_test

import (
	"fmt"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
)

func Example() {
	a := metrics.New(metrics.Config{Criteria: replay.DefaultKillCriteria()})
	for i, label := range []datasets.Label{datasets.LabelMatch, datasets.LabelMatch, datasets.LabelNoMatch, datasets.LabelMatch} {
		a.Add(&replay.Result{
			CaseID: fmt.Sprintf("c%d", i), Judge: "recorded/prod", JudgeCalled: true,
			Calls: []replay.Call{{Rules: 1, Status: "ok", LatencyMS: float64(100 * (i + 1))}},
			Rules: []replay.RuleResult{{RuleID: "no-rm-rf", Class: "dangerous", Source: "judge",
				Result: "match", Label: label, Status: "ok", Fired: true, Action: "deny_current_tool", Call: 0}},
		})
	}
	s := a.Close()
	row := s.Judge("recorded/prod").Rule("no-rm-rf")
	fmt.Printf("precision %.2f [%.2f, %.2f]\n", *row.Precision, *row.PrecisionLo, *row.PrecisionHi)
	fmt.Println("p95", *s.Judges[0].Total.LatencyP95MS, "ms")
	fmt.Println(metrics.CriterionPrecisionMin, row.Status(metrics.CriterionPrecisionMin))
	fmt.Println("verdict", s.Verdict)
	// Output:
	// precision 0.75 [0.30, 0.95]
	// p95 400 ms
	// precision_min INCONCLUSIVE
	// verdict NO-GO
}
