package reports_test

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/internal/duckdbtest"
)

// The session-clustered recall interval of each judge's total row,
// recomputed from decisions.parquet alone in SQL: the labeled positives
// grouped by session give y_i (hits) and m_i (units); then
//
//	V_clu = k/(k−1) · Σ (y_i − p̂·m_i)² / M²,  V_bin = p̂(1−p̂)/M,
//	deff = max(1, V_clu/V_bin),  Wilson at n_eff = M/deff.
//
// On the sample the newer judge has 179 hits of 189 positives in 117
// sessions: deff 1.124, so the interval is Wilson at n = 168.1, not 189.
func TestClusteredRecallFromDecisionFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "run")
	replaySample(t, dir, "r1", reports.LayoutFlat)
	s := report(t, dir)
	q := fmt.Sprintf(`
WITH u AS (
  SELECT judge, session_id,
         count(*) FILTER (WHERE result = 'match' AND status NOT IN ('invalid', 'timeout', 'error')) AS y,
         count(*) AS m
  FROM read_parquet(%s)
  WHERE label = 'match' AND source <> 'scope' AND status <> 'missing'
  GROUP BY judge, session_id),
t AS (SELECT judge, sum(y)::DOUBLE AS yy, sum(m)::DOUBLE AS mm, count(*)::DOUBLE AS k FROM u GROUP BY judge),
v AS (
  SELECT t.judge, t.yy / t.mm AS p, t.mm AS mm, t.k AS k,
         (SELECT sum(power(u.y - (t.yy / t.mm) * u.m, 2)) FROM u WHERE u.judge = t.judge) AS ss
  FROM t)
SELECT judge, p, mm, greatest(1, ((k / (k - 1)) * ss / (mm * mm)) / (p * (1 - p) / mm)) AS deff FROM v`,
		duckdbtest.Literal(filepath.Join(dir, reports.DecisionsFile)))
	rows := duckdbtest.Query(t, q)[0]
	if len(rows) != len(s.Judges) {
		t.Fatalf("SQL gives %d judges, the report %d", len(rows), len(s.Judges))
	}
	const z = 1.959963984540054 // Φ⁻¹(0.975)
	sawClustered := false
	for _, r := range rows {
		js := s.Judge(fmt.Sprint(r["judge"]))
		if js == nil {
			t.Fatalf("judge %v not in the report", r["judge"])
		}
		p, m, deff := num(t, r["p"]), num(t, r["mm"]), num(t, r["deff"])
		n := m / deff
		c := (p + z*z/(2*n)) / (1 + z*z/n)
		h := z * math.Sqrt(p*(1-p)/n+z*z/(4*n*n)) / (1 + z*z/n)
		tot := js.Total
		for _, cmp := range []struct {
			name      string
			got, want float64
		}{
			{"recall", *tot.Recall, p}, {"recall_deff", *tot.RecallDeff, deff},
			{"recall_lo", *tot.RecallLo, c - h}, {"recall_hi", *tot.RecallHi, c + h},
		} {
			if math.Abs(cmp.got-cmp.want) > 1e-12 {
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
