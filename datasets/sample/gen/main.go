// Command gen writes the embedded sample (cases.jsonl, policy.toml) into the
// current directory. Run it with `go generate` in datasets/sample.
package main

import (
	"fmt"
	"os"

	"github.com/apeval/apeval/datasets/internal/samplegen"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run() error {
	files, err := samplegen.Generate()
	if err != nil {
		return err
	}
	if err := os.WriteFile("cases.jsonl", files.Cases, 0o644); err != nil {
		return err
	}
	return os.WriteFile("policy.toml", files.Policy, 0o644)
}
