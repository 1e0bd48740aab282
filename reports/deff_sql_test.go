package reports_test

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/reports/internal/duckdbtest"
	"github.com/apeval/apeval/reports/rundir"
)

// The session-clustered recall interval of each judge's total row,
// recomputed from decisions.parquet alone: SQL groups the labeled
// positives by session into y_i (hits) and m_i (units), and
// metrics.ClusteredInterval on those sessions must give the report's
// interval and design effect exactly.
func TestClusteredRecallFromDecisionFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "run")
	replaySample(t, dir, "r1", rundir.LayoutFlat)
	s := report(t, dir)
	q := fmt.Sprintf(`
SELECT judge, session_id,
       count(*) FILTER (WHERE result = 'match' AND status NOT IN ('invalid', 'timeout', 'error')) AS y,
       count(*) AS m
FROM read_parquet(%s)
WHERE label = 'match' AND source <> 'scope' AND status <> 'missing'
GROUP BY judge, session_id ORDER BY judge, session_id`,
		duckdbtest.Literal(filepath.Join(dir, rundir.DecisionsFile)))
	type sess struct{ ys, ms []int64 }
	by := map[string]*sess{}
	for _, r := range duckdbtest.Query(t, q)[0] {
		j := fmt.Sprint(r["judge"])
		if by[j] == nil {
			by[j] = &sess{}
		}
		by[j].ys = append(by[j].ys, int64(num(t, r["y"])))
		by[j].ms = append(by[j].ms, int64(num(t, r["m"])))
	}
	if len(by) != len(s.Judges) {
		t.Fatalf("SQL gives %d judges, the report %d", len(by), len(s.Judges))
	}
	sawClustered := false
	for j, ss := range by {
		js := s.Judge(j)
		if js == nil {
			t.Fatalf("judge %v not in the report", j)
		}
		var y, m int64
		for i := range ss.ms {
			y, m = y+ss.ys[i], m+ss.ms[i]
		}
		lo, hi, deff := metrics.ClusteredInterval(ss.ys, ss.ms, 0.95)
		tot := js.Total
		// The report's deff is the sessions' design effect, absent where
		// they show no spread (ClusteredInterval's NaN).
		got := math.NaN()
		if tot.RecallDeff != nil {
			got = *tot.RecallDeff
		}
		if math.IsNaN(got) != math.IsNaN(deff) {
			t.Errorf("%s recall_deff: report %v, from the decision file %v", js.Judge, got, deff)
		}
		for _, cmp := range []struct {
			name      string
			got, want float64
		}{
			{"recall", *tot.Recall, float64(y) / float64(m)}, {"recall_deff", got, deff},
			{"recall_lo", *tot.RecallLo, lo}, {"recall_hi", *tot.RecallHi, hi},
		} {
			if math.Abs(cmp.got-cmp.want) > 1e-12 || math.IsNaN(cmp.got) != math.IsNaN(cmp.want) {
				t.Errorf("%s %s: report %.15g, from the decision file %.15g", js.Judge, cmp.name, cmp.got, cmp.want)
			}
		}
		sawClustered = sawClustered || deff > 1.05
	}
	if !sawClustered {
		t.Error("no judge's positives are clustered by session: the test checks nothing beyond plain Wilson")
	}
}

func num(t *testing.T, v any) float64 {
	t.Helper()
	switch x := v.(type) {
	case float64:
		return x
	case int64:
		return float64(x)
	case string:
		var f float64
		if _, err := fmt.Sscan(x, &f); err != nil {
			t.Fatalf("not a number: %q", x)
		}
		return f
	}
	t.Fatalf("not a number: %T %v", v, v)
	return 0
}
