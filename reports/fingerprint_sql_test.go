package reports_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/internal/duckdbtest"
	"github.com/apeval/apeval/reports/rundir"
)

// decisions.parquet carries a fingerprint only where an approval can refer
// to it: on the rows whose rule fired and on the rows skipped because the
// call's approved_fingerprints held it (source scope). Read through
// DuckDB, each of those equals replay.Fingerprint computed from the
// recorded case; every other row is NULL.
func TestFingerprintOnFiredAndApprovedRowsOnly(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	replaySample(t, dir, "r1", rundir.LayoutFlat)

	cases := map[string]*datasets.Case{} // masked case id → case
	rd := datasets.Open([]string{"-"}, datasets.SampleCases())
	for rd.Scan() {
		rec := rd.Record()
		if rec.Err != nil {
			t.Fatal(rec.Err)
		}
		id := mask.ID(rec.Case.ID)
		if cases[id] != nil {
			t.Fatalf("case %s twice in the sample", id)
		}
		cases[id] = rec.Case
	}
	rd.Close()

	rows := duckdbtest.Query(t, `SELECT case_id, judge, rule_id, rule_version, fired, source,
  lower(hex(fingerprint)) AS fp, octet_length(fingerprint) AS n
FROM read_parquet(`+duckdbtest.Literal(filepath.Join(dir, rundir.DecisionsFile))+`)`)[0]
	var fired, scope, null int
	for _, r := range rows {
		k := fmt.Sprintf("%v/%v/%v", r["case_id"], r["judge"], r["rule_id"])
		c := cases[r["case_id"].(string)]
		if c == nil {
			t.Fatalf("%s: no such case in the sample", k)
		}
		isFired, isScope := r["fired"] == true, r["source"] == "scope"
		if !isFired && !isScope {
			null++
			if r["fp"] != nil {
				t.Errorf("%s: neither fired nor approved, fingerprint %v, want NULL", k, r["fp"])
			}
			continue
		}
		if isFired {
			fired++
		} else {
			scope++
		}
		sid := c.SessionID
		if sid == "" {
			sid = c.ID
		}
		var version int
		if _, err := fmt.Sscan(fmt.Sprint(r["rule_version"]), &version); err != nil {
			t.Fatal(err)
		}
		want := replay.Fingerprint(sid, c.Piece, c.Movement, c.Tool.Name, c.Tool.Arguments, r["rule_id"].(string), version)
		if r["fp"] != want || fmt.Sprint(r["n"]) != "32" {
			t.Errorf("%s (fired %v, source %v): fingerprint %v (%v bytes), want %s (32 bytes)", k, r["fired"], r["source"], r["fp"], r["n"], want)
		}
		if isScope {
			approved := false
			for _, a := range c.Context.ApprovedFingerprints {
				approved = approved || a == want
			}
			if !approved {
				t.Errorf("%s: skipped as approved, but %s is not in its approved_fingerprints", k, want)
			}
		}
	}
	// The sample exercises all three kinds of row.
	if fired == 0 || scope == 0 || null == 0 {
		t.Fatalf("fired %d, approved %d, other %d rows: want some of each", fired, scope, null)
	}
	t.Logf("%d fired, %d approved and %d other rows", fired, scope, null)
}
