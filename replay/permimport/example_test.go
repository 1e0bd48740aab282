package permimport_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/apeval/apeval/replay/permimport"
)

// A Codex execpolicy file as its README shows it: the strictest matching
// rule decides.
func ExampleLoad() {
	dir, _ := os.MkdirTemp("", "rules")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "default.rules")
	_ = os.WriteFile(path, []byte(`prefix_rule(pattern = ["git"], decision = "allow")
prefix_rule(pattern = ["git", ["push", "fetch"]], decision = "prompt")
prefix_rule(pattern = ["git", "reset", "--hard"], decision = "forbidden")
`), 0o644)
	src, err := permimport.Load("codex:" + path)
	if err != nil {
		panic(err)
	}
	for _, cmd := range []string{"git status", "git push origin main", "git reset --hard", "make"} {
		d := src.Decide(permimport.Call{Tool: "shell", Args: map[string]any{"command": cmd}})
		if d == "" {
			d = "(no rule)"
		}
		fmt.Printf("%-20s %s\n", cmd, d)
	}
	// Output:
	// git status           allow
	// git push origin main ask
	// git reset --hard     deny
	// make                 (no rule)
}
