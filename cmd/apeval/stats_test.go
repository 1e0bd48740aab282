package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// datasets stats skips bad lines and says how many: the JSON's "invalid"
// and the table's "invalid lines" count them (both said 0 before).
func TestDatasetsStatsCountsInvalidLines(t *testing.T) {
	t.Parallel()
	ds := filepath.Join(t.TempDir(), "cases.jsonl")
	data := `{"id":"a","tool":{"name":"Bash","arguments":{"command":"ls"}}}
{"id":"b","tool":{}}
not json
{"id":"c","tool":{"name":"Read"}}
`
	if err := os.WriteFile(ds, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := apeval(t, "", "datasets", "stats", "--json", ds)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var st struct {
		Cases   int `json:"cases"`
		Invalid int `json:"invalid"`
	}
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if st.Cases != 2 || st.Invalid != 2 {
		t.Errorf("cases %d, invalid %d; want 2 and 2\n%s", st.Cases, st.Invalid, stdout)
	}
	code, stdout, _ = apeval(t, "", "datasets", "stats", "--format", "tsv", ds)
	if code != 0 || !strings.Contains(stdout, "invalid lines\t2") {
		t.Errorf("exit %d; the table does not count 2 invalid lines:\n%s", code, stdout)
	}
}
