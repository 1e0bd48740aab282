package main

import (
	"io"
	"os"
	"strconv"

	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// registerGlobalFlags adds the flags every command accepts: the project
// file and the terminal manners.
func registerGlobalFlags(root *cobra.Command, t *termSettings) {
	pf := root.PersistentFlags()
	pf.String("config", "", "project file (default: ./apeval.toml when present)")
	pf.BoolVar(&t.noColor, "no-color", false, "no colour in terminal output (also: the NO_COLOR environment variable)")
	pf.BoolVar(&t.wide, "wide", false, "print every table column whatever the terminal width")
}

// termSettings are the global terminal flags.
type termSettings struct {
	noColor bool
	wide    bool
}

func (io IO) getenv(k string) string {
	if io.Getenv != nil {
		return io.Getenv(k)
	}
	return os.Getenv(k)
}

// useColor: colour only on a terminal, never with --no-color or NO_COLOR
// set to anything non-empty (no-color.org).
func useColor(w io.Writer, io IO) bool {
	return isTerminal(w) && (io.term == nil || !io.term.noColor) && io.getenv("NO_COLOR") == ""
}

// termWidth is the width tables must fit: the terminal's columns (COLUMNS
// when the size cannot be read), 0 = no limit (piped output, --wide).
func termWidth(w io.Writer, io IO) int {
	if (io.term != nil && io.term.wide) || !isTerminal(w) {
		return 0
	}
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	if n, err := strconv.Atoi(io.getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 0
}
