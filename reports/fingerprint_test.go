package reports

import (
	"path/filepath"
	"testing"

	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/internal/duckdbtest"
	"github.com/apeval/apeval/reports/rundir"
	"github.com/parquet-go/parquet-go"
)

// The fingerprint column holds the SHA-256 as 32 raw bytes (half the hex
// text); DuckDB reads it as a BLOB whose hex is replay's fingerprint.
func TestFingerprintIs32Bytes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rs := fixtureResults()
	rs[0].Rules[0].Fingerprint = replay.Digest{} // no fingerprint: null
	writeRun(t, dir, rs)
	want := map[string]string{} // case/judge/rule → fingerprint
	for _, r := range rs {
		for _, rr := range r.Rules {
			want[r.CaseID+"/"+r.Judge+"/"+rr.RuleID] = rr.Fingerprint.String()
		}
	}
	rows := duckdbtest.Query(t, "SELECT case_id, judge, rule_id, lower(hex(fingerprint)) AS fp, octet_length(fingerprint) AS n FROM read_parquet("+
		duckdbtest.Literal(filepath.Join(dir, rundir.DecisionsFile))+")")[0]
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	nulls := 0
	for _, r := range rows {
		k := r["case_id"].(string) + "/" + r["judge"].(string) + "/" + r["rule_id"].(string)
		if r["fp"] == nil {
			nulls++
			if want[k] != "" {
				t.Errorf("%s: null fingerprint, want %s", k, want[k])
			}
			continue
		}
		if r["fp"] != want[k] || r["n"] != "32" {
			t.Errorf("%s: DuckDB reads %v (%v bytes), want %s (32 bytes)", k, r["fp"], r["n"], want[k])
		}
	}
	if nulls != 1 {
		t.Errorf("%d null fingerprints, want 1", nulls)
	}
	// And apeval reads them back as the same digests.
	var got []*replay.Result
	if _, err := rundir.ReadRun(dir, func(r *replay.Result) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	for _, r := range got {
		for _, rr := range r.Rules {
			if k := r.CaseID + "/" + r.Judge + "/" + rr.RuleID; rr.Fingerprint.String() != want[k] {
				t.Errorf("%s: read back %q, want %q", k, rr.Fingerprint, want[k])
			}
		}
	}
}

// Run directories written before fingerprints were raw bytes (hex text in
// a string column) still read back.
func TestFingerprintOldHexColumn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	type oldDecision struct {
		RunID       string `parquet:"run_id"`
		CaseID      string `parquet:"case_id"`
		Judge       string `parquet:"judge"`
		RuleID      string `parquet:"rule_id"`
		Source      string `parquet:"source"`
		Result      string `parquet:"result"`
		Status      string `parquet:"status"`
		Fingerprint string `parquet:"fingerprint"`
	}
	type oldGate struct {
		RunID  string `parquet:"run_id"`
		CaseID string `parquet:"case_id"`
		Judge  string `parquet:"judge"`
	}
	hexFP := fingerprint("old").String()
	if err := parquet.WriteFile(filepath.Join(dir, rundir.DecisionsFile), []oldDecision{{"r", "c1", "j", "rule", "deterministic", "match", "ok", hexFP}}); err != nil {
		t.Fatal(err)
	}
	if err := parquet.WriteFile(filepath.Join(dir, rundir.GatesFile), []oldGate{{"r", "c1", "j"}}); err != nil {
		t.Fatal(err)
	}
	if err := rundir.WriteRunInfo(dir, testInfo()); err != nil {
		t.Fatal(err)
	}
	var got string
	if _, err := rundir.ReadRun(dir, func(r *replay.Result) error {
		if len(r.Rules) == 1 {
			got = r.Rules[0].Fingerprint.String()
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got != hexFP {
		t.Fatalf("read %q, want %q", got, hexFP)
	}
}
