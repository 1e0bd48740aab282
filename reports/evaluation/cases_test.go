package evaluation

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/rundir"
)

// The case lists get their arguments from a dataset run.json names only
// while its content is unchanged.
func TestDescribeFromReadsOnlyTheUnchangedDataset(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "cases.jsonl")
	data := []byte(`{"id":"c00","session_id":"s0","tool":{"name":"Bash","arguments":{"command":"rm -rf /tmp/x"}}}` + "\n" +
		`{"id":"c01","session_id":"s0","tool":{"name":"Bash","arguments":{"command":"ls"}}}` + "\n")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	lists := func() *reports.CaseLists {
		cl := reports.NewCaseLists()
		for _, r := range results("J", 2) {
			r.Rules[0].Label = "no_match" // c00, judged match: a false positive
			cl.Add(r)
		}
		return cl
	}
	cl := lists()
	DescribeFrom(nil)(cl, rundir.RunInfo{Datasets: []rundir.FileRef{{Name: path, SHA256: hex.EncodeToString(sum[:])}}})
	re := cl.Rule("J", "R1")
	if re == nil || len(re.FalsePositives) != 1 || !strings.Contains(re.FalsePositives[0].Arguments, "rm -rf /tmp/x") || cl.Note != "" {
		t.Fatalf("unchanged dataset: lists %+v, note %q", re, cl.Note)
	}
	cl = lists()
	DescribeFrom(nil)(cl, rundir.RunInfo{Datasets: []rundir.FileRef{{Name: path, SHA256: strings.Repeat("0", 64)}}})
	if re := cl.Rule("J", "R1"); re.FalsePositives[0].Arguments != "" || !strings.Contains(cl.Note, "is not available unchanged") {
		t.Errorf("changed dataset: arguments %q, note %q", re.FalsePositives[0].Arguments, cl.Note)
	}
	cl = lists()
	DescribeFrom(nil)(cl, rundir.RunInfo{})
	if !strings.Contains(cl.Note, "run.json names no dataset") {
		t.Errorf("no dataset: note %q", cl.Note)
	}
}
