package main

import (
	"strings"
	"testing"
)

// A command that only groups others refuses a word naming none of them
// (exit 2; it printed its help and exited 0), prints its help when bare,
// and its usage and its subcommands' usage read as before.
func TestGroupCommandRefusesUnknownSubcommand(t *testing.T) {
	t.Parallel()
	code, _, stderr := apeval(t, "", "datasets", "describe", "cases.jsonl")
	if code != exitUsage || !strings.Contains(stderr, `unknown command "describe" for "apeval datasets"`) {
		t.Errorf("datasets describe: exit %d, stderr %q; want exit 2, unknown command", code, stderr)
	}
	code, stdout, stderr := apeval(t, "", "datasets")
	if code != 0 || !strings.Contains(stdout, "Usage:\n  apeval datasets [command]\n") || strings.Contains(stdout, "datasets [flags]") {
		t.Errorf("bare datasets: exit %d, stdout %q, stderr %q; want its help, usage 'apeval datasets [command]'", code, stdout, stderr)
	}
	code, stdout, _ = apeval(t, "", "datasets", "validate", "--help")
	if code != 0 || !strings.Contains(stdout, "Usage:\n  apeval datasets validate [FILE...] [flags]\n") {
		t.Errorf("datasets validate --help: exit %d; its usage line is gone:\n%s", code, stdout)
	}
}
