package reports

import (
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The statistics, the reports and the replay engine depend on the judges'
// shared types (judge/core), never on a backend: no judge client, no
// Ollama library, no cache database (issue 33, docs/internals.md).
func TestNoBackendBelowTheCommand(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	const mod = "github.com/apeval/apeval/"
	out, err := exec.Command(goBin, "list", "-deps", mod+"metrics/...", mod+"reports/...", mod+"replay/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		backend := p == mod+"judge" || (strings.HasPrefix(p, mod+"judge/") && p != mod+"judge/core") ||
			strings.HasPrefix(p, "github.com/ollama/") || strings.HasPrefix(p, "go.etcd.io/bbolt") ||
			strings.HasPrefix(p, "github.com/anthropics/")
		if backend {
			t.Errorf("metrics, reports or replay depend on backend package %s", p)
		}
	}
}

// Every package of the pipeline's stages (datasets, replay, judge, metrics,
// reports and their subpackages) says in its doc that it is not a stable
// Go API (issue 33): apeval is a command; internal packages and programs
// (package main) are not importable anyway.
func TestStagePackagesSayNotStable(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	const mod = "github.com/apeval/apeval/"
	args := []string{"list", "-f", "{{.ImportPath}}\t{{.Name}}\t{{.Dir}}\t{{join .GoFiles \" \"}}"}
	for _, s := range []string{"datasets", "replay", "judge", "metrics", "reports"} {
		args = append(args, mod+s+"/...")
	}
	out, err := exec.Command(goBin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(line, "\t", 4)
		if len(f) < 4 || f[1] == "main" || strings.Contains(f[0], "/internal/") {
			continue
		}
		doc := ""
		for _, name := range strings.Fields(f[3]) {
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, filepath.Join(f[2], name), nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			if file.Doc != nil {
				doc += file.Doc.Text()
			}
		}
		checked++
		if !strings.Contains(strings.Join(strings.Fields(doc), " "), "Not a stable Go API") {
			t.Errorf("%s: its package doc does not say it is not a stable Go API", f[0])
		}
	}
	if checked < 10 {
		t.Errorf("only %d packages checked", checked)
	}
}
