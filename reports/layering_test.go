package reports

import (
	"os/exec"
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
