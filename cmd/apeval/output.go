package main

import (
	"io"

	"github.com/apeval/apeval/reports"
)

// parseFormat checks a --format value ("" = decide by the output stream).
func parseFormat(f string) error {
	if f == "" {
		return nil
	}
	if _, err := reports.ParseFormat(f); err != nil {
		return usagef("--format: %v", err)
	}
	return nil
}

// outputFormat resolves the terminal format: the flag when given, else an
// aligned table on a terminal and TSV when piped.
func outputFormat(flag string, w io.Writer) reports.Format {
	if flag != "" {
		f, _ := reports.ParseFormat(flag)
		return f
	}
	return reports.DefaultFormat(w)
}

func isTerminal(w io.Writer) bool { return reports.IsTerminal(w) }
