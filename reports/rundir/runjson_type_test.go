package rundir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadRunInfoNamesTheWrongField: a run.json field of the wrong type
// is named as the file spells it. By hand, report/gate on a run.json
// with "schema": 5 said "json: cannot unmarshal number into Go struct
// field RunInfo.schema of type string".
func TestReadRunInfoNamesTheWrongField(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, RunFile), []byte(`{"schema": 5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadRunInfo(dir)
	want := filepath.Join(dir, RunFile) + ": schema: want string, got number"
	if err == nil || err.Error() != want || strings.Contains(err.Error(), "Go struct") {
		t.Errorf("error %v, want %q", err, want)
	}
}
