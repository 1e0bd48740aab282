package examples

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// .ci/fuzz.sh (make fuzz) passes Go 1.26's bare "context deadline
// exceeded" at the -fuzztime boundary when nothing was written (the
// coordinator race, golang/go#75804), and fails on anything else: a
// failing input written, a panic, a failed seed replay. A stand-in `go`
// plays each outcome.
func TestFuzzScriptTellsTheRaceFromAFinding(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, fuzzOut     string
		writes, seedFails bool
		wantOK            bool
	}{
		{name: "clean", wantOK: true},
		{name: "the race", fuzzOut: "--- FAIL: FuzzX (10.17s)\n    context deadline exceeded\nFAIL", wantOK: true},
		{name: "the race, seed replay fails", fuzzOut: "--- FAIL: FuzzX (10.17s)\n    context deadline exceeded\nFAIL", seedFails: true},
		{name: "a finding", fuzzOut: "--- FAIL: FuzzX (3.02s)\n    x_test.go:12: boom\n    Failing input written to testdata/fuzz/FuzzX/abc\nFAIL", writes: true},
		{name: "a panic at the deadline", fuzzOut: "--- FAIL: FuzzX (10.1s)\n    context deadline exceeded\npanic: runtime error\nFAIL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			pkg := filepath.Join(dir, "pkg")
			if err := os.MkdirAll(filepath.Join(pkg, "testdata", "fuzz", "FuzzX"), 0o755); err != nil {
				t.Fatal(err)
			}
			fuzzRC := "0"
			if tc.fuzzOut != "" {
				fuzzRC = "1"
			}
			write := ""
			if tc.writes {
				write = "touch " + filepath.Join(pkg, "testdata", "fuzz", "FuzzX", "abc")
			}
			seedRC := "0"
			if tc.seedFails {
				seedRC = "1"
			}
			fake := filepath.Join(dir, "go")
			script := "#!/usr/bin/env bash\n" +
				"case \"$*\" in\n" +
				"*-fuzz*) printf '%s\\n' " + shellQuote(tc.fuzzOut) + "; " + write + "\n exit " + fuzzRC + ";;\n" +
				"*) exit " + seedRC + ";;\n" +
				"esac\n"
			if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("bash", filepath.Join(repoRoot, ".ci", "fuzz.sh"), "FuzzX", pkg, "1s")
			cmd.Env = append(os.Environ(), "GO="+fake)
			out, err := cmd.CombinedOutput()
			if ok := err == nil; ok != tc.wantOK {
				t.Fatalf("passed = %v, want %v:\n%s", ok, tc.wantOK, out)
			}
			if tc.name == "the race" && !strings.Contains(string(out), "golang/go#75804") {
				t.Errorf("the race passed without saying so:\n%s", out)
			}
		})
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
