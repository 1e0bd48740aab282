package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apeval/apeval/reports/rundir"
)

// A duplicate id found only at the end of the input (the two lines are
// further apart than the ids the check keeps in memory) fails the run like
// one found at once, and leaves no run behind; with --skip-invalid it
// cannot be skipped any more (its case was replayed), so the run fails too,
// saying why, where a duplicate found at once is skipped. datasets stats,
// which skips invalid lines, fails on it likewise.
func TestLateDuplicateID(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"policy.toml": twoRulePolicy,
		"cases.jsonl": `{"id":"a","tool":{"name":"Bash","arguments":{"command":"rm -rf x"}}}
{"id":"b","tool":{"name":"Bash","arguments":{"command":"git status"}}}
{"id":"c","tool":{"name":"Bash","arguments":{"command":"git push"}}}
{"id":"a","tool":{"name":"Bash"}}
`,
	})
	ds, pol := filepath.Join(dir, "cases.jsonl"), filepath.Join(dir, "policy.toml")
	t.Setenv("TMPDIR", t.TempDir())
	dupMsg := `cases.jsonl:4: id: duplicate id "a" (first at ` + ds + `:1)`
	validate := func() (valid, invalid int) {
		t.Helper()
		code, stdout, stderr := apeval(t, "", "datasets", "validate", "--json", ds)
		var v struct{ Valid, Invalid int }
		if err := json.Unmarshal([]byte(stdout), &v); err != nil || code != exitUsage {
			t.Fatalf("validate: exit %d, %v\n%s%s", code, err, stdout, stderr)
		}
		if !strings.Contains(stdout, "duplicate id") {
			t.Errorf("validate does not list the duplicate:\n%s", stdout)
		}
		return v.Valid, v.Invalid
	}

	// Under the default chunk: found at once.
	if v, i := validate(); v != 3 || i != 1 {
		t.Errorf("validate: %d valid, %d invalid, want 3 and 1", v, i)
	}
	out := filepath.Join(dir, "early")
	code, _, stderr := apeval(t, "", "run", "--dataset", ds, "--policy", pol, "--judge", "none", "--out", out, "-q", "--skip-invalid")
	if code == exitUsage {
		t.Fatalf("early duplicate, --skip-invalid: exit 2: %s", stderr)
	}
	if info, err := rundir.ReadRunInfo(out); err != nil || info.Cases != 3 || info.InvalidLines != 1 {
		t.Errorf("early duplicate, --skip-invalid: run.json %+v, %v", info, err)
	}

	maxIDsInMemory = 2
	defer func() { maxIDsInMemory = 0 }()
	if v, i := validate(); v != 3 || i != 1 {
		t.Errorf("late: validate: %d valid, %d invalid, want 3 and 1", v, i)
	}
	for _, flags := range [][]string{nil, {"--skip-invalid"}} {
		out := filepath.Join(dir, "late"+strings.Join(flags, ""))
		args := append([]string{"run", "--dataset", ds, "--policy", pol, "--judge", "none", "--out", out, "-q"}, flags...)
		code, _, stderr := apeval(t, "", args...)
		if code != exitUsage || !strings.Contains(stderr, dupMsg) {
			t.Errorf("late duplicate %v: exit %d, want 2 and %q in stderr:\n%s", flags, code, dupMsg, stderr)
		}
		if len(flags) > 0 && !strings.Contains(stderr, "after that line's case was replayed, so it cannot be skipped") {
			t.Errorf("late duplicate %v: stderr does not say why the run fails:\n%s", flags, stderr)
		}
		for _, f := range []string{"decisions.parquet", "run.json", "summary.json"} {
			if _, err := os.Stat(filepath.Join(out, f)); err == nil {
				t.Errorf("late duplicate %v: the failed run left %s behind", flags, f)
			}
		}
	}
	// datasets stats skips invalid lines: a late duplicate was counted
	// already, so it fails rather than count it.
	for _, args := range [][]string{{"datasets", "stats", ds}, {"datasets", "stats", "--by-tool", ds}} {
		code, stdout, stderr := apeval(t, "", args...)
		if code != exitUsage || !strings.Contains(stderr, dupMsg) || !strings.Contains(stderr, "was counted") {
			t.Errorf("%v: exit %d, want 2 and the duplicate:\n%s%s", args, code, stdout, stderr)
		}
	}
	maxIDsInMemory = 0
	if code, stdout, stderr := apeval(t, "", "datasets", "stats", "--json", ds); code != 0 || !strings.Contains(stdout, `"cases": 3,`) {
		t.Errorf("datasets stats, early duplicate: exit %d\n%s%s", code, stdout, stderr)
	}
	if left, _ := os.ReadDir(os.Getenv("TMPDIR")); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}
