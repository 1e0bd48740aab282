package mask

import (
	"fmt"
	"io"
	"strings"
)

// Lines is the masking pass over a message, line by line: a multi-line
// error lists separate problems, and a secret word ending one line
// ("unknown key") says nothing about the path starting the next.
func Lines(s string) string {
	if !strings.Contains(s, "\n") {
		return String(s)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = String(l)
	}
	return strings.Join(lines, "\n")
}

// Writer is a log stream through the masking pass: each write (one log
// line or more: warnings quote URLs, commands and servers' messages) goes
// to w as prefix and Lines of it.
func Writer(w io.Writer, prefix string) io.Writer { return prefixed{w: w, prefix: prefix} }

type prefixed struct {
	w      io.Writer
	prefix string
}

func (p prefixed) Write(b []byte) (int, error) {
	if _, err := fmt.Fprintf(p.w, "%s%s", p.prefix, Lines(string(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}
